"""CodeBLEU (Ren, Guo, Lu, Zhou, Liu, Tang, Sundaresan, Zhou, Blanco & Ma, "CodeBLEU: a Method for Automatic
Evaluation of Code Synthesis", arXiv:2009.10297, 2020), as its evaluator computes it.

Definition followed: CodeXGLUE's evaluator (``Code-Code/code-to-code-trans/evaluator/CodeBLEU`` in
microsoft/CodeXGLUE) as maintained in the ``codebleu`` package 0.7.0 (PyPI), the implementation papers cite.
``calc_codebleu`` is corpus-level; a sentence value here is its value on the one pair (or one hypothesis
and its references), the corpus value its value on the whole list:

    CodeBLEU = alpha * BLEU + beta * BLEU_weighted + gamma * Match_ast + theta * Match_df

* ``ngram``: nltk-style BLEU-4 on whitespace tokens (clipped precision, denominators ``max(1, count)``
  per sentence, closest reference length, Chen & Cherry's method 1: a zero numerator becomes 0.1; 0 if
  no unigram matches).
* ``weighted_ngram``: the same formula over n-gram *recall* (the reference's n-grams in the
  denominator, summed over references), unigrams weighted 1 for a keyword of the language (the
  evaluator's list, ``revmine/data/codebleu_keywords``) and 0.2 for any other token. As in the
  evaluator, its brevity penalty takes every reference to be 2 tokens long (it measures the
  [tokens, weights] pair it keeps per reference), so it is 1 for any hypothesis longer than that.
* ``syntax``: the share of the reference's subtrees (tree-sitter S-expressions of the root and of every
  node with children) whose S-expression occurs anywhere in the hypothesis's tree.
* ``dataflow``: the share of the reference's data-flow edges (``comesFrom``/``computedFrom``, variables
  renamed by first appearance) found in the hypothesis's, each found edge used once, read per language as
  the evaluator's ``DFG_<lang>`` reads it (quirks included: JavaScript's plain ``a = b`` is no assignment
  there, Python's assignments pair the parts of both sides when they have as many). Both structural
  components read the code after the evaluator's comment removal (Python's through ``tokenize``, which
  also drops docstrings). With no data-flow edge in any reference the component is 0 (the evaluator's
  degenerate case; it logs a warning there, we do not), and since the evaluator combines ``Match_df or
  1``, a data-flow value of 0 counts as 1 in CodeBLEU.

Languages: ``lang=`` ``java`` (the default; tree-sitter-java is a dependency), ``python``, ``go``,
``javascript``, ``c``, ``cpp`` and ``csharp`` (revmine's names, ``revmine.lang.languages``, which also names
their grammars; the evaluator's ``c_sharp`` is accepted too; their tree-sitter wheels: ``pip install
'revmine[languages]'``). C and C++ are parsed by their own grammars but, as in the evaluator (which maps
``c`` and ``cpp`` to ``DFG_csharp``, "XLCoST uses C# parser"), their data flow is read as C#'s, whose node
types they mostly lack: there only assignments, if/else and loops make edges. The evaluator's other three,
``php``, ``ruby`` and ``rust``: Ruby's grammar is revmine's (tree-sitter-ruby); PHP's is named here
(``GRAMMARS``: tree-sitter-php's ``language_php``, which the evaluator reads, not ``language_php_only``, which
revmine mines with) and so is Rust's, which revmine does not mine (tree-sitter-rust; same extra). Each data-flow
reading follows its ``DFG_<lang>``, quirks included: PHP's if statements always keep the definitions from
before them, and a ``foreach`` whose collection and variable are not two plain ``$variables`` makes the
evaluator fail on the whole text (no data flow: 6 of the 12 older release files below); Ruby is not cleaned
of comments at all, and every ``if``/``unless``/``elsif``/``else``/``when`` node and keyword is read as a
branch, a plain ``while`` as plain code; Rust's declaration is the ``function_item`` (its 2nd child the name,
3rd the value, the body never read), ``let`` is plain code.

Agreement (``tests/test_metrics_codebleu.py`` runs the package in a virtualenv of its own): for Java every
value and component to 1e-6 on 300 of Tufano et al.'s raw predictions and on degenerate pairs; for
Python, Go and JavaScript on 60 pairs of whole real files each (30 commits' after vs before, 30 after vs
another file's before) every component to 1e-6 when we read them with the evaluator's grammars (0.21),
and the two n-gram components with ours; for C, C++ and C# likewise on 24 pairs each (12 commits, whole
files of 12-25 kB on average), with its grammars tree-sitter-c 0.21, -cpp 0.22, -c-sharp 0.21; for PHP,
Ruby and Rust likewise on 24 pairs each of whole files of two releases of a package (WordPress's block
library, JRuby's Ruby standard library, ``syn``) and 6 small texts of their loops and conditions, with its
grammars tree-sitter-php 0.22, -ruby 0.21, -rust 0.21. Two qualifications, both the evaluator's:

* Where it merges the parents of one data-flow node it orders the variable names as a Python ``set``
  iterates them, which depends on ``PYTHONHASHSEED``: its data-flow value changes from one process to the
  next on about 4% of the fixture's pairs (70-75 of 1,719 between two seeds; of the 60 whole-file pairs,
  2 in Python, 11 in Go, 33 in JavaScript). We keep first-appearance
  order, so a value is reproducible; it is exactly the evaluator's with its sets iterating in insertion
  order, and its own wherever the seed does not matter.
* Its grammar is tree-sitter-java 0.21 (on tree-sitter 0.22), ours the installed one (in the signature):
  trees of code that parses are the same, error recovery on code that does not may differ. On the 1,719
  raw k=1 pairs, 2 differ (predictions with a lambda arrow printed ``- >``), by up to 0.083 in CodeBLEU.
  The other grammars' trees changed since 0.21 on valid code too, so there the structural components
  differ on most whole files: Python (0.25 labels more ``value:`` fields, splits ``is not`` and ``not in``)
  syntax on 27 of 60 pairs, data flow on 6 (by up to 0.004), CodeBLEU by up to 0.0011; Go (0.25 adds
  ``statement_list`` nodes and a content node inside string literals, a token the data flow then reads)
  syntax on 39, data flow on 25, CodeBLEU by up to 0.030; JavaScript syntax on 44, data flow on none,
  CodeBLEU by up to 0.0007. With ours (tree-sitter-c 0.24, -cpp 0.23, -c-sharp 0.23) C and C# give every
  value of the 24 pairs unchanged, C++ syntax differs on 2 (by up to 0.017), data flow on 1 (0.011),
  CodeBLEU by up to 0.0015. With ours (tree-sitter-php 0.25, -ruby 0.23, -rust 0.24) Ruby gives every value
  of its 30 pairs unchanged, PHP syntax differs on 2 (by up to 0.0007), CodeBLEU by up to 0.0002, Rust
  syntax on 10 (by up to 0.0083), CodeBLEU by up to 0.0021; data flow on none.

Speed: each distinct string is stripped, cleaned, parsed and walked once per call (a beam repeats its
reference k times); each tree is printed once by tree-sitter and its subtrees cut out of that text,
interned to ints; data flows become counters; the two n-gram components share BLEU's compiled clipped
counts (``bleu_statistics``) and only the keyword-weighted unigrams are counted apart. About 2.3x the
evaluator's sentence-level throughput on the raw k=1 predictions (``benchmarks/bench_codebleu.py``), where
every string is distinct. Per string (CPU, ~75 nodes): tree-sitter's parse 33 us and its S-expression 17 us
(both C), the cursor walk into a table 68 us (8.6 us of it the bare walk), the data flow 60 us, cutting and
interning the subtrees 18 us, cleaning 2 us. What tree-sitter alone costs bounds any implementation on it:
in the benchmark's rounds, cleaning and parsing each string and nothing else runs at 17x the evaluator's
pairs/s, with the S-expressions the syntax match compares 12x; the issue's 20x is beyond even that.
"""

from __future__ import annotations

import io
import re
import threading
import tokenize
from bisect import bisect_left
from collections import Counter
from functools import cache
from importlib import import_module
from importlib.metadata import version
from importlib.resources import files
from importlib.util import find_spec
from operator import itemgetter
from typing import Any, ClassVar, Sequence

import numpy as np
import tree_sitter

from ..errors import InputError
from ..lang import languages
from ..lang.languages import LANGUAGES, Language
from .base import Metric, check_lengths, check_reference_sets, distinct
from .bleu import bleu_statistics, multi_reference_statistics

ORDERS = 4
COMPONENTS = ("ngram", "weighted_ngram", "syntax", "dataflow")
#: weighted n-gram match: a keyword's unigram weight, and every other token's
KEYWORD_WEIGHT, OTHER_WEIGHT = 1.0, 0.2
#: Chen & Cherry's method 1, the evaluator's smoothing: a zero n-gram numerator becomes this
EPSILON = 0.1
#: the evaluator's comment removal for C-like languages: comments become one space, strings are kept
_COMMENT = re.compile(r'//.*?$|/\*.*?\*/|\'(?:\\.|[^\\\'])*\'|"(?:\\.|[^\\"])*"', re.DOTALL | re.MULTILINE)
_WHOLE_TOKENS = ("string_literal", "string", "character_literal")  # read as one token despite children
#: statistics columns: per n-gram component hyp_len, ref_len, 4 numerators, 4 denominators; then
#: syntax and data-flow (matches, total)
_NGRAM, _WEIGHTED, _SYNTAX, _DATAFLOW = slice(0, 10), slice(10, 20), slice(20, 22), slice(22, 24)

Edge = tuple  # (name, token index, relation, parent names, parent token indexes)
_index = itemgetter(1)  # an edge's token index (the evaluator sorts by it at every node)


@cache
def keywords(lang: str) -> frozenset[str]:
    """The evaluator's keyword list of ``lang`` (shipped data, see ``data/codebleu_keywords/SOURCE.md``)."""
    text = files("revmine").joinpath("data", "codebleu_keywords", f"{lang}.txt").read_text(encoding="utf-8")
    return frozenset(line.strip() for line in text.splitlines())


def remove_comments(code: str, lang: str = "java") -> str:
    """The evaluator's cleaning before parsing (``remove_comments_and_docstrings``): comments out (and in
    Python docstrings, see :func:`_python_without_comments`), then lines that are blank dropped."""
    if lang == "python":
        return _python_without_comments(code)
    if lang == "ruby":  # the evaluator cleans no Ruby: comments stay (the grammar marks them) and blank lines too
        return code
    code = _COMMENT.sub(lambda m: " " if m.group(0).startswith("/") else m.group(0), code)
    return _non_blank(code)


def _non_blank(code: str) -> str:
    return "\n".join(line for line in code.split("\n") if line.strip())


def _python_without_comments(code: str) -> str:
    """The evaluator's cleaning of Python: the text re-made from its ``tokenize`` tokens, each at its column,
    without comments and without the strings it takes for docstrings (a string that follows an indent or
    the end of a logical line, or starts a line); the text unchanged where ``tokenize`` fails."""
    out: list[str] = []
    previous, last_row, last_col = tokenize.INDENT, -1, 0
    try:
        for kind, text, (row, col), (end_row, end_col), _ in tokenize.generate_tokens(io.StringIO(code).readline):
            if row > last_row:
                last_col = 0
            out.append(" " * max(col - last_col, 0))
            docstring = kind == tokenize.STRING and (previous in (tokenize.INDENT, tokenize.NEWLINE) or col == 0)
            if kind != tokenize.COMMENT and not docstring:
                out.append(text)
            previous, last_row, last_col = kind, end_row, end_col
    except Exception:  # noqa: BLE001 - the evaluator keeps the text whatever tokenize raises
        return code
    return _non_blank("".join(out))


# ---------------------------------------------------------------------------------------------------
# A parsed text as a flat table (read once, shared by the syntax and data-flow components)
# ---------------------------------------------------------------------------------------------------

class _Table:
    """A tree in preorder: each node's type, children, subtree end and (for the data flow) its token.

    ``tokens`` maps the span of each token (a leaf or a whole string/character literal, not a comment) to
    (token number, text), as the evaluator's ``index_to_code`` does (a later token of the same span wins);
    ``token_nodes`` lists the token nodes in order, ``special`` the nodes of the types the data flow treats
    apart, ``buried`` the nodes inside a token (the evaluator finds no token there: a ``KeyError``, which
    ends its data flow). ``inner_nodes`` are the nodes whose subtree the syntax match counts (the root and
    every node with children), ``inner_ranks`` their ranks among the nodes the S-expression prints (named or missing
    ones), in its order, or -1 for one it does not print. ``flow`` is the language's data-flow reading
    (its ``FIELDS`` and ``SPECIAL`` node types)."""

    def __init__(self, root: Any, lines: list[str], flow: type[_Flow]) -> None:
        types: list[str] = []
        kids: list[list[int]] = []
        end: list[int] = []
        spans: dict[int, tuple] = {}
        token_nodes: list[int] = []
        printed = 0
        inner_ranks: list[int] = []
        inner_nodes: list[Any] = []
        special: list[int] = []
        fields: dict[int, dict[str, int]] = {}
        buried: list[int] = []
        tokens: dict[tuple, tuple[int, str]] = {}
        inert: set[int] = set()  # tokens the data flow passes over (text equal to type: keywords...), comments
        active: list[int] = []  # the other tokens, in order
        cursor = root.walk()
        path: list[tuple[int, bool]] = [(-1, False)]  # (node, inside a token) of each ancestor
        while True:  # preorder with a cursor: the cheapest walk py-tree-sitter offers
            node = cursor.node
            i, kind = len(types), node.type
            types.append(kind)
            kids.append([])
            end.append(i + 1)
            parent, in_token = path[-1]
            if in_token:
                buried.append(i)
            if parent >= 0:
                kids[parent].append(i)
                if parent in fields:
                    field = cursor.field_name
                    if field is not None:
                        fields[parent].setdefault(field, i)
            rank = -1
            if node.is_named or node.is_missing:
                rank, printed = printed, printed + 1
            if kind in flow.SPECIAL:
                special.append(i)
                if kind in flow.FIELDS:
                    fields[i] = {}
            has_children = node.child_count > 0
            if not in_token and (not has_children or kind in _WHOLE_TOKENS) and kind != "comment":
                span = spans[i] = node.start_point, node.end_point
                (row, col), (end_row, end_col) = span
                code = lines[row][col:end_col] if row == end_row else _text(span, lines)
                tokens[span] = (len(token_nodes), code)  # a later token of the same span wins
                token_nodes.append(i)
                (inert.add if code == kind else active.append)(i)
                in_token = True
            elif kind == "comment" and not has_children:
                inert.add(i)
            if has_children or parent < 0:
                inner_ranks.append(rank)
                inner_nodes.append(node)
            if cursor.goto_first_child():
                path.append((i, in_token))
                continue
            while not cursor.goto_next_sibling():
                if not cursor.goto_parent():
                    break
                end[path.pop()[0]] = len(types)
            else:
                continue
            break
        self.types, self.kids, self.end, self.spans, self.fields = types, kids, end, spans, fields
        self.token_nodes, self.special, self.buried = token_nodes, special, frozenset(buried)
        self.inner_ranks, self.inner_nodes, self.printed = inner_ranks, inner_nodes, printed
        self.tokens, self.inert, self.active = tokens, inert, active

    def plain(self, i: int) -> bool:
        """Whether the subtree of node ``i`` holds no node the data flow treats apart."""
        k = bisect_left(self.special, i)
        return k == len(self.special) or self.special[k] >= self.end[i]

    def check(self, i: int) -> None:
        """Raise the evaluator's ``KeyError`` where it looks a node inside a token up."""
        if i in self.buried:
            raise KeyError(i)

    def field(self, i: int, name: str) -> int | None:
        """The child of node ``i`` in field ``name`` (the first, as ``child_by_field_name``), if any."""
        return self.fields[i].get(name)

    def variables(self, i: int) -> list[tuple]:
        """Spans of the tokens under node ``i`` whose text is not their type: names and literals, not
        keywords or punctuation (the evaluator's ``tree_to_variable_index``)."""
        self.check(i)
        lo = bisect_left(self.token_nodes, i)
        hi = bisect_left(self.token_nodes, self.end[i], lo)
        return [self.spans[t] for t in self.token_nodes[lo:hi] if t not in self.inert]


def _text(span: tuple, lines: list[str]) -> str:
    """A token's text from its points, slicing the lines by tree-sitter's byte columns as the evaluator does."""
    (row, col), (end_row, end_col) = span
    if row == end_row:
        return lines[row][col:end_col]
    return lines[row][col:] + "".join(lines[row + 1:end_row]) + lines[end_row][:end_col]


# ---------------------------------------------------------------------------------------------------
# Data flow (the evaluator's DFG for Java, re-derived)
# ---------------------------------------------------------------------------------------------------

def _unique(names: list[str]) -> list[str]:
    """Names without repeats, in first-appearance order (the evaluator: ``list(set(...))``, seed-dependent)."""
    return list(dict.fromkeys(names))


def _merged(edges: list[Edge]) -> list[Edge]:
    """Edges of one (name, index, relation) merged, in first-appearance order (the caller then sorts by
    index): the evaluator's handling of the edges a loop gives twice."""
    merged: dict[tuple, list] = {}
    for name, index, relation, parents, sources in edges:
        key = (name, index, relation)
        if key in merged:
            merged[key] = [_unique(merged[key][0] + parents), sorted(set(merged[key][1] + sources))]
        else:
            merged[key] = [parents, sources]
    return [(*key, parents, sources) for key, (parents, sources) in merged.items()]


class _Flow:
    """The evaluator's ``DFG_<lang>`` over a :class:`_Table`: edges (name, index, relation, parents, parent
    indexes) and the last definitions of each name (``states``) after a node, read in the evaluator's
    order (loops twice). ``states`` dicts are never changed in place: a node that defines copies.

    What the languages share is here (tokens, declarations, if/else); a subclass names the node types it
    treats apart (``FIELDS``: those whose fields it reads; ``SPECIAL``: all of them), its types of the
    roles read here, and reads its loops (and whatever else is its own) in :meth:`_special`."""

    FIELDS: ClassVar[frozenset[str]]
    SPECIAL: ClassVar[frozenset[str]]
    #: the node types read as an if statement, and the children of one that begin its branches (each read
    #: from the states before it)
    IFS: ClassVar[frozenset[str]] = frozenset({"if_statement"})
    BRANCHES: ClassVar[frozenset[str]]
    #: once one branch is read, every later child is read as one too (the evaluator's ``flag``; not in
    #: Python's and Ruby's readings, where only ``BRANCHES`` are)
    STICKY_BRANCHES: ClassVar[bool] = True
    #: an ``else`` (a child, or the node itself, whose type says "else") leaves the states before the if
    #: statement out of the states after it (not in PHP's reading, which always joins them)
    ELSE_DROPS_BEFORE: ClassVar[bool] = True
    #: a declaration (fields ``name``, ``value``), assignments (``left``, ``right``), an increment
    DECLARATION: ClassVar[str]
    ASSIGNMENTS: ClassVar[frozenset[str]] = frozenset()
    INCREMENT: ClassVar[str | None] = None

    def __init__(self, table: _Table) -> None:
        self.t = table

    def flow(self, i: int, states: dict) -> tuple[list[Edge], dict]:
        t = self.t
        kind = t.types[i]
        t.check(i)
        if t.plain(i):
            return self._tokens(i, states)
        if not t.kids[i] or kind in _WHOLE_TOKENS:
            if kind == "comment":
                return [], states
            index, code = t.tokens[t.spans[i]]  # a KeyError here is the evaluator's too
            if kind == code:
                return [], states
            if code in states:
                return [(code, index, "comesFrom", [code], list(states[code]))], states
            if kind == "identifier":
                states = {**states, code: [index]}
            return [(code, index, "comesFrom", [], [])], states
        edges, states = self._special(i, kind, states)
        return sorted(edges, key=_index), states

    def _special(self, i: int, kind: str, states: dict) -> tuple[list[Edge], dict]:
        """The flow of inner node ``i`` of type ``kind``, unsorted: by its role, else its children in order."""
        if kind == self.DECLARATION:
            return self._declare(i, states)
        if kind in self.ASSIGNMENTS:
            left, right = self.t.field(i, "left"), self.t.field(i, "right")
            edges, states = self.flow(right, states)
            assigned, states = self._assign(left, right, "computedFrom", states)
            return edges + assigned, states
        if kind == self.INCREMENT:
            return self._assign(i, i, "computedFrom", states)
        if kind in self.IFS:
            return self._branches(i, states)
        return self._sequence(self.t.kids[i], states)

    def _for_after(self, i: int, declaration: str, states: dict) -> tuple[list[Edge], dict]:
        """A C-like for loop: its children in order, then again those after its first ``declaration``
        child (if any), the edges of each token merged."""
        kids = self.t.kids[i]
        edges, states = self._sequence(kids, states)
        after = [k for k, c in enumerate(kids) if self.t.types[c] == declaration]
        if after:
            again, states = self._sequence(kids[after[0] + 1:], states)
            edges += again
        return _merged(edges), states

    def _twice(self, i: int, states: dict) -> tuple[list[Edge], dict]:
        """A while loop: its children read twice, the edges of each token merged."""
        edges, states = self._sequence(self.t.kids[i] * 2, states)
        return _merged(edges), states

    def _assign(self, targets: int, values: int, relation: str, states: dict) -> tuple[list[Edge], dict]:
        """Each variable of ``targets`` comes from each of ``values``; it is defined here."""
        tokens = self.t.tokens
        edges, states = [], dict(states)
        sources = [tokens[span] for span in self.t.variables(values)]
        for span in self.t.variables(targets):
            index, name = tokens[span]
            edges += [(name, index, relation, [code], [at]) for at, code in sources]
            states[name] = [index]
        return edges, states

    def _parts(self, i: int) -> tuple[int | None, int | None]:
        """A declaration's name and value (if any): its fields ``name`` and ``value``."""
        return self.t.field(i, "name"), self.t.field(i, "value")

    def _declare(self, i: int, states: dict) -> tuple[list[Edge], dict]:
        """A declaration (:meth:`_parts`): without a value each name is defined from nothing; with one, the
        value's flow, then each name comes from each of its variables."""
        t = self.t
        name, value = self._parts(i)
        if value is not None:
            edges, states = self.flow(value, states)
            assigned, states = self._assign(name, value, "comesFrom", states)
            return edges + assigned, states
        edges, states = [], dict(states)
        for span in t.variables(name):
            index, code = t.tokens[span]
            edges.append((code, index, "comesFrom", [], []))
            states[code] = [index]
        return edges, states

    def _tokens(self, i: int, states: dict) -> tuple[list[Edge], dict]:
        """The flow of a plain subtree (see ``_Table.plain``): its tokens in order, each used or defined
        (an identifier) or standing alone, what the recursion over it gives, without recursing."""
        t = self.t
        lo = bisect_left(t.active, i)
        edges: list[Edge] = []
        defined = False
        for node in t.active[lo:bisect_left(t.active, t.end[i], lo)]:
            index, code = t.tokens[t.spans[node]]
            if code in states:
                edges.append((code, index, "comesFrom", [code], list(states[code])))
                continue
            if t.types[node] == "identifier":
                if not defined:
                    states, defined = dict(states), True
                states[code] = [index]
            edges.append((code, index, "comesFrom", [], []))
        return edges, states

    def _sequence(self, nodes: list[int], states: dict) -> tuple[list[Edge], dict]:
        edges: list[Edge] = []
        inert = self.t.inert
        for node in nodes:
            if node not in inert:  # would give no edge and the same states
                found, states = self.flow(node, states)
                edges += found
        return edges, states

    def _branches(self, i: int, states: dict) -> tuple[list[Edge], dict]:
        """if/else: the parts before the first branch (``BRANCHES``, see ``STICKY_BRANCHES``) from ``states``
        in turn, each branch from ``states``; afterwards a name's definitions are those of every branch (and
        of before, without an else: see ``ELSE_DROPS_BEFORE``)."""
        t = self.t
        edges: list[Edge] = []
        current, outcomes, branching, has_else = states, [], False, "else" in t.types[i]
        for child in t.kids[i]:
            kind = t.types[child]
            has_else = has_else or "else" in kind
            if (branching and self.STICKY_BRANCHES) or kind in self.BRANCHES:
                branching = True
                found, after = self.flow(child, states)
                outcomes.append(after)
            else:
                found, current = self.flow(child, current)
            edges += found
        outcomes.append(current)
        if not (has_else and self.ELSE_DROPS_BEFORE):
            outcomes.append(states)
        joined: dict[str, list] = {}
        for outcome in outcomes:
            for name, defined in outcome.items():
                joined[name] = joined.get(name, []) + list(defined)
        return edges, {name: sorted(set(d)) for name, d in joined.items()}

    # Python's and Ruby's assignments: the parts of both sides paired

    def _sides(self, i: int) -> tuple[list[int], list[int]]:
        """The targets and values of an assignment or ``for``: the parts of each side (commas left out)
        when both have as many, else each side whole (a missing side raises, as in the evaluator)."""
        t = self.t
        left, right = t.field(i, "left"), t.field(i, "right")
        targets = [k for k in t.kids[left] if t.types[k] != ","]
        values = [k for k in t.kids[right] if t.types[k] != ","]
        if len(targets) != len(values):
            return [left], [right]
        return targets or [left], values or [right]

    def _pairs(self, targets: list[int], values: list[int], states: dict) -> tuple[list[Edge], dict]:
        """Each value's flow; then each variable of a target is computed from all of its value's."""
        edges, states = self._sequence(values, states)
        tokens, states = self.t.tokens, dict(states)
        for target, value in zip(targets, values):
            sources = [tokens[span] for span in self.t.variables(value)]
            for span in self.t.variables(target):
                index, name = tokens[span]
                edges.append((name, index, "computedFrom", [code for _, code in sources], [at for at, _ in sources]))
                states[name] = [index]
        return edges, states

    def _for_in(self, targets: list[int], values: list[int], body: list[int], states: dict) -> tuple[list[Edge], dict]:
        """A ``for`` over values: twice the values paired with the targets (:meth:`_pairs`) then the body,
        the edges of each token merged."""
        edges: list[Edge] = []
        for _ in range(2):
            found, states = self._pairs(targets, values, states)
            edges += found
            found, states = self._sequence(body, states)
            edges += found
        return _merged(edges), states


class _JavaFlow(_Flow):
    """``DFG_java``; its for, for-each and while loops as other C-like readings take them over."""

    FIELDS = frozenset({"variable_declarator", "assignment_expression", "enhanced_for_statement"})
    SPECIAL = FIELDS | {"update_expression", "if_statement", "for_statement", "while_statement"}
    BRANCHES = frozenset({"if_statement", "else"})
    DECLARATION, INCREMENT = "variable_declarator", "update_expression"
    ASSIGNMENTS = frozenset({"assignment_expression"})
    #: the for loop's type, and the child after which its parts are read again (see ``_Flow._for_after``)
    FOR, FOR_DECLARATION = "for_statement", "local_variable_declaration"
    #: the for-each loop's type and its fields: the variable, the collection, the body
    EACH: ClassVar[str] = "enhanced_for_statement"
    EACH_FIELDS: ClassVar[tuple[str, str, str]] = ("name", "value", "body")
    WHILES: ClassVar[frozenset[str]] = frozenset({"while_statement"})

    def _special(self, i: int, kind: str, states: dict) -> tuple[list[Edge], dict]:
        if kind == self.FOR:
            return self._for_after(i, self.FOR_DECLARATION, states)
        if kind == self.EACH:
            name, value, body = self._each_parts(i)
            edges: list[Edge] = []
            for _ in range(2):
                found, states = self.flow(value, states)
                assigned, states = self._assign(name, value, "computedFrom", states)
                inner, states = self.flow(body, states)
                edges += found + assigned + inner
            return _merged(edges), states
        if kind in self.WHILES:
            return self._twice(i, states)
        return super()._special(i, kind, states)

    def _each_parts(self, i: int) -> tuple[int | None, int | None, int | None]:
        """A for-each loop's variable, collection and body (its ``EACH_FIELDS``)."""
        name, value, body = self.EACH_FIELDS
        return self.t.field(i, name), self.t.field(i, value), self.t.field(i, body)


class _CSharpFlow(_JavaFlow):
    """``DFG_csharp``: Java's reading with C#'s node types (``postfix_unary_expression``, ``for_each_statement``
    with fields ``left``/``right``), a declarator's name its first child and its value the second when it has
    exactly two (else none). The evaluator reads C and C++ with it too, each parsed by its own grammar (as
    XLCoST did): there most of these types do not occur, so only assignments, if/else and loops are read."""

    FIELDS = frozenset({"assignment_expression", "for_each_statement"})
    SPECIAL = FIELDS | {"variable_declarator", "postfix_unary_expression", "if_statement", "for_statement",
                        "while_statement"}
    INCREMENT = "postfix_unary_expression"
    EACH, EACH_FIELDS = "for_each_statement", ("left", "right", "body")

    def _parts(self, i: int) -> tuple[int | None, int | None]:
        kids = self.t.kids[i]
        return kids[0], kids[1] if len(kids) == 2 else None


class _PhpFlow(_JavaFlow):
    """``DFG_php``: Java's reading with PHP's node types (a parameter's default value in ``default_value``; a
    for loop read again after its first ``assignment_expression``), and two readings of its own: an if
    statement's states after it always include those before (an ``else_clause`` too is read as an if
    statement), and a ``foreach``'s collection is its first ``variable_name`` child, its variable the second
    (where there are not two, as in ``foreach ($this->xs as $k => $v)``, the evaluator fails on the text:
    no data flow)."""

    FIELDS = frozenset({"simple_parameter", "assignment_expression", "augmented_assignment_expression",
                        "foreach_statement"})
    SPECIAL = FIELDS | {"update_expression", "if_statement", "else_clause", "for_statement", "while_statement"}
    IFS = BRANCHES = frozenset({"if_statement", "else_clause"})
    ELSE_DROPS_BEFORE = False
    DECLARATION = "simple_parameter"
    ASSIGNMENTS = frozenset({"assignment_expression", "augmented_assignment_expression"})
    FOR_DECLARATION = "assignment_expression"
    EACH = "foreach_statement"

    def _parts(self, i: int) -> tuple[int | None, int | None]:
        return self.t.field(i, "name"), self.t.field(i, "default_value")

    def _each_parts(self, i: int) -> tuple[int | None, int | None, int | None]:
        value, name = ([k for k in self.t.kids[i] if self.t.types[k] == "variable_name"] + [None, None])[:2]
        return name, value, self.t.field(i, "body")


class _RustFlow(_JavaFlow):
    """``DFG_rust``: Java's reading with Rust's node types. Its declaration is a ``function_item``, whose
    second child it takes as the name and third as the value: ``fn f(a: T)`` makes ``f`` come from the
    parameters' variables (``pub fn f`` makes nothing come from the name ``f``), and neither reads the
    function's body, so a function's body gives no data flow. ``let`` is no declaration there (read as plain
    tokens); ``match`` is read as an if statement, ``loop`` and ``while let`` as while loops."""

    FIELDS = frozenset({"assignment_expression", "compound_assignment_expr", "let_expression", "for_each_statement"})
    IFS = frozenset({"if_expression", "if_let_expression", "match_expression"})
    BRANCHES = IFS | {"else"}
    WHILES = frozenset({"while_expression", "while_let_expression", "loop_expression"})
    FOR = "for_expression"
    SPECIAL = FIELDS | IFS | WHILES | {"function_item", FOR}
    DECLARATION, INCREMENT = "function_item", None
    ASSIGNMENTS = frozenset({"assignment_expression", "compound_assignment_expr", "let_expression"})
    EACH, EACH_FIELDS = _CSharpFlow.EACH, _CSharpFlow.EACH_FIELDS  # as in the evaluator; not a Rust node type

    def _parts(self, i: int) -> tuple[int | None, int | None]:
        kids = self.t.kids[i]
        return kids[1], kids[2] if len(kids) >= 3 else None


class _JavaScriptFlow(_Flow):
    """``DFG_javascript``: Java's reading with JavaScript's node types. As there, only destructuring
    defaults (``assignment_pattern``) and compound assignments are assignments: ``a = b`` is read as
    plain tokens."""

    FIELDS = frozenset({"variable_declarator", "assignment_pattern", "augmented_assignment_expression"})
    SPECIAL = FIELDS | {"update_expression", "if_statement", "for_statement", "while_statement"}
    BRANCHES = frozenset({"if_statement", "else"})
    DECLARATION, INCREMENT = "variable_declarator", "update_expression"
    ASSIGNMENTS = frozenset({"assignment_pattern", "augmented_assignment_expression"})

    def _special(self, i: int, kind: str, states: dict) -> tuple[list[Edge], dict]:
        if kind == "for_statement":
            return self._for_after(i, "variable_declaration", states)
        if kind == "while_statement":
            return self._twice(i, states)
        return super()._special(i, kind, states)


class _GoFlow(_Flow):
    """``DFG_go``: Java's reading with Go's node types; a ``for`` reads its clause's update and its body twice."""

    FIELDS = frozenset({"var_spec", "assignment_statement", "for_clause"})
    SPECIAL = FIELDS | {"inc_statement", "if_statement", "for_statement"}
    BRANCHES = frozenset({"if_statement", "else"})
    DECLARATION, INCREMENT = "var_spec", "inc_statement"
    ASSIGNMENTS = frozenset({"assignment_statement"})

    def _special(self, i: int, kind: str, states: dict) -> tuple[list[Edge], dict]:
        t = self.t
        if kind == "for_statement":
            edges, states = self._sequence(t.kids[i], states)
            clause = [k for k, c in enumerate(t.kids[i]) if t.types[c] == "for_clause"]
            if clause:
                update = t.field(t.kids[i][clause[0]], "update")
                again, states = self._sequence([update] if update is not None else [], states)
                edges += again
                again, states = self._sequence(t.kids[i][clause[0] + 1:], states)
                edges += again
            return _merged(edges), states
        return super()._special(i, kind, states)


class _PythonFlow(_Flow):
    """``DFG_python``: assignments pair targets with values position by position, a comprehension's
    ``for`` clauses are read before the rest of it, ``for`` and ``while`` loops twice."""

    FIELDS = frozenset({"default_parameter", "assignment", "augmented_assignment", "for_in_clause",
                        "for_statement"})
    SPECIAL = FIELDS | {"if_statement", "while_statement"}
    BRANCHES = frozenset({"elif_clause", "else_clause"})
    STICKY_BRANCHES = False
    DECLARATION = "default_parameter"

    def _special(self, i: int, kind: str, states: dict) -> tuple[list[Edge], dict]:
        t = self.t
        if kind == "for_in_clause":
            return self._pairs([t.field(i, "left")], [t.kids[i][-1]], states)
        if kind in ("assignment", "augmented_assignment"):
            if t.field(i, "right") is None:
                return [], states
            return self._pairs(*self._sides(i), states)
        if kind == "for_statement":
            body = t.kids[i][-1]
            return self._for_in(*self._sides(i), [body] if t.types[body] == "block" else [], states)
        if kind == "while_statement":
            return self._twice(i, states)
        if kind in self.SPECIAL:
            return super()._special(i, kind, states)
        first = [k for k in t.kids[i] if t.types[k] == "for_in_clause"]
        edges, states = self._sequence(first, states)
        rest, states = self._sequence([k for k in t.kids[i] if t.types[k] != "for_in_clause"], states)
        return edges + rest, states


class _RubyFlow(_Flow):
    """``DFG_ruby``: Python's reading of assignments (``a, b = x, y`` pairs the parts; ``x += y`` pairs its
    first and last child) and of ``for`` loops (``pattern``, ``value``, ``body``) with Ruby's node types; a
    keyword parameter is a declaration. ``if``, ``unless``, ``elsif``, ``else`` and ``when`` are all read as
    if statements and as their branches (their keywords, tokens of those same types, too); only
    ``while``-modifiers and ``until`` are loops (a plain ``while`` is read as plain code)."""

    FIELDS = frozenset({"keyword_parameter", "assignment", "operator_assignment", "for"})
    IFS = BRANCHES = frozenset({"if", "elsif", "else", "unless", "when"})
    STICKY_BRANCHES = False
    SPECIAL = FIELDS | IFS | {"while_modifier", "until"}
    DECLARATION = "keyword_parameter"

    def _special(self, i: int, kind: str, states: dict) -> tuple[list[Edge], dict]:
        t = self.t
        if kind in ("assignment", "operator_assignment"):
            targets, values = self._sides(i)
            if kind == "operator_assignment":
                targets, values = [t.kids[i][0]], [t.kids[i][-1]]
            return self._pairs(targets, values, states)
        if kind == "for":
            return self._for_in([t.field(i, "pattern")], [t.field(i, "value")], [t.field(i, "body")], states)
        if kind in ("while_modifier", "until"):
            return self._twice(i, states)
        return super()._special(i, kind, states)


def data_flow(table: _Table, flow: type[_Flow]) -> list[tuple[str, str, tuple[str, ...]]]:
    """The evaluator's normalised data flow of a parsed text, read by the language's ``flow``: edges between
    tokens that take part in one, one per token (merged), names replaced by ``var_i`` in order of first
    appearance."""
    try:
        edges, _ = flow(table).flow(0, {})
    except Exception:  # noqa: BLE001 - where its DFG fails (a missing field, too deep a tree...)
        edges = []  # the evaluator counts the text as having no flow
    linked = {e[1] for e in edges if e[4]} | {i for e in edges for i in e[4]}
    by_token: dict[int, Edge] = {}
    for edge in edges:
        if edge[1] not in linked:
            continue
        before = by_token.get(edge[1])
        by_token[edge[1]] = edge if before is None else (*edge[:3], _unique(before[3] + edge[3]), edge[4])
    names: dict[str, str] = {}
    normalised = []
    for name, _, relation, parents, _ in by_token.values():
        for variable in (*parents, name):
            if variable not in names:
                names[variable] = f"var_{len(names)}"
        normalised.append((names[name], relation, tuple(names[p] for p in parents)))
    return normalised


# ---------------------------------------------------------------------------------------------------
# Languages
# ---------------------------------------------------------------------------------------------------

#: each language's data-flow reading, by revmine's name of it (``revmine.lang.languages``); the keywords are
#: ``data/codebleu_keywords/<lang>.txt``
_FLOWS: dict[str, type[_Flow]] = {"java": _JavaFlow, "python": _PythonFlow, "go": _GoFlow,
                                  "javascript": _JavaScriptFlow, "c": _CSharpFlow, "cpp": _CSharpFlow,
                                  "csharp": _CSharpFlow, "php": _PhpFlow, "ruby": _RubyFlow, "rust": _RustFlow}
#: each language's grammar: revmine's (``revmine.lang.languages``) and, for the evaluator's languages that revmine
#: does not mine, the wheels it reads them with (PHP's ``language_php``: the evaluator's, which also parses the
#: HTML around ``<?php``)
GRAMMARS: dict[str, Language] = {**{lang: LANGUAGES[lang] for lang in _FLOWS if lang in LANGUAGES}, **{
    language.name: language for language in (
        Language("php", (".php",), "tree-sitter-php", "tree_sitter_php", "language_php"),
        Language("rust", (".rs",), "tree-sitter-rust", "tree_sitter_rust"))}}
#: the optional dependencies that install the grammars other than Java's (``pip install 'revmine[languages]'``)
EXTRA = "languages"
_PARSERS = threading.local()  # a tree-sitter Parser must not be shared between threads


@cache
def _grammar(lang: str) -> Any:
    """The tree-sitter grammar of ``lang``: revmine's own, or built as ``revmine.lang.languages`` builds them."""
    if GRAMMARS[lang] is LANGUAGES.get(lang):
        return languages.grammar(lang)
    spec = GRAMMARS[lang]
    return tree_sitter.Language(getattr(import_module(spec.module), spec.function)())


def _parser(lang: str) -> Any:
    """This thread's tree-sitter parser of ``lang``."""
    parsers = _PARSERS.__dict__
    if lang not in parsers:
        parsers[lang] = tree_sitter.Parser(_grammar(lang))
    return parsers[lang]


# ---------------------------------------------------------------------------------------------------
# Per distinct text: subtrees and data flow
# ---------------------------------------------------------------------------------------------------

def _cut(sexps: list[str], ranks: list[list[int]]) -> list[list[str]]:
    """For each S-expression, the parts that begin at the k-th opening parenthesis, for each k of its
    ``ranks``, and end at the matching one: found for all at once with numpy (per depth, opening and
    closing parentheses alternate). No parenthesis may be quoted; the text is ASCII (see :func:`_structures`)."""
    joined = "".join(sexps)
    codes = np.frombuffer(joined.encode("ascii"), dtype=np.uint8)
    at = np.flatnonzero((codes == ord("(")) | (codes == ord(")")))
    opening = codes[at] == ord("(")
    depth = np.cumsum(np.where(opening, 1, -1))  # after each parenthesis
    level = depth + ~opening  # an opening's depth after it, a closing's before it
    open_at, close_at = at[opening], at[~opening]
    match = np.empty(len(open_at), dtype=np.int64)
    match[np.lexsort((open_at, level[opening]))] = close_at[np.lexsort((close_at, level[~opening]))]
    open_at, match = open_at.tolist(), (match + 1).tolist()
    out, first = [], 0
    for sexp, wanted in zip(sexps, ranks):
        out.append([joined[open_at[first + k]:match[first + k]] for k in wanted])
        first += sexp.count("(")
    return out


def _structures(texts: list[str], lang: str = "java") -> list[tuple[list[int], frozenset[int], Counter]]:
    """Per distinct text of ``lang``: its subtrees as ids (equal ids, equal S-expressions), their set, and its data-flow
    edges counted.

    A subtree's S-expression (``str(node)``, what the evaluator compares) is the part of the root's that
    starts at the node's parenthesis (the k-th for the k-th printed node) and ends at the matching one, so
    tree-sitter prints each tree once (:func:`_cut`). Every printed node gives one ``(`` and one ``)``, so
    where the text holds more than the walk counted printed nodes, one is quoted (a missing ``")"`` token,
    an unexpected ``'('``) or printed but not reached (C#'s grammar 0.21 can recover with a missing token
    inside an ``identifier``): such a text, a non-ASCII one (a quoted character) or one with an unprinted
    inner node gets ``str(node)`` of each of them instead (quotes without parentheses, as ``(MISSING ";")``
    in 7% of the raw predictions, need not: re-printing every subtree there cost a tenth of the time). Each
    table is dropped once read: with all of a batch's tables alive, building them took three times as long
    (measured)."""
    parser, flow = _parser(lang), _FLOWS[lang]
    flows, plain, ranks, subtrees = [], [], [], []
    for text in texts:
        code = remove_comments(text, lang)
        root = parser.parse(code.encode("utf-8")).root_node
        table = _Table(root, code.split("\n"), flow)
        flows.append(Counter(data_flow(table, flow)))
        sexp = str(root)
        if not sexp.isascii() or -1 in table.inner_ranks or not sexp.count("(") == sexp.count(")") == table.printed:
            subtrees.append([str(node) for node in table.inner_nodes])
        else:
            subtrees.append(None)
            plain.append(sexp)
            ranks.append(table.inner_ranks)
    cut = iter(_cut(plain, ranks))
    ids: dict[str, int] = {}
    out = []
    for found, flow in zip(subtrees, flows):
        numbers = [ids.setdefault(s, len(ids)) for s in (next(cut) if found is None else found)]
        out.append((numbers, frozenset(numbers), flow))
    return out


# ---------------------------------------------------------------------------------------------------
# The metric
# ---------------------------------------------------------------------------------------------------

class CodeBLEU(Metric):
    """CodeBLEU with the evaluator's weights (``alpha`` n-gram, ``beta`` weighted n-gram, ``gamma`` syntax,
    ``theta`` data-flow; 0.25 each), or one of its components alone with ``component=`` (column
    ``codebleu_<component>``). See the module docstring for the definition."""

    name: ClassVar[str] = "codebleu"
    #: the values of ``lang`` (revmine's names); ``lang=auto`` (:class:`revmine.metrics.registry.ByLanguage`)
    #: scores each row with one
    known_languages: ClassVar[tuple[str, ...]] = tuple(_FLOWS)

    def __init__(self, lang: str = "java", alpha: float = 0.25, beta: float = 0.25, gamma: float = 0.25,
                 theta: float = 0.25, component: str = "codebleu") -> None:
        lang = languages.canonical(lang)
        if lang not in _FLOWS:
            raise ValueError(f"lang must be one of {(*_FLOWS, 'c_sharp')} (a tree-sitter grammar and a data-flow "
                             f"reading per language), not {lang!r}")
        package = GRAMMARS[lang].package
        if find_spec(GRAMMARS[lang].module) is None:
            raise InputError.setting("lang", f"CodeBLEU(lang={lang!r}) needs the {package} grammar, which is not "
                                             f"installed: pip install 'revmine[{EXTRA}]'")
        if component not in ("codebleu", *COMPONENTS):
            raise ValueError(f"component must be 'codebleu' or one of {COMPONENTS}, not {component!r}")
        self.lang, self.component = lang, component
        self.weights = (float(alpha), float(beta), float(gamma), float(theta))

    def settings(self) -> dict[str, object]:
        package = GRAMMARS[self.lang].package
        out: dict[str, object] = {"lang": self.lang, "parser": f"{package}-{version(package)}",
                                  "keywords": "codexglue"}
        if self.component == "codebleu":
            out.update(zip(("alpha", "beta", "gamma", "theta"), self.weights))
        else:
            out["component"] = self.component
        return out

    @property
    def column(self) -> str:
        return self.name if self.component == "codebleu" else f"{self.name}_{self.component}"

    def sentence_scores(self, hypotheses: Sequence[str], references: Sequence[str]) -> np.ndarray:
        check_lengths(hypotheses, references)
        return self.multi_reference_scores(hypotheses, [[r] for r in references])

    def multi_reference_scores(self, hypotheses: Sequence[str],
                               reference_sets: Sequence[Sequence[str]]) -> np.ndarray:
        """The evaluator's value on each hypothesis with its references (not the best over references)."""
        return self._combine(self._components(self.segment_statistics(hypotheses, reference_sets)))

    def components(self, hypotheses: Sequence[str], references: Sequence[str]) -> dict[str, np.ndarray]:
        """Sentence values of the four components and of CodeBLEU, by name (``codebleu``, ``ngram``...)."""
        check_lengths(hypotheses, references)
        parts = self._components(self.segment_statistics(hypotheses, [[r] for r in references]))
        return {"codebleu": self._weighted(parts), **parts}

    def corpus_components(self, hypotheses: Sequence[str],
                          reference_sets: Sequence[Sequence[str]]) -> dict[str, float]:
        """Corpus values of the four components and of CodeBLEU (what ``calc_codebleu`` returns)."""
        stats = self.segment_statistics(hypotheses, reference_sets).sum(axis=0, keepdims=True)
        parts = self._components(stats)
        return {name: float(value[0]) for name, value in {"codebleu": self._weighted(parts), **parts}.items()}

    def segment_statistics(self, hypotheses: Sequence[str], reference_sets: Sequence[Sequence[str]]) -> np.ndarray:
        """Per hypothesis the sums the evaluator's corpus formula reads (see the ``_NGRAM``... columns)."""
        sizes = check_reference_sets(hypotheses, reference_sets)
        out = np.zeros((len(hypotheses), 24))
        if not len(hypotheses):
            return out
        owner = np.repeat(np.arange(len(hypotheses)), sizes)
        hyps = [hypotheses[i].strip() for i in owner]
        refs = [r.strip() for rs in reference_sets for r in rs]
        self._ngrams(hyps, refs, owner, sizes, out)
        index, texts = distinct(hyps + refs)
        structures = _structures(texts, self.lang)
        for row, h, r in zip(owner.tolist(), index[:len(hyps)].tolist(), index[len(hyps):].tolist()):
            ref_trees, _, ref_flow = structures[r]
            _, hyp_set, hyp_flow = structures[h]
            out[row, _SYNTAX] += (sum(t in hyp_set for t in ref_trees), len(ref_trees))
            out[row, _DATAFLOW] += (sum((ref_flow & hyp_flow).values()), sum(ref_flow.values()))
        return out

    def _ngrams(self, hyps: list[str], refs: list[str], owner: np.ndarray, sizes: np.ndarray,
                out: np.ndarray) -> None:
        """Both n-gram components' sums into ``out``, from BLEU's clipped counts per (hypothesis, reference)."""
        stats = bleu_statistics(hyps, refs, ORDERS).astype(np.float64)
        hyp_len, ref_len, matches = stats[:, 0], stats[:, 1], stats[:, 2:]
        start = np.cumsum(sizes) - sizes
        per_hyp = hyp_len[start]
        # closest reference length (the shorter on a tie), as both components take it
        distance = np.abs(ref_len - hyp_len) * (1 << 20) + ref_len
        closest = ref_len[start + np.array([np.argmin(distance[s:s + n]) for s, n in zip(start, sizes)])]
        orders = np.arange(ORDERS)
        ngram, recall = out[:, _NGRAM], out[:, _WEIGHTED]  # views: [hyp_len, ref_len, numerators, denominators]
        # the weighted component's reference length is always 2: the evaluator measures each reference
        # there as its [tokens, weights] pair (so its brevity penalty is 1 for any hypothesis over 2 tokens)
        ngram[:, 0], ngram[:, 1], recall[:, 0], recall[:, 1] = per_hyp, closest, per_hyp, 2.0
        # BLEU: an n-gram is clipped by its largest count in any reference (max over references equals
        # the matches against one reference only when there is one)
        if (sizes == 1).all():
            ngram[:, 2:6] = matches
        else:
            ngram[:, 2:6] = multi_reference_statistics([hyps[s] for s in start], [refs[s:s + n] for s, n in
                                                                                  zip(start, sizes)], ORDERS)[:, 2:]
        ngram[:, 6:10] = np.maximum(per_hyp[:, None] - orders, 1)
        # weighted recall: summed over references; unigrams weighted by keyword
        keyword = keywords(self.lang)
        kept = bleu_statistics([" ".join(t for t in h.split() if t in keyword) for h in hyps],
                               [" ".join(t for t in r.split() if t in keyword) for r in refs], 1)
        key_matches, key_len = kept[:, 2].astype(np.float64), kept[:, 1].astype(np.float64)
        weighted = matches.copy()
        weighted[:, 0] = KEYWORD_WEIGHT * key_matches + OTHER_WEIGHT * (matches[:, 0] - key_matches)
        totals = np.maximum(ref_len[:, None] - orders, 0)
        totals[:, 0] = KEYWORD_WEIGHT * key_len + OTHER_WEIGHT * (ref_len - key_len)
        recall[:, 2:6] = np.add.reduceat(weighted, start)
        recall[:, 6:10] = np.add.reduceat(np.maximum(totals, 1), start)

    @staticmethod
    def _components(stats: np.ndarray) -> dict[str, np.ndarray]:
        """The four components of statistics rows; data flow is 0 where no reference has any."""
        (syntax_found, subtrees), (flow_found, flows) = stats[:, _SYNTAX].T, stats[:, _DATAFLOW].T
        return {"ngram": _bleu(stats[:, _NGRAM]), "weighted_ngram": _bleu(stats[:, _WEIGHTED]),
                "syntax": syntax_found / subtrees, "dataflow": flow_found / np.where(flows > 0, flows, 1)}

    def _weighted(self, parts: dict[str, np.ndarray]) -> np.ndarray:
        alpha, beta, gamma, theta = self.weights
        dataflow = np.where(parts["dataflow"] == 0, 1.0, parts["dataflow"])  # the evaluator's `or 1`
        return alpha * parts["ngram"] + beta * parts["weighted_ngram"] + gamma * parts["syntax"] + theta * dataflow

    def _combine(self, parts: dict[str, np.ndarray]) -> np.ndarray:
        return self._weighted(parts) if self.component == "codebleu" else parts[self.component]

    def corpus_from_statistics(self, statistics: np.ndarray) -> float:
        """The evaluator's corpus value: every sum over the rows, then the formula once."""
        if not len(statistics):
            return float("nan")
        return float(self._combine(self._components(statistics.sum(axis=0, keepdims=True)))[0])


def _bleu(stats: np.ndarray) -> np.ndarray:
    """nltk's BLEU-4 with method 1 from rows ``[hyp_len, ref_len, numerators x4, denominators x4]``."""
    hyp_len, ref_len, numerators, denominators = stats[:, 0], stats[:, 1], stats[:, 2:6], stats[:, 6:10]
    smoothed = np.where(numerators == 0, EPSILON, numerators)
    with np.errstate(divide="ignore", invalid="ignore"):
        brevity = np.where(hyp_len > ref_len, 1.0, np.where(hyp_len == 0, 0.0, np.exp(1 - ref_len / hyp_len)))
        score = brevity * np.exp((np.log(smoothed / denominators) / ORDERS).sum(axis=1))
    return np.where(numerators[:, 0] == 0, 0.0, score)


__all__ = ["CodeBLEU", "COMPONENTS", "data_flow", "keywords", "remove_comments"]
