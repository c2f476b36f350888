"""RUBY's cascade: hand-worked pairs for each level (graph, tree, string), the order of the levels, and the
values of the existing gved_sim / treed_sim / sed classes computed independently on real predictions."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from rapidfuzz.distance import Levenshtein

from revmine.metrics.edit import SED
from revmine.metrics.graph import GraphEditSimilarity, program_dependence_graph
from revmine.metrics.predictions import Predictions, read_predictions
from revmine.metrics.registry import make_metric
from revmine.metrics.ruby import GRAPH, STRING, TREE, Ruby
from revmine.metrics.score import score_predictions
from revmine.metrics.tree import TreeEditSimilarity, method_tree

PREDICTIONS = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "tufano2021" / "predictions"

# Level 1: both sides have a PDG. Nodes: 0 the entry (header), 1 `int b = a + 1;`, 2 `return b;`. Edges:
# the entry controls 1 and 2, and defines the parameter a that 1 reads (0->1 control+data); b flows from
# 1 to 2 (data). |V| + |E| = 3 + 3 on each side; the other constant relabels node 1: GED 1.
GRAPH_PAIR = ("int f ( int a ) { int b = a + 1 ; return b ; }", "int f ( int a ) { int b = a + 2 ; return b ; }")
# Level 2: code that parses as a tree but yields no PDG. javalang (hence the PDG builder) reads Java 8;
# tree-sitter-java reads the `instanceof` pattern of Java 16: instanceof_expression(o, String, s), 4 nodes
# a side, renaming s to t costs 1.
TREE_PAIR = ("o instanceof String s", "o instanceof String t")
# Level 3: a prediction cut mid-method parses under neither parser. Whitespace tokens: 7 and 10, three
# inserted (`) ; }`), SED over the longer side 3 / 10.
STRING_PAIR = ("void f ( ) { g (", "void f ( ) { g ( ) ; }")


def test_each_level_by_hand():
    pairs = [GRAPH_PAIR, TREE_PAIR, STRING_PAIR]
    assert [program_dependence_graph(h) is not None for h, _ in pairs] == [True, False, False]
    assert [method_tree(h) is not None for h, _ in pairs] == [True, True, False]
    graph = program_dependence_graph(GRAPH_PAIR[0])
    assert graph.edges == {(0, 1): "control+data", (0, 2): "control", (1, 2): "data"} and graph.size == 6
    assert method_tree(TREE_PAIR[0]) == ("instanceof_expression", (("o", ()), ("String", ()), ("s", ())))
    details = Ruby().sentence_details(*map(list, zip(*pairs)))
    np.testing.assert_allclose(details.score, [1 - 1 / 12, 1 - 1 / 8, 1 - 3 / 10], rtol=0, atol=1e-12)
    assert details.level.tolist() == [GRAPH, TREE, STRING]
    assert details.counts() == {"graph": 1, "tree": 1, "string": 1}


def test_the_cascade_goes_down_only_as_far_as_it_must():
    # One side with a PDG, the other with a tree only: the pair has no two PDGs, so the tree level scores it.
    # instanceof_expression(o, String) has 3 nodes; deleting the pattern variable s costs 1: 1 - 1 / 7.
    # javalang reads a shift printed `> >` (src2abs's output) and tree-sitter does not: both sides have a PDG,
    # which is the graph level, identical graphs: 1, not the string level's 1 - 2 / 4.
    hyps, refs = ["o instanceof String s", "a > > 2"], ["o instanceof String", "a >> 2"]
    assert method_tree("a > > 2") is None
    details = Ruby().sentence_details(hyps, refs)
    np.testing.assert_allclose(details.score, [1 - 1 / 7, 1.0], rtol=0, atol=1e-12)
    assert details.level.tolist() == [TREE, GRAPH]
    # A tree on one side and nothing on the other: the string level. 4 tokens against 5, one inserted.
    only_tree = Ruby().sentence_details(["o instanceof String s"], ["o instanceof String s ("])
    assert only_tree.level.tolist() == [STRING] and only_tree.score[0] == pytest.approx(1 - 1 / 5)


def real_pairs() -> tuple[list[str], list[str]]:
    """Abstracted and raw predictions of the 2021 test split (some cut short), and Java 16 code."""
    hyps, refs = [], []
    for name, blocks in (("1-encoder_k3_abstracted.txt", 60), ("1-encoder_k1_raw.txt", 60)):
        preds = read_predictions(PREDICTIONS / name)
        for ref, candidates in list(zip(preds.references, preds.predictions))[-blocks:]:
            hyps += candidates
            refs += [ref] * len(candidates)
    modern = ["int f ( Object o ) { if ( o instanceof String s ) { return s . length ( ) ; } return 0 ; }",
              "int f ( int x ) { return switch ( x ) { case 1 -> 2 ; default -> 3 ; } ; }"]
    hyps += modern + [modern[0].replace("return 0", "return 1"), refs[0]]
    refs += [modern[0].replace("s . length", "s . size"), modern[1].replace("-> 3", "-> 4"), modern[0], modern[1]]
    return hyps, refs


def test_equals_the_level_metrics_computed_on_their_own():
    hyps, refs = real_pairs()
    graph = GraphEditSimilarity().sentence_details(hyps, refs)
    tree = TreeEditSimilarity().sentence_details(hyps, refs)
    string = 1 - SED(normalize="max").sentence_scores(hyps, refs)
    has_tree = ~tree.fallback
    expected = np.where(~graph.fallback, graph.score, np.where(has_tree, tree.score, string))
    details = Ruby().sentence_details(hyps, refs)
    np.testing.assert_array_equal(details.score, expected)
    assert details.level.tolist() == np.select([~graph.fallback, has_tree], [GRAPH, TREE], STRING).tolist()
    counts = details.counts()
    assert min(counts.values()) >= 4, counts  # every level is exercised
    assert not np.isnan(details.score).any() and ((details.score >= 0) & (details.score <= 1)).all()
    # With javalang's trees, an AST exists exactly when a PDG does: RUBY is gved_sim(fallback=sed).
    np.testing.assert_array_equal(Ruby(parser="javalang").sentence_scores(hyps, refs),
                                  GraphEditSimilarity(fallback="sed").sentence_scores(hyps, refs))
    # the string level by hand on one cut-off row
    row = int(np.flatnonzero(details.level == STRING)[0])
    h, r = hyps[row].split(), refs[row].split()
    assert details.score[row] == pytest.approx(1 - Levenshtein.distance(h, r) / max(len(h), len(r)), abs=1e-12)


def test_registry_signature_and_score_stage():
    metric = make_metric("ruby")
    assert isinstance(metric, Ruby) and metric.column == "ruby" and metric.higher_is_better
    assert metric.signature() == ("ruby|levels:pdg>ast>tokens|graph:pdg-javalang-0.13.0|ged:bipartite|"
                                  "tree:tree-sitter-java-0.23.5|string:sed-max-space|cost:unit|"
                                  "norm:nodes+edges/nodes/max-len|repair:src2abs|wrap:stmt+expr|version:0.1.0")
    javalang = make_metric("ruby(parser=javalang)")
    assert javalang.column == "ruby_javalang" and "tree:javalang-0.13.0" in javalang.signature()
    with pytest.raises(Exception):
        make_metric("ruby(parser=antlr)")
    preds = Predictions([[GRAPH_PAIR[0], STRING_PAIR[0]], [TREE_PAIR[0], TREE_PAIR[1]]],
                        [GRAPH_PAIR[1], TREE_PAIR[1]])
    run = score_predictions(preds, [metric])
    assert run.summary["per_k"][-1]["metrics"]["ruby"]["all"]["missing"] == 0
    np.testing.assert_allclose(run.values("ruby"), Ruby().sentence_scores(
        [GRAPH_PAIR[0], STRING_PAIR[0], TREE_PAIR[0], TREE_PAIR[1]],
        [GRAPH_PAIR[1], GRAPH_PAIR[1], TREE_PAIR[1], TREE_PAIR[1]]), rtol=0, atol=0)
