"""GVED: graph edit distance between the program dependence graphs of a predicted method and its reference.

Definition followed: the graph level of RUBY (Tran, Tran, Nguyen, Nguyen & Nguyen, "Does BLEU Score Work
for Code Migration?", ICPC 2019). RUBY scores a pair on the PDGs when both sides have one, else on the
ASTs (TREED, :mod:`revmine.metrics.tree`), else on the token strings; each level is one minus an edit
distance over a size, and at the graph level the size of a PDG is its number of nodes plus its number of
edges (the paper's GRS; the public reimplementation of RUBY by Evtikhiev et al., "Out of the BLEU", JSS 2023,
normalises its graph level the same way, with networkx's GED and unit costs)::

    GVED(h, r) = GED(G_h, G_r) / (|V_h| + |E_h| + |V_r| + |E_r|)   :class:`GraphEditDistance`, column ``gved``
    similarity = 1 - GVED(h, r)                                     :class:`GraphEditSimilarity`, ``gved_sim``

``GED`` has unit costs: inserting or deleting a node or an edge costs 1, relabelling a node or an edge
costs 1 (0 to its own label). Deleting one graph and inserting the other is an edit path, so both values
lie in [0, 1]. Since the paper names no PDG builder that reads Java methods without a build, the graph
below is ours; what a user should know to read a value:

* Nodes: an entry node (the method's header: modifiers, return type, name, parameters, thrown types; a
  plain ``Entry`` for a wrapped statement list or expression), and one node per statement, in the source
  order: every javalang statement except blocks (``{ ... }`` only groups) and empty statements, plus
  one node per ``catch`` clause and per ``case`` group of a ``switch``. A node's label is the statement's
  kind and the TREED labels (:mod:`revmine.metrics.tree`) of its *own* parts, written as an s-expression:
  an ``if`` is labelled by its condition, a ``for`` by its control, a ``return`` by its expression, a
  declaration by its whole tree; nested statements are nodes of their own. So ``x = a + 1;`` versus
  ``x = a + 2;`` is one relabelling, as is any change inside one statement (a finer cost is TREED's job).
* Control dependence (label ``control``): from the nearest enclosing ``if``/``while``/``do``/``for``/
  ``switch`` case/``try``/``catch``/``synchronized`` node, or from the entry, to each statement node. This
  is the structural control dependence of structured code; ``break``, ``continue``, ``return`` and
  ``throw`` do not add control edges.
* Data dependence (label ``data``): from a statement that defines a local variable or parameter to a
  statement that uses it, when the definition reaches the use (reaching definitions over the structured
  flow: both branches of an ``if``, loop bodies iterated to a fixed point so loop-carried dependences
  appear, possibly as self-loops; nothing reaches past ``return`` or ``throw``; ``break``/``continue`` are
  not followed; a ``catch`` or ``finally`` is reached from before and after its ``try`` block).
  Definitions: declarations, plain assignments (``x = ...``, which kill earlier ones), ``x += ...``,
  ``x++`` and ``--x`` (use and define), parameters at the entry, loop and catch variables at their
  node. ``a[i] = ...`` and ``a.f = ...`` use ``a`` and add a definition of ``a`` without killing
  (weak update). Fields (``this.f``, unqualified names never declared locally) have no definition here,
  hence no edges; lambda parameters and a lambda's own locals are the lambda's.
* When a pair of nodes has both kinds of edge, it is one edge labelled ``control+data`` (the graphs are
  simple directed graphs, as networkx's GED compares them), so turning ``control`` into
  ``control+data`` costs 1.

GED algorithm: exact GED is NP-hard. networkx's exact ``graph_edit_distance`` takes about 20 ms for a pair
of PDGs of 6-10 nodes and seconds for 12-20 nodes (two of six such pairs of the fixture ran past 10 s),
so it cannot promise 200 pairs/s on methods with tens of statements. GVED uses the
bipartite approximation of Riesen & Bunke ("Approximate graph edit distance computation by means of
bipartite graph matching", Image and Vision Computing 27(7), 2009): a square cost matrix with, for each
pair of nodes, the relabelling cost plus the optimal assignment cost of their incident edges (per
direction, an edge of another label costs 1, a missing one 1), deletions and insertions on the diagonal
of the side blocks (1 + the node's degree); scipy's ``linear_sum_assignment`` solves it, and the value is
the exact cost of the edit path that node mapping induces. It is therefore an upper bound of the true
GED, equal to it when the graphs are identical or differ by node changes the assignment sees;
``benchmarks/bench_gved.py`` measures the gap against networkx's exact GED on the fixture's PDGs in the
same run: on pairs of 6-10-node PDGs it gave the exact GED for 18 of 20 pairs of the k=10 predictions
(mean GVED gap 0.010, largest 0.133) and 19 of 20 pairs of raw test methods (0.006, 0.118); on random
1-5-node graphs with self-loops, 40 of 60 (``tests/test_metrics_gved.py``).

Input: one Java method, as for TREED with ``parser="javalang"`` (javalang, src2abs repair, and with ``wrap``
a bare statement list or a bare expression, see :func:`revmine.metrics.tree.parse_code`). Fallback when a side does not parse:
``fallback="nan"`` (default, ``fallback:nan``; the score stage counts the NaN rows as ``missing``) or
``fallback="sed"`` (``fallback:sed``): the row gets the token SED normalised by the longer side,
``sed(normalize=max)`` (its complement for ``gved_sim``), RUBY's string level. A PDG exists whenever
javalang parses the code, so ``gved_sim(fallback=sed)`` is RUBY with javalang's trees, whose AST level is
never needed; RUBY's whole cascade, with tree-sitter's trees for code javalang does not read (Java 9 and
later), is the ``ruby`` metric (:mod:`revmine.metrics.ruby`).

Speed: each distinct string is parsed and turned into a graph once per call, identical pairs are computed
once; the assignment takes 0.03-0.25 ms a pair and parsing most of the rest. ``benchmarks/bench_gved.py``
measured 404 pairs/s end to end on the 17,190 k=10 predictions (median of 5, spread 263-594, on a shared
2-core machine under load; 845-2,100 in quieter runs) and 373 (291-635) on the raw test methods; networkx's
exact GED ran at 34-56 pairs/s on the 6-10-node pairs alone, without parsing.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib.metadata import version
from typing import ClassVar, Literal, Sequence

import numpy as np
from javalang import tree as jtree
from javalang.ast import Node
from scipy.optimize import linear_sum_assignment

from .base import check_lengths
from .tree import LabelTree, StructureDistance, _walk, nested, parse_code

Fallback = Literal["nan", "sed"]
CONTROL, DATA, BOTH = "control", "data", "control+data"
_EDGE_LABELS = (CONTROL, DATA, BOTH)
State = dict[str, frozenset[int]] | None  # variable -> statements whose definition reaches; None: unreachable

#: the parts of a statement that label its node (nested statements are nodes of their own)
_OWN_PARTS = {
    jtree.IfStatement: ("condition",), jtree.WhileStatement: ("condition",), jtree.DoStatement: ("condition",),
    jtree.ForStatement: ("control",), jtree.SwitchStatement: ("expression",),
    jtree.SynchronizedStatement: ("lock",), jtree.TryStatement: ("resources",),
    jtree.ReturnStatement: ("expression",), jtree.ThrowStatement: ("expression",),
    jtree.StatementExpression: ("expression",), jtree.AssertStatement: ("condition", "value"),
    jtree.BreakStatement: ("goto",), jtree.ContinueStatement: ("goto",),
    jtree.CatchClause: ("parameter",), jtree.SwitchStatementCase: ("case",),
    jtree.MethodDeclaration: ("modifiers", "return_type", "name", "parameters", "throws"),
    jtree.ConstructorDeclaration: ("modifiers", "name", "parameters", "throws"),
}


@dataclass(frozen=True)
class PDG:
    """A program dependence graph: node labels (node 0 is the entry) and labelled directed edges."""

    labels: tuple[str, ...]
    edges: dict[tuple[int, int], str]

    @property
    def size(self) -> int:
        """|V| + |E|, RUBY's normaliser."""
        return len(self.labels) + len(self.edges)


def program_dependence_graph(code: str, repair: bool = True, wrap: bool = True) -> PDG | None:
    """The PDG GVED compares (module docstring); None when the code does not parse."""
    parsed, _ = parse_code(code, repair, wrap)
    if parsed is None:
        return None
    builder = _Builder()
    if parsed.kind == "method":
        decl = parsed.node
        entry = builder.node(decl, "Entry")
        state: State = {p.name: frozenset({entry}) for p in decl.parameters}
        builder.block(decl.body or [], entry, state)
    else:
        entry = builder.node(None, "Entry")
        body = parsed.node if parsed.kind == "statements" else [jtree.StatementExpression(expression=parsed.node)]
        builder.block(body, entry, {})
    return PDG(tuple(builder.labels), builder.edges())


class _Builder:
    """Walks a method body once, adding statement nodes, control edges and reaching-definition data edges."""

    def __init__(self) -> None:
        self.labels: list[str] = []
        self.control: set[tuple[int, int]] = set()
        self.data: set[tuple[int, int]] = set()
        self.seen: dict[int, int] = {}  # id(statement) -> node; the statements live as long as the builder

    def edges(self) -> dict[tuple[int, int], str]:
        both = self.control & self.data
        return {**{e: CONTROL for e in self.control}, **{e: DATA for e in self.data}, **{e: BOTH for e in both}}

    def node(self, statement: Node | None, kind: str | None, parent: int | None = None) -> int:
        """The statement's node, made on first sight (loop bodies are walked until their flow is stable)."""
        if id(statement) in self.seen:
            return self.seen[id(statement)]
        labels: list[str] = []
        leftmost: list[int] = []
        if statement is not None and type(statement) not in _OWN_PARTS:
            _walk(statement, "", labels, leftmost)  # declarations and anything else: the whole tree labels
            kind = None                             # it, its root already names the kind
        for attribute in _OWN_PARTS.get(type(statement), ()):
            _walk(getattr(statement, attribute), attribute, labels, leftmost)
        self.labels.append(" ".join(filter(None, [kind, *map(_sexpr, nested(labels, leftmost))])))
        index = self.seen[id(statement)] = len(self.labels) - 1
        if parent is not None:
            self.control.add((parent, index))
        return index

    def use(self, node: int, names: set[str], state: State) -> None:
        if state is None:
            return
        for name in names:
            self.data.update((d, node) for d in state.get(name, ()))

    def apply(self, node: int, value: object, state: State) -> State:
        """Uses of ``value`` read at ``node``, then its definitions made there."""
        effect = _Effect()
        effect.visit(value)
        self.use(node, effect.uses, state)
        if state is None:
            return None
        state = dict(state)
        for name in effect.kills:
            state[name] = frozenset({node})
        for name in effect.weak:
            state[name] = state.get(name, frozenset()) | {node}
        return state

    def block(self, statements: Sequence[Node], parent: int, state: State) -> State:
        for statement in statements:
            state = self.statement(statement, parent, state)
        return state

    def loop(self, start: State, body) -> State:
        """Iterate ``body`` (state -> state at the loop head again) until the head's state is stable."""
        head = start
        while True:
            after = _merge(start, body(head))
            if after == head:
                return head
            head = after

    def statement(self, s: Node | None, parent: int, state: State) -> State:
        if s is None or type(s) is jtree.Statement:  # `;`
            return state
        if isinstance(s, jtree.BlockStatement):
            return self.block(s.statements or [], parent, state)
        kind = type(s).__name__
        n = self.node(s, kind, parent)
        if isinstance(s, jtree.IfStatement):
            state = self.apply(n, s.condition, state)
            return _merge(self.statement(s.then_statement, n, state), self.statement(s.else_statement, n, state))
        if isinstance(s, jtree.WhileStatement):
            return self.loop(state, lambda head: self.statement(s.body, n, self.apply(n, s.condition, head)))
        if isinstance(s, jtree.DoStatement):
            end = self.loop(state, lambda head: self.apply(n, s.condition, self.statement(s.body, n, head)))
            return self.apply(n, s.condition, self.statement(s.body, n, end))
        if isinstance(s, jtree.ForStatement):
            control = s.control
            if isinstance(control, jtree.EnhancedForControl):
                state = self.apply(n, control.iterable, state)
                names = {d.name for d in control.var.declarators}
                return self.loop(state, lambda head: self.statement(
                    s.body, n, {**head, **{v: frozenset({n}) for v in names}} if head is not None else None))
            state = self.apply(n, control.init, state)
            return self.loop(state, lambda head: self.apply(n, [control.update, control.condition], self.statement(
                s.body, n, self.apply(n, control.condition, head))))
        if isinstance(s, jtree.SwitchStatement):
            state = self.apply(n, s.expression, state)
            ends, previous = [], None
            for case in s.cases:
                c = self.node(case, "SwitchCase", n)
                previous = self.block(case.statements or [], c, _merge(state, previous))  # fall through
                ends.append(previous)
            has_default = any(not case.case for case in s.cases)
            return _merge_all(ends + ([] if has_default else [state]))
        if isinstance(s, jtree.TryStatement):
            state = self.apply(n, s.resources or [], state)
            after = self.block(s.block or [], n, state)
            ends = [after]
            for clause in s.catches or []:
                c = self.node(clause, "CatchClause", n)
                caught = _merge(state, after)
                caught = None if caught is None else {**caught, clause.parameter.name: frozenset({c})}
                ends.append(self.block(clause.block or [], c, caught))
            end = _merge_all(ends)
            if s.finally_block is not None:
                end = self.block(s.finally_block, n, _merge(end, state))
            return end
        if isinstance(s, jtree.SynchronizedStatement):
            return self.block(s.block or [], n, self.apply(n, s.lock, state))
        parts = [getattr(s, a) for a in _OWN_PARTS.get(type(s), ())] or [s]
        state = self.apply(n, parts, state)
        return None if isinstance(s, (jtree.ReturnStatement, jtree.ThrowStatement)) else state


class _Effect:
    """Variables an expression (or declaration) reads, defines (killing) and updates (not killing)."""

    def __init__(self) -> None:
        self.uses: set[str] = set()
        self.kills: set[str] = set()
        self.weak: set[str] = set()
        self.declared: set[str] = set()  # the kills that are declarations (a lambda's own locals)

    def visit(self, value: object) -> None:
        if isinstance(value, (list, tuple)):
            for item in value:
                self.visit(item)
        elif isinstance(value, Node):
            handler = getattr(self, type(value).__name__, None)
            if handler is not None:
                handler(value)
            else:
                for attribute in value.attrs:
                    self.visit(getattr(value, attribute))

    def MemberReference(self, ref: jtree.MemberReference) -> None:  # noqa: N802 (javalang's type names)
        self.uses.add(_base(ref))
        if not ref.qualifier and {"++", "--"} & set((ref.prefix_operators or []) + (ref.postfix_operators or [])):
            (self.kills if not ref.selectors else self.weak).add(ref.member)
        self.visit(ref.selectors)

    def MethodInvocation(self, call: jtree.MethodInvocation) -> None:  # noqa: N802
        if call.qualifier:
            self.uses.add(call.qualifier.split(".")[0])
        self.visit([call.arguments, call.selectors])

    def This(self, this: jtree.This) -> None:  # noqa: N802 (`this.f` is a field: not tracked)
        self.visit([s for s in this.selectors or [] if not isinstance(s, jtree.MemberReference)])

    def Assignment(self, assignment: jtree.Assignment) -> None:  # noqa: N802
        target = assignment.expressionl
        self.visit(assignment.value)
        if isinstance(target, jtree.MemberReference) and not target.qualifier and not target.selectors:
            if assignment.type != "=":
                self.uses.add(target.member)
            self.kills.add(target.member)
        else:
            self.visit(target)
            if isinstance(target, jtree.MemberReference):
                self.weak.add(_base(target))

    def VariableDeclarator(self, declarator: jtree.VariableDeclarator) -> None:  # noqa: N802
        self.visit(declarator.initializer)
        self.kills.add(declarator.name)
        self.declared.add(declarator.name)

    def TryResource(self, resource: jtree.TryResource) -> None:  # noqa: N802
        self.visit(resource.value)
        self.kills.add(resource.name)
        self.declared.add(resource.name)

    def LambdaExpression(self, function: jtree.LambdaExpression) -> None:  # noqa: N802
        inner = _Effect()
        inner.visit(function.body)
        own = {getattr(p, "name", None) or getattr(p, "member", None) for p in function.parameters or []}
        self.uses |= inner.uses - own - inner.declared

    def ClassDeclaration(self, declaration: jtree.ClassDeclaration) -> None:  # noqa: N802 (a local class)
        """A local class's members are its own scope."""

    def ClassCreator(self, creator: jtree.ClassCreator) -> None:  # noqa: N802 (an anonymous body is a class)
        self.visit([creator.qualifier, creator.arguments, creator.selectors])


def _base(ref: jtree.MemberReference) -> str:
    return ref.qualifier.split(".")[0] if ref.qualifier else ref.member


def _merge(a: State, b: State) -> State:
    if a is None:
        return b
    if b is None:
        return a
    return {name: a.get(name, frozenset()) | b.get(name, frozenset()) for name in a.keys() | b.keys()}


def _merge_all(states: list[State]) -> State:
    out: State = None
    for state in states:
        out = _merge(out, state)
    return out


def _sexpr(tree: LabelTree) -> str:
    label, children = tree
    return label if not children else f"{label}({' '.join(map(_sexpr, children))})"


# --- graph edit distance ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class GraphArrays:
    """A PDG as the assignment needs it: label ids, per-node edge-label counts by direction, edges."""

    labels: np.ndarray  # (n,)
    counts: np.ndarray  # (n, 2, 3): out/in x control/data/both
    edges: dict[tuple[int, int], int]
    size: int

    @classmethod
    def build(cls, graph: PDG, vocabulary: dict[str, int]) -> "GraphArrays":
        n = len(graph.labels)
        counts = np.zeros((n, 2, len(_EDGE_LABELS)), dtype=np.int64)
        edges = {}
        for (a, b), label in graph.edges.items():
            k = _EDGE_LABELS.index(label)
            counts[a, 0, k] += 1
            counts[b, 1, k] += 1
            edges[a, b] = k
        ids = np.array([vocabulary.setdefault(label, len(vocabulary)) for label in graph.labels], dtype=np.int64)
        return cls(ids, counts, edges, graph.size)


def bipartite_ged(g1: GraphArrays, g2: GraphArrays) -> int:
    """Riesen & Bunke's bipartite GED (module docstring): the cost of the edit path of the best node
    assignment under local edge costs; an upper bound of the exact unit-cost GED."""
    n, m = len(g1.labels), len(g2.labels)
    c1, c2 = g1.counts[:, None], g2.counts[None, :]  # (n, 1, 2, 3), (1, m, 2, 3)
    local = (np.maximum(c1.sum(-1), c2.sum(-1)) - np.minimum(c1, c2).sum(-1)).sum(-1)
    big = n + m + g1.size + g2.size + 1  # above any real cost: forbids the off-diagonal deletions/insertions
    cost = np.zeros((n + m, n + m), dtype=np.int64)
    cost[:n, :m] = (g1.labels[:, None] != g2.labels[None, :]) + local
    cost[:n, m:] = big
    cost[:n, m:][np.diag_indices(n)] = 1 + g1.counts.sum((1, 2))
    cost[n:, :m] = big
    cost[n:, :m][np.diag_indices(m)] = 1 + g2.counts.sum((1, 2))
    rows, cols = linear_sum_assignment(cost)
    mapping = {int(i): int(j) for i, j in zip(rows, cols) if i < n and j < m}
    return induced_cost(g1, g2, mapping)


def induced_cost(g1: GraphArrays, g2: GraphArrays, mapping: dict[int, int]) -> int:
    """Exact unit cost of the edit path given by a node mapping (unmapped nodes deleted / inserted)."""
    n, m = len(g1.labels), len(g2.labels)
    cost = sum(int(g1.labels[i] != g2.labels[j]) for i, j in mapping.items()) + (n - len(mapping)) + (m - len(mapping))
    kept = 0
    for (a, b), label in g1.edges.items():
        image = g2.edges.get((mapping.get(a, -1), mapping.get(b, -1)))
        if image is None:
            cost += 1
        else:
            kept += 1
            cost += int(image != label)
    return cost + len(g2.edges) - kept


@dataclass(frozen=True)
class GraphScores:
    """Per-row detail: raw GED (NaN where not computed), both graph sizes (|V| + |E|) and parse flags."""

    score: np.ndarray
    ged: np.ndarray
    hyp_size: np.ndarray
    ref_size: np.ndarray
    hyp_parsed: np.ndarray
    ref_parsed: np.ndarray

    @property
    def fallback(self) -> np.ndarray:
        """Rows not scored from two PDGs (NaN, or SED with ``fallback="sed"``)."""
        return ~(self.hyp_parsed & self.ref_parsed)


class GraphEditDistance(StructureDistance):
    """GED / (|V_h| + |E_h| + |V_r| + |E_r|) over PDGs, in [0, 1], lower is better (module docstring)."""

    name: ClassVar[str] = "gved"
    higher_is_better: ClassVar[bool] = False

    def __init__(self, fallback: Fallback = "nan", repair: bool = True, wrap: bool = True):
        if fallback not in ("nan", "sed"):
            raise ValueError(f"fallback must be 'nan' or 'sed', not {fallback!r}")
        self.fallback = fallback
        self.repair = repair
        self.wrap = wrap

    def settings(self) -> dict[str, object]:
        return {
            "parser": f"javalang-{version('javalang')}",
            "graph": "pdg",
            "edges": "control+data",
            "cost": "unit",
            "ged": "bipartite",
            "norm": "nodes+edges",
            "repair": "src2abs" if self.repair else "none",
            "wrap": "stmt+expr" if self.wrap else "none",
            "fallback": self.fallback,
        }

    def sentence_details(self, hypotheses: Sequence[str], references: Sequence[str]) -> GraphScores:
        """Scores plus raw distances, graph sizes and parse flags of every row."""
        check_lengths(hypotheses, references)
        ged, hyp_size, ref_size, hyp_parsed, ref_parsed = self._rows(len(hypotheses))
        vocabulary: dict[str, int] = {}
        graphs: dict[str, GraphArrays | None] = {}
        done: dict[tuple[str, str], int] = {}
        for row, (hyp, ref) in enumerate(zip(hypotheses, references)):
            for text in (hyp, ref):
                if text not in graphs:
                    graph = program_dependence_graph(text, self.repair, self.wrap)
                    graphs[text] = None if graph is None else GraphArrays.build(graph, vocabulary)
            g1, g2 = graphs[hyp], graphs[ref]
            hyp_parsed[row], ref_parsed[row] = g1 is not None, g2 is not None
            if g1 is None or g2 is None:
                continue
            if (hyp, ref) not in done:
                done[hyp, ref] = 0 if hyp == ref else bipartite_ged(g1, g2)
            ged[row], hyp_size[row], ref_size[row] = done[hyp, ref], g1.size, g2.size
        score = self._score(ged, hyp_size, ref_size, hyp_parsed & ref_parsed, hypotheses, references)
        return GraphScores(score, ged, hyp_size, ref_size, hyp_parsed, ref_parsed)


class GraphEditSimilarity(GraphEditDistance):
    """RUBY's graph similarity, 1 - GED / (|V_h| + |E_h| + |V_r| + |E_r|); higher is better."""

    name: ClassVar[str] = "gved_sim"
    higher_is_better: ClassVar[bool] = True
