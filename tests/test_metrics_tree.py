"""TREED: the tree edit distance core against hand-worked values and zss, the metric on real predictions."""

from __future__ import annotations

import math
import random
import sys

import numpy as np
import pytest
import zss  # test dependency: the reference pure-Python Zhang-Shasha
from rapidfuzz.distance import Levenshtein

from revmine.metrics import _ted
from revmine.metrics._ted import PostorderTree, tree_edit_distance, zhang_shasha
from revmine.metrics.predictions import read_tufano
from revmine.metrics.tree import TreeEditDistance, TreeEditSimilarity, method_tree


# --- the algorithm on plain trees -----------------------------------------------------------------------

def postorder(tree: tuple, vocabulary: dict[str, int]) -> PostorderTree:
    """(label, children) tuples -> PostorderTree, written independently of the metric's AST walk."""
    labels: list[int] = []
    leftmost: list[int] = []

    def visit(node: tuple) -> int:
        label, children = node
        first = [visit(child) for child in children]
        labels.append(vocabulary.setdefault(label, len(vocabulary)))
        leftmost.append(first[0] if first else len(labels) - 1)
        return leftmost[-1]

    visit(tree)
    return PostorderTree.build(labels, leftmost)


def as_zss(tree: tuple) -> "zss.Node":
    label, children = tree
    node = zss.Node(label)
    for child in children:
        node.addkid(as_zss(child))
    return node


def t(label: str, *children: tuple) -> tuple:
    return (label, children)


def distance(a: tuple, b: tuple) -> int:
    vocabulary: dict[str, int] = {}
    return tree_edit_distance(postorder(a, vocabulary), postorder(b, vocabulary))


def test_hand_worked_zhang_shasha_example():
    # The example of Zhang & Shasha's paper:
    #   T1 = f(d(a, c(b)), e)          T2 = f(c(d(a, b)), e)
    # Edit script of cost 2: delete c in T1 (its child b moves up to d): f(d(a, b), e); then insert c as the
    # parent of d: f(c(d(a, b)), e). Cost 1 is impossible: both trees have 6 nodes, so one operation would
    # be a rename, and the label multisets are already equal.
    t1 = t("f", t("d", t("a"), t("c", t("b"))), t("e"))
    t2 = t("f", t("c", t("d", t("a"), t("b"))), t("e"))
    assert distance(t1, t2) == 2
    assert distance(t2, t1) == 2
    assert distance(t1, t1) == 0


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (t("a"), t("b"), 1),  # rename the only node
        (t("a"), t("a", t("b"), t("c")), 2),  # insert two leaves
        (t("a", t("b", t("c"), t("d"))), t("a", t("c"), t("d")), 1),  # delete b: its children move up
        (t("a", t("b"), t("c")), t("a", t("c"), t("b")), 2),  # ordered: swapping siblings is 2 renames
    ],
)
def test_small_cases(a, b, expected):
    assert distance(a, b) == expected


def random_tree(rng: random.Random, size: int) -> tuple:
    """A random ordered tree: each new node hangs under a random existing one; labels from a 3-letter alphabet."""
    children: list[list[int]] = [[]]
    for node in range(1, size):
        children[rng.randrange(node)].append(node)
        children.append([])
    labels = [rng.choice("abc") for _ in range(size)]

    def build(node: int) -> tuple:
        return (labels[node], tuple(build(child) for child in children[node]))

    return build(0)


def test_agrees_with_zss_on_random_trees():
    rng = random.Random(20210525)
    for _ in range(300):
        a, b = random_tree(rng, rng.randint(1, 14)), random_tree(rng, rng.randint(1, 14))
        assert distance(a, b) == zss.simple_distance(as_zss(a), as_zss(b)), (a, b)


def test_plain_python_kernel_is_the_compiled_one():
    # Without numba the uncompiled function runs: it must give the same values.
    rng = random.Random(7)
    for _ in range(20):
        vocabulary: dict[str, int] = {}
        p = postorder(random_tree(rng, rng.randint(1, 10)), vocabulary)
        q = postorder(random_tree(rng, rng.randint(1, 10)), vocabulary)
        args = (p.leftmost, p.keyroots, p.labels, q.leftmost, q.keyroots, q.labels)
        assert zhang_shasha(*args) == tree_edit_distance(p, q)


def test_without_numba_the_python_kernel_runs_after_a_warning(monkeypatch):
    monkeypatch.setitem(sys.modules, "numba", None)  # makes `import numba` fail
    _ted.kernel.cache_clear()
    try:
        with pytest.warns(RuntimeWarning, match="numba is not installed"):
            assert _ted.kernel() is zhang_shasha
    finally:
        _ted.kernel.cache_clear()


# --- the Java trees --------------------------------------------------------------------------------------

REF = "void m ( ) { a . add ( b ) ; }"


def test_method_tree_labels():
    # Inner nodes: javalang types; leaves: role:value, in javalang's attribute order. 8 nodes.
    assert method_tree(REF) == t("MethodDeclaration", t("name:m"), t("StatementExpression", t(
        "MethodInvocation", t("qualifier:a"), t("MemberReference", t("member:b")), t("member:add"))))


def labels(tree: tuple) -> list[str]:
    label, children = tree
    return [label] + [x for child in children for x in labels(child)]


def test_hand_worked_java_scores():
    # REF has 8 nodes (above). Renaming the qualifier a -> c is one edit: 1 - 1 / (8 + 8).
    # Wrapping the statement in `if (x) { ... }` adds IfStatement, MemberReference, member:x and
    # BlockStatement (12 nodes); deleting those four turns it back into REF: 1 - 4 / (12 + 8).
    hyps = ["void m ( ) { c . add ( b ) ; }", "void m ( ) { if ( x ) { a . add ( b ) ; } }", REF]
    scores = TreeEditSimilarity().sentence_scores(hyps, [REF] * 3)
    np.testing.assert_allclose(scores, [1 - 1 / 16, 1 - 4 / 20, 1.0], rtol=0, atol=1e-12)
    np.testing.assert_allclose(TreeEditDistance().sentence_scores(hyps, [REF] * 3), [1 / 16, 4 / 20, 0.0])


def test_layout_does_not_matter():
    assert TreeEditSimilarity().score("void m(){a.add(b);}", REF) == 1.0


def test_unparsable_rows_are_nan_and_counted():
    metric = TreeEditSimilarity()
    hyps = [REF, "void m ( ) { a . add ( b ) ;", "void m ( ) { a . add ( b ) ; }"]
    refs = [REF, REF, "void m ( ) { a . add ( b ) ; } void n ( ) { }"]  # two methods: not one method
    details = metric.sentence_details(hyps, refs)
    assert details.score[0] == 1.0 and math.isnan(details.score[1]) and math.isnan(details.score[2])
    assert details.hyp_parsed.tolist() == [True, False, True]
    assert details.ref_parsed.tolist() == [True, True, False]
    assert details.unparsable == 2
    assert details.hyp_nodes.tolist() == [8, 0, 0] and details.ted[0] == 0


def test_token_fallback_is_token_edit_similarity():
    # Both sides become a root over their tokens, so TED = token Levenshtein (roots match) and the sizes
    # are the token counts + 1.
    metric = TreeEditSimilarity(fallback="tokens")
    hyp, ref = "void m ( ) { a . add ( b ) ;", "void m ( ) { c . add ( b ) ; }"
    expected = 1 - Levenshtein.distance(hyp.split(), ref.split()) / (len(hyp.split()) + 1 + len(ref.split()) + 1)
    details = metric.sentence_details([hyp, REF], [ref, REF])
    assert details.score[0] == pytest.approx(expected, abs=1e-12)
    assert details.fallback.tolist() == [True, False] and details.score[1] == 1.0
    assert metric.signature().split("|")[-2] == "fallback:tokens"


def test_src2abs_artefacts_are_repaired():
    lambda_ = "public void METHOD_1 ( ) { VAR_1 . forEach ( e - > METHOD_2 ( e ) ) ; }"
    annotated = "public void METHOD_1 ( ANNOTATION_1 TYPE_1 VAR_1 ) { }"
    method_ref = "public void METHOD_1 ( ) { VAR_1 . forEach ( TYPE_1 : : METHOD_2 ) ; }"
    for code in (lambda_, annotated, method_ref):
        assert method_tree(code) is not None
        assert method_tree(code, repair=False) is None
    assert "name:ANNOTATION_1" in labels(method_tree(annotated))
    assert np.isnan(TreeEditSimilarity(repair=False).score(lambda_, lambda_))


def test_signature_and_columns():
    metric = TreeEditSimilarity()
    assert metric.signature() == ("treed_sim|parser:javalang-0.13.0|labels:type+leaf|cost:unit|norm:sum|repair:src2abs|"
                                  "wrap:stmt+expr|fallback:nan|version:0.1.0")
    assert (metric.column, metric.higher_is_better) == ("treed_sim", True)
    assert (TreeEditDistance().column, TreeEditDistance.higher_is_better) == ("treed", False)
    assert TreeEditDistance().signature().replace("treed|", "treed_sim|", 1) == metric.signature()
    assert TreeEditSimilarity(repair=False).signature().count("repair:none") == 1


def test_bad_arguments():
    with pytest.raises(ValueError):
        TreeEditSimilarity(fallback="zero")
    with pytest.raises(ValueError):
        TreeEditSimilarity().sentence_scores(["a"], [])
    assert TreeEditSimilarity().sentence_scores([], []).shape == (0,)


# --- real predictions ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def k1_pairs(tufano_dir):
    preds = read_tufano(tufano_dir / "predictions" / "1-encoder_k1_abstracted.txt")
    return [beam[0] for beam in preds.predictions], list(preds.references)


def test_real_pairs_match_zss_on_the_same_trees(k1_pairs):
    # Independent TED (zss) on the trees the metric builds, normalised by hand.
    hyps, refs = k1_pairs
    rng = random.Random(3)
    trees = {i: (method_tree(hyps[i]), method_tree(refs[i])) for i in rng.sample(range(len(hyps)), 200)}
    chosen = [i for i, (a, b) in trees.items() if a and b and a != b and len(labels(a)) + len(labels(b)) < 50][:6]
    assert len(chosen) == 6
    scores = TreeEditSimilarity().sentence_scores([hyps[i] for i in chosen], [refs[i] for i in chosen])
    for i, score in zip(chosen, scores):
        a, b = trees[i]
        expected = 1 - zss.simple_distance(as_zss(a), as_zss(b)) / (len(labels(a)) + len(labels(b)))
        assert score == pytest.approx(expected, abs=1e-12)


def test_real_predictions(k1_pairs):
    hyps, refs = k1_pairs
    hyps, refs = hyps[:300], refs[:300]
    details = TreeEditSimilarity().sentence_details(hyps, refs)
    exact = np.array([h.split() == r.split() for h, r in zip(hyps, refs)])
    ok = ~details.fallback
    assert exact.sum() == 50  # the file's 50 perfect predictions come first (fixture README)
    assert np.all(details.score[exact & ok] == 1.0)
    assert np.all(details.score[~exact & ok] < 1.0)  # a different token sequence is a different tree here
    assert np.all((details.score[ok] >= 0) & (details.score[ok] <= 1))
    assert np.isnan(details.score).sum() == details.unparsable
    assert details.ref_parsed.mean() > 0.99 and 0.6 < details.hyp_parsed.mean() < 0.95


@pytest.mark.parametrize("cut", ["return 0", "return 0x", "x = 1e+", "x = .5e", "return 0."])
def test_input_cut_inside_a_number_is_unparsable_not_a_crash(cut):
    # javalang's lexer raises TypeError (not LexerError) at such ends; beam output is often cut there
    assert np.isnan(TreeEditDistance().score(f"void m ( ) {{ {cut}", "void m ( ) { return 0 ; }"))
