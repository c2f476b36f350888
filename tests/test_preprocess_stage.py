"""The preprocess stage end to end from Python: hand-made rounds tables in, candidates and dropped rows out."""

from __future__ import annotations

import json
import sys
import time
import tracemalloc
from pathlib import Path

import javalang
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from revmine.errors import InputError
from revmine.lang.idioms import default_idioms
from revmine.preprocess.abstraction import abstract_pair
from revmine.preprocess.candidates import MethodCache, normalise_source, preprocess
from revmine.lang.comments import clean_comment
from revmine.schema import CANDIDATES_SCHEMA, COMMENT_TYPE, DROPPED_SCHEMA, ROUNDS_SCHEMA, DropReason, schema_id
from revmine.io.store import read_table, write_table

sys.path.insert(0, str(Path(__file__).resolve().parent))
from published_rounds import (BROKEN_FIELD, BROKEN_METHOD, HEADER, come_back, marked_lines,  # noqa: E402
                              published_rounds, published_rows)

BEFORE = """\
package demo;

import java.util.List;

/** A shop. */
public class Shop {
  private int total;

  /** Adds an item. */
  @Override
  public void add(int price) {
    total += price;
  }

  public int total() {
    return total;
  }

  public void clear() {
    total = 0;
  }

  private int tax(int amount) {
    return amount / 10;
  }
}
"""
AFTER = """\
package demo;

import java.util.List;

/** A shop. */
public class Shop {
  private int total;

  /** Adds an item. */
  @Override
  public void add(int price) {
    if (price < 0) {
      throw new IllegalArgumentException();
    }
    total += price;
  }

  public int total() {
    return total;
  }

  private int vat(int amount) {
    return amount / 10;
  }

  public void reset(boolean hard) {}
}
"""
ADD_BEFORE = "  public void add(int price) {\n    total += price;\n  }\n"
ADD_AFTER = ("  public void add(int price) {\n    if (price < 0) {\n      throw new IllegalArgumentException();\n"
             "    }\n    total += price;\n  }\n")


def comment(cid: str, line: int | None = None, start: int | None = None, end: int | None = None,
            side: str | None = "REVISION", message: str = "Please check `price` here.", **extra) -> dict:
    return {"id": cid, "author": "rev", "is_owner": False, "path": "Shop.java", "side": side, "line": line,
            "start_line": start, "end_line": end, "message": message, **extra}


COMMENTS = [
    comment("c1", 10),  # the annotation of add(): a triplet
    comment("c2", 16),  # total(), which does not change: a triplet with changed = False
    comment("c3", 20),  # clear(), deleted
    comment("c4", 24),  # tax(), renamed vat()
    comment("c5", 9),  # Javadoc
    comment("c6", 7),  # a field
    comment("c7", start=13, end=15),  # end of add() to start of total()
    comment("c8", 12, side="PARENT"),
    comment("c9"),  # file-level
    comment("c10", 99),
    comment("c11", start=11, end=14, end_character=0, author="owner", is_owner=True, in_reply_to="c1"),
]


def round_row(n: int = 1, before: str | bytes | None = BEFORE, after: str | bytes | None = AFTER,
              comments: list[dict] | None = None, path: str = "Shop.java") -> dict:
    return {
        "round_id": f"gerrit:review.example.org:demo:42:{n}", "source": "gerrit", "host": "review.example.org",
        "project": "demo", "change": "42", "round": n, "path_before": path, "path_after": path,
        "file_status": "modified", "content_before": before, "content_after": after,
        "comments": COMMENTS if comments is None else comments,
    }


def write_rounds(path: Path, rows: list[dict]) -> Path:
    """Write rows as rounds.parquet; bytes contents are stored as they are, even when not UTF-8."""
    table = pa.Table.from_pylist([{k: (None if isinstance(v, bytes) else v) for k, v in r.items()} for r in rows],
                                 schema=ROUNDS_SCHEMA)
    for name in ("content_before", "content_after", "content_base"):
        values = [r[name].encode() if isinstance(r.get(name), str) else r.get(name) for r in rows]
        column = pa.array(values, pa.large_binary()).view(pa.large_string())
        table = table.set_column(table.schema.get_field_index(name), name, column)
    write_table(table, path, ROUNDS_SCHEMA)
    return path


def run(tmp_path: Path, rows: list[dict], **kwargs) -> tuple[dict, list[dict], list[dict]]:
    counts = preprocess(write_rounds(tmp_path / "rounds.parquet", rows), tmp_path / "out", **kwargs)
    candidates = read_table(tmp_path / "out" / "candidates.parquet", expect="candidates/5").to_pylist()
    dropped = read_table(tmp_path / "out" / "dropped.parquet", expect="preprocess_dropped/4").to_pylist()
    return counts, candidates, dropped


def test_candidates_and_dropped_of_one_round(tmp_path):
    counts, candidates, dropped = run(tmp_path, [round_row()])
    assert [(c["kind"], c["comment_id"], c["signature"], c["signature_after"], c["match_rule"], c["changed"])
            for c in candidates] == [
        ("triplet", "c1", "add(int price)", "add(int price)", "signature", True),
        ("triplet", "c2", "total()", "total()", "signature", False),
        ("triplet", "c4", "tax(int amount)", "vat(int amount)", "rename", True),
        ("triplet", "c11", "add(int price)", "add(int price)", "signature", True),
        ("pair", None, "add(int price)", "add(int price)", "signature", True),
        ("pair", None, "tax(int amount)", "vat(int amount)", "rename", True),
    ]
    assert [(d["kind"], d["reason"], d["comment_id"], d["signature"]) for d in dropped] == [
        ("comment", DropReason.METHOD_DELETED, "c3", "clear()"),
        ("comment", DropReason.OUTSIDE_METHOD, "c5", None),
        ("comment", DropReason.OUTSIDE_METHOD, "c6", None),
        ("comment", DropReason.SPANS_METHODS, "c7", None),
        ("comment", DropReason.WRONG_SIDE, "c8", None),
        ("comment", DropReason.FILE_COMMENT, "c9", None),
        ("comment", DropReason.LINE_OUT_OF_RANGE, "c10", None),
        ("method", DropReason.METHOD_DELETED, None, "clear()"),
    ]
    assert counts["files"] == 1 and counts["comments"] == len(COMMENTS)
    assert (counts["triplets"], counts["pairs"], counts["dropped"]) == (4, 2, 8)
    assert counts["dropped_by_reason"][DropReason.OUTSIDE_METHOD] == 2

    c1 = candidates[0]
    assert c1["m_s"] == ADD_BEFORE and c1["m_r"] == ADD_AFTER  # no annotation-only line, no Javadoc
    assert (c1["start_line_before"], c1["end_line_before"], c1["start_line_after"], c1["end_line_after"]) == (
        11, 13, 11, 16)
    assert (c1["comment_start_line"], c1["comment_end_line"]) == (10, 10)
    assert c1["round_id"] == "gerrit:review.example.org:demo:42:1" and c1["round"] == 1
    assert (c1["path"], c1["path_after"], c1["method_name"], c1["comment_author"]) == (
        "Shop.java", "Shop.java", "add", "rev")
    expected = abstract_pair(ADD_BEFORE, ADD_AFTER, default_idioms())
    assert (c1["m_s_abstract"], c1["m_r_abstract"]) == (expected.before, expected.after)
    assert json.loads(c1["abstraction_map"]) == expected.mapping
    assert c1["comment"] == COMMENTS[0]["message"]
    assert c1["comment_abstract"] == clean_comment(COMMENTS[0]["message"], expected.mapping, default_idioms())
    c11 = candidates[3]
    assert (c11["comment_start_line"], c11["comment_end_line"]) == (11, 13)  # Gerrit range ending at char 0
    assert (c11["comment_author"], c11["comment_is_owner"], c11["comment_in_reply_to"]) == ("owner", True, "c1")
    pair = candidates[4]
    assert pair["comment"] is None and pair["comment_abstract"] is None and pair["m_s"] == ADD_BEFORE
    # the 2-encoder input, each triplet marked by its own comment's lines; worked by hand from the abstraction
    assert [c["m_s_marked"] for c in candidates] == [
        "<START> <END> public void add ( int VAR_1 ) { VAR_2 += VAR_1 ; }",  # c1: the @Override line, not in m_s
        "public int METHOD_1 ( ) { <START> return VAR_1 ; <END> }",  # c2: line 16
        "private int METHOD_1 ( int VAR_1 ) { <START> return VAR_1 / 10 ; <END> }",  # c4: line 24
        "<START> public void add ( int VAR_1 ) { VAR_2 += VAR_1 ; } <END>",  # c11: lines 11-13
        None,  # pairs have no comment
        None,
    ]
    assert all(d["round_id"] == c1["round_id"] and d["path"] == "Shop.java" for d in dropped)


def test_marks_follow_gerrit_character_ranges_in_utf16_and_are_clipped_to_the_method_text(tmp_path):
    before = ("class A {\n  @Deprecated\n  void check(String text) {\n    text = \"\U0001F600\" + text.trim();\n"
              "  }\n}\n")
    after = before.replace("text.trim()", "text.strip()")
    # line 4 is `    text = "😀" + text.trim();`: the emoji is 2 UTF-16 units, so `+` is at unit 16 (index 15)
    # and `trim` ends at unit 27 (index 26); `text` and `trim` are idioms
    plus, trim_end = 16, 27
    comments = [
        comment("r1", 4, start=4, end=4, start_character=plus, end_character=trim_end),
        comment("r2", 3, start=2, end=3, start_character=2, end_character=99),  # from @Deprecated to past the end
        comment("r3", 4, start=4, end=4, start_character=4, end_character=4),  # an empty range before `text`
        comment("r4", 6, start=3, end=6, start_character=0, end_character=0),  # to the start of the line after
    ]
    _, candidates, dropped = run(tmp_path, [round_row(before=before, after=after, comments=comments)])
    assert dropped == []
    assert {c["comment_id"]: c["m_s_marked"] for c in candidates if c["kind"] == "triplet"} == {
        "r1": "void METHOD_1 ( String text ) { text = STRING_1 <START> + text . trim <END> ( ) ; }",
        "r2": "<START> void METHOD_1 ( String text ) { <END> text = STRING_1 + text . trim ( ) ; }",
        "r3": "void METHOD_1 ( String text ) { <START> <END> text = STRING_1 + text . trim ( ) ; }",
        "r4": "<START> void METHOD_1 ( String text ) { text = STRING_1 + text . trim ( ) ; } <END>",
    }


def test_comment_after_the_final_newline_is_out_of_range(tmp_path):
    """BEFORE has 26 lines and ends with a newline: line 27 does not exist, it is not 'outside a method'."""
    assert BEFORE.count("\n") == 26 and BEFORE.endswith("\n")
    _, _, dropped = run(tmp_path, [round_row(comments=[comment("c1", 26), comment("c2", 27)])])
    assert [(d["comment_id"], d["reason"]) for d in dropped if d["kind"] == "comment"] == [
        ("c1", DropReason.OUTSIDE_METHOD), ("c2", DropReason.LINE_OUT_OF_RANGE)]


def test_comments_on_record_methods_are_triplets(tmp_path):
    """Lizard alone loses every method of a record with a constructor; their comments must still link."""
    before = "record P(int x, int y) {\n  P(int x) { this(x, 0); }\n  int sum() { return x + y; }\n}\n"
    after = "record P(int x, int y) {\n  P(int x) { this(x, 0); }\n  int sum() { return y + x; }\n}\n"
    _, candidates, dropped = run(tmp_path, [round_row(before=before, after=after, comments=[comment("c1", 3)])])
    assert [(c["kind"], c["comment_id"], c["signature"]) for c in candidates] == [
        ("triplet", "c1", "sum()"), ("pair", None, "sum()")]
    assert dropped == []


def test_sources_are_normalised_before_anything_else(tmp_path):
    crlf = "\ufeff" + BEFORE.replace("\n", "\r\n")
    mac = AFTER.replace("\n", "\r")
    _, candidates, dropped = run(tmp_path, [round_row(before=crlf, after=mac)])
    _, expected, expected_dropped = run(tmp_path / "lf", [round_row()])
    assert candidates == expected and dropped == expected_dropped
    assert normalise_source("\ufeffa\r\nb\rc\n".encode()) == "a\nb\nc\n"


def test_hunk_rows_keep_the_files_bytes_and_a_comment_on_a_change_of_encoding_or_line_ends(tmp_path):
    """Hunk rows are CodeReviewer's, whose files are GitHub's: ``oldf`` keeps the base's BOM and ``\\r\\n``, and a
    change that only adds a BOM (or only turns line ends into ``\\r\\n``) is a hunk its comment stays on (git
    shows both changes as hunks: ``tests/test_hunks.py`` checks the texts against ``git diff``)."""
    crlf = BEFORE.replace("\n", "\r\n")
    on_line_1 = [comment("bom", 1), comment("crlf", 2)]
    rows = [{**round_row(1, before="\ufeff" + BEFORE, comments=on_line_1[:1]), "content_base": BEFORE},
            {**round_row(2, before=crlf, comments=on_line_1[1:]), "content_base": "\ufeff" + BEFORE}]
    counts, _, dropped = run(tmp_path, rows, levels=("method", "hunk"))
    hunks = read_table(tmp_path / "out" / "hunks.parquet").to_pylist()
    assert [(h["round"], h["comment_id"], h["y"]) for h in hunks] == [(1, "bom", 1), (2, "crlf", 1)]
    assert [h["oldf"] for h in hunks] == [BEFORE, "\ufeff" + BEFORE]
    assert hunks[0]["patch"].split("\n")[1:3] == ["-" + BEFORE.split("\n")[0], "+\ufeff" + BEFORE.split("\n")[0]]
    assert hunks[1]["patch"].split("\n")[-1] == "+" + crlf.split("\n")[-2]  # the \r kept on its line
    assert not [d for d in dropped if d["kind"] == "hunk_comment"]


def test_pathological_files_are_dropped_quickly(tmp_path):
    generated = "class Big {\n" + "  int f%d() { return 1; }\n" * 200_000 + "}\n"
    assert len(generated) > 5_000_000
    deep = "class Deep {\n  void f() {\n" + "if (a) {" * 2000 + "}" * 2000 + "\n  }\n}\n"
    one = [comment("k1", 2)]
    rows = [
        round_row(1, before=generated, comments=one),
        round_row(2, before=deep, after=deep, comments=one),
        round_row(3, before=b"class A { void f() { String s = \"\xff\"; } }", comments=one),
        round_row(4),
    ]
    started = time.monotonic()
    counts, candidates, dropped = run(tmp_path, rows)
    assert time.monotonic() - started < 10
    assert [(d["round"], d["kind"], d["reason"], d["comment_id"]) for d in dropped if d["round"] < 4] == [
        (1, "file", DropReason.FILE_TOO_LARGE, None),
        (1, "comment", DropReason.FILE_TOO_LARGE, "k1"),
        (2, "file", DropReason.TOO_DEEP, None),
        (2, "comment", DropReason.TOO_DEEP, "k1"),
        (3, "file", DropReason.BAD_ENCODING, None),
        (3, "comment", DropReason.BAD_ENCODING, "k1"),
    ]
    details = {d["round"]: d["detail"] for d in dropped if d["kind"] == "file"}
    assert details[1].startswith("content_before: ") and "over the limit of 1000000" in details[1]
    assert details[3] == "content_before: invalid UTF-8 at byte 33"
    assert {c["round"] for c in candidates} == {4}  # the rest of the input still goes through
    assert counts["files"] == 4


def test_a_file_that_does_not_compile_loses_only_what_cannot_be_extracted(tmp_path):
    """Published methods in a file with an unclosed '(' in a field and a method missing its '}' (cf. #8).

    Rows 72 and 314 of the test split do not parse themselves (a ';' is missing), row 0 does; all three
    must come out with the published abstractions. Only the broken method and field are lost, with a reason.
    """
    rows = published_rows()
    for i in (72, 314):  # javalang rejects them, as JavaParser did when the dataset was made
        with pytest.raises(javalang.parser.JavaSyntaxError):
            javalang.parse.parse("class Dummy {\n" + rows[i]["before"] + "}\n")
    javalang.parse.parse("class Dummy {\n" + rows[0]["before"] + "}\n")
    parts = {"before": [HEADER, BROKEN_FIELD], "after": [HEADER, BROKEN_FIELD]}
    published: dict[int, tuple[int, int]] = {}  # row -> its marked lines in the file
    for i in (72, 0, None, 314):
        for side, text in parts.items():
            text.append(BROKEN_METHOD if i is None else rows[i][side])
        if i is not None:
            offset = "".join(parts["before"][:-1]).count("\n")
            first, last = marked_lines(rows[i])
            published[i] = (offset + first, offset + last)
    before, after = "".join(parts["before"]) + "}\n", "".join(parts["after"]) + "}\n"
    field = HEADER.count("\n") + 1
    unfinished = before.split("\n").index("  void unfinished() {") + 1
    comments = [comment(f"row{i}", start=a, end=b) for i, (a, b) in published.items()]
    comments += [comment("field", field), comment("unfinished", unfinished + 2)]
    counts, candidates, dropped = run(tmp_path, [round_row(before=before, after=after, comments=comments)])
    triplets = {c["comment_id"]: c for c in candidates if c["kind"] == "triplet"}
    assert sorted(triplets) == ["row0", "row314", "row72"]
    for i in (72, 0, 314):
        found = triplets[f"row{i}"]
        assert (found["m_s"], found["m_r"]) == (rows[i]["before"], rows[i]["after"])
        assert (found["m_s_abstract"], found["m_r_abstract"]) == (rows[i]["src"], rows[i]["tgt"])
    assert counts["pairs"] == 3
    assert [(d["kind"], d["comment_id"], d["reason"], d["detail"]) for d in dropped] == [
        ("comment", "field", DropReason.UNPARSEABLE, f"lines {field}-{field} are in no method: no method could "
                                                     f"be extracted over an unbalanced '(' at line {field}"),
        ("comment", "unfinished", DropReason.UNPARSEABLE,
         f"lines {unfinished + 2}-{unfinished + 2} are in no method: no method could be extracted over an "
         f"unbalanced '{{' at line {unfinished}"),
    ]


def test_a_revision_that_does_not_compile_says_so_when_methods_disappear(tmp_path):
    # add() lacks its "}": the one at the class's indentation closes the class, leaving add() open
    _, candidates, dropped = run(tmp_path, [round_row(after="class Shop {\n  void add(int price) {\n}\n",
                                                      comments=[comment("c", 16)])])
    assert candidates == []
    assert {(d["reason"], d["detail"]) for d in dropped} == {
        (DropReason.METHOD_DELETED, "no method of the next revision matches; it has an unbalanced '{' at line 2")}


def test_published_rows_come_back_from_files_that_do_not_compile(tmp_path):
    """The first 150 rows of the test split, each in a class that does not compile (see published_rounds)."""
    rows = published_rows(150)
    exact, lost = come_back(rows, published_rounds(rows, broken=True), tmp_path)
    assert (exact, dict(lost)) == (150, {})


def test_undecodable_fields_drop_their_row_not_the_run(tmp_path):
    rows = [round_row(1, comments=[]), round_row(2, comments=[comment("x", 16)]), round_row(3)]
    path = write_rounds(tmp_path / "clean.parquet", rows)
    table = pq.read_table(path)
    project = pa.array([b"demo", b"d\xe9mo", b"demo"], pa.binary()).view(pa.string())
    table = table.set_column(table.schema.get_field_index("project"), "project", project)
    raw = {f.name: [None] for f in COMMENT_TYPE}
    raw.update(id=["y"], line=[16], side=["REVISION"])
    fields = [pa.array([b"caf\xe9"], pa.binary()).view(pa.string()) if f.name == "message" else
              pa.array(raw[f.name], f.type) for f in COMMENT_TYPE]
    bad_comment = pa.ListArray.from_arrays(pa.array([0, 1], pa.int32()),
                                           pa.StructArray.from_arrays(fields, fields=list(COMMENT_TYPE)))
    comments = pa.concat_arrays([table.column("comments").chunk(0).slice(0, 2), bad_comment])
    table = table.set_column(table.schema.get_field_index("comments"), "comments", comments)
    write_table(table, tmp_path / "rounds.parquet", ROUNDS_SCHEMA)
    counts = preprocess(tmp_path / "rounds.parquet", tmp_path / "out")
    dropped = read_table(tmp_path / "out" / "dropped.parquet").to_pylist()
    assert [(d["round"], d["kind"], d["reason"], d["detail"], d["project"]) for d in dropped if d["round"] > 1] == [
        (2, "file", DropReason.BAD_ENCODING, "project: invalid UTF-8 at byte 1", "d\ufffdmo"),
        (2, "comment", DropReason.BAD_ENCODING, "project: invalid UTF-8 at byte 1", "d\ufffdmo"),
        (3, "file", DropReason.BAD_ENCODING, "comments: invalid UTF-8 at byte 3", "demo"),
    ]
    assert (counts["pairs"], counts["triplets"]) == (2, 0)  # round 1 went through


def test_minified_code_is_a_dropped_file_and_costs_memory_linear_in_its_size(tmp_path):
    """Issue 31: thousands of functions on one line each carried the whole line (2.2 GB for 200 KB); now the file
    is dropped as too large once its functions' texts would pass twice its size, and small one-line files stay."""
    def one_line(n: int, changed: bool = False) -> str:
        return ";".join(f"function f{i}(a,b){{return a+b*{99 if changed and i == 0 else i}}}" for i in range(n)) + "\n"

    def traced_run(n: int) -> tuple[int, list[dict], list[dict]]:
        minified = one_line(n)
        small = one_line(3)  # three one-line functions: each text is the shared line, as the docs say
        js = [comment("k1", 1, path="app.min.js")]
        rows = [{**round_row(1, before=minified, after=one_line(n, True), comments=js, path="app.min.js"),
                 "language": "javascript"},
                {**round_row(2, before=small, after=one_line(3, True), comments=js, path="app.js"),
                 "language": "javascript"},
                round_row(3)]
        tracemalloc.start()
        try:
            # under tracemalloc (slow) the time budget could end the file first: the text budget must decide
            _, candidates, dropped = run(tmp_path / str(n), rows, timeout=600)
            return tracemalloc.get_traced_memory()[1], candidates, dropped
        finally:
            tracemalloc.stop()

    traced_run(30)  # loads what the stage loads once, not measured
    peak_100k, _, _ = traced_run(3000)  # about 110 KB on one line
    peak_200k, candidates, dropped = traced_run(6000)
    # quadratic (each function a copy of the line) would be 4x and 1.3 GB of text at 6,000; linear is 2x
    assert peak_200k < 2.4 * peak_100k and peak_200k < 100_000_000  # measured: 1.98x, 34 MB
    assert [(d["round"], d["kind"], d["reason"], d["comment_id"]) for d in dropped if d["round"] == 1] == [
        (1, "file", DropReason.FILE_TOO_LARGE, None), (1, "comment", DropReason.FILE_TOO_LARGE, "k1")]
    assert "share long lines" in next(d["detail"] for d in dropped if d["round"] == 1)
    kept = [(c["kind"], c["method_name"], c["m_s"], c["m_r"]) for c in candidates if c["round"] == 2]
    assert kept == [("pair", f"f{i}", one_line(3), one_line(3, True)) for i in range(3)]  # the line changed
    assert [d["reason"] for d in dropped if d["round"] == 2] == [DropReason.SPANS_METHODS]  # line 1 is all three
    assert {c["round"] for c in candidates} == {2, 3}


def test_time_budget_per_file(tmp_path):
    slow = "class Slow {\n" + "".join(f"  void m{i}(int a) {{ a++; }}\n" for i in range(3000)) + "}\n"
    counts, candidates, dropped = run(tmp_path, [round_row(before=slow, comments=[comment("k", 2)])], timeout=0.01)
    assert [(d["kind"], d["reason"]) for d in dropped] == [("file", "timeout"), ("comment", "timeout")]
    assert candidates == [] and "time budget" in dropped[0]["detail"]


def test_a_failing_abstraction_drops_only_its_method(tmp_path, monkeypatch):
    from revmine.preprocess import candidates

    def abstract_pair_failing_on_tax(before, after, idioms=None, spans=False, deadline=None):
        if "tax(" in before:
            raise ValueError("cannot abstract")
        return abstract_pair(before, after, idioms, spans, deadline)

    monkeypatch.setattr(candidates, "abstract_pair", abstract_pair_failing_on_tax)
    counts, candidates_rows, dropped = run(tmp_path, [round_row()])
    assert [(c["kind"], c["comment_id"]) for c in candidates_rows] == [
        ("triplet", "c1"), ("triplet", "c2"), ("triplet", "c11"), ("pair", None)]
    failed = [(d["kind"], d["comment_id"], d["signature"], d["detail"]) for d in dropped
              if d["reason"] == DropReason.ABSTRACTION_FAILED]
    assert failed == [("comment", "c4", "tax(int amount)", "ValueError: cannot abstract"),
                      ("method", None, "tax(int amount)", "ValueError: cannot abstract")]


def test_deleted_and_added_files(tmp_path):
    rows = [round_row(1, after=None, comments=[comment("d1", 12)]),
            round_row(2, before=None, comments=[comment("a1", 3)])]
    _, candidates, dropped = run(tmp_path, rows)
    assert candidates == []
    assert [(d["round"], d["kind"], d["reason"], d["comment_id"], d["signature"]) for d in dropped] == [
        (1, "comment", DropReason.METHOD_DELETED, "d1", "add(int price)"),
        (1, "method", DropReason.METHOD_DELETED, None, "add(int price)"),
        (1, "method", DropReason.METHOD_DELETED, None, "total()"),
        (1, "method", DropReason.METHOD_DELETED, None, "clear()"),
        (1, "method", DropReason.METHOD_DELETED, None, "tax(int amount)"),
        (2, "comment", DropReason.NO_CONTENT_BEFORE, "a1", None),
    ]


def test_streams_in_batches(tmp_path):
    rows = [round_row(n) for n in range(1, 6)]
    counts, candidates, dropped = run(tmp_path, rows, batch_size=2)
    assert (counts["files"], counts["triplets"], counts["pairs"]) == (5, 20, 10)
    assert [c["round"] for c in candidates] == sorted(c["round"] for c in candidates)  # input order kept
    assert pq.ParquetFile(tmp_path / "out" / "candidates.parquet").metadata.num_row_groups == 3
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["candidates.parquet", "dropped.parquet"]
    assert schema_id(pq.read_schema(tmp_path / "out" / "candidates.parquet")) == schema_id(CANDIDATES_SCHEMA)
    assert schema_id(pq.read_schema(tmp_path / "out" / "dropped.parquet")) == schema_id(DROPPED_SCHEMA)


def test_empty_input_gives_empty_outputs(tmp_path):
    counts, candidates, dropped = run(tmp_path, [])
    assert (counts["files"], candidates, dropped) == (0, [], [])


def test_bad_input_files_name_the_problem(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        preprocess(tmp_path / "missing.parquet", tmp_path / "out")
    write_table(pa.table({"round_id": ["x"]}), tmp_path / "partial.parquet")
    with pytest.raises(InputError, match=r"partial.parquet \[source\]: missing column"):
        preprocess(tmp_path / "partial.parquet", tmp_path / "out")
    write_table(pa.table({"id": ["x"]}), tmp_path / "cands.parquet",
                metadata={"revmine.schema": "candidates/1"})
    with pytest.raises(InputError, match="expected a rounds/4 file, found candidates/1"):
        preprocess(tmp_path / "cands.parquet", tmp_path / "out")
    (tmp_path / "idioms.txt").write_bytes(b"size\nna\xefve\n")
    with pytest.raises(InputError, match=r"idioms\.txt:2: undecodable byte"):
        preprocess(write_rounds(tmp_path / "rounds.parquet", []), tmp_path / "out", idioms=tmp_path / "idioms.txt")
    assert not (tmp_path / "out").exists()


def test_method_cache_reuses_recent_sources():
    cache = MethodCache(size=1)
    far = time.monotonic() + 60
    first = cache.methods(BEFORE, "java", far, 100)
    assert cache.methods(BEFORE, "java", far, 100) is first  # round i's revised file is round i+1's submitted one
    cache.methods(AFTER, "java", far, 100)
    assert cache.methods(BEFORE, "java", far, 100) is not first and cache.methods(BEFORE, "java", far, 100) == first
    assert MethodCache(size=0).methods(BEFORE, "java", far, 100) == first


def test_cli_preprocess_then_unabstract(tmp_path, capsys):
    from revmine.cli import main

    rounds = write_rounds(tmp_path / "rounds.parquet", [round_row()])
    assert main(["preprocess", "--rounds", str(rounds), "--out", str(tmp_path / "out"), "--json"]) == 0
    counts = json.loads(capsys.readouterr().out)
    candidates = read_table(tmp_path / "out" / "candidates.parquet").to_pylist()
    assert counts["triplets"] + counts["pairs"] == len(candidates) > 0
    add = next(c for c in candidates if c["kind"] == "pair" and c["method_name"] == "add")
    # the revised add(), abstracted then mapped back: its source tokens, worked out by hand from AFTER
    (tmp_path / "pred.txt").write_text(add["m_r_abstract"] + "\n")
    pq.write_table(pa.table({"abstraction_map": [add["abstraction_map"]]}), tmp_path / "maps.parquet")
    assert main(["unabstract", str(tmp_path / "pred.txt"), "--maps", str(tmp_path / "maps.parquet"),
                 "--out", str(tmp_path / "raw.txt")]) == 0
    assert (tmp_path / "raw.txt").read_text() == (
        "public void add ( int price ) { if ( price < 0 ) { throw new IllegalArgumentException ( ) ; } "
        "total += price ; }\n")
    assert "0 id(s) not in their map" in capsys.readouterr().out


def test_dask_engine_writes_the_same_bytes(tmp_path, monkeypatch):
    """engine="dask" on a LocalCluster of 2 processes (127.0.0.1) gives byte-identical outputs and counts."""
    import distributed  # noqa: F401 - in the [test] extra: a missing one fails, never skips
    monkeypatch.delenv("REVMINE_DASK_SCHEDULER", raising=False)  # this test starts its own cluster
    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS", raising=False)
    deep = "class Deep {\n  void f() {\n" + "if (a) {" * 300 + "}" * 300 + "\n  }\n}\n"
    rows = [round_row(n) for n in range(1, 8)] + [
        round_row(8, before=deep, after=deep, comments=[comment("k1", 2)]),
        round_row(9, before=b"class A { void f() { String s = \"\xff\"; } }", comments=[comment("k2", 1)]),
        round_row(10, after="class A { void f() { }", comments=[]),
        round_row(11, after=None, comments=[comment("d1", 12)]),
        round_row(12, before=None, comments=[comment("a1", 3)]),
        round_row(13, comments=[]),
    ]
    rounds = write_rounds(tmp_path / "rounds.parquet", rows)
    local = preprocess(rounds, tmp_path / "local", batch_size=2)
    dask = preprocess(rounds, tmp_path / "dask", batch_size=2, engine="dask", workers=2)
    for name in ("candidates.parquet", "dropped.parquet"):
        assert (tmp_path / "local" / name).read_bytes() == (tmp_path / "dask" / name).read_bytes()
    assert {k: v for k, v in dask.items() if not k.endswith("_path")} == {
        k: v for k, v in local.items() if not k.endswith("_path")}
    assert local["files"] == 13 and local["triplets"] > 0 and len(local["dropped_by_reason"]) >= 4
    assert sorted(p.name for p in (tmp_path / "dask").iterdir()) == ["candidates.parquet", "dropped.parquet"]


def test_engine_arguments_fail_before_any_output(tmp_path):
    rounds = write_rounds(tmp_path / "rounds.parquet", [round_row()])
    with pytest.raises(InputError, match="unknown engine"):
        preprocess(rounds, tmp_path / "out", engine="spark")
    with pytest.raises(InputError, match="need engine 'dask'"):
        preprocess(rounds, tmp_path / "out", workers=2)
    assert not (tmp_path / "out").exists()
