"""``revmine import``: published datasets into revmine's schemas, so that export, split and overlap apply.

The round trip is checked on real data: the 2021 replication package's test split
(``../shared/fixtures/tufano2021``), exported again as OpenNMT text, must give its four files back byte for
byte. The package's train/val layout and CodeReviewer's JSON Lines are checked on small files written here,
with the field names of the real files (``microsoft/CodeBERT``, ``CodeReviewer/code/utils.py``).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from revmine.cli import main
from revmine.dataset.split import split_dataset


def _run(*argv: str) -> int:
    return main([str(a) for a in argv])


def _error(capsys: pytest.CaptureFixture[str]) -> str:
    """The command's error output, which must be exactly one line."""
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


# --- the 2021 replication package ----------------------------------------------------------------------

def test_fixture_test_split_round_trips_byte_for_byte(tufano_dir: Path, tmp_path: Path) -> None:
    assert _run("import", "tufano2021", tufano_dir, "--out", tmp_path / "imported") == 0
    assert _run("export", "--splits", tmp_path / "imported", "--out", tmp_path / "dataset",
                "--formats", "opennmt") == 0
    for prefix in ("src", "src1", "src2", "tgt"):
        exported = tmp_path / "dataset" / "opennmt" / "triplets" / f"{prefix}-test.txt"
        assert exported.read_bytes() == (tufano_dir / f"{prefix}-test.txt").read_bytes(), prefix


def test_fixture_rows_keep_the_published_raw_text(tufano_dir: Path, tmp_path: Path) -> None:
    _run("import", "tufano2021", tufano_dir, "--out", tmp_path / "imported")
    with open(tufano_dir / "test.csv", newline="", encoding="utf-8") as fh:
        published = list(csv.DictReader(fh))
    test = pq.read_table(tmp_path / "imported" / "test.parquet").to_pylist()
    assert len(test) == len(published) == 1719
    for row, source in zip(test, published):
        assert (row["m_s"], row["m_r"], row["comment"]) == (source["before"], source["after"], source["comment"])
        assert row["kind"] == "triplet" and row["split"] == "test"
    assert test[0]["comment"] == "I think LIBRARY are no more used"  # the published file's first row
    # no train or val split in the fixture: those files exist, without rows
    assert pq.read_table(tmp_path / "imported" / "train.parquet").num_rows == 0
    assert pq.read_table(tmp_path / "imported" / "candidates.parquet").num_rows == 1719


def _write_csv(path: Path, rows: list[tuple[str, str, str]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["", "comment", "before", "before_marked", "after"])
        for i, (comment, before, after) in enumerate(rows):
            writer.writerow([i, comment, before, before, after])


def _write_lines(path: Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def _package(root: Path) -> Path:
    """A package laid out as the published one: train with both encoders' files, val with the 1-encoder's only."""
    data = root / "datasets"
    train = [("use a constant", "void f() {\n  g(1);\n}", "void f() {\n  g(ONE);\n}"),
             ("rename x", "int h(int x) { return x; }", "int h(int value) { return value; }")]
    _write_csv(data / "raw_data_splitted" / "train.csv", train)
    src = ["void METHOD_1 ( ) { METHOD_2 ( 1 ) ; }", "int METHOD_1 ( int VAR_1 ) { return VAR_1 ; }"]
    tgt = ["void METHOD_1 ( ) { METHOD_2 ( VAR_1 ) ; }", "int METHOD_1 ( int VAR_2 ) { return VAR_2 ; }"]
    _write_lines(data / "1-encoder" / "train" / "src-train.txt", src)
    _write_lines(data / "1-encoder" / "train" / "tgt-train.txt", tgt)
    _write_lines(data / "2-encoders" / "train" / "tgt-train.txt", tgt)  # the same file in both folders
    _write_lines(data / "2-encoders" / "train" / "src1-train.txt", ["use a constant", "rename VAR_1"])
    _write_lines(data / "2-encoders" / "train" / "src2-train.txt",
                 ["void METHOD_1 ( ) { <START> METHOD_2 ( 1 ) ; <END> } ",
                  "int METHOD_1 ( <START> int VAR_1 <END> ) { return VAR_1 ; } "])
    _write_csv(data / "raw_data_splitted" / "val.csv", [("why?", "void k() { a(); }", "void k() { b(); }")])
    _write_lines(data / "1-encoder" / "eval" / "src-val.txt", ["void METHOD_1 ( ) { METHOD_2 ( ) ; }"])
    _write_lines(data / "1-encoder" / "eval" / "tgt-val.txt", ["void METHOD_1 ( ) { METHOD_3 ( ) ; }"])
    return root


def test_package_layout_train_triplets_val_pairs(tmp_path: Path) -> None:
    _run("import", "tufano2021", _package(tmp_path / "pkg"), "--out", tmp_path / "imported")
    train = pq.read_table(tmp_path / "imported" / "train.parquet").to_pylist()
    assert [r["kind"] for r in train] == ["triplet", "triplet"]
    assert train[1]["m_s"] == "int h(int x) { return x; }" and train[1]["comment"] == "rename x"
    assert train[1]["comment_abstract"] == "rename VAR_1"
    assert train[1]["m_s_marked"] == "int METHOD_1 ( <START> int VAR_1 <END> ) { return VAR_1 ; }"
    assert train[0]["m_r_abstract"] == "void METHOD_1 ( ) { METHOD_2 ( VAR_1 ) ; }"
    evaluation = pq.read_table(tmp_path / "imported" / "eval.parquet").to_pylist()  # the package's "val"
    assert [(r["kind"], r["comment"], r["m_s_marked"]) for r in evaluation] == [("pair", None, None)]
    assert json.loads((tmp_path / "imported" / "import.json").read_text())["sizes"] == {"train": 2, "eval": 1, "test": 0}

    _run("export", "--splits", tmp_path / "imported", "--out", tmp_path / "dataset", "--formats", "opennmt")
    assert (tmp_path / "dataset/opennmt/triplets/src2-train.txt").read_text() == (
        tmp_path / "pkg/datasets/2-encoders/train/src2-train.txt").read_text()
    assert (tmp_path / "dataset/opennmt/pairs/tgt-eval.txt").read_text() == "void METHOD_1 ( ) { METHOD_3 ( ) ; }\n"
    # the other stages take the rows as they are: re-split them revmine's way
    summary = split_dataset(tmp_path / "imported" / "candidates.parquet", tmp_path / "splits")
    assert summary["rows"] == 3


@pytest.mark.parametrize("damage, where", [
    (lambda p: (p / "datasets/raw_data_splitted/train.csv").write_text(
        ",comment,before,before_marked,after\n0,ok,a,a,b\n1,short row,a\n", encoding="utf-8"),
     "train.csv:3: row 2: 3 fields, the header has 5"),
    (lambda p: _write_lines(p / "datasets/1-encoder/train/src-train.txt", ["only one line"]),
     "src-train.txt: 1 lines, but train.csv has 2 rows"),
    (lambda p: _write_lines(p / "datasets/2-encoders/train/tgt-train.txt", ["a", "b"]),
     "which tgt-train.txt to import is ambiguous"),
    (lambda p: _write_lines(p / "datasets/1-encoder/train/src-train.txt", ["void f ( ) { }", ""]),
     "src-train.txt:2: empty line (row 2 of train.csv)"),
    (lambda p: (p / "datasets/1-encoder/eval/tgt-val.txt").unlink(), "val.csv: no tgt-val.txt under"),
])
def test_bad_package_is_one_line_naming_file_and_row(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                      damage, where: str) -> None:
    package = _package(tmp_path / "pkg")
    out = tmp_path / "imported"
    _run("import", "tufano2021", package, "--out", out)  # a good import first: it must survive the bad one
    before = (out / "train.parquet").read_bytes()
    damage(package)
    capsys.readouterr()
    assert _run("import", "tufano2021", package, "--out", out) == 2
    assert where in _error(capsys)
    assert (out / "train.parquet").read_bytes() == before


# --- CodeReviewer's JSON Lines --------------------------------------------------------------------------

def _jsonl(path: Path, records: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_codereviewer_refinement(tmp_path: Path) -> None:
    # fields of CodeReviewer's RefineDataset: "old" and "new" hunks (one marker column), "comment", "id"
    record = {"old": " int x = 1;\n-return x;", "new": " int x = 1;\n+return x + 1;",
              "comment": "off by one?", "id": 7}
    _jsonl(tmp_path / "cr" / "ref-test.jsonl", [record])
    _run("import", "codereviewer", tmp_path / "cr", "--out", tmp_path / "imported")
    (row,) = pq.read_table(tmp_path / "imported" / "test.parquet").to_pylist()
    assert (row["kind"], row["m_s"], row["m_r"], row["comment"]) == ("triplet", record["old"], record["new"], "off by one?")
    # what CodeReviewer compares: each line without its marker column, joined with spaces
    assert row["m_s_abstract"] == "int x = 1; return x;"
    assert row["m_r_abstract"] == "int x = 1; return x + 1;"
    assert row["m_s_marked"] == "<START> int x = 1; return x; <END>"
    assert (row["source"], row["comment_id"]) == ("codereviewer", "7")
    _run("export", "--splits", tmp_path / "imported", "--out", tmp_path / "dataset", "--formats", "opennmt")
    assert (tmp_path / "dataset/opennmt/triplets/src1-test.txt").read_text() == "off by one?\n"


def test_codereviewer_comment_generation_and_quality_estimation(tmp_path: Path) -> None:
    # fields of CodeReviewer's read_review_examples: "oldf", "patch", "msg", "y" (1: the change needs a comment)
    patch = "@@ -1,2 +1,2 @@\n a = 1\n-b = 2\n+b = 3"
    _jsonl(tmp_path / "msg-valid.jsonl", [{"oldf": "a = 1\nb = 2\n", "patch": patch, "msg": "why 3?", "y": 1}])
    _run("import", "codereviewer", tmp_path / "msg-valid.jsonl", "--out", tmp_path / "msg")
    (row,) = pq.read_table(tmp_path / "msg" / "eval.parquet").to_pylist()
    assert (row["kind"], row["m_s"], row["m_r"], row["comment"]) == ("triplet", patch, "", "why 3?")
    assert row["m_s_abstract"] == "@@ -1,2 +1,2 @@ a = 1 -b = 2 +b = 3"
    assert row["comment_id"] == "msg-valid.jsonl:1"

    records = [{"oldf": "", "patch": patch, "msg": "", "y": 0}, {"oldf": "", "patch": patch, "msg": "why 3?", "y": 1}]
    _jsonl(tmp_path / "data" / "quality-train.jsonl", records)
    _run("import", "codereviewer", tmp_path / "data", "--task", "cls", "--out", tmp_path / "cls")
    rows = pq.read_table(tmp_path / "cls" / "train.parquet").to_pylist()
    assert [(r["kind"], r["comment"]) for r in rows] == [("pair", None), ("triplet", "why 3?")]


def test_codereviewer_files_imported_then_exported_come_back_byte_for_byte(tmp_path: Path) -> None:
    """Hand-made files of the three tasks, written as CodeReviewer's code writes JSON Lines (``json.dumps(record) +
    "\\n"``, ``run_infer_msg.py``), fields in the order its rows list them, with fields revmine has no column for
    (``ghid``, ``ids``), a non-ASCII comment (escaped by ``json.dumps``), a CRLF file with a byte order mark and a
    git header with its function context: ``revmine import codereviewer`` then ``revmine export`` gives them back."""
    oldf = "\ufeffdef f():\r\n    return 1\r\n"
    patch = "@@ -1,2 +1,2 @@ def f():\n def f():\r\n-    return 1\r\n+    return 2\r"
    files = {
        "msg-train.jsonl": [{"oldf": oldf, "patch": patch, "msg": "pourquoi 2 ? ça casse", "id": 11, "y": 1,
                             "proj": "a/b", "lang": "py"},
                            {"oldf": "", "patch": "@@ -0,0 +1 @@\n+x", "msg": "why x?", "id": 12, "y": 1}],
        "ref-valid.jsonl": [{"old_hunk": patch, "oldf": oldf, "hunk": "@@ -1,2 +1,2 @@\n def f():\n-    return 1\n+    "
                             "return 3", "comment": "3, not 2", "ids": [7, 8, 9], "repo": "a/b", "ghid": 5,
                             "old": patch.split("\n", 1)[1], "new": " def f():\n+    return 3", "lang": "py"}],
        "cls-test.jsonl": [{"oldf": oldf, "patch": patch, "msg": "", "id": 0, "y": 0, "lang": ".cs"},
                           {"oldf": oldf, "patch": patch, "msg": "no", "id": 1, "y": 1}],
    }
    for name, records in files.items():
        _jsonl(tmp_path / "cr" / name, records)
    assert _run("import", "codereviewer", tmp_path / "cr", "--out", tmp_path / "imported") == 0
    assert _run("export", "--splits", tmp_path / "imported", "--out", tmp_path / "dataset",
                "--formats", "codereviewer") == 0
    for name in files:
        assert (tmp_path / "dataset" / "codereviewer" / name).read_bytes() == (tmp_path / "cr" / name).read_bytes()
    # the other tasks and splits of CodeReviewer's layout are written, empty
    assert (tmp_path / "dataset" / "codereviewer" / "msg-test.jsonl").read_bytes() == b""
    card = (tmp_path / "dataset" / "README.md").read_text(encoding="utf-8")
    assert "| hunk (CodeReviewer, Li et al., ESEC/FSE 2022) | a diff hunk of a change | 2 hunks (`cls`), 2 reviewer " \
           "comments (`msg`, `ref`) |" in card


@pytest.mark.parametrize("name, content, where", [
    ("ref-test.jsonl", '{"old": "-a", "new": "+b", "comment": "x"}\n{"old": "-a", "new": "+b"}\n',
     "ref-test.jsonl:2 [comment]: field 'comment' missing"),
    ("ref-test.jsonl", '{"old": "-a", "new": "+b", "comment": "x"}\n{"old": 1, "new": "+b", "comment": "x"}\n',
     "ref-test.jsonl:2 [old]: field 'old' int, not a string"),
    ("cls-test.jsonl", '{"patch": "@@", "y": 2}\n', "cls-test.jsonl:1 [y]: field 'y' is 2"),
    ("msg-test.jsonl", '{"patch": "@@", "msg": "x"}\n{"patch": \n', "msg-test.jsonl:2: not valid JSON"),
    ("reviews.jsonl", '{"patch": "@@", "msg": "x"}\n', "reviews.jsonl: cannot tell the task"),
    # issue 31: a RecursionError and pyarrow's UnicodeEncodeError were tracebacks
    ("msg-test.jsonl", '{"patch": "@@", "msg": "x"}\n{"patch": ' + "[" * 100_000 + "]" * 100_000 + "}\n",
     "msg-test.jsonl:2: not valid JSON here: nested deeper than its reader follows"),
    ("ref-test.jsonl",
     '{"old": "-a", "new": "+b", "comment": "x"}\n{"old": "-a", "new": "+b", "comment": "a\\ud800b"}\n',
     "ref-test.jsonl:2 [comment]: a lone surrogate (\\ud800) at character 1: not text"),
])
def test_bad_codereviewer_is_one_line_naming_file_and_row(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          name: str, content: str, where: str) -> None:
    (tmp_path / name).write_text(content, encoding="utf-8")
    assert _run("import", "codereviewer", tmp_path / name, "--out", tmp_path / "imported") == 2
    assert where in _error(capsys)
    assert not (tmp_path / "imported").exists()


def test_published_rows_pass_the_papers_dataset_filters(tufano_dir: Path, tmp_path: Path) -> None:
    # every published row passed the authors' filters (linked comment, changed, at most 100 tokens, no new
    # identifier, one comment per method): imported, the filter stage must not remove one of them for those
    _run("import", "tufano2021", tufano_dir, "--out", tmp_path / "imported")
    assert _run("filter", "--candidates", tmp_path / "imported" / "candidates.parquet", "--out", tmp_path / "kept") == 0
    report = pq.read_table(tmp_path / "kept" / "filter_report.parquet").to_pylist()
    removed = {r["filter"]: (r["removed"], r["ran"]) for r in report
               if r["source"] == r["language"] == "all" and r["kind"] == "triplet"}
    for name in ("not_linked", "unchanged", "too_long", "new_identifiers", "multiple_comments"):
        assert removed[name] == (0, True), name


def test_codereviewer_import_streams(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 31: a 100 MB file was held whole (1.17 GB). Rows now go out in batches, only their ids kept: what
    1,500 more rows cost the import (Python's memory, as tracemalloc sees it) is a fraction of what holding them
    costs (the whole read, measured alike), and every row is written in order."""
    import tracemalloc

    from revmine.interop import importer
    from revmine.interop.codereviewer import read_codereviewer

    monkeypatch.setattr(importer, "BATCH_ROWS", 100)

    def records(n: int) -> list[dict]:
        return [{"old": f" int x = {i};\n-return x;", "new": f" int x = {i};\n+return x + 1;",
                 "comment": f"why {i}?", "id": i} for i in range(n)]

    def peak(call) -> int:
        tracemalloc.start()
        try:
            call()
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    _jsonl(tmp_path / "warm" / "ref-train.jsonl", records(5))
    importer.import_dataset("codereviewer", tmp_path / "warm", tmp_path / "out-warm")  # imports not measured
    streamed, whole = {}, {}
    for n in (500, 2_000):
        _jsonl(tmp_path / str(n) / "ref-train.jsonl", records(n))
        _jsonl(tmp_path / str(n) / "ref-test.jsonl", records(3))
        whole[n] = peak(lambda: read_codereviewer(tmp_path / str(n)))
        streamed[n] = peak(lambda: importer.import_dataset("codereviewer", tmp_path / str(n), tmp_path / f"out{n}"))
    # measured: 0.14 (the ids); the rows held whole, as before, 1.0
    assert streamed[2_000] - streamed[500] < 0.25 * (whole[2_000] - whole[500])
    train = pq.read_table(tmp_path / "out2000" / "train.parquet").to_pylist()
    assert [(r["m_s"], r["m_r"], r["comment"], r["comment_id"], r["split"]) for r in train] == [
        (r["old"], r["new"], r["comment"], str(r["id"]), "train") for r in records(2_000)]
    assert len({r["id"] for r in train}) == 2_000 and all(r["cluster_id"] == r["id"] for r in train)
    every = pq.read_table(tmp_path / "out2000" / "candidates.parquet").column("comment").to_pylist()
    assert every == [f"why {i}?" for i in range(2_000)] + [f"why {i}?" for i in range(3)]  # train, then test
