"""Token streams of the eight languages and CodeNet's simplified parse trees of C, C++ and Python.

Expected values come from elsewhere than the module: token kinds and small SPTs are worked by hand from the
languages' references and CodeNet's definition (simplify one-child rules; Aroma's labels) over the tree-sitter
trees printed in the comments; the fixture's functions are found by Lizard, their comments by the test's own
tree-sitter parse, and Python's tokens by the standard library's ``tokenize``, an independent lexer.
"""

from __future__ import annotations

import io
import json
import tokenize
from collections import Counter
from functools import lru_cache
from pathlib import Path

import lizard
import pyarrow as pa
import pytest

from revmine.dataset.export import format_rows
from revmine.lang.languages import LANGUAGES, parser
from revmine.lang.representations import SPT_LANGUAGES, simplified_parse_tree, spt_tokens, token_stream
from revmine.preprocess.treeabstraction import abstract_code

REVISIONS = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "code_revisions" / "revisions.jsonl"
#: a few idioms, so that kept literals (``0``, ``""``) are read from their text in abstracted code
IDIOMS = frozenset({"0", "1", '""', "None", "NULL", "self", "size_t"})


def _kinds(code: str, language: str) -> dict[str, str]:
    return {t.text: t.kind for t in token_stream(code, language)}


@pytest.mark.parametrize("language, code, expected", [
    # Python reference 2.3-2.6: True/None/`or` are keywords, soft keywords and `print` are names, `=` and `:`
    # are delimiters, `@`... ; f-strings and bytes are string literals, `2j` an imaginary literal
    ("python", 'def f(match):\n    x = b"a" + f"{match}" + 0x1F + 1.5 + 2j + True or None\n    print(x ** 2)\n',
     {"def": "keyword", "match": "identifier", "=": "separator", ":": "separator", 'b"a"': "string_literal",
      'f"{match}"': "string_literal", "0x1F": "integer_literal", "1.5": "floating_point_literal",
      "2j": "imaginary_literal", "True": "keyword", "or": "keyword", "None": "keyword", "print": "identifier",
      "**": "operator", "+": "operator"}),
    # ECMAScript 12.7-12.9: `let` is no ReservedWord, null/true are literals, `#p` a private name
    ("javascript", "function f(x) { let r = /a+/g.test(`t${x}`) ?? null; this.#p = true; return () => 1.5; }",
     {"function": "keyword", "let": "identifier", "/a+/g": "regular_expression_literal", "`t${x}`": "string_literal",
      "??": "operator", "null": "null_literal", "true": "boolean_literal", "#p": "identifier", "this": "keyword",
      "=>": "operator", "1.5": "floating_point_literal", ";": "separator"}),
    # TypeScript 1.8 spec 2.2.1: `let` is reserved in strict code, `number`/`as` are contextual
    ("typescript", "function f(): void { let n: number = 10 as any; }",
     {"let": "keyword", "number": "identifier", "as": "identifier", "void": "keyword", "10": "integer_literal"}),
    # Go spec: nil/true are predeclared identifiers, not keywords; runes are character literals
    ("go", "func f() (int, string) { x := 'c' + 1i + 0x1p3; return nil, `raw` }",
     {"func": "keyword", ":=": "operator", "'c'": "character_literal", "1i": "imaginary_literal",
      "0x1p3": "floating_point_literal", "nil": "identifier", "`raw`": "string_literal", "return": "keyword"}),
    # C11 6.4: true/NULL are identifiers (macros), `-2` is a minus and a constant, directives are preprocessing
    ("c", "int f(void) {\n#ifdef X\n  return -2 + sizeof L\"s\" + 'c' + 1.0f + true + NULL;\n#endif\n}",
     {"#ifdef": "preprocessor", "#endif": "preprocessor", "-": "operator", "2": "integer_literal",
      "sizeof": "keyword", 'L"s"': "string_literal", "'c'": "character_literal", "1.0f": "floating_point_literal",
      "true": "identifier", "NULL": "identifier", "void": "keyword"}),
    # C++ [lex]: `and` is an operator, nullptr/true literals, "ab"s a user-defined literal
    ("cpp", 'bool f() { auto s = R"(x)" + "ab"s; return nullptr != this and true; }',
     {"auto": "keyword", 'R"(x)"': "string_literal", '"ab"s': "user_defined_literal", "nullptr": "null_literal",
      "this": "keyword", "and": "operator", "true": "boolean_literal", "!=": "operator"}),
    # C# 6.4: contextual keywords (var, nameof) are identifiers, @"..."/$"..." strings, 1.5m a real literal
    ("csharp", 'class A { void f() { var s = @"v" + $"i{x}" + \'c\' + 1.5m + 10L + null + true; nameof(s); } }',
     {"var": "identifier", "nameof": "identifier", '@"v"': "string_literal", '$"i{x}"': "string_literal",
      "'c'": "character_literal", "1.5m": "floating_point_literal", "10L": "integer_literal", "null": "null_literal",
      "true": "boolean_literal", "class": "keyword"}),
])
def test_token_kinds_follow_each_language_reference(language, code, expected):
    kinds = _kinds(code, language)
    assert {text: kinds.get(text) for text in expected} == expected


def test_abstracted_tokens_keep_placeholder_kinds_and_python_layout():
    line = "def METHOD_1 ( VAR_1 ) : NEW_LINE INDENT return STRING_1 + INT_1 NEW_LINE DEDENT"
    assert [t.kind for t in token_stream(line, "python", abstracted=True)] == [
        "keyword", "identifier", "separator", "identifier", "separator", "separator", "layout", "layout", "keyword",
        "string_literal", "operator", "integer_literal", "layout", "layout"]
    assert [t.kind for t in token_stream('TYPE_1 METHOD_1 ( ) { return CHAR_1 + FLOAT_1 + "" ; }', "go",
                                         abstracted=True)][6:10] == [
        "character_literal", "operator", "floating_point_literal", "operator"]


def _node(label, rule):
    return {"label": label, "node-type": "Rule", "type-rule-name": rule, "reserved-word-flag": False}


def _token(label, type_, kind, token_id, reserved):
    return {"label": label, "node-type": "Token", "type-rule-name": type_, "reserved-word-flag": reserved,
            "token-id": token_id, "token-kind": kind}


def _without_ids(graph: dict) -> list[dict]:
    assert [node.pop("id") for node in graph["nodes"]] == list(range(len(graph["nodes"])))
    return graph["nodes"]


def test_python_spt_worked_by_hand():
    # module(function_definition(def identifier parameters(( identifier )) : block(return_statement(return
    # binary_operator(identifier + integer))))): module and block have one child; `:` is reserved in CodeNet's
    # PythonReservedWordDecider, a name and a number are not.
    graph = simplified_parse_tree("def f(x):\n    return x + 1\n", "python")["graph"]
    assert _without_ids(graph) == [
        _node("def##:#", "function_definition"), _token("def", "def", "keyword", 0, True),
        _token("f", "identifier", "identifier", 1, False), _node("(#)", "parameters"),
        _token(":", ":", "separator", 5, True), _node("return#", "return_statement"),
        _token("(", "(", "separator", 2, True), _token("x", "identifier", "identifier", 3, False),
        _token(")", ")", "separator", 4, True), _token("return", "return", "keyword", 6, True),
        _node("#+#", "binary_operator"), _token("x", "identifier", "identifier", 7, False),
        _token("+", "+", "operator", 8, True), _token("1", "integer", "integer_literal", 9, False)]
    assert [e["between"] for e in graph["edges"]] == [[0, 1], [0, 2], [0, 3], [0, 4], [0, 5], [3, 6], [3, 7], [3, 8],
                                                      [5, 9], [5, 10], [10, 11], [10, 12], [10, 13]]
    assert (graph["root"], graph["num-of-nodes"], graph["num-of-edges"], graph["errors"]) == (0, 14, 13, 0)
    # the abstracted text of the same function gives the same shape, placeholders at the names' places
    line = "def METHOD_1 ( VAR_1 ) : NEW_LINE INDENT return VAR_1 + INT_1 NEW_LINE DEDENT"
    abstracted = simplified_parse_tree(line, "python", abstracted=True)["graph"]
    assert [n["label"] for n in abstracted["nodes"]] == [
        "def##:#", "def", "METHOD_1", "(#)", ":", "return#", "(", "VAR_1", ")", "return", "#+#", "VAR_1", "+", "INT_1"]
    assert abstracted["nodes"][13]["token-kind"] == "integer_literal" and abstracted["errors"] == 0


def test_c_spt_worked_by_hand():
    # translation_unit(function_definition(primitive_type function_declarator(identifier parameter_list(( 
    # parameter_declaration(primitive_type identifier) ))) compound_statement({ return_statement(return
    # unary_expression(- identifier) ;) })))
    graph = simplified_parse_tree("int f(int x) { return -x; }", "c")["graph"]
    assert _without_ids(graph) == [
        _node("int##", "function_definition"), _token("int", "primitive_type", "keyword", 0, True),
        _node("##", "function_declarator"), _node("{#}", "compound_statement"),
        _token("f", "identifier", "identifier", 1, False), _node("(#)", "parameter_list"),
        _token("{", "{", "separator", 6, True), _node("return#;", "return_statement"),
        _token("}", "}", "separator", 11, True), _token("(", "(", "separator", 2, True),
        _node("int#", "parameter_declaration"), _token(")", ")", "separator", 5, True),
        _token("return", "return", "keyword", 7, True), _node("-#", "unary_expression"),
        _token(";", ";", "separator", 10, True), _token("int", "primitive_type", "keyword", 3, True),
        _token("x", "identifier", "identifier", 4, False), _token("-", "-", "operator", 8, True),
        _token("x", "identifier", "identifier", 9, False)]
    assert [e["between"] for e in graph["edges"]] == [
        [0, 1], [0, 2], [0, 3], [2, 4], [2, 5], [3, 6], [3, 7], [3, 8], [5, 9], [5, 10], [5, 11], [7, 12], [7, 13],
        [7, 14], [10, 15], [10, 16], [13, 17], [13, 18]]


def test_cpp_spt_worked_by_hand():
    # ... call_expression(qualified_identifier(namespace_identifier :: identifier) argument_list(( null(nullptr) )))
    # `null` has one child; `nullptr` and `::` are in CodeNet's CPPReservedWordDecider, so they stay in labels.
    graph = simplified_parse_tree("bool g() { return a::b(nullptr); }", "cpp")["graph"]
    assert [(n["label"], n["type-rule-name"]) for n in graph["nodes"]] == [
        ("bool##", "function_definition"), ("bool", "primitive_type"), ("##", "function_declarator"),
        ("{#}", "compound_statement"), ("g", "identifier"), ("()", "parameter_list"), ("{", "{"),
        ("return#;", "return_statement"), ("}", "}"), ("(", "("), (")", ")"), ("return", "return"),
        ("##", "call_expression"), (";", ";"), ("#::#", "qualified_identifier"), ("(nullptr)", "argument_list"),
        ("a", "namespace_identifier"), ("::", "::"), ("b", "identifier"), ("(", "("), ("nullptr", "nullptr"),
        (")", ")")]
    assert graph["nodes"][20]["token-kind"] == "null_literal" and graph["nodes"][20]["reserved-word-flag"]
    assert [e["between"] for e in graph["edges"]][-6:] == [[14, 16], [14, 17], [14, 18], [15, 19], [15, 20], [15, 21]]


def test_languages_codenet_gives_no_spt_are_an_error():
    assert sorted(SPT_LANGUAGES) == ["c", "cpp", "java", "python"]
    for language in sorted(set(LANGUAGES) - set(SPT_LANGUAGES)):
        with pytest.raises(ValueError, match=f"no simplified parse tree for {language}: only for .*python"):
            simplified_parse_tree("f()", language)
    with pytest.raises(ValueError, match="'cobol'"):
        token_stream("x", "cobol")


# -- the fixture's functions ------------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _functions() -> dict[str, list[str]]:
    """Every distinct function Lizard finds in the fixture's files, before and after, per language."""
    found: dict[str, dict[str, None]] = {}
    with open(REVISIONS, encoding="utf-8") as fh:
        for row in map(json.loads, fh):
            for text in (row["before"], row["after"]):
                lines = text.splitlines(keepends=True)
                for function in lizard.analyze_file.analyze_source_code(row["path"], text).function_list:
                    code = "".join(lines[function.start_line - 1:function.end_line])
                    found.setdefault(row["language"], {})[code] = None
    return {language: list(codes) for language, codes in found.items()}


def _without_comments(code: str, language: str) -> str:
    """The code without its comments (found by tree-sitter here) and without whitespace; Python's explicit line
    joining (a backslash ending a line, reference 2.1.5) is whitespace too."""
    source = code.encode("utf-8")
    spans, stack = [], [parser(language).parse(source).root_node]
    while stack:
        node = stack.pop()
        if node.type.endswith("comment"):
            spans.append((node.start_byte, node.end_byte))
        else:
            stack.extend(node.children)
    kept, last = [], 0
    for start, end in sorted(spans):
        kept.append(source[last:start])
        last = max(last, end)
    text = (b"".join(kept) + source[last:]).decode("utf-8")
    if language == "python":
        text = text.replace("\\\r\n", "").replace("\\\n", "")
    return "".join(text.split())


def _tree(graph: dict) -> tuple[list[dict], list[dict]]:
    """(leaves in depth-first order, internal nodes) found from the edges alone; asserts the graph is a tree
    whose internal nodes are rules with at least two children."""
    nodes = {node["id"]: node for node in graph["nodes"]}
    children: dict[int, list[int]] = {i: [] for i in nodes}
    for edge in graph["edges"]:
        children[edge["between"][0]].append(edge["between"][1])
    assert len(graph["edges"]) == len(nodes) - 1 and Counter(e["between"][1] for e in graph["edges"]).keys() == (
        set(nodes) - {0})
    leaves, internal, stack = [], [], [0] if nodes else []
    while stack:
        node = stack.pop()
        if children[node]:
            assert len(children[node]) >= 2 and nodes[node]["node-type"] == "Rule"
            internal.append(nodes[node])
            stack.extend(reversed(children[node]))
        else:
            assert nodes[node]["node-type"] == "Token"
            leaves.append(nodes[node])
    assert len(leaves) + len(internal) == len(nodes)
    return leaves, internal


def _python_tokens(code: str) -> list[tuple[str, int]]:
    """Python's own lexer: the tokens but comments and layout (``NEWLINE``, ``NL``, ``INDENT``, ``DEDENT``)."""
    layout = {tokenize.COMMENT, tokenize.NEWLINE, tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
    return [(t.string, t.type) for t in tokenize.generate_tokens(io.StringIO(code).readline) if t.type not in layout]


@pytest.mark.parametrize("language", sorted(LANGUAGES.keys() - {"java", "php", "ruby"}))  # php, ruby: test_php_ruby
def test_every_fixture_function_is_its_tokens(language):
    codes = _functions()[language]
    assert len(codes) > 100
    for code in codes:
        tokens = token_stream(code, language)
        assert "".join("".join(t.text.split()) for t in tokens) == _without_comments(code, language), code
        assert all(t.kind != "unknown" for t in tokens) or language == "cpp"  # cpp: `operator()`'s name
        if language == "python":
            python = _python_tokens(code)
            assert [t.text for t in tokens] == [text for text, _ in python], code
            literal = {tokenize.STRING: {"string_literal"}, tokenize.NUMBER: {
                "integer_literal", "floating_point_literal", "imaginary_literal"}}
            assert all(t.kind in literal.get(kind, {t.kind}) for t, (_, kind) in zip(tokens, python))
        if language in SPT_LANGUAGES:
            graph = simplified_parse_tree(code, language)
            leaves, _ = _tree(graph["graph"])
            assert [leaf["label"] for leaf in leaves] == [t.text for t in tokens] == [t.text for t in spt_tokens(graph)]


@pytest.mark.parametrize("language", sorted(set(SPT_LANGUAGES) - {"java"}))
def test_every_fixture_function_abstracted_is_a_tree_of_its_tokens(language):
    errors = 0
    for code in _functions()[language]:
        line = abstract_code(code, language, IDIOMS).code
        graph = simplified_parse_tree(line, language, abstracted=True)["graph"]
        leaves, _ = _tree(graph)
        tokens = [t for t in token_stream(line, language, abstracted=True) if t.kind != "layout"]
        assert [(leaf["label"], leaf["token-kind"]) for leaf in leaves] == [(t.text, t.kind) for t in tokens], line
        errors += graph["errors"] > 0
    if language == "python":  # layout turned back into lines: Python reads every abstracted function
        assert errors == 0


def test_export_rows_of_a_language_without_spt_get_null_and_count_nothing():
    python = "def f(x):\n    return x + 1\n"  # 14 nodes, 13 edges (worked above)
    abstracted = "def METHOD_1 ( VAR_1 ) : NEW_LINE INDENT return VAR_1 + INT_1 NEW_LINE DEDENT"
    go = "func f(x int) int { return x + 1 }"
    rows = pa.RecordBatch.from_pylist([
        {"id": "p", "language": "python", "m_s": python, "m_r": python, "m_s_abstract": abstracted,
         "m_r_abstract": abstracted},
        {"id": "g", "language": "go", "m_s": go, "m_r": go, "m_s_abstract": "func METHOD_1 ( VAR_1 TYPE_1 ) TYPE_1 { "
         "return VAR_1 + INT_1 }", "m_r_abstract": ""}])
    _, (text,), totals = format_rows(("triplet", rows), (), ("tokens", "spt"))
    p, g = map(json.loads, text.splitlines())
    assert p["m_s_spt"]["graph"]["num-of-nodes"] == 14 and p["m_s_abstract_tokens"][6:8] == ["NEW_LINE", "INDENT"]
    assert [g[f"{c}_spt"] for c in ("m_s", "m_r", "m_s_abstract", "m_r_abstract")] == [None] * 4
    assert g["m_s_tokens"] == "func f ( x int ) int { return x + 1 }".split() and g["m_r_abstract_tokens"] == []
    assert totals == {"methods": 2, "nodes": 28, "edges": 26, "errors": 0, "abstract_nodes": 28,
                      "abstract_edges": 26}
