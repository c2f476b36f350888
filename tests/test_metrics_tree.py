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
from importlib.metadata import version

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
JAVALANG = {"parser": "javalang"}


def test_method_tree_labels():
    # Inner nodes: javalang types; leaves: role:value, in javalang's attribute order. 8 nodes.
    assert method_tree(REF, **JAVALANG) == t("MethodDeclaration", t("name:m"), t("StatementExpression", t(
        "MethodInvocation", t("qualifier:a"), t("MemberReference", t("member:b")), t("member:add"))))


def labels(tree: tuple) -> list[str]:
    label, children = tree
    return [label] + [x for child in children for x in labels(child)]


def test_hand_worked_java_scores():
    # REF has 8 nodes (above). Renaming the qualifier a -> c is one edit: 1 - 1 / (8 + 8).
    # Wrapping the statement in `if (x) { ... }` adds IfStatement, MemberReference, member:x and
    # BlockStatement (12 nodes); deleting those four turns it back into REF: 1 - 4 / (12 + 8).
    hyps = ["void m ( ) { c . add ( b ) ; }", "void m ( ) { if ( x ) { a . add ( b ) ; } }", REF]
    scores = TreeEditSimilarity(**JAVALANG).sentence_scores(hyps, [REF] * 3)
    np.testing.assert_allclose(scores, [1 - 1 / 16, 1 - 4 / 20, 1.0], rtol=0, atol=1e-12)
    np.testing.assert_allclose(TreeEditDistance(**JAVALANG).sentence_scores(hyps, [REF] * 3), [1 / 16, 4 / 20, 0.0])


# Under tree-sitter (the default) inner nodes are tree-sitter-java's named node types and leaves the text of
# named tokens, plus the operator and modifier/primitive-type keyword tokens tree-sitter leaves anonymous.
SITTER_REF = t("method_declaration", t("void"), t("m"), t("formal_parameters"), t("block", t("expression_statement", t(
    "method_invocation", t("a"), t("add"), t("argument_list", t("b"))))))  # 11 nodes


def test_tree_sitter_method_tree_labels():
    assert method_tree(REF) == SITTER_REF
    assert len(labels(SITTER_REF)) == 11
    # a primitive type is its keyword under integral_type; the modifiers are leaves in source order
    assert method_tree("public static int m ( ) { return x + 1 ; }") == t(
        "method_declaration", t("modifiers", t("public"), t("static")), t("integral_type", t("int")), t("m"),
        t("formal_parameters"), t("block", t("return_statement", t("binary_expression", t("x"), t("+"), t("1")))))


def test_tree_sitter_hand_worked_scores():
    # Renaming the qualifier a -> c: one rename over 11 + 11 nodes. Wrapping the statement in
    # `if (x) { ... }` adds if_statement, parenthesized_expression, x and a block (15 nodes): 4 / (15 + 11).
    hyps = ["void m ( ) { c . add ( b ) ; }", "void m ( ) { if ( x ) { a . add ( b ) ; } }", REF]
    np.testing.assert_allclose(TreeEditDistance().sentence_scores(hyps, [REF] * 3), [1 / 22, 4 / 26, 0.0],
                               rtol=0, atol=1e-12)
    # `x = a + 1 ;` is method_declaration, void, m, formal_parameters, block, expression_statement,
    # assignment_expression(x, =, binary_expression(a, +, 1)): 13 nodes; + -> - is one rename.
    assert TreeEditDistance().score("void m ( ) { x = a + 1 ; }", "void m ( ) { x = a - 1 ; }") == pytest.approx(1 / 26)
    # method_declaration(modifiers(public), void, m, formal_parameters, block): 7 nodes; public -> private is
    # one rename; without `public` there is no modifiers node (5 nodes): inserting modifiers and public costs 2
    assert TreeEditDistance().score("public void m ( ) { }", "private void m ( ) { }") == pytest.approx(1 / 14)
    assert TreeEditDistance().score("void m ( ) { }", "public void m ( ) { }") == pytest.approx(2 / 12)


def test_tree_sitter_wraps_bare_statements_and_expressions():
    # x = a ; is Statements(expression_statement(assignment_expression(x, =, a))): 6 nodes, a -> b one rename
    assert method_tree("x = a ;") == t("Statements", t("expression_statement", t("assignment_expression", t("x"), t("="), t("a"))))
    assert TreeEditDistance().score("x = a ;", "x = b ;") == pytest.approx(1 / 12)
    assert method_tree("a . b ( c )") == t("method_invocation", t("a"), t("b"), t("argument_list", t("c")))
    assert method_tree("x") == t("x")
    assert method_tree("a ; b") is None  # not one expression, though `return a ; b ;` parses
    assert method_tree("x = a ;", wrap=False) is None and method_tree(REF, wrap=False) == SITTER_REF


@pytest.mark.parametrize("parser", ["tree-sitter", "javalang"])
@pytest.mark.parametrize("code", ["", "   ", "// only a comment", "a ; b"])
def test_no_code_or_not_one_expression_is_unparsable(code, parser):
    # `return ;` and `return a ; b ;` parse, yet neither is one expression: no empty tree, no `a` alone
    assert method_tree(code, parser=parser) is None
    assert np.isnan(TreeEditSimilarity(parser=parser).score(code, "x"))


def test_tree_sitter_parse_failures_are_counted():
    # tree-sitter always returns a tree; one with ERROR or MISSING nodes counts as not parsed, as javalang's failure
    hyps = [REF, "void m ( ) { a . add ( b ) ;", "void m ( ) { a . add ( b ) }", REF, 's = "(" ;']
    refs = [REF, REF, REF, "void m ( ) { a . add ( b ) ; } void n ( ) { }", 's = "(" ;']
    details = TreeEditSimilarity().sentence_details(hyps, refs)
    assert details.hyp_parsed.tolist() == [True, False, False, True, True]  # brackets inside a literal do not count
    assert details.ref_parsed.tolist() == [True, True, True, False, True]
    assert details.unparsable == 3 and int(np.isnan(details.score).sum()) == 3
    assert details.hyp_nodes.tolist() == [11, 0, 0, 0, 6]  # Statements, expression_statement, assignment_expression, s, =, "("
    # The parsers differ where the abstraction split a shift: javalang reads `> >` as `>>`, tree-sitter does not
    shift = "int m ( ) { return VAR_1 > > INT_1 ; }"
    assert method_tree(shift) is None and method_tree(shift, **JAVALANG) is not None


def test_tree_sitter_repairs_src2abs_artefacts():
    lambda_ = "public void METHOD_1 ( ) { VAR_1 . forEach ( e - > METHOD_2 ( e ) ) ; }"
    annotated = "public void METHOD_1 ( ANNOTATION_1 TYPE_1 VAR_1 ) { }"
    method_ref = "public void METHOD_1 ( ) { VAR_1 . forEach ( TYPE_1 : : METHOD_2 ) ; }"
    for code in (lambda_, annotated, method_ref):
        assert method_tree(code) is not None
        assert method_tree(code, repair=False) is None
    assert method_tree(annotated)[1][3] == t("formal_parameters", t("formal_parameter", t(
        "modifiers", t("marker_annotation", t("ANNOTATION_1"))), t("TYPE_1"), t("VAR_1")))
    assert "method_reference" in labels(method_tree(method_ref)) and "lambda_expression" in labels(method_tree(lambda_))
    # nothing changes inside a literal, and `i -- > 0` keeps its tokens
    assert '"a - > b"' in labels(method_tree('s = "a - > b" ;'))
    assert method_tree("i -- > 0") == t("binary_expression", t("update_expression", t("i"), t("--")), t(">"), t("0"))


@pytest.mark.parametrize("parser", ["tree-sitter", "javalang"])
def test_layout_does_not_matter(parser):
    assert TreeEditSimilarity(parser=parser).score("void m(){a.add(b);}", REF) == 1.0


def test_unparsable_rows_are_nan_and_counted():
    metric = TreeEditSimilarity(**JAVALANG)
    hyps = [REF, "void m ( ) { a . add ( b ) ;", "void m ( ) { a . add ( b ) ; }"]
    refs = [REF, REF, "void m ( ) { a . add ( b ) ; } void n ( ) { }"]  # two methods: not one method
    details = metric.sentence_details(hyps, refs)
    assert details.score[0] == 1.0 and math.isnan(details.score[1]) and math.isnan(details.score[2])
    assert details.hyp_parsed.tolist() == [True, False, True]
    assert details.ref_parsed.tolist() == [True, True, False]
    assert details.unparsable == 2
    assert details.hyp_nodes.tolist() == [8, 0, 0] and details.ted[0] == 0


@pytest.mark.parametrize("parser", ["tree-sitter", "javalang"])
def test_token_fallback_is_token_edit_similarity(parser):
    # Both sides become a root over their tokens, so TED = token Levenshtein (roots match) and the sizes
    # are the token counts + 1; the tokens are the same under either parser.
    metric = TreeEditSimilarity(fallback="tokens", parser=parser)
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
        assert method_tree(code, **JAVALANG) is not None
        assert method_tree(code, repair=False, **JAVALANG) is None
    assert "name:ANNOTATION_1" in labels(method_tree(annotated, **JAVALANG))
    assert np.isnan(TreeEditSimilarity(repair=False, **JAVALANG).score(lambda_, lambda_))


def test_signature_and_columns():
    metric = TreeEditSimilarity()
    assert metric.signature() == (f"treed_sim|parser:tree-sitter-java-{version('tree-sitter-java')}|labels:type+leaf|"
                                  "cost:unit|norm:sum|repair:src2abs|wrap:stmt+expr|fallback:nan|version:0.1.0")
    assert TreeEditSimilarity(**JAVALANG).signature() == metric.signature().replace(
        f"tree-sitter-java-{version('tree-sitter-java')}", "javalang-0.13.0")
    assert (metric.column, metric.higher_is_better) == ("treed_sim", True)
    assert (TreeEditDistance().column, TreeEditDistance.higher_is_better) == ("treed", False)
    assert TreeEditDistance().signature().replace("treed|", "treed_sim|", 1) == metric.signature()
    assert TreeEditSimilarity(repair=False).signature().count("repair:none") == 1


def test_bad_arguments():
    with pytest.raises(ValueError):
        TreeEditSimilarity(fallback="zero")
    with pytest.raises(ValueError, match="parser"):
        TreeEditSimilarity(parser="antlr")
    with pytest.raises(ValueError):
        TreeEditSimilarity().sentence_scores(["a"], [])
    assert TreeEditSimilarity().sentence_scores([], []).shape == (0,)


# --- real predictions ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def k1_pairs(tufano_dir):
    preds = read_tufano(tufano_dir / "predictions" / "1-encoder_k1_abstracted.txt")
    return [beam[0] for beam in preds.predictions], list(preds.references)


@pytest.mark.parametrize("parser", ["tree-sitter", "javalang"])
def test_real_pairs_match_zss_on_the_same_trees(k1_pairs, parser):
    # Independent TED (zss) on the trees the metric builds, normalised by hand.
    hyps, refs = k1_pairs
    rng = random.Random(3)
    trees = {i: (method_tree(hyps[i], parser=parser), method_tree(refs[i], parser=parser))
             for i in rng.sample(range(len(hyps)), 200)}
    chosen = [i for i, (a, b) in trees.items() if a and b and a != b and len(labels(a)) + len(labels(b)) < 50][:6]
    assert len(chosen) == 6
    scores = TreeEditSimilarity(parser=parser).sentence_scores([hyps[i] for i in chosen], [refs[i] for i in chosen])
    for i, score in zip(chosen, scores):
        a, b = trees[i]
        expected = 1 - zss.simple_distance(as_zss(a), as_zss(b)) / (len(labels(a)) + len(labels(b)))
        assert score == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("parser", ["tree-sitter", "javalang"])
def test_real_predictions(k1_pairs, parser):
    hyps, refs = k1_pairs
    hyps, refs = hyps[:300], refs[:300]
    details = TreeEditSimilarity(parser=parser).sentence_details(hyps, refs)
    exact = np.array([h.split() == r.split() for h, r in zip(hyps, refs)])
    ok = ~details.fallback
    assert exact.sum() == 50  # the file's 50 perfect predictions come first (fixture README)
    assert np.all(details.score[exact & ok] == 1.0)
    assert np.all(details.score[~exact & ok] < 1.0)  # a different token sequence is a different tree here
    assert np.all((details.score[ok] >= 0) & (details.score[ok] <= 1))
    assert np.isnan(details.score).sum() == details.unparsable
    assert details.ref_parsed.mean() > 0.99 and 0.6 < details.hyp_parsed.mean() < 0.95


@pytest.mark.parametrize("parser", ["tree-sitter", "javalang"])
@pytest.mark.parametrize("cut", ["return 0", "return 0x", "x = 1e+", "x = .5e", "return 0."])
def test_input_cut_inside_a_number_is_unparsable_not_a_crash(cut, parser):
    # javalang's lexer raises TypeError (not LexerError) at such ends; beam output is often cut there
    assert np.isnan(TreeEditDistance(parser=parser).score(f"void m ( ) {{ {cut}", "void m ( ) { return 0 ; }"))
