"""GVED: PDGs written out by hand, hand-computed graph edit distances (checked against networkx's exact GED),
the bipartite bound against exact GED, wrapping of bare statements, and the fallbacks of TREED and GVED."""

from __future__ import annotations

import math
import random

import networkx as nx
import numpy as np
import pytest
from rapidfuzz.distance import Levenshtein

from revmine.metrics.graph import (PDG, GraphEditDistance, GraphEditSimilarity, GraphArrays, bipartite_ged,
                                   program_dependence_graph)
from revmine.metrics.predictions import Predictions
from revmine.metrics.registry import make_metric
from revmine.metrics.score import score_predictions
from revmine.metrics.tree import TreeEditDistance, TreeEditSimilarity, method_tree

C, D, CD = "control", "data", "control+data"

SUM = """int sum(int n) {
    int s = 0;
    for (int i = 0; i < n; i++) {
        s += i;
    }
    return s;
}"""
# The PDG of SUM, by hand. Nodes in source order: 0 entry (header), 1 `int s = 0`, 2 the for loop,
# 3 `s += i`, 4 `return s`. Control: the entry controls 1, 2, 4; the loop controls 3.
# Data (reaching definitions): n (parameter, entry) is read by the loop condition: 0->2; s from 1 reaches
# `s += i` (first iteration) and `return s` (zero iterations): 1->3, 1->4; s from 3 reaches 3 again (next
# iteration) and the return: 3->3, 3->4; i, defined by the loop's init and update (node 2), is read by the
# condition and update (2->2) and by `s += i` (2->3). Two pairs carry both kinds: 0->2 and 2->3.
SUM_EDGES = {(0, 1): C, (0, 2): CD, (0, 4): C, (2, 3): CD, (1, 3): D, (1, 4): D, (3, 3): D, (3, 4): D, (2, 2): D}
SUM_KINDS = ["Entry", "LocalVariableDeclaration", "ForStatement", "StatementExpression", "ReturnStatement"]


def kinds(graph: PDG) -> list[str]:
    return [label.split(" ")[0].split("(")[0] for label in graph.labels]


def exact_ged(a: PDG, b: PDG) -> float:
    """networkx's exact GED with the same unit costs: the independent reference."""
    def as_nx(g: PDG) -> nx.DiGraph:
        out = nx.DiGraph()
        out.add_nodes_from((i, {"label": label}) for i, label in enumerate(g.labels))
        out.add_edges_from((u, v, {"label": label}) for (u, v), label in g.edges.items())
        return out

    same = lambda x, y: x["label"] == y["label"]  # noqa: E731
    return nx.graph_edit_distance(as_nx(a), as_nx(b), node_match=same, edge_match=same)


def ged(a: PDG, b: PDG) -> int:
    vocabulary: dict[str, int] = {}
    return bipartite_ged(GraphArrays.build(a, vocabulary), GraphArrays.build(b, vocabulary))


def test_hand_written_pdg_of_a_loop():
    graph = program_dependence_graph(SUM)
    assert kinds(graph) == SUM_KINDS
    assert graph.edges == SUM_EDGES
    assert graph.size == 5 + 9
    assert graph.labels[4] == "ReturnStatement MemberReference(member:s)"
    assert graph.labels[0] == "Entry BasicType(name:int) name:sum FormalParameter(BasicType(name:int) name:n)"


def test_hand_written_pdg_of_branches_and_return():
    code = """void m(int a) {
        int x;
        if (a > 0) { x = 1; } else { x = 2; return; }
        use(x, a);
    }"""
    # 0 entry, 1 `int x`, 2 if, 3 `x = 1`, 4 `x = 2`, 5 `return`, 6 `use(x, a)`.
    # Control: entry -> 1, 2, 6; if -> 3, 4, 5. Data: a from the entry to the condition and to the call;
    # x: the declaration has no initialiser but is a definition (javalang declarator), killed on both
    # branches; only `x = 1` reaches the call, since the else branch returns.
    graph = program_dependence_graph(code)
    assert kinds(graph) == ["Entry", "LocalVariableDeclaration", "IfStatement", "StatementExpression",
                            "StatementExpression", "ReturnStatement", "StatementExpression"]
    assert graph.edges == {(0, 1): C, (0, 2): CD, (0, 6): CD, (2, 3): C, (2, 4): C, (2, 5): C, (3, 6): D}


def test_lambdas_read_outer_variables_but_own_their_parameters_and_locals():
    code = "void m(List<String> l) { int c = 0; String s = x; l.forEach(s -> { int q = s.length(); out.add(q + c); }); }"
    # 0 entry, 1 `int c = 0`, 2 `String s = x`, 3 the call. The lambda reads c (1->3) and l (0->3); its s
    # is its parameter, not the local s (no 2->3), and q is its own.
    graph = program_dependence_graph(code)
    assert graph.edges == {(0, 1): C, (0, 2): C, (0, 3): CD, (1, 3): D}


def test_hand_computed_distances():
    base = program_dependence_graph(SUM)
    # One statement changed: one node relabelled, edges unchanged. GED 1 over 14 + 14.
    changed = program_dependence_graph(SUM.replace("return s;", "return s + 1;"))
    assert ged(base, changed) == exact_ged(base, changed) == 1
    assert GraphEditDistance().score(SUM.replace("return s;", "return s + 1;"), SUM) == pytest.approx(1 / 28)
    # A statement inserted before the return: `s = s * 2;` (node 4, the return becomes 5). It is controlled
    # by the entry and reads s from 1 and 3; it kills both, so the return now reads s only from it:
    # edges 0->4 c, 1->4 d, 3->4 d, 4->5 d, 0->5 c instead of 0->ret c, 1->ret d, 3->ret d.
    # Cheapest path: the new statement takes the old return's place (relabel: 1; its three in-edges are the
    # old return's), the new return is deleted (1) with its edges 0->5 and 4->5 (2): 4. Inserting the
    # statement instead costs 7 (node, 4 edges, 2 edges deleted). networkx's exact GED agrees.
    inserted = SUM.replace("return s;", "s = s * 2;\n    return s;")
    graph = program_dependence_graph(inserted)
    assert graph.size == 6 + 11
    assert graph.edges == {**{e: l for e, l in SUM_EDGES.items() if e not in ((0, 4), (1, 4), (3, 4))},
                           (0, 4): C, (1, 4): D, (3, 4): D, (4, 5): D, (0, 5): C}
    assert ged(graph, base) == exact_ged(graph, base) == 4
    assert GraphEditSimilarity().score(inserted, SUM) == pytest.approx(1 - 4 / 31)


def test_independent_statements_in_another_order_are_the_same_graph():
    # No dependence between the two assignments: the PDGs are isomorphic, GED 0, while the ASTs differ.
    a = "void m ( ) { x = 1 ; y = 2 ; }"
    b = "void m ( ) { y = 2 ; x = 1 ; }"
    assert GraphEditDistance().score(a, b) == 0.0
    assert TreeEditDistance(parser="javalang").score(a, b) > 0
    # With a dependence the order matters: y = x reads the x defined before it, or none.
    assert GraphEditDistance().score("void m ( ) { x = 1 ; y = x ; }", "void m ( ) { y = x ; x = 1 ; }") > 0


def random_pdg(rng: random.Random, nodes: int) -> PDG:
    labels = tuple(rng.choice("abc") for _ in range(nodes))
    edges = {(rng.randrange(nodes), rng.randrange(nodes)): rng.choice((C, D, CD)) for _ in range(rng.randrange(2 * nodes))}
    return PDG(labels, edges)


def test_bipartite_is_an_upper_bound_of_exact_ged_and_often_equal():
    rng = random.Random(7)
    equal = 0
    for _ in range(60):
        a, b = random_pdg(rng, rng.randint(1, 5)), random_pdg(rng, rng.randint(1, 5))
        exact = exact_ged(a, b)
        approx = ged(a, b)
        assert exact <= approx <= a.size + b.size
        equal += approx == exact
        assert ged(a, a) == 0
    assert equal >= 30  # 40 of 60 when written; real PDGs agree more often (benchmarks/bench_gved.py)


def test_bare_statements_and_expressions_are_wrapped():
    # Statements: an entry (no header) and one node per statement.
    graph = program_dependence_graph("x = 1 ; y = x ;")
    assert kinds(graph) == ["Entry", "StatementExpression", "StatementExpression"]
    assert graph.labels[0] == "Entry" and graph.edges == {(0, 1): C, (0, 2): C, (1, 2): D}
    # An expression: one node.
    assert program_dependence_graph("a . b ( c )").labels == ("Entry", "StatementExpression MethodInvocation("
                                                              "qualifier:a MemberReference(member:c) member:b)")
    # TREED's javalang reading (GVED's): the statements hang under one root. `x = a ;` has 8 nodes (Statements,
    # StatementExpression, Assignment, two MemberReference with their member leaves, type:=); a/b is one rename.
    treed = TreeEditDistance(parser="javalang")
    assert method_tree("x = a ;", parser="javalang")[0] == "Statements"
    assert treed.score("x = a ;", "x = b ;") == pytest.approx(1 / 16)
    assert treed.score("a + 1", "a + 2") == pytest.approx(1 / 12)  # BinaryOperation: 6 nodes
    # A method reads the same with or without wrapping; without it, bare code does not parse.
    assert method_tree(SUM, parser="javalang") == method_tree(SUM, wrap=False, parser="javalang")
    for metric in (TreeEditDistance(wrap=False, parser="javalang"), GraphEditDistance(wrap=False)):
        assert math.isnan(metric.score("x = a ;", "x = b ;"))
        assert "wrap:none" in metric.signature()


@pytest.mark.parametrize("metric", [TreeEditDistance, GraphEditDistance, TreeEditSimilarity, GraphEditSimilarity])
def test_sed_fallback_is_rubys_string_level(metric):
    hyp, ref = "void m ( ) { a . add ( b ) ;", "void m ( ) { c . add ( b ) ; }"  # hypothesis cut short
    sed = Levenshtein.distance(hyp.split(), ref.split()) / max(len(hyp.split()), len(ref.split()))  # 2 / 13
    assert sed == pytest.approx(2 / 13)
    m = metric(fallback="sed")
    details = m.sentence_details([hyp, ref], [ref, ref])
    expected = sed if not m.higher_is_better else 1 - sed
    assert details.score[0] == pytest.approx(expected, abs=1e-12)
    assert details.fallback.tolist() == [True, False]
    assert details.score[1] == (1.0 if m.higher_is_better else 0.0)
    assert m.signature().split("|")[-2] == "fallback:sed"
    assert math.isnan(metric().score(hyp, ref))  # NaN stays the default


def test_nan_rows_are_counted_as_missing_by_the_score_stage():
    preds = Predictions([[SUM, "int sum ( int n ) {"], ["x = 1 ;", "x = 2 ;"]], [SUM, "x = 1 ;"])
    run = score_predictions(preds, [make_metric("gved"), make_metric("gved_sim(fallback=sed)")])
    nan = run.summary["per_k"][1]["metrics"]["gved"]["all"]
    sed = run.summary["per_k"][1]["metrics"]["gved_sim"]["all"]
    assert nan["missing"] == 1 and sed["missing"] == 0
    assert "fallback:sed" in run.summary["signatures"]["gved_sim"]
    # the cut-off method scores by SED over whitespace tokens (SUM is the longer side)
    values = run.values("gved_sim")
    tokens = SUM.split()
    assert values[1] == pytest.approx(1 - Levenshtein.distance("int sum ( int n ) {".split(), tokens) / len(tokens))
    assert np.isnan(run.values("gved")[1])


def test_real_methods_parse_and_stay_in_range():
    import csv
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / ".." / "shared" / "fixtures" / "tufano2021" / "test.csv"
    with path.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))[:200]
    details = GraphEditDistance().sentence_details([r["before"] for r in rows], [r["after"] for r in rows])
    ok = ~details.fallback
    assert ok.mean() > 0.97
    assert ((details.score[ok] >= 0) & (details.score[ok] <= 1)).all()
    same = np.array([r["before"] == r["after"] for r in rows])
    assert (details.score[same & ok] == 0).all()


def test_signature_and_bad_arguments():
    metric = GraphEditSimilarity()
    assert metric.signature() == ("gved_sim|parser:javalang-0.13.0|graph:pdg|edges:control+data|cost:unit|"
                                  "ged:bipartite|norm:nodes+edges|repair:src2abs|wrap:stmt+expr|fallback:nan|"
                                  "version:0.1.0")
    assert (GraphEditDistance().column, GraphEditDistance.higher_is_better) == ("gved", False)
    with pytest.raises(ValueError):
        GraphEditDistance(fallback="tokens")
