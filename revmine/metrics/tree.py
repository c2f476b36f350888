"""TREED: tree edit distance between the ASTs of a predicted method and its reference (Java, or ``lang=``).

Definition followed: the AST level of RUBY (Tran, Tran, Nguyen, Nguyen & Nguyen, "Does BLEU Score Work
for Code Migration?", ICPC 2019), whose tree similarity is one minus the tree edit distance divided by
the sum of the two trees' sizes:

    TREED(h, r) = TED(T_h, T_r) / (|T_h| + |T_r|)      :class:`TreeEditDistance`, column ``treed``
    similarity  = 1 - TREED(h, r)                      :class:`TreeEditSimilarity`, column ``treed_sim``

(named like ``levenshtein`` / ``levenshtein_sim`` in :mod:`revmine.metrics.edit`). ``TED`` is the ordered
tree edit distance with unit costs (delete, insert and rename each cost 1; Zhang & Shasha 1989, see
:mod:`revmine.metrics._ted`) and ``|T|`` the number of nodes. Since TED <= |T_h| + |T_r| (delete one
tree, insert the other) both values lie in [0, 1]; identical trees have distance 0. Dividing by the sum
(RUBY) rather than the larger size (TSED, Song et al. 2024) needs no clipping at 0.

The trees (what a user should know to read a value). RUBY's paper names no parser, so the parser is a
choice, a setting recorded in the signature: ``parser="tree-sitter"`` (default, ``parser:tree-sitter-java-
<version>``) or ``parser="javalang"`` (``parser:javalang-<version>``, the design card's first choice and
GVED's reader). Values under the two are not comparable (see "Parsers compared" below).

* Reading: the method is parsed inside a wrapper class; the tree's root is the method (or constructor)
  declaration, the wrapper is not counted. With ``wrap=True`` (default, ``wrap:stmt+expr``) input that is
  not one method is read next as a bare statement list (inside ``void wrapped() { ... }``; the root is a
  ``Statements`` node over the statements), then as one bare expression (``return ...;``; the root is the
  expression); a valid method reads the same either way. Anything else does not parse (``wrap=False``:
  anything but one method or constructor). The same three readings under both parsers
  (:func:`parse_code` is javalang's, shared with GVED, :mod:`revmine.metrics.graph`).
* tree-sitter labels: the tree is tree-sitter-java's *abstract* syntax, its named nodes: an inner node is
  labelled with its node type (``method_invocation``, ``if_statement``, ``argument_list``...), a leaf (a
  named token, or a string/character literal as one token) with its text (``VAR_1``, ``add``, ``"s"``,
  ``this``, ``void``). Punctuation and keywords are anonymous tokens implied by their parent's type and are
  left out, except where they tell trees apart: the operator of a binary, assignment, unary or update
  expression (``binary_expression(a, +, 1)``), the keywords of ``modifiers`` and of primitive types
  (``integral_type(int)``) are leaves in source order. Comments are left out. So ``void m() { a.add(b); }``
  is ``method_declaration(void, m, formal_parameters, block(expression_statement(method_invocation(a, add,
  argument_list(b)))))``, 11 nodes; renaming one identifier costs 1, changing ``+`` to ``-`` costs 1.
  A parse with ERROR or MISSING nodes counts as not parsed: tree-sitter recovers from any input, which would
  hide broken code that the fallback makes visible.
* javalang labels: an inner node is labelled with its javalang type (``MethodInvocation``,
  ``IfStatement``...). Every non-empty string attribute becomes a leaf child labelled ``role:value``,
  where the role is the javalang attribute: identifiers (``member:add``, ``qualifier:VAR_2``,
  ``name:METHOD_1``), literals (``value:STRING_1``), operators (``operator:==``, ``prefix_operators:!``,
  ``type:+=`` for an assignment), modifiers (``modifiers:public``, sorted, javalang keeps them as a set),
  thrown types. A true flag becomes a leaf labelled with its role (``varargs``), an array dimension a
  ``dimensions`` leaf. Leaves appear in javalang's attribute order. Javadoc is ignored. The same method
  is ``MethodDeclaration(name:m, StatementExpression(MethodInvocation(qualifier:a, MemberReference(member:b),
  member:add)))``, 8 nodes.
* Under both, an AST has no parentheses (``(a)`` and ``a`` differ only by tree-sitter's
  ``parenthesized_expression`` node; precedence is in the shape) and deleting a statement costs the size
  of its subtree.
* Repair of src2abs artefacts (``repair:src2abs``, on by default): Tufano et al.'s abstraction prints
  ``->``, ``::`` and ``<<`` as two tokens (``- >``) and drops the ``@`` of abstracted annotations
  (``ANNOTATION_1``). Neither is valid Java, so these are rejoined / restored before parsing (on the
  2021 test split this takes unparsable references from 125 to 3 of 1,706 under javalang, 7 under
  tree-sitter); javalang's
  tokens are repaired, for tree-sitter the text outside string and character literals. No valid Java
  changes. A shift printed ``> >`` is not repaired (it cannot be told from two closing type arguments by
  the text): javalang's parser reads it as a shift, tree-sitter does not.

Languages (``lang=``, default ``java``; the names of :mod:`revmine.lang.languages`: ``python``, ``javascript``,
``typescript``, ``go``, ``c``, ``cpp``, ``csharp``, ``php``, ``ruby``). Everything above is Java's; the other languages are read
by tree-sitter's grammar of the language (``parser:tree-sitter-python-<version>``..., recorded with
``lang:python``... in the signature; Java's signature has no ``lang`` field, so it reads as before the
setting existed, and its values are unchanged). ``parser="javalang"`` is Java's only (other languages: an
error). The labels follow Java's tree-sitter rules: inner nodes by named node type, leaves (named tokens,
and literals tree-sitter splits, as one leaf: ``revmine.metrics.tokens.LITERALS``) by their text, comments
and the grammar's other extras (C#'s preprocessor lines, Python's line continuations) left out, and among the
anonymous tokens only those that tell trees apart, all the tokens of these node types:

* python: ``binary_operator``, ``boolean_operator``, ``comparison_operator``, ``unary_operator``,
  ``augmented_assignment`` (``is not`` and ``not in`` are one leaf each);
* javascript: ``binary_expression``, ``unary_expression``, ``update_expression``, ``assignment_expression``,
  ``augmented_assignment_expression``; typescript: those and ``accessibility_modifier``, ``predefined_type``;
* go: ``binary_expression``, ``unary_expression``, ``assignment_statement``, ``inc_statement``,
  ``dec_statement``;
* c: ``binary_expression``, ``unary_expression``, ``update_expression``, ``assignment_expression``,
  ``pointer_expression`` (``*`` or ``&``), ``storage_class_specifier``, ``type_qualifier``,
  ``sized_type_specifier``; cpp: those and ``access_specifier``, ``virtual_specifier``;
* csharp: ``binary_expression``, ``prefix_unary_expression``, ``postfix_unary_expression``,
  ``unary_expression``, ``assignment_expression``, ``modifier``; and C#'s ``this`` and ``base``, anonymous
  tokens in its grammar (named nodes in the others), are leaves wherever they are.
* php: ``binary_expression``, ``unary_op_expression``, ``update_expression``, ``assignment_expression``,
  ``augmented_assignment_expression``, the visibility, static, abstract and final modifiers, ``primitive_type``,
  ``cast_type``; a method is read inside ``class _ { ... }`` when it does not read alone;
* ruby: ``binary``, ``unary``, ``operator_assignment``.

Keywords that other grammars keep anonymous under a node with punctuation (JavaScript's ``const``/``let``,
``async``, ``static``) are left out, as Java's ``if`` or ``return``: their node types are the same.
Reading: the text is parsed as a whole file (``program``); JavaScript and TypeScript methods, which are not
valid at top level, are read next inside ``class _ { ... }``, and C# code is read inside that class first
(a C# method at top level would read as a local function). One top-level node (a function, or one
statement) is the root; several hang from a ``Statements`` root, as Java's statements do, with ``wrap``
only; with ``wrap=False`` only one node whose type ends in ``_declaration`` or ``_definition`` (a function,
method, class...) is read. A parse with ERROR or MISSING nodes is not parsed, as Java's. The src2abs repair
is Java's (its artefacts come from src2abs's Java lexer): other languages are read as they are
(``repair:none``). The fallback is Java's; ``fallback="tokens"`` compares tree-sitter's tokens of the
language (:func:`revmine.metrics.tokens.code_tokens`: its leaves, comments dropped, a literal one token)
instead of javalang's. On the functions Lizard finds in both versions of the real revisions of
``code_revisions`` (``tests/test_metrics_languages.py``), the share that reads: python 514/514, go 373/478,
c 676/721, cpp 934/946, javascript 774/834, typescript 189/214, csharp 569/575. The rest are not whole code:
Lizard's lines of a function literal inside an expression (Go's ``func`` literals, a JavaScript object member
``f: function() {...},``, a TypeScript arrow function cut mid-line), C macros used as syntax
(``va_arg(ap, long long)``, a macro call without ``;``), C# functions cut inside ``#if``/``#endif``.

Parsers compared, on the 17,190 pairs of the k=10 predictions of Tufano et al. 2021 (``benchmarks/
bench_treed.py``): tree-sitter reads 1,699 of the 1,706 distinct references and 13,175 of the 16,559
distinct predictions, javalang 1,703 and 13,251; both sides parse in 13,761 rows under tree-sitter and
13,867 under javalang. Where only javalang reads the code, javalang is lenient rather than tree-sitter
strict: a shift printed ``> >`` (5 references), ``f() -> x`` (a call as lambda parameter) and
``this(...)`` inside a method, which are not Java. On the 13,753 rows both parsers score, the scores
correlate (Pearson r 0.974) and tree-sitter's ``treed_sim`` is higher by 0.018 on average (0.806 vs
0.787; mean absolute difference 0.030): its trees have more nodes that rarely change (``block``,
``argument_list``, ``expression_statement``...). Compare values only under one signature.

Fallback, for code that does not parse (NMT predictions are often cut mid-method or unbalanced: about a
fifth of the distinct k=10 predictions of Tufano et al. 2021 do not parse even after repair):

* ``fallback="nan"`` (default, signature ``fallback:nan``): the row's score is NaN. The score stage leaves
  NaN out of means and reports their number as ``missing``; :meth:`TreeEditDistance.sentence_details`
  gives the per-row flags (which side failed) and the node counts; :func:`method_tree` shows a tree.
* ``fallback="tokens"`` (``fallback:tokens``): when either side does not parse, *both* sides become flat
  trees (a root with one leaf per token: javalang's tokens, or whitespace-separated ones if the text does
  not even lex), so the value degrades to a token-level edit similarity normalised the same way. Rows
  scored like this are flagged in ``sentence_details(...).fallback``.
* ``fallback="sed"`` (``fallback:sed``): RUBY's own last resort, its string level: the row gets the token
  edit distance over the longer side, ``sed(normalize=max)`` on whitespace tokens (one minus it for
  ``treed_sim``), flagged the same way.

Speed: each distinct string is parsed once per call, identical pairs are computed once, and TED runs
compiled (numba), 0.1-0.2 ms for two 40-node trees. tree-sitter parses a method more than 10x faster than
javalang, so end to end TREED runs at 6,685 pairs/s on the k=10 file under tree-sitter against 2,465
under javalang (2.75x; medians of 5 runs alternating in one process, spreads 6,327-6,870 and
2,288-2,515; ``benchmarks/bench_treed.py``, which also prints the rate per CPU-second: 7,409 and 2,841).
On a loaded machine wall-clock rates drop (1,361 and 1,091 pairs/s with ~8 processes on its 2 cores,
while the CPU-second rates stayed at 6,521 and 2,584). Under tree-sitter the time is spent in
roughly equal parts parsing, building the labelled trees (Python, one step per kept node) and TED.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from importlib.metadata import version
from typing import Any, ClassVar, Literal, Sequence

import numpy as np
from javalang import parser as jparser
from javalang import tokenizer as jtok
from javalang import tree as jtree
from javalang.ast import Node

from ..lang.languages import LANGUAGES
from ._ted import PostorderTree, tree_edit_distance
from .base import Metric, check_lengths
from .edit import SED
from .tokens import LITERALS, code_tokens, sitter_parser, token_sequence

Fallback = Literal["nan", "tokens", "sed"]
ParserName = Literal["tree-sitter", "javalang"]
LabelTree = tuple  # (label, (child, ...)): the nested form method_tree returns

_WRAPPER_OPEN = (jtok.Keyword("class"), jtok.Identifier("Dummy"), jtok.Separator("{"))
_WRAPPER_CLOSE = (jtok.Separator("}"),)
_BODY_OPEN = (*_WRAPPER_OPEN, jtok.Keyword("void"), jtok.Identifier("wrapped"), jtok.Separator("("),
              jtok.Separator(")"), jtok.Separator("{"))
_BODY_CLOSE = (jtok.Separator("}"), *_WRAPPER_CLOSE)
#: (kind, tokens before, tokens after): how parse_code tries to read a text, in this order
_READINGS = (("method", _WRAPPER_OPEN, _WRAPPER_CLOSE),
             ("statements", _BODY_OPEN, _BODY_CLOSE),
             ("expression", (*_BODY_OPEN, jtok.Keyword("return")), (jtok.Separator(";"), *_BODY_CLOSE)))
_STATEMENTS_ROOT = "Statements"
# Operators src2abs's Java 7 lexer prints as two tokens; no valid Java has these pairs of tokens in a row.
_MERGE = {("-", ">"): "->", (":", ":"): "::", ("<", "<"): "<<"}
_ABSTRACT_ANNOTATION = re.compile(r"ANNOTATION_\d+")
_SKIPPED_ATTRIBUTES = frozenset({"documentation"})
_FLAT_ROOT = "Tokens"


@dataclass(frozen=True)
class _Labelled:
    """A tree as label strings in postorder, with each node's leftmost leaf (before label interning)."""

    labels: list[str]
    leftmost: list[int]


@dataclass(frozen=True)
class _Code:
    """One distinct input string: its AST (None when it does not parse) and its tokens for the fallback
    (None: not lexed yet, the tree-sitter reading lexes only when the token fallback needs them)."""

    ast: _Labelled | None
    tokens: list[str] | None


@dataclass(frozen=True)
class TreeScores:
    """Per-row detail of a TREED computation, for users who need more than the score column.

    ``ted`` is the raw tree edit distance and ``hyp_nodes``/``ref_nodes`` the tree sizes it was normalised
    by (NaN / 0 where no value was computed); ``hyp_parsed``/``ref_parsed`` say which side parsed.
    """

    score: np.ndarray
    ted: np.ndarray
    hyp_nodes: np.ndarray
    ref_nodes: np.ndarray
    hyp_parsed: np.ndarray
    ref_parsed: np.ndarray

    @property
    def fallback(self) -> np.ndarray:
        """Rows not scored from two ASTs (NaN, or token trees with ``fallback="tokens"``)."""
        return ~(self.hyp_parsed & self.ref_parsed)

    @property
    def unparsable(self) -> int:
        return int(self.fallback.sum())


class StructureDistance(Metric):
    """What RUBY's structural levels share (TREED here, GVED in ``graph.py``): a raw edit distance between
    two structures per row, normalised by the sum of their sizes; NaN where a side has none, or RUBY's
    string level with ``fallback="sed"``; the ``_sim`` variants give 1 minus it (higher is better)."""

    higher_is_better: ClassVar[bool] = False
    fallback: str

    def sentence_scores(self, hypotheses: Sequence[str], references: Sequence[str]) -> np.ndarray:
        return self.sentence_details(hypotheses, references).score

    def sentence_details(self, hypotheses: Sequence[str], references: Sequence[str]) -> Any:
        raise NotImplementedError

    @staticmethod
    def _rows(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Per row: the raw distance (NaN until computed), both sizes and both parse flags."""
        return (np.full(n, np.nan), np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64),
                np.zeros(n, dtype=bool), np.zeros(n, dtype=bool))

    def _score(self, distance: np.ndarray, hyp_size: np.ndarray, ref_size: np.ndarray, parsed: np.ndarray,
               hypotheses: Sequence[str], references: Sequence[str]) -> np.ndarray:
        with np.errstate(invalid="ignore"):  # 0 / 0 on the rows without structures
            normalised = distance / (hyp_size + ref_size)
        if self.fallback == "sed":
            normalised = sed_fallback(normalised, parsed, hypotheses, references)
        return 1.0 - normalised if self.higher_is_better else normalised


class TreeEditDistance(StructureDistance):
    """TED / (|T_h| + |T_r|) over Java ASTs (tree-sitter-java's, or javalang's with ``parser="javalang"``), or
    over tree-sitter's ASTs of ``lang``, in [0, 1], lower is better (see the module docstring)."""

    name: ClassVar[str] = "treed"
    higher_is_better: ClassVar[bool] = False
    #: the values of ``lang``; ``lang=auto`` (:class:`revmine.metrics.registry.ByLanguage`) scores each row with one
    known_languages: ClassVar[tuple[str, ...]] = tuple(LANGUAGES)

    def __init__(self, fallback: Fallback = "nan", repair: bool = True, wrap: bool = True,
                 parser: ParserName = "tree-sitter", lang: str = "java"):
        if fallback not in ("nan", "tokens", "sed"):
            raise ValueError(f"fallback must be 'nan', 'tokens' or 'sed', not {fallback!r}")
        if parser not in ("tree-sitter", "javalang"):
            raise ValueError(f"parser must be 'tree-sitter' or 'javalang', not {parser!r}")
        if lang not in LANGUAGES:
            raise ValueError(f"lang must be one of {tuple(LANGUAGES)}, not {lang!r}")
        if parser == "javalang" and lang != "java":
            raise ValueError(f"parser 'javalang' reads Java only; lang {lang!r} needs parser 'tree-sitter'")
        self.fallback = fallback
        self.repair = repair and lang == "java"  # src2abs's artefacts are Java's (module docstring)
        self.wrap = wrap
        self.parser = parser
        self.lang = lang

    def settings(self) -> dict[str, object]:
        language = {} if self.lang == "java" else {"lang": self.lang}  # Java's signatures predate the setting
        return {
            **language,
            "parser": parser_version(self.parser, self.lang),
            "labels": "type+leaf",
            "cost": "unit",
            "norm": "sum",
            "repair": "src2abs" if self.repair else "none",
            "wrap": "stmt+expr" if self.wrap else "none",
            "fallback": self.fallback,
        }

    def sentence_details(self, hypotheses: Sequence[str], references: Sequence[str]) -> TreeScores:
        """Scores plus the raw distances, tree sizes and parse flags of every row."""
        check_lengths(hypotheses, references)
        ted, hyp_nodes, ref_nodes, hyp_parsed, ref_parsed = self._rows(len(hypotheses))
        codes: dict[str, _Code] = {}
        vocabulary = _Vocabulary()
        interned: dict[tuple[str, bool], PostorderTree] = {}
        done: dict[tuple[str, str], tuple[int, int, int]] = {}

        def tree(text: str, flat: bool) -> PostorderTree:
            key = (text, flat)
            if key not in interned:
                code = codes[text]
                if flat and code.tokens is None:
                    code = codes[text] = _Code(code.ast, _fallback_tokens(text, self.repair, self.lang))
                labelled = _flat_tree(code.tokens) if flat else code.ast
                interned[key] = PostorderTree.build(list(map(vocabulary.__getitem__, labelled.labels)),
                                                    labelled.leftmost)
            return interned[key]

        for row, (hyp, ref) in enumerate(zip(hypotheses, references)):
            for text in (hyp, ref):
                if text not in codes:
                    codes[text] = _parse(text, self.repair, self.wrap, self.parser, self.lang)
            hyp_parsed[row] = codes[hyp].ast is not None
            ref_parsed[row] = codes[ref].ast is not None
            flat = not (hyp_parsed[row] and ref_parsed[row])
            if flat and self.fallback != "tokens":
                continue
            if (hyp, ref) not in done:
                t1, t2 = tree(hyp, flat), tree(ref, flat)
                distance = 0 if hyp == ref else tree_edit_distance(t1, t2)
                done[hyp, ref] = (distance, t1.size, t2.size)
            ted[row], hyp_nodes[row], ref_nodes[row] = done[hyp, ref]
        score = self._score(ted, hyp_nodes, ref_nodes, hyp_parsed & ref_parsed, hypotheses, references)
        return TreeScores(score, ted, hyp_nodes, ref_nodes, hyp_parsed, ref_parsed)


class _Vocabulary(dict):
    """Label ids: a new label gets the next one (``map(vocabulary.__getitem__, labels)`` interns a tree's labels
    without a Python step for the labels seen before)."""

    def __missing__(self, label: str) -> int:
        self[label] = number = len(self)
        return number


class TreeEditSimilarity(TreeEditDistance):
    """RUBY's tree similarity, 1 - TED / (|T_h| + |T_r|); higher is better, 1 for identical trees."""

    name: ClassVar[str] = "treed_sim"
    higher_is_better: ClassVar[bool] = True


def sed_fallback(normalised: np.ndarray, parsed: np.ndarray, hypotheses: Sequence[str],
                 references: Sequence[str]) -> np.ndarray:
    """``normalised`` with the rows that did not parse replaced by SED normalised by the longer side
    (``sed(normalize=max)``, whitespace tokens): RUBY's string level, its last resort (TREED and GVED)."""
    rows = np.flatnonzero(~parsed)
    out = normalised.copy()
    if rows.size:
        out[rows] = SED(normalize="max").sentence_scores([hypotheses[i] for i in rows], [references[i] for i in rows])
    return out


def method_tree(code: str, repair: bool = True, wrap: bool = True, parser: ParserName = "tree-sitter",
                lang: str = "java") -> LabelTree | None:
    """The labelled AST TREED compares, as nested ``(label, children)`` tuples; None when it does not parse.

    For inspecting a surprising score, or feeding another TED implementation the very same tree.
    """
    ast = _parse(code, repair and lang == "java", wrap, parser, lang).ast
    return None if ast is None else nested(ast.labels, ast.leftmost)[0]


def nested(labels: Sequence[str], leftmost: Sequence[int]) -> list[LabelTree]:
    """Postorder labels and leftmost leaves (as :func:`_walk` appends them) as nested ``(label, children)``
    tuples: one per root (a forest when the walk covered several values)."""
    stack: list[LabelTree] = []
    starts: list[int] = []
    for label, first in zip(labels, leftmost):  # postorder: a node's children are the open subtrees
        split = len(starts)                     # that start at or after its leftmost leaf
        while split and starts[split - 1] >= first:
            split -= 1
        node = (label, tuple(stack[split:]))
        del stack[split:], starts[split:]
        stack.append(node)
        starts.append(first)
    return stack


@dataclass(frozen=True)
class ParsedCode:
    """What :func:`parse_code` read: ``kind`` is ``method`` (a method or constructor declaration),
    ``statements`` (a list of statements) or ``expression`` (one expression); ``node`` is the javalang
    declaration, the list, or the expression. Shared by TREED and GVED, so both read code alike."""

    kind: Literal["method", "statements", "expression"]
    node: object


def parse_code(code: str, repair: bool = True, wrap: bool = True) -> tuple[ParsedCode | None, list[str]]:
    """Parse one method; with ``wrap``, else a bare statement list, else a bare expression.

    Returns the parse (None when the text is none of these) and the text's tokens (javalang's, or
    whitespace-separated when it does not even lex), which the token fallback needs. Each reading is the
    tokens inside a wrapper (module docstring); the first that parses whole wins, so valid methods read
    exactly as without ``wrap``.
    """
    tokens = _lex(code, repair)
    if tokens is None:
        return None, token_sequence(code, "space")
    texts = [token.value for token in tokens]
    readings = _READINGS if wrap else _READINGS[:1]
    for kind, opening, closing in readings:
        try:
            unit = jparser.Parser([*opening, *tokens, *closing]).parse()
        except (jparser.JavaParserBaseException, RecursionError, TypeError):  # javalang's parser raises
            continue  # TypeError when it reads past the end of some truncated inputs (None token)
        body = unit.types[0].body if len(unit.types) == 1 else []
        if kind == "method":
            if len(body) == 1 and isinstance(body[0], (jtree.MethodDeclaration, jtree.ConstructorDeclaration)):
                return ParsedCode(kind, body[0]), texts
            continue
        statements = body[0].body
        if kind == "statements" and statements:
            return ParsedCode(kind, statements), texts
        if kind == "expression" and len(statements) == 1 and statements[0].expression is not None:
            return ParsedCode(kind, statements[0].expression), texts  # not `return ;`, not `return a ; b ;`
    return None, texts


def _fallback_tokens(code: str, repair: bool, lang: str = "java") -> list[str]:
    """The tokens the token fallback compares: for Java javalang's (repaired), or whitespace-separated ones
    when the text does not even lex, the same under either parser, so ``fallback:tokens`` values do not
    depend on the parser; for the other languages tree-sitter's leaves (:func:`.tokens.code_tokens`)."""
    if lang != "java":
        return code_tokens(code, lang)
    tokens = _lex(code, repair)
    return token_sequence(code, "space") if tokens is None else [token.value for token in tokens]


def _lex(code: str, repair: bool) -> list[jtok.JavaToken] | None:
    try:  # javalang's lexer raises TypeError/IndexError, not LexerError, on input that ends inside a
        tokens = list(jtok.tokenize(code))  # number literal (`return 0`, `1e+`): truncated beam output
    except (jtok.LexerError, TypeError, IndexError):
        return None
    return _repair(tokens) if repair else tokens


def parser_version(parser: ParserName, lang: str = "java") -> str:
    """The signature's ``parser`` value: the parser and the version of its grammar package for ``lang``."""
    if parser == "javalang":
        return f"javalang-{version('javalang')}"
    package = LANGUAGES[lang].package
    return f"{package}-{version(package)}"


def _parse(code: str, repair: bool, wrap: bool, parser: ParserName = "tree-sitter", lang: str = "java") -> _Code:
    if parser == "tree-sitter":
        return _Code(_sitter_tree(code, repair, wrap, lang), None)
    parsed, texts = parse_code(code, repair, wrap)
    if parsed is None:
        return _Code(None, texts)
    labels: list[str] = []
    leftmost: list[int] = []
    first = _walk(parsed.node, "", labels, leftmost)
    if parsed.kind == "statements":  # one root over the statements, as the method node is over its body
        _append(_STATEMENTS_ROOT, first, labels, leftmost)
    return _Code(_Labelled(labels, leftmost), texts)


def _repair(tokens: list[jtok.JavaToken]) -> list[jtok.JavaToken]:
    """Undo the two src2abs artefacts that make abstracted code invalid Java (module docstring)."""
    out: list[jtok.JavaToken] = []
    for token in tokens:
        previous = out[-1] if out else None
        if isinstance(token, jtok.Operator) and isinstance(previous, jtok.Operator):
            merged = _MERGE.get((previous.value, token.value))
            if merged:
                out[-1] = jtok.Operator(merged, previous.position)
                continue
        if (isinstance(token, jtok.Identifier) and _ABSTRACT_ANNOTATION.fullmatch(token.value)
                and not isinstance(previous, jtok.Annotation)):
            out.append(jtok.Annotation("@", token.position))
        out.append(token)
    return out


def _walk(value: object, role: str, labels: list[str], leftmost: list[int], in_list: bool = False) -> int | None:
    """Append ``value``'s nodes in postorder; return the postorder number of its leftmost leaf (None: no node)."""
    if isinstance(value, Node):
        first = None
        for attribute in value.attrs:
            if attribute not in _SKIPPED_ATTRIBUTES:
                leaf = _walk(getattr(value, attribute), attribute, labels, leftmost)
                first = leaf if first is None else first
        return _append(type(value).__name__, first, labels, leftmost)
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value) if isinstance(value, (set, frozenset)) else value
        first = None
        for item in items:
            leaf = _walk(item, role, labels, leftmost, in_list=True)
            first = leaf if first is None else first
        return first
    if isinstance(value, str) and value:
        return _append(f"{role}:{value}", None, labels, leftmost)
    if value is True or (value is None and in_list):  # a set flag; an array dimension without size
        return _append(role, None, labels, leftmost)
    return None


def _append(label: str, first_leaf: int | None, labels: list[str], leftmost: list[int]) -> int:
    node = len(labels)
    labels.append(label)
    leftmost.append(node if first_leaf is None else first_leaf)
    return leftmost[node]


def _flat_tree(tokens: list[str]) -> _Labelled:
    """The fallback tree: one leaf per token under a root, so TED reduces to token edit distance."""
    labels = [f"token:{token}" for token in tokens] + [_FLAT_ROOT]
    return _Labelled(labels, list(range(len(tokens))) + [0])


# --- the tree-sitter reading (module docstring) ----------------------------------------------------------


def _member(lang: str) -> tuple[bytes, bytes]:
    """The text around a class member of ``lang`` (``member_wrapper`` of :mod:`revmine.lang.languages`; Java's,
    JavaScript's, TypeScript's and C#'s are a class, whose ``body`` the ``member`` reading reads)."""
    opening, closing = LANGUAGES[lang].member_wrapper
    return opening.encode("utf-8"), closing.encode("utf-8")


_CLASS_OPEN, _CLASS_CLOSE = _member("java")
#: (kind, text before, text after), as _READINGS: a member of Java's wrapper class, the body of a method in it,
#: the expression it returns; newlines so that a trailing // comment ends before the wrapper
_SITTER_READINGS = (("method", _CLASS_OPEN, _CLASS_CLOSE),
                    ("statements", _CLASS_OPEN + b"void wrapped() {\n", b"\n}" + _CLASS_CLOSE),
                    ("expression", _CLASS_OPEN + b"void wrapped() { return\n", b"\n; }" + _CLASS_CLOSE))


@dataclass(frozen=True)
class _SitterRules:
    """How one language's tree-sitter tree becomes TREED's tree (module docstring, "Languages")."""

    #: node types whose anonymous tokens tell trees apart (operators, modifier and type keywords): all their
    #: children are kept; every other anonymous token (punctuation, `if`, `return`...) is implied by its parent
    varying: frozenset[str]
    #: literals tree-sitter splits into quotes and fragments: one leaf, as one token
    literals: frozenset[str]
    #: anonymous tokens kept as leaves wherever they are (C#'s `this` and `base`, named nodes elsewhere)
    kept: frozenset[str] = frozenset()
    #: the readings tried, in order: ``program`` reads the text as a whole file, ``member`` inside the
    #: language's wrapper class (methods of JavaScript, TypeScript and C# classes); Java's are ``_SITTER_READINGS``
    readings: tuple[str, ...] = ("program",)


_C_VARYING = frozenset({"binary_expression", "unary_expression", "update_expression", "assignment_expression",
                        "pointer_expression", "storage_class_specifier", "type_qualifier", "sized_type_specifier"})
_JS_VARYING = frozenset({"binary_expression", "unary_expression", "update_expression", "assignment_expression",
                         "augmented_assignment_expression"})
_SITTER_RULES: dict[str, _SitterRules] = {
    "java": _SitterRules(frozenset({"binary_expression", "assignment_expression", "unary_expression",
                                    "update_expression", "modifiers", "integral_type", "floating_point_type"}),
                         LITERALS["java"]),
    "python": _SitterRules(frozenset({"binary_operator", "boolean_operator", "comparison_operator", "unary_operator",
                                      "augmented_assignment"}), LITERALS["python"]),
    "javascript": _SitterRules(_JS_VARYING, LITERALS["javascript"], readings=("program", "member")),
    "typescript": _SitterRules(_JS_VARYING | {"accessibility_modifier", "predefined_type"}, LITERALS["typescript"],
                               readings=("program", "member")),
    "go": _SitterRules(frozenset({"binary_expression", "unary_expression", "assignment_statement", "inc_statement",
                                  "dec_statement"}), LITERALS["go"]),
    "c": _SitterRules(_C_VARYING, LITERALS["c"]),
    "cpp": _SitterRules(_C_VARYING | {"access_specifier", "virtual_specifier"}, LITERALS["cpp"]),
    "csharp": _SitterRules(frozenset({"binary_expression", "prefix_unary_expression", "postfix_unary_expression",
                                      "unary_expression", "assignment_expression", "modifier"}), LITERALS["csharp"],
                           kept=frozenset({"this", "base"}), readings=("member", "program")),
    "php": _SitterRules(frozenset({"binary_expression", "unary_op_expression", "update_expression",
                                   "assignment_expression", "augmented_assignment_expression", "visibility_modifier",
                                   "static_modifier", "abstract_modifier", "final_modifier", "primitive_type",
                                   "cast_type"}), LITERALS["php"], readings=("program", "member")),
    "ruby": _SitterRules(frozenset({"binary", "unary", "operator_assignment"}), LITERALS["ruby"]),
}

#: how a node's children are read (_SitterKinds.children): its named ones, all of them, or the named ones and
#: the rules' kept tokens
_NAMED, _ALL, _NAMED_AND_KEPT = range(3)


@dataclass(frozen=True)
class _SitterKinds:
    """A language's :class:`_SitterRules` as lists indexed by tree-sitter's kind id (``Node.kind_id``), so the
    walk reads one int per node instead of its type string."""

    names: list[str]
    literal: list[bool]
    children: list[int]
    #: for ``_NAMED_AND_KEPT``: whether a child of this kind is kept (named, or one of ``rules.kept``)
    kept: list[bool]


@functools.cache
def _sitter_kinds(lang: str) -> _SitterKinds:
    """The kind tables of ``lang`` (a node's ``type`` is its kind id's name, ``is_named`` its kind id's)."""
    language, rules = _sitter_parser(lang).language, _SITTER_RULES[lang]
    names = [language.node_kind_for_id(kind) or "" for kind in range(language.node_kind_count)]
    other = _NAMED_AND_KEPT if rules.kept else _NAMED
    return _SitterKinds(names, [name in rules.literals for name in names],
                        [_ALL if name in rules.varying else other for name in names],
                        [language.node_kind_is_named(kind) or name in rules.kept for kind, name in enumerate(names)])


_SITTER_METHODS = frozenset({"method_declaration", "constructor_declaration"})
# The src2abs artefacts as text: literals are matched first and kept, so nothing inside them changes; the
# look-behinds keep `i -- > 0` (tokens `--` `>`) and `@ANNOTATION_1` as they are.
_SITTER_REPAIR = re.compile(r""""(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|(?<!-)-\s+>|(?<!:):\s+:|(?<!<)<\s+<"""
                            r"|(?<![@\w$])(?<!@ )ANNOTATION_\d+(?![\w$])")
_SITTER_SKIPPED = re.compile(r'''"""[\s\S]*?"""|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|//[^\n]*|/\*[\s\S]*?\*/''')
_SITTER_SUSPECT = re.compile(r"[-:<]\s+[>:<]|ANNOTATION_")  # a quick test before the full repair


def _sitter_repaired(match: re.Match[str]) -> str:
    text = match.group(0)
    if text[0] in "\"'":
        return text
    if text.startswith("ANNOTATION_"):
        return "@" + text
    return text[0] + text[-1]


def _sitter_parser(lang: str = "java") -> object:
    """This thread's tree-sitter parser of ``lang`` (Java's by default)."""
    return sitter_parser(lang)


def _sitter_tree(code: str, repair: bool, wrap: bool, lang: str = "java") -> _Labelled | None:
    """The labelled tree of ``code`` read by tree-sitter's grammar of ``lang``, or None when no reading parses
    without ERROR or MISSING nodes (tree-sitter always returns a tree; a recovered one counts as not parsed)."""
    if lang != "java":
        return _sitter_other(code, wrap, lang)
    if repair and _SITTER_SUSPECT.search(code):
        code = _SITTER_REPAIR.sub(_sitter_repaired, code)
    body = code.encode("utf-8")
    parser = _sitter_parser()
    for kind, opening, closing in _SITTER_READINGS if wrap else _SITTER_READINGS[:1]:
        if kind == "statements" and not _balanced(code):
            return None  # every wrapper is balanced, so no other reading can parse (saves two parses)
        source = opening + body + closing
        root = parser.parse(source).root_node
        if root.has_error:
            continue
        members = _sitter_named(root.named_children[0].child_by_field_name("body"))
        if kind == "method":
            nodes = members if len(members) == 1 and members[0].type in _SITTER_METHODS else []
        else:
            statements = _sitter_named(members[0].child_by_field_name("body"))
            if kind == "expression":  # `return ;` has no expression; `a ; b` is not one, though `return a ; b ;` parses
                statements = _sitter_named(statements[0]) if len(statements) == 1 else []
            nodes = statements
        if nodes:  # the statements hang from a Statements root, as the method's body from the method node
            return _sitter_labelled(nodes, kind == "statements", source, _sitter_kinds("java"))
    return None


def _sitter_other(code: str, wrap: bool, lang: str) -> _Labelled | None:
    """:func:`_sitter_tree` for the languages but Java: each reading in turn (``_SitterRules.readings``); one
    top-level node is the root, several hang from a Statements root (with ``wrap`` only; without it only one
    declaration or definition is read)."""
    rules, kinds = _SITTER_RULES[lang], _sitter_kinds(lang)
    body = code.encode("utf-8")
    parser = _sitter_parser(lang)
    for kind in rules.readings:
        opening, closing = _member(lang) if kind == "member" else (b"", b"")
        source = opening + body + closing
        root = parser.parse(source).root_node
        if root.has_error:
            continue
        nodes = _sitter_named(root)
        if kind == "member":
            nodes = _sitter_named(nodes[0].child_by_field_name("body")) if len(nodes) == 1 else []
        if len(nodes) == 1 and (wrap or nodes[0].type.endswith(_DEFINITIONS)):
            return _sitter_labelled(nodes, False, source, kinds)
        if len(nodes) > 1 and wrap:
            return _sitter_labelled(nodes, True, source, kinds)
    return None


#: how every grammar here names the node of a function, method, class or variable declaration
_DEFINITIONS = ("_declaration", "_definition")


def _sitter_labelled(nodes: list, statements: bool, source: bytes, kinds: _SitterKinds) -> _Labelled | None:
    """The labelled tree of ``nodes``: under a Statements root when ``statements``, else of the one node."""
    labels: list[str] = []
    leftmost: list[int] = []
    try:
        _sitter_walk(_STATEMENTS_ROOT, nodes, source, labels, leftmost, kinds)
    except RecursionError:  # thousands of nested expressions: as javalang, not read
        return None
    if not statements:  # one node: drop the Statements root again
        labels.pop(), leftmost.pop()
    return _Labelled(labels, leftmost)


def _balanced(code: str) -> bool:
    """Whether ``code`` has as many ``(``, ``{``, ``[`` as ``)``, ``}``, ``]`` outside literals and comments:
    true of every piece of Java, and false of most cut-off predictions."""
    code = _SITTER_SKIPPED.sub(" ", code)
    return all(code.count(a) == code.count(b) for a, b in ("()", "{}", "[]"))


def _sitter_named(node: object) -> list:
    """The named children of ``node`` but comments (tree-sitter's extras; a parse with errors is not read)."""
    return [child for child in node.named_children if not child.is_extra]


def _sitter_walk(kind: str, children: list, source: bytes, labels: list[str], leftmost: list[int],
                 kinds: _SitterKinds) -> int:
    """Append in postorder a node labelled ``kind`` over ``children`` (tree-sitter nodes: the node's named
    children and ``rules.kept`` tokens, or all its children for ``rules.varying`` types) and their subtrees,
    comments left out; return the postorder number of its leftmost leaf. Tokens are appended inline: this
    runs for every node of every distinct string, the cost that matters besides parsing."""
    first = -1
    for child in children:
        if child.is_extra:  # a comment
            continue
        child_kind = child.kind_id
        if child.child_count and not kinds.literal[child_kind]:
            reading = kinds.children[child_kind]
            if reading == _NAMED:
                grandchildren = child.named_children
            elif reading == _ALL:
                grandchildren = child.children
            else:
                grandchildren = [node for node in child.children if kinds.kept[node.kind_id]]
            leaf = _sitter_walk(kinds.names[child_kind], grandchildren, source, labels, leftmost, kinds)
        else:  # a token: labelled by its text
            leaf = len(labels)
            labels.append(source[child.start_byte:child.end_byte].decode("utf-8"))
            leftmost.append(leaf)
        if first < 0:
            first = leaf
    number = len(labels)
    labels.append(kind)
    leftmost.append(number if first < 0 else first)
    return leftmost[number]
