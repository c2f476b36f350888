"""The whole dataset, end to end: published rows of the 2021 test split served as Gerrit changes by a local
forge (:mod:`tufano_forge`), ``revmine run`` over them, and the export compared with the published
``src``/``src1``/``src2``/``tgt``-test.txt as multisets of rows. Each published row is also traced by
provenance (change = row + 1) to the stage and reason that dropped or changed it.

The default run takes a deterministic sample (every ``SAMPLE_EVERY``-th row); the benchmark
``benchmarks/bench_end_to_end.py`` runs all 1,719 rows and prints the loss table.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from conftest import CREDENTIAL_VARS  # noqa: E402
from tufano_forge import (  # noqa: E402
    EXACT, HEADER_LINES, EndToEnd, build_tufano_forge, exported_rows, java_file, marked_range, multiset_matches,
    read_published, read_rows, run_end_to_end, sample, without_src2,
)

from revmine.preprocess.methods import extract_methods  # noqa: E402
from revmine.io.store import read_table  # noqa: E402

#: The target of issue 8: published triplets rebuilt exactly in all four files.
TARGET = 0.98
#: Every 6th row: 287 of the 1,719 rows, spread over the file (the run takes about half a minute).
SAMPLE_EVERY = 6


@pytest.fixture(scope="module")
def rebuilt(tufano_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> EndToEnd:
    with pytest.MonkeyPatch.context() as patch:  # no developer credentials in the run
        for name in CREDENTIAL_VARS:
            patch.delenv(name, raising=False)
        rows, work = sample(read_rows(tufano_dir), SAMPLE_EVERY), tmp_path_factory.mktemp("e2e")
        return run_end_to_end(build_tufano_forge(work / "forge", rows), rows, work, read_published(tufano_dir))


def test_published_triplets_are_rebuilt_exactly(rebuilt: EndToEnd) -> None:
    assert rebuilt.src2_exported, "opennmt/triplets/src2-<split>.txt is missing\n" + rebuilt.report()
    assert rebuilt.figure("4 files") >= TARGET, rebuilt.report(details=True)


def test_every_published_row_is_rebuilt_or_its_loss_has_a_stage_and_reason(rebuilt: EndToEnd) -> None:
    assert sorted(rebuilt.fate) == [row.index for row in rebuilt.rows]
    silent = {i: fate for i, fate in rebuilt.fate.items() if fate[0] in ("preprocess/no candidate", "split/missing")}
    assert not silent, f"rows lost without a dropped row naming them: {silent}"
    # a row rebuilt by provenance is in the exported files; the multiset may also count a row whose twin
    # (same published tuple) another change rebuilt
    exact = sum(reason == EXACT for reason, _ in rebuilt.fate.values())
    assert exact <= rebuilt.matched["3 files"] <= exact + sum(1 for r, _ in rebuilt.fate.values() if r != EXACT)


def test_each_change_is_mined_as_one_round_with_the_reviewer_comment_on_the_marked_lines(rebuilt: EndToEnd) -> None:
    rounds = {r["change"]: r for r in read_table(rebuilt.out / "mined" / "rounds.parquet").to_pylist()}
    assert sorted(rounds) == sorted(str(row.change) for row in rebuilt.rows)
    for row in rebuilt.rows:
        mined = rounds[str(row.change)]
        assert (mined["path_before"], mined["content_before"]) == java_file(row, row.before)
        assert mined["content_after"] == java_file(row, row.after)[1]
        reviewer, reply = mined["comments"]
        assert (reviewer["is_owner"], reviewer["message"], reply["is_owner"]) == (False, row.comment, True)
        # the lines that carry a marker in before_marked, counted in the file
        marked = [k + 1 + HEADER_LINES for k, (a, b) in
                  enumerate(zip(row.before.split("\n"), row.before_marked.split("\n"))) if a != b]
        assert (reviewer["start_line"], reviewer["end_line"]) == (marked[0], marked[-1]), row.index
        assert reviewer["line"] == marked[-1]


def test_the_method_in_its_file_is_the_published_method(tufano_dir: Path) -> None:
    """What the forge serves puts each published m_s where the comment lines expect it."""
    for row in read_rows(tufano_dir):
        if row.index == 1139:  # a for loop, not a method (see test_methods): nothing to extract
            continue
        _, text = java_file(row, row.before)
        methods = extract_methods(text)
        assert [(m.text, m.start_line) for m in methods] == [(row.before, HEADER_LINES + 1)], row.index


@pytest.mark.parametrize("before, marked, expected", [
    # the whole line: the range is cut to its tokens (tab kept out)
    ("\tint a() {\n\t\treturn x;\n\t}\n", "\tint a() {\nSTART \t\treturn x; END \n\t}\n", (2, 2, 2, 11)),
    # a selection inside a line, markers with a space of their own (row 39's form)
    ("  void f() {\n        assertEquals(LOW, low);\n  }\n",
     "  void f() {\n        START  assertEquals(LOW, low); END \n  }\n", (2, 8, 2, 31)),
    # START and END inside the line (row 847's form)
    ("\tA() {\n\t\tthis.m = S.c(m, T);\n\t}\n", "\tA() {\n\t\tthis.m = START S.c(m, END  T);\n\t}\n",
     (2, 11, 2, 17)),
    # several lines, ending at the start of an empty line: Gerrit's end_character 0
    ("void g() {\n  try {\n  } catch (E e)\n\n}\n", "void g() {\n  try {\nSTART   } catch (E e)\n END \n}\n",
     (3, 2, 4, 0)),
    # a word of the code that is also a marker word
    ("void END() {\n  START();\n}\n", "void END() {\nSTART   START(); END \n}\n", (2, 2, 2, 10)),
])
def test_marked_range_is_where_the_markers_were(before: str, marked: str, expected: tuple) -> None:
    assert marked_range(before, marked) == expected


def test_export_rows_are_compared_as_multisets_with_src2_when_it_is_there(tmp_path: Path) -> None:
    folder = tmp_path / "triplets"
    folder.mkdir()
    files = {"train": {"src": "a\nb\nb\n", "src1": "x\ny\ny\n", "tgt": "a2\nb2\nb2\n"},
             "eval": {"src": "", "src1": "", "tgt": ""},
             "test": {"src": "c\n", "src1": "z\n", "tgt": "c3\n"}}
    for split, texts in files.items():
        for name, text in texts.items():
            (folder / f"{name}-{split}.txt").write_text(text, encoding="utf-8")
    rows = exported_rows(folder)
    assert rows == [("a", "x", None, "a2"), ("b", "y", None, "b2"), ("b", "y", None, "b2"), ("c", "z", None, "c3")]
    # a published row counts once however many copies were exported; (c, z, c9) differs in tgt
    wanted = [("b", "y", "<START> b <END>", "b2"), ("a", "x", "a", "a2"), ("c", "z", "c", "c9")]
    assert multiset_matches([without_src2(t) for t in wanted], [without_src2(t) for t in rows]) == 2
    for split, src2 in (("train", "a\n<START> b <END>\nb\n"), ("eval", ""), ("test", "c\n")):
        (folder / f"src2-{split}.txt").write_text(src2, encoding="utf-8")
    rows = exported_rows(folder)
    assert [r[2] for r in rows] == ["a", "<START> b <END>", "b", "c"]
    assert multiset_matches(wanted, rows) == 2  # (a, x, a, a2) and one (b, ..., <START> b <END>, b2)
