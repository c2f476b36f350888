"""Token streams and simplified parse trees (Project CodeNet) of Java methods, and their export.

The small methods' trees are worked by hand from the definition (CodeNet's ``SPTNode.simplify`` and
Aroma labelling) over tree-sitter-java's concrete tree; the fixture's methods are checked against
javalang's tokenizer, an independent lexer.
"""

from __future__ import annotations

import csv
import json
import re
from collections import Counter
from pathlib import Path

import javalang
import pyarrow.parquet as pq
import pytest

from revmine.cli import main
from revmine.dataset.split import SPLITS
from revmine.lang.representations import Token, simplified_parse_tree, spt_tokens, token_kind, token_stream

FIXTURE = Path("../shared/fixtures/tufano2021")


def _node(i, label, rule):
    return {"id": i, "label": label, "node-type": "Rule", "type-rule-name": rule, "reserved-word-flag": False}


def _token(i, label, type_, kind, token_id, reserved):
    return {"id": i, "label": label, "node-type": "Token", "type-rule-name": type_, "reserved-word-flag": reserved,
            "token-id": token_id, "token-kind": kind}


def _edges(pairs):
    return [{"between": [a, b]} for a, b in pairs]


def test_spt_of_a_small_method_worked_by_hand():
    # method_declaration(integral_type(int) identifier formal_parameters(( formal_parameter(integral_type(int)
    # identifier) )) block({ return_statement(return binary_expression(identifier + literal) ;) })):
    # both integral_type nodes have one child and become their `int`.
    graph = simplified_parse_tree("int f(int x) { return x + 1; }")["graph"]
    assert graph["nodes"] == [
        _node(0, "int###", "method_declaration"),
        _token(1, "int", "int", "keyword", 0, True),
        _token(2, "f", "identifier", "identifier", 1, False),
        _node(3, "(#)", "formal_parameters"),
        _node(4, "{#}", "block"),
        _token(5, "(", "(", "separator", 2, True),
        _node(6, "int#", "formal_parameter"),
        _token(7, ")", ")", "separator", 5, True),
        _token(8, "{", "{", "separator", 6, True),
        _node(9, "return#;", "return_statement"),
        _token(10, "}", "}", "separator", 12, True),
        _token(11, "int", "int", "keyword", 3, True),
        _token(12, "x", "identifier", "identifier", 4, False),
        _token(13, "return", "return", "keyword", 7, True),
        _node(14, "#+#", "binary_expression"),
        _token(15, ";", ";", "separator", 11, True),
        _token(16, "x", "identifier", "identifier", 8, False),
        _token(17, "+", "+", "operator", 9, True),
        _token(18, "1", "decimal_integer_literal", "integer_literal", 10, False),
    ]
    assert graph["edges"] == _edges([(0, 1), (0, 2), (0, 3), (0, 4), (3, 5), (3, 6), (3, 7), (4, 8), (4, 9),
                                     (4, 10), (6, 11), (6, 12), (9, 13), (9, 14), (9, 15), (14, 16), (14, 17),
                                     (14, 18)])
    assert {k: graph[k] for k in ("version", "type", "directed", "order", "root", "num-of-nodes", "num-of-edges",
                                  "errors")} == {"version": "1.0", "type": "tree", "directed": True, "order": "bfs",
                                                 "root": 0, "num-of-nodes": 19, "num-of-edges": 18, "errors": 0}


def test_spt_drops_comments_keeps_string_literals_whole_and_writes_unreserved_tokens_as_hash():
    # modifiers has one child (the annotation); `@` is no reserved word in CodeNet's list, so the
    # annotation is `##`; the comment is no token; the string literal is one leaf.
    code = '@Override\nvoid g() { /* c */ a.b("s"); // end\n}'
    graph = simplified_parse_tree(code)["graph"]
    assert graph["nodes"] == [
        _node(0, "#void###", "method_declaration"),
        _node(1, "##", "marker_annotation"),
        _token(2, "void", "void_type", "keyword", 2, True),
        _token(3, "g", "identifier", "identifier", 3, False),
        _node(4, "()", "formal_parameters"),
        _node(5, "{#}", "block"),
        _token(6, "@", "@", "separator", 0, False),
        _token(7, "Override", "identifier", "identifier", 1, False),
        _token(8, "(", "(", "separator", 4, True),
        _token(9, ")", ")", "separator", 5, True),
        _token(10, "{", "{", "separator", 6, True),
        _node(11, "#;", "expression_statement"),
        _token(12, "}", "}", "separator", 14, True),
        _node(13, "#.##", "method_invocation"),
        _token(14, ";", ";", "separator", 13, True),
        _token(15, "a", "identifier", "identifier", 7, False),
        _token(16, ".", ".", "separator", 8, True),
        _token(17, "b", "identifier", "identifier", 9, False),
        _node(18, "(#)", "argument_list"),
        _token(19, "(", "(", "separator", 10, True),
        _token(20, '"s"', "string_literal", "string_literal", 11, False),
        _token(21, ")", ")", "separator", 12, True),
    ]
    assert graph["edges"] == _edges([(0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (1, 6), (1, 7), (4, 8), (4, 9),
                                     (5, 10), (5, 11), (5, 12), (11, 13), (11, 14), (13, 15), (13, 16), (13, 17),
                                     (13, 18), (18, 19), (18, 20), (18, 21)])


def test_abstracted_spt_joins_the_split_arrow_and_keeps_placeholder_kinds():
    line = "TYPE_1 METHOD_1 ( ) { return VAR_1 - > STRING_1 ; }"
    graph = simplified_parse_tree(line, abstracted=True)["graph"]
    assert graph["nodes"] == [
        _node(0, "####", "method_declaration"),
        _token(1, "TYPE_1", "type_identifier", "identifier", 0, False),
        _token(2, "METHOD_1", "identifier", "identifier", 1, False),
        _node(3, "()", "formal_parameters"),
        _node(4, "{#}", "block"),
        _token(5, "(", "(", "separator", 2, True),
        _token(6, ")", ")", "separator", 3, True),
        _token(7, "{", "{", "separator", 4, True),
        _node(8, "return#;", "return_statement"),
        _token(9, "}", "}", "separator", 10, True),
        _token(10, "return", "return", "keyword", 5, True),
        _node(11, "#->#", "lambda_expression"),
        _token(12, ";", ";", "separator", 9, True),
        _token(13, "VAR_1", "identifier", "identifier", 6, False),
        _token(14, "->", "->", "operator", 7, True),
        _token(15, "STRING_1", "identifier", "string_literal", 8, False),
    ]
    assert graph["edges"] == _edges([(0, 1), (0, 2), (0, 3), (0, 4), (3, 5), (3, 6), (4, 7), (4, 8), (4, 9),
                                     (8, 10), (8, 11), (8, 12), (11, 13), (11, 14), (11, 15)])
    assert graph["errors"] == 0
    # the abstracted token stream is the abstraction's tokens as they are
    assert token_stream(line, abstracted=True)[6:9] == [Token("VAR_1", "identifier"), Token("-", "operator"),
                                                         Token(">", "operator")]


def test_token_kinds_follow_the_java_language_specification():
    code = ('void k() { long a = 0x1F + 0x1p3 + 1e5 + 10L + 1f + .5 + 0b101 + 017; char c = \'c\'; '
            'String t = """\n  text"""; var v = true ? null : this; a >>>= 2; List<List<T>> l; r(A::b); }')
    kinds = {t.text: t.kind for t in token_stream(code)}
    assert {text: kinds[text] for text in ("0x1F", "0b101", "017", "10L")} == dict.fromkeys(
        ("0x1F", "0b101", "017", "10L"), "integer_literal")
    assert {text: kinds[text] for text in ("0x1p3", "1e5", "1f", ".5")} == dict.fromkeys(
        ("0x1p3", "1e5", "1f", ".5"), "floating_point_literal")
    assert (kinds["'c'"], kinds['"""\n  text"""'], kinds["true"], kinds["null"]) == (
        "character_literal", "text_block", "boolean_literal", "null_literal")
    assert (kinds["var"], kinds["this"], kinds["long"]) == ("identifier", "keyword", "keyword")  # var: contextual
    assert (kinds[">>>="], kinds["?"], kinds["::"], kinds[";"]) == ("operator", "operator", "separator", "separator")
    # `>>` closing two type argument lists is two `>` tokens
    texts = [t.text for t in token_stream(code)]
    assert texts[texts.index("List"):texts.index("List") + 7] == ["List", "<", "List", "<", "T", ">", ">"]
    assert [token_kind(t, abstracted=True) for t in ("TYPE_2", "METHOD_3", "VAR_1", "INT_1", "FLOAT_1", "CHAR_1",
                                                     "ANNOTATION_1", "@Override", "0", '""')] == [
        "identifier", "identifier", "identifier", "integer_literal", "floating_point_literal", "character_literal",
        "annotation", "annotation", "integer_literal", "string_literal"]
    assert token_kind("STRING_1") == "identifier"  # raw code: just a name


def test_broken_code_still_gives_a_tree_of_its_tokens_and_counts_the_errors():
    code = "void f() {\n this.value = value\n this.p = p;\n}"  # a missing `;`
    graph = simplified_parse_tree(code)["graph"]
    assert graph["errors"] >= 1
    assert _leaf_texts(graph) == "void f ( ) { this . value = value this . p = p ; }".split()
    assert simplified_parse_tree("  // nothing\n")["graph"]["nodes"] == []
    # two members: the root is the class body they were parsed in, without its braces
    two = simplified_parse_tree("void a() {}\nvoid b() {}")["graph"]
    assert (two["nodes"][0]["type-rule-name"], two["nodes"][0]["label"]) == ("class_body", "##")
    assert _leaf_texts(two) == "void a ( ) { } void b ( ) { }".split()


def _leaf_texts(graph: dict) -> list[str]:
    """The leaves in depth-first order, found from the edges alone; asserts the graph is a tree."""
    children: dict[int, list[int]] = {node["id"]: [] for node in graph["nodes"]}
    parents = Counter()
    for edge in graph["edges"]:
        parent, child = edge["between"]
        children[parent].append(child)
        parents[child] += 1
    assert len(graph["edges"]) == len(graph["nodes"]) - 1
    assert set(parents) == set(children) - {0} and set(parents.values()) == {1}
    labels = {node["id"]: node for node in graph["nodes"]}
    leaves, stack, seen = [], [0], 0
    while stack:
        node = stack.pop()
        seen += 1
        if children[node]:
            assert len(children[node]) >= 2 and labels[node]["node-type"] == "Rule"
            stack.extend(reversed(children[node]))
        else:
            assert labels[node]["node-type"] == "Token"
            leaves.append(labels[node]["label"])
    assert seen == len(graph["nodes"])  # every node is reachable from the root
    return leaves


def _jls_unicode(text: str) -> str:
    """JLS §3.3: javalang translates \\uXXXX escapes before lexing, so tokens are compared translated."""
    return re.sub(r"\\u+([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), text)


def _split_shifts(tokens: list[str]) -> list[str]:
    """javalang always lexes `>>`/`>>>` as one token; tree-sitter splits them where they close type arguments."""
    return [part for t in tokens for part in ([">"] * len(t) if t in (">>", ">>>") else [t])]


@pytest.fixture(scope="module")
def fixture_rows() -> list[dict]:
    with open(FIXTURE / "test.csv", encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def test_every_fixture_method_is_a_tree_of_its_tokens(fixture_rows):
    assert len(fixture_rows) == 1719
    for i, row in enumerate(fixture_rows):
        for column in ("before", "after"):
            code = row[column]
            spt = simplified_parse_tree(code)
            leaves = _leaf_texts(spt["graph"])
            tokens = token_stream(code)
            assert leaves == [t.text for t in tokens] and spt_tokens(spt) == tokens, (i, column)
            reference = [t.value for t in javalang.tokenizer.tokenize(code)]
            assert _split_shifts([_jls_unicode(t) for t in leaves]) == _split_shifts(reference), (i, column)


def _as_leaves(tokens: list[str]) -> list[str]:
    """What the abstracted SPT's leaves are: `- >` and `: :` one token, an annotation `@` and a name."""
    leaves: list[str] = []
    for text in tokens:
        if leaves and (leaves[-1], text) in ((("-", ">"), (":", ":"))):
            leaves[-1] += text
        elif text.startswith("ANNOTATION_"):
            leaves += ["@", text]
        elif text.startswith("@") and len(text) > 1:
            leaves += ["@", text[1:]]
        else:
            leaves.append(text)
    return leaves


def test_every_fixture_abstracted_line_is_a_tree_of_its_tokens():
    for name in ("src-test.txt", "tgt-test.txt"):
        for i, line in enumerate((FIXTURE / name).read_text(encoding="utf-8").splitlines()):
            graph = simplified_parse_tree(line, abstracted=True)["graph"]
            assert _leaf_texts(graph) == _as_leaves(line.split()), (name, i)
            assert [t.text for t in token_stream(line, abstracted=True)] == line.split()


def test_export_writes_representations_and_the_card_gives_spt_totals(tmp_path):
    from revmine.dataset.split import split_dataset
    from revmine.filters.stage import FilterOptions, filter_candidates
    from test_dataset_filters import candidate, never_noise, table_of

    rows = [candidate(m_s=f"int f{n}(int x) {{ return x + {n}; }}", m_r=f"int f{n}(int x) {{ return x; }}")
            for n in range(12)]
    kept = filter_candidates(table_of(rows), tmp_path / "filtered", FilterOptions(is_noise=never_noise))["kept_path"]
    split_dataset(kept, tmp_path / "splits")
    assert main(["export", "--splits", str(tmp_path / "splits"), "--out", str(tmp_path / "dataset"),
                 "--formats", "jsonl", "--representations", "tokens,spt"]) == 0
    card = (tmp_path / "dataset" / "README.md").read_text(encoding="utf-8")
    total_rows = 0
    for name in SPLITS:
        records = [json.loads(line) for line in
                   (tmp_path / "dataset" / "representations" / "triplets" / f"{name}.jsonl").read_text().splitlines()]
        data = [json.loads(line) for line in
                (tmp_path / "dataset" / "jsonl" / "triplets" / f"{name}.jsonl").read_text().splitlines()]
        assert [r["id"] for r in records] == [d["id"] for d in data]
        total_rows += len(records)
        # m_s `int fN(int x) { return x + N; }`: 19 nodes (worked above); in m_r the binary expression and
        # its three leaves are one leaf `x`: 16 nodes
        for r in records:
            assert (r["m_s_spt"]["graph"]["num-of-nodes"], r["m_r_spt"]["graph"]["num-of-nodes"]) == (19, 16)
            assert r["m_s_tokens"][:3] == ["int", r["m_s_tokens"][1], "("] and r["m_s_token_kinds"][1] == "identifier"
        n = len(records)
        hf = {"train": "train", "eval": "validation", "test": "test"}[name]
        assert f"| triplets | {hf} | {2 * n:,} | {35 * n:,} | {33 * n:,} |" in card
    assert total_rows == sum(pq.read_table(tmp_path / "splits" / f"{name}.parquet").num_rows for name in SPLITS) > 0
    assert main(["export", "--splits", str(tmp_path / "splits"), "--out", str(tmp_path / "d2"),
                 "--representations", "ast"]) == 2
    assert not (tmp_path / "d2").exists()
