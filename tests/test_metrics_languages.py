"""TREED and the code tokeniser beyond Java (``lang=``), on real revisions of seven languages.

The pairs are real: the functions Lizard finds in both the ``before`` and the ``after`` of a commit of
``code_revisions`` whose text the commit changed. Expected values are computed here, independently of the
metric's walk: the tree is built in this file from tree-sitter's parse by the labelling rules the docstring of
``revmine.metrics.tree`` states (restated below), the tree edit distance is ``zss``'s Zhang-Shasha, normalised
by the sum of the tree sizes (RUBY); the tokens are checked against pygments' lexers (comments) and the text.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib.metadata import version
from pathlib import Path

import lizard
import numpy as np
import pytest
import zss  # test dependency: the reference pure-Python Zhang-Shasha
from pygments.lexers import get_lexer_by_name
from pygments.token import Comment, Text
from rapidfuzz.distance import Levenshtein

from revmine.errors import InputError
from revmine.lang.languages import parser
from revmine.metrics import compute
from revmine.metrics.registry import make_metric
from revmine.metrics.score import score_columns
from revmine.metrics.tokens import code_tokens
from revmine.metrics.tree import TreeEditDistance, TreeEditSimilarity, method_tree

REVISIONS = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "code_revisions" / "revisions.jsonl"
LANGUAGES = ("python", "javascript", "typescript", "go", "c", "cpp", "csharp")

# --- the documented labelling rules (tree.py's module docstring, "Languages") ------------------------------

_C = {"binary_expression", "unary_expression", "update_expression", "assignment_expression", "pointer_expression",
      "storage_class_specifier", "type_qualifier", "sized_type_specifier"}
_JS = {"binary_expression", "unary_expression", "update_expression", "assignment_expression",
       "augmented_assignment_expression"}
#: node types all of whose tokens are leaves (operators, modifier and type keywords)
VARYING = {
    "python": {"binary_operator", "boolean_operator", "comparison_operator", "unary_operator", "augmented_assignment"},
    "javascript": _JS,
    "typescript": _JS | {"accessibility_modifier", "predefined_type"},
    "go": {"binary_expression", "unary_expression", "assignment_statement", "inc_statement", "dec_statement"},
    "c": _C,
    "cpp": _C | {"access_specifier", "virtual_specifier"},
    "csharp": {"binary_expression", "prefix_unary_expression", "postfix_unary_expression", "unary_expression",
               "assignment_expression", "modifier"},
}
#: literals read as one leaf (one token)
LITERALS = {
    "python": {"string"},
    "javascript": {"string", "template_string"},
    "typescript": {"string", "template_string"},
    "go": {"interpreted_string_literal", "raw_string_literal", "rune_literal"},
    "c": {"string_literal", "char_literal", "null"},
    "cpp": {"string_literal", "char_literal", "raw_string_literal", "null"},
    "csharp": {"string_literal", "character_literal", "verbatim_string_literal", "raw_string_literal",
               "interpolated_string_expression", "boolean_literal"},
}
KEPT = {"csharp": {"this", "base"}}
CLASS = (b"class _ {\n", b"\n}")
#: the readings, in order: the text alone, or inside a class
READINGS = {"javascript": [(b"", b""), CLASS], "typescript": [(b"", b""), CLASS], "csharp": [CLASS, (b"", b"")]}


def build(node, source: bytes, lang: str) -> tuple:
    """(label, children) of a tree-sitter node by the documented rules."""
    if not node.child_count or node.type in LITERALS[lang]:
        return (source[node.start_byte:node.end_byte].decode(), ())
    kids = [kid for kid in node.children if not kid.is_extra
            and (kid.is_named or node.type in VARYING[lang] or kid.type in KEPT.get(lang, ()))]
    return (node.type, tuple(build(kid, source, lang) for kid in kids))


def expected_tree(code: str, lang: str) -> tuple | None:
    """The tree of one function: the first reading without errors whose top level is one node."""
    for before, after in READINGS.get(lang, [(b"", b"")]):
        source = before + code.encode() + after
        root = parser(lang).parse(source).root_node
        if root.has_error:
            continue
        top = [n for n in root.named_children if not n.is_extra]
        if before:
            top = [n for n in top[0].child_by_field_name("body").named_children if not n.is_extra]
        return build(top[0], source, lang) if len(top) == 1 else None
    return None


def size(tree: tuple) -> int:
    return 1 + sum(size(child) for child in tree[1])


def as_zss(tree: tuple) -> zss.Node:
    node = zss.Node(tree[0])
    for child in tree[1]:
        node.addkid(as_zss(child))
    return node


# --- the real pairs ---------------------------------------------------------------------------------------

#: pairs per language: the smallest trees, so that pure-Python zss stays within the time budget
PAIRS = 5


@lru_cache(maxsize=None)
def functions() -> dict[str, list[tuple[str, str]]]:
    """Per language, (before, after) texts of each function Lizard finds in both versions, changed."""
    out: dict[str, list[tuple[str, str]]] = {lang: [] for lang in LANGUAGES}
    for row in map(json.loads, REVISIONS.read_text(encoding="utf-8").splitlines()):
        spans = []
        for text in (row["before"], row["after"]):
            lines = text.splitlines()
            found = lizard.analyze_file.analyze_source_code(row["path"], text).function_list
            spans.append({f.long_name: "\n".join(lines[f.start_line - 1:f.end_line]) for f in found
                          if f.name != "*global*"})
        before, after = spans
        out[row["language"]] += [(before[name], after[name]) for name in sorted(before.keys() & after.keys())
                                 if before[name] != after[name]]
    return out


@lru_cache(maxsize=None)
def pairs(lang: str) -> list[tuple[str, str, tuple, tuple]]:
    """The ``PAIRS`` changed functions of ``lang`` with the fewest nodes whose two versions read (by this file's
    reading), distinct pairs."""
    chosen = {}
    for before, after in functions()[lang]:
        a, b = expected_tree(before, lang), expected_tree(after, lang)
        if a and b and a != b:
            chosen[before, after] = (before, after, a, b)
    assert len(chosen) >= PAIRS, (lang, len(chosen))  # the fixture has enough: a test that cannot pass empty
    return sorted(chosen.values(), key=lambda pair: size(pair[2]) + size(pair[3]))[:PAIRS]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_trees_are_the_documented_ones(lang):
    for before, after, a, b in pairs(lang):
        assert method_tree(before, lang=lang) == a
        assert method_tree(after, lang=lang) == b


@pytest.mark.parametrize("lang", LANGUAGES)
def test_treed_is_zhang_shasha_over_the_sum_of_sizes(lang):
    chosen = pairs(lang)
    befores, afters = [p[0] for p in chosen], [p[1] for p in chosen]
    expected = np.array([zss.simple_distance(as_zss(a), as_zss(b)) / (size(a) + size(b)) for _, _, a, b in chosen])
    details = TreeEditDistance(lang=lang).sentence_details(afters, befores)
    np.testing.assert_allclose(details.score, expected, rtol=0, atol=1e-12)
    assert details.hyp_nodes.tolist() == [size(b) for _, _, _, b in chosen]
    assert (0 < details.score).all() and (details.score < 1).all()  # changed trees, but one function
    np.testing.assert_allclose(TreeEditSimilarity(lang=lang).sentence_scores(afters, befores), 1 - expected,
                               rtol=0, atol=1e-12)
    # identity: every function against itself with a blank line more (another string: TED is computed, 0)
    texts = befores + afters
    assert (TreeEditDistance(lang=lang).sentence_scores([text + "\n\n" for text in texts], texts) == 0).all()


def lexer(lang: str):
    return get_lexer_by_name(lang, stripnl=False, ensurenl=False)


def without_comments(code: str, lang: str) -> str:
    """``code`` without its comments and whitespace, by pygments' lexer of the language (not tree-sitter)."""
    return re.sub(r"\s", "", "".join(text for kind, text in lexer(lang).get_tokens(code) if kind not in Comment
                                     or kind in Comment.Preproc or kind in Comment.PreprocFile))


def cut(code: str, lang: str) -> str:
    """``code`` cut at the first line end past its middle that pygments sees outside literals and comments, as
    a model's output is often cut (a cut inside a literal is read differently by different lexers)."""
    ends = [i for i, kind, text in lexer(lang).get_tokens_unprocessed(code)
            if i >= len(code) // 2 and "\n" in text and kind in Text]
    return code[:ends[0]] if ends else code


@pytest.mark.parametrize("lang", LANGUAGES)
def test_tokens_are_the_code_without_whitespace_and_comments(lang):
    texts = [text for pair in functions()[lang][:40] for text in pair]
    assert len(texts) >= 40
    for text in texts:
        tokens = code_tokens(text, lang)
        assert re.sub(r"\s", "", "".join(tokens)) == without_comments(text, lang)
        assert all(token == token.strip() != "" for token in tokens)
    # code cut in the middle still gives all its text, also where it does not parse (Python: 4 of 46)
    pieces = [cut(text, lang) for text in texts]
    assert sum(parser(lang).parse(piece.encode()).root_node.has_error for piece in pieces) >= 3
    for piece in pieces:
        assert re.sub(r"\s", "", "".join(code_tokens(piece, lang))) == without_comments(piece, lang)


@pytest.mark.parametrize(("lang", "code", "tokens"), [
    ("python", 'x = f"a {b}"  # c\nif x is not None:\n    pass', ["x", "=", 'f"a {b}"', "if", "x", "is", "not",
                                                                  "None", ":", "pass"]),
    ("javascript", "s = `a ${b} c` /* d */ + 'e f';", ["s", "=", "`a ${b} c`", "+", "'e f'", ";"]),
    ("go", 'r := \'x\' // y\ns := "a b"', ["r", ":=", "'x'", "s", ":=", '"a b"']),
    ("c", '#define N 1\nchar *s = "a\\" b"; // c', ["#define", "N", "1", "char", "*", "s", "=", '"a\\" b"', ";"]),
    ("csharp", 'var s = @"a b" + $"{c} d";', ["var", "s", "=", '@"a b"', "+", '$"{c} d"', ";"]),
])
def test_hand_worked_tokens(lang, code, tokens):
    # comments dropped, each literal one token however tree-sitter splits it (quotes, fragments, escapes)
    assert code_tokens(code, lang) == tokens


def t(label: str, *children: tuple) -> tuple:
    return (label, children)


def test_hand_worked_trees():
    # def f(x): return x + 1 -> function_definition(f, parameters(x), block(return_statement(binary_operator(x, +,
    # 1)))): 10 nodes; + -> - is one rename: 1 / 20. A comment changes nothing.
    python = "def f(x):\n    # c\n    return x + 1\n"
    assert method_tree(python, lang="python") == t("function_definition", t("f"), t("parameters", t("x")), t(
        "block", t("return_statement", t("binary_operator", t("x"), t("+"), t("1")))))
    assert TreeEditDistance(lang="python").score(python.replace("+", "-"), python) == pytest.approx(1 / 20)
    # C#'s `this` is an anonymous token of its grammar, kept as a leaf: this.x vs other.x is one rename
    csharp = "public int M() { return this.x; }"
    assert method_tree(csharp, lang="csharp") == t("method_declaration", t("modifier", t("public")), t("int"), t("M"),
                                                   t("parameter_list"), t("block", t("return_statement", t(
                                                       "member_access_expression", t("this"), t("x")))))
    assert TreeEditDistance(lang="csharp").score(csharp.replace("this", "other"), csharp) == pytest.approx(1 / 22)
    # a JavaScript method reads inside a class; two statements hang from a Statements root (wrap only)
    assert method_tree("m(a) { return a; }", lang="javascript") == t("method_definition", t("m"), t(
        "formal_parameters", t("a")), t("statement_block", t("return_statement", t("a"))))
    assert method_tree("a = 1; b = 2;", lang="javascript")[0] == "Statements"
    assert method_tree("a = 1; b = 2;", lang="javascript", wrap=False) is None
    assert method_tree("a = 1", lang="go", wrap=False) is None
    assert method_tree("func f() {}", lang="go", wrap=False) == t("function_declaration", t("f"), t("parameter_list"),
                                                                  t("block"))
    assert method_tree("int f( {", lang="c") is None  # an ERROR node: not parsed, as Java's


def test_fallbacks_use_the_languages_tokens():
    before, after, _, _ = pairs("go")[0]
    cut = after[:len(after) // 2]
    assert method_tree(cut, lang="go") is None
    a, b = code_tokens(cut, "go"), code_tokens(before, "go")
    metric = TreeEditSimilarity(lang="go", fallback="tokens")
    details = metric.sentence_details([cut], [before])
    assert details.fallback.tolist() == [True]
    # flat trees: a root over the tokens, so TED is token Levenshtein and the sizes are the counts + 1
    assert details.score[0] == pytest.approx(1 - Levenshtein.distance(a, b) / (len(a) + 1 + len(b) + 1), abs=1e-12)
    assert np.isnan(TreeEditSimilarity(lang="go").score(cut, before))
    sed = TreeEditDistance(lang="go", fallback="sed").score(cut, before)  # RUBY's string level: whitespace tokens
    assert sed == pytest.approx(Levenshtein.distance(cut.split(), before.split()) / max(len(cut.split()),
                                                                                          len(before.split())))


def test_signature_and_settings():
    python = TreeEditDistance(lang="python").signature().split("|")
    assert python[:3] == ["treed", "lang:python", f"parser:tree-sitter-python-{version('tree-sitter-python')}"]
    assert "repair:none" in python  # src2abs's repair is Java's
    csharp = TreeEditSimilarity(lang="csharp").signature()
    assert f"|parser:tree-sitter-c-sharp-{version('tree-sitter-c-sharp')}|" in csharp
    # Java: no lang field, the signature and values of before the setting
    assert TreeEditDistance(lang="java").signature() == TreeEditDistance().signature()
    assert "lang:" not in TreeEditDistance().signature()
    with pytest.raises(ValueError, match="javalang"):
        TreeEditDistance(lang="python", parser="javalang")
    with pytest.raises(ValueError, match="lang"):
        TreeEditDistance(lang="rust")  # a language revmine does not mine
    with pytest.raises(ValueError, match="lang"):
        code_tokens("x", "rust")


def test_registry_compute_and_score_stage_take_lang():
    chosen = pairs("typescript")
    hyps, refs = [p[1] for p in chosen], [p[0] for p in chosen]
    direct = TreeEditSimilarity(lang="typescript").sentence_scores(hyps, refs)
    metric = make_metric("treed_sim(lang=typescript, fallback=tokens)")
    assert metric.signature() == TreeEditSimilarity(lang="typescript", fallback="tokens").signature()
    np.testing.assert_array_equal(compute("treed_sim(lang=typescript)", hyps, refs), direct)
    # the score stage, in worker processes: the setting survives pickling, values byte-identical
    (column,) = score_columns([make_metric("treed_sim(lang=typescript)")], hyps * 2, refs * 2, workers=2)
    np.testing.assert_array_equal(column, np.concatenate([direct, direct]))
    with pytest.raises(InputError, match="javalang"):
        make_metric("treed(lang=python, parser=javalang)")
    with pytest.raises(InputError, match="lang"):
        make_metric("treed(lang=cobol)")
