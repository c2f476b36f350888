"""Mining Python, Go and C++ reviews (and Java beside them) from a real Gerrit, and their CodeReviewer hunks.

The test pushes changes built on real consecutive revisions of real files (tests/gerrit_languages.py: per language
two changes of three revisions each, base / patch set 1 / patch set 2 from the fixture, two reviewer comments and
an owner's reply on the lines patch set 2 changes; a hand-written Java change; a C change in no language mined).
The rows a miner must give come from what the test pushed and posted (:func:`gerrit_reviews.expected_rows`, with
each file's language as the fixture names it), never from a miner's output; the hunks are git's own
(``git diff -U3`` with its defaults pinned, as tests/test_hunks.py runs it) between the base pushed and patch set 1.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from conftest import CREDENTIAL_VARS  # noqa: E402
from gerrit_languages import PROJECT, Scenario, populate_languages  # noqa: E402
from gerrit_reviews import expected_rows, mined_view, row_key  # noqa: E402
from gerrit_server import ADMIN, GerritServer  # noqa: E402
from git_diff import git_hunks, header_numbers  # noqa: E402
from test_real_gerrit import VERSIONS, mine  # noqa: E402

from revmine.cli import main  # noqa: E402
from revmine.io.store import read_table  # noqa: E402
from revmine.schema import DropReason  # noqa: E402

MINED = ("java", "python", "go", "cpp")
pytestmark = pytest.mark.parametrize("real_gerrit", VERSIONS, indirect=True, scope="module")


@pytest.fixture(scope="module")
def reviewed(real_gerrit: GerritServer, tmp_path_factory: pytest.TempPathFactory) -> tuple[GerritServer, Scenario]:
    return real_gerrit, populate_languages(real_gerrit, tmp_path_factory.mktemp("reviews"), ADMIN)


@pytest.fixture(scope="module")
def mined_all(reviewed, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``revmine mine gerrit --languages java,python,go,cpp`` over the project, anonymously."""
    server, _ = reviewed
    out = tmp_path_factory.mktemp("mined") / "out"
    with pytest.MonkeyPatch.context() as patch:  # module scope: conftest's hermetic_env is not active yet
        for name in CREDENTIAL_VARS:
            patch.delenv(name, raising=False)
        assert mine(server, out, "--languages", ",".join(MINED), project=PROJECT) == 0
    return out


def expected(scenario: Scenario, languages: tuple[str, ...]) -> list[dict]:
    """The rows of the files in ``languages`` with what the test pushed at the change's base."""
    rows, drops = expected_rows(scenario.record, {PROJECT}, private_visible=False,
                                mined=lambda path: scenario.language(path) in languages)
    assert drops == []  # every comment is on patch set 1 of a change with two
    return [{**row, "language": scenario.language(row["path_before"]),
             "content_base": scenario.files[row["path_before"]].base} for row in rows]


def assert_mined(out: Path, want: list[dict]) -> list[dict]:
    rows = read_table(out / "rounds.parquet", expect="rounds/4").to_pylist()
    got = sorted(({**mined_view(r), "language": r["language"], "content_base": r["content_base"]} for r in rows),
                 key=row_key)
    assert [row_key(r) for r in got] == [row_key(r) for r in want]
    for g, w in zip(got, want):
        assert g == w, f"row {row_key(w)} differs"
    assert read_table(out / "dropped.parquet", expect="mine_dropped/2").num_rows == 0
    return rows


def test_every_language_asked_gives_the_rows_posted(reviewed, mined_all):
    _, scenario = reviewed
    want = expected(scenario, MINED)
    rows = assert_mined(mined_all, want)
    # two changes in each of Python, Go and C++, the Java one; the C change is in no language asked
    assert sorted(r["language"] for r in rows) == ["cpp", "cpp", "go", "go", "java", "python", "python"]
    assert not any(r["path_before"].endswith(".c") for r in rows)
    for row in rows:  # the three revisions are those the test pushed, the fixture's real ones
        pushed = scenario.files[row["path_before"]]
        assert (row["content_base"], row["content_before"], row["content_after"], row["file_status"]) == \
            (pushed.base, pushed.submitted, pushed.revised, "modified")
        assert len(row["comments"]) == 3


def test_the_default_mines_java_only(reviewed, tmp_path):
    server, scenario = reviewed
    assert mine(server, tmp_path / "out", project=PROJECT) == 0
    rows = assert_mined(tmp_path / "out", expected(scenario, ("java",)))
    assert [r["language"] for r in rows] == ["java"]


def test_a_job_asks_for_its_languages(reviewed, tmp_path):
    """``[job] languages``: a job naming C++ and Go alone mines their files only."""
    server, scenario = reviewed
    job = tmp_path / "job.toml"
    job.write_text(f'[job]\nlanguages = ["cpp", "go"]\n\n[[projects]]\nsource = "gerrit"\nurl = "{server.url}"\n'
                   f'project = "{PROJECT}"\n')
    assert main(["-q", "mine", "--job", str(job), "--out", str(tmp_path / "out")]) == 0
    rows = assert_mined(tmp_path / "out", expected(scenario, ("cpp", "go")))
    assert sorted(r["language"] for r in rows) == ["cpp", "cpp", "go", "go"]


def test_hunks_are_gits_diff_from_the_base_pushed_to_patch_set_1(reviewed, mined_all, tmp_path):
    _, scenario = reviewed
    out = tmp_path / "pre"
    assert main(["-q", "preprocess", "--rounds", str(mined_all / "rounds.parquet"), "--out", str(out),
                 "--levels", "method,hunk"]) == 0
    hunks = read_table(out / "hunks.parquet").to_pylist()
    rounds = read_table(mined_all / "rounds.parquet").to_pylist()
    message = {c["id"]: c["message"] for r in rounds for c in r["comments"]}
    dropped = [d for d in read_table(out / "dropped.parquet").to_pylist() if d["kind"] == "hunk_comment"]
    assert {h["path"] for h in hunks} == {r["path_before"] for r in rounds}
    in_hunk = 0
    for path in sorted({r["path_before"] for r in rounds}):
        pushed = scenario.files[path]
        git = git_hunks(tmp_path, pushed.base, pushed.submitted)
        mine_rows = [h for h in hunks if h["path"] == path]
        assert sorted({(h["hunk_index"], h["patch"]) for h in mine_rows}) == list(enumerate(git)), path
        assert {(h["language"], h["oldf"]) for h in mine_rows} == {(pushed.language, pushed.base)}
        # a reviewer comment sits on the hunk of git's that shows its last line, else it is dropped as outside
        # every hunk; the owner's reply makes no row
        first, last = pushed.lines
        want, want_dropped = [], [(f"{path}: changed in patch set 2", DropReason.AUTHOR_COMMENT)]
        for text, line in ((f"{path}: why line {first}?", first), (f"{path}: lines {first}-{last} need another look",
                                                                    last)):
            holding = [(i, text) for i, hunk in enumerate(git) if _new_lines(hunk)[0] <= line <= _new_lines(hunk)[1]]
            want += holding
            want_dropped += [] if holding else [(text, DropReason.OUTSIDE_HUNK)]
        assert sorted((h["hunk_index"], h["comment"]) for h in mine_rows if h["y"] == 1) == sorted(want), path
        assert sorted((message[d["comment_id"]], d["reason"]) for d in dropped if d["path"] == path) == \
            sorted(want_dropped), path
        in_hunk += bool(want)
    assert in_hunk == 4  # Python, Go, C++: one change's comments inside a hunk, one's outside; Java's inside


def _new_lines(hunk: str) -> tuple[int, int]:
    """First and last line of patch set 1 a git hunk shows (its ``+c,d`` header numbers)."""
    start, count = header_numbers(hunk)[2:]
    return start, start + count - 1
