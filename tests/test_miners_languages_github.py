"""The GitHub miner on Python, Go, C, C++ and Java review rounds built on real revisions, against the look-alike forge.

``../shared/fixtures/code_revisions`` holds real edits of real files and no reviews. The pull request here is built
on the chains of :mod:`gerrit_languages` (two fixture rows of one file, the older one's ``after`` being the newer
one's ``before``: three real consecutive revisions, python, go, cpp and c) and its hand-written Java file:

* ``main`` holds every file at its chain's first revision (the older row's ``before``), except
  ``requests/src/requests/sessions.py``, which the pull request adds; the pull request forks from it;
* commit 1 holds the older rows' ``after`` and adds ``leveldb/util/hash.h``: the real C++ text of leveldb's
  ``util/hash.cc`` at its row's ``before`` (the fixture has no header; a ``.h`` name on C++ text is the case
  linguist's ``.h`` rule decides), commit 2 the newer rows' ``after`` and the header row's ``after``;
* commit 3 is an edit this test writes, said plainly: the line of ``cobra/completions.go`` a reviewer commented on
  in commit 2 gets `` // kept: see review`` at its end;
* ``main`` then moves on (a commit changing ``requests/__init__.py`` and adding ``sessions.py``) and the pull
  request's ``base.sha`` names that tip, as GitHub does: the file "at the change's base" is the file at the
  parent of the pull request's first commit (``content_base``), not at where ``main`` is now.

Review comments (the fixture has none): on commit 1 the reviewer comments on each file, one comment on the first
line of the first run of lines commit 2 changes (``gerrit_languages.changed_run``: git's own diff) and one
multi-line comment over that run; the owner replies to the first. On commit 2 the reviewer comments once on the
completions.go line commit 3 changes. Every expected value comes from this record, never from the miner.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gerrit_languages import Reviewed, changed_run, reviewed_files  # noqa: E402
from git_diff import REVISIONS  # noqa: E402
from miners_server import (T0, Forge, ForgeServer, RepoBuilder, github_comment, github_commits,  # noqa: E402
                           github_pull)

from revmine.io.store import read_table  # noqa: E402
from revmine.miners import DropReason, JobOptions, mine_github  # noqa: E402

REPO = "octo/demo"  # the name the look-alike answers
NUMBER = 7
ADDED = "requests/src/requests/sessions.py"  # a file the pull request adds
HEADER = "leveldb/util/hash.h"  # real C++ text under a .h name, added by the pull request
HEADER_ROW = "4ee78d7ea98330f7d7599c42576ca99e3c6ff9c5"  # google/leveldb util/hash.cc, its fixture row
EDITED = "cobra/completions.go"  # revised again in commit 3, after a comment on commit 2
EDIT = " // kept: see review"
UPDATED = T0 + timedelta(hours=1)


@dataclass
class Expected:
    """One row the miner should write, as this test built it."""

    path: str
    language: str  # the fixture's word (java for the hand-written file, cpp for leveldb's text)
    round: int
    before: str  # sha
    after: str  # sha
    base_text: str | None
    before_text: str
    after_text: str
    comments: list[tuple] = field(default_factory=list)  # (id, author, is_owner, start_line, line, reply, body)


@dataclass
class Record:
    forge: Forge
    rows: dict[tuple[str, int], Expected]  # by (path, round)


def header_file(tmp: Path) -> Reviewed:
    """The header: absent at the base, the leveldb row's ``before`` in commit 1, its ``after`` in commit 2."""
    with open(REVISIONS, encoding="utf-8") as handle:
        row = next(r for r in map(json.loads, handle) if r["commit"] == HEADER_ROW)
    assert row["language"] == "cpp"
    return Reviewed(HEADER, "cpp", "", row["before"], row["after"], changed_run(row["before"], row["after"], tmp))


def build(root: Path) -> Record:
    """The repository and the pull request's review data (see the module docstring)."""
    root.mkdir(parents=True)
    (root / "diff").mkdir()
    files = [*reviewed_files(root / "diff"), header_file(root / "diff")]
    by_path = {f.path: f for f in files}
    forge = Forge(root / "forge")
    rb = RepoBuilder(forge.github_repo)
    fork = rb.commit("refs/heads/main", {f.path: f.base for f in files if f.path not in (ADDED, HEADER)})
    c1 = rb.commit(f"refs/pull/{NUMBER}/head", {f.path: f.submitted for f in files}, fork)
    c2 = rb.commit(f"refs/pull/{NUMBER}/head", {f.path: f.revised for f in files}, c1)
    edited = by_path[EDITED]
    line = edited.lines[0]  # the line of commit 2 the reviewer comments on and commit 3 edits
    lines = edited.revised.split("\n")
    third = "\n".join([*lines[:line - 1], lines[line - 1] + EDIT, *lines[line:]])
    c3 = rb.commit(f"refs/pull/{NUMBER}/head", {EDITED: third}, c2)
    init = "requests/src/requests/__init__.py"
    tip = rb.commit("refs/heads/main", {init: by_path[init].base + "# a later commit on main\n",
                                        ADDED: by_path[ADDED].base}, fork)
    shas = rb.finish()
    commits = [shas[c1], shas[c2], shas[c3]]
    forge.github_pulls[NUMBER] = github_pull(NUMBER, commits[-1], shas[tip], UPDATED)
    forge.github_commits[NUMBER] = github_commits(commits)

    comments, rows = [], {}
    for k, f in enumerate(files):
        first, last = f.lines
        cid = 100 * (k + 1)
        posted = [(cid + 1, "reviewer", first, first, None, f"{f.path}: why line {first}?"),
                  (cid + 2, "reviewer", first, last, None, f"{f.path}: lines {first}-{last} need another look"),
                  (cid + 3, "owner", first, first, cid + 1, f"{f.path}: changed in commit 2")]
        for i, (number, login, start, end, reply, body) in enumerate(posted):
            comments.append(github_comment(number, commits[0], f.path, login, end, UPDATED + timedelta(seconds=i),
                                           commits[-1], reply=reply, start_line=start, body=body))
        base = None if f.path in (ADDED, HEADER) else f.base  # the pull request adds these two
        rows[f.path, 1] = Expected(f.path, f.language, 1, commits[0], commits[1], base, f.submitted, f.revised,
                                   [(str(n), login, login == "owner", start, end, reply and str(reply), body)
                                    for n, login, start, end, reply, body in posted])
    body = f"{EDITED}: is line {line} still needed?"
    comments.append(github_comment(9001, commits[1], EDITED, "reviewer", line, UPDATED, commits[-1], body=body))
    rows[EDITED, 2] = Expected(EDITED, "go", 2, commits[1], commits[2], edited.base, edited.revised, third,
                               [("9001", "reviewer", False, line, line, None, body)])
    forge.github_comments[NUMBER] = comments
    return Record(forge, rows)


@pytest.fixture(scope="module")
def record(tmp_path_factory) -> Record:
    return build(tmp_path_factory.mktemp("languages") / "github")


@pytest.fixture(scope="module")
def server(record):
    with ForgeServer(record.forge) as srv:
        yield srv


def mine(server, record: Record, out: Path, languages: tuple[str, ...] | None) -> tuple[dict, list[dict]]:
    manifest = mine_github(REPO, out, api_url=server.github_api, clone_url=str(record.forge.github_repo),
                           options=JobOptions(progress=False, languages=languages))
    return manifest["projects"][0], read_table(out / "rounds.parquet", expect="rounds/4").to_pylist()


def check_row(row: dict, want: Expected) -> None:
    """Everything the test built about one row: revisions, language, the three texts, the comments."""
    assert (row["change"], row["round"], row["revision_before"], row["revision_after"]) == (
        str(NUMBER), want.round, want.before, want.after), want.path
    assert (row["path_before"], row["path_after"], row["file_status"], row["language"]) == (
        want.path, want.path, "modified", want.language)
    assert row["content_base"] == want.base_text, want.path
    assert (row["content_before"], row["content_after"]) == (want.before_text, want.after_text), want.path
    assert [(c["id"], c["author"], c["is_owner"], c["start_line"], c["end_line"], c["in_reply_to"], c["message"])
            for c in row["comments"]] == want.comments, want.path
    assert all(c["path"] == want.path and c["line"] == c["end_line"] and not c["outdated"] for c in row["comments"])


def expected(record: Record, languages: set[str]) -> dict[tuple[str, int], Expected]:
    return {key: want for key, want in record.rows.items() if want.language in languages}


def test_python_go_java_rows_with_their_base(server, record, tmp_path):
    project, rows = mine(server, record, tmp_path / "out", ("python", "go", "java"))
    want = expected(record, {"python", "go", "java"})
    assert Counter(r["language"] for r in rows) == Counter(w.language for w in want.values()) == {
        "python": 2, "go": 3, "java": 1}
    got = {(r["path_before"], r["round"]): r for r in rows}
    assert set(got) == set(want)
    for key, w in want.items():
        check_row(got[key], w)
    # the base is where the pull request forked, for its second round too, and None for the file it adds,
    # although main's tip (the pull request's base.sha) has that file and another __init__.py
    assert got[ADDED, 1]["content_base"] is None
    assert got[EDITED, 1]["content_base"] == got[EDITED, 2]["content_base"] == record.rows[EDITED, 1].base_text
    assert project["dropped"] == [] and project["rows"] == len(want)


def test_default_languages_mine_the_java_file_only(server, record, tmp_path):
    project, rows = mine(server, record, tmp_path / "out", None)
    (java,) = expected(record, {"java"}).values()
    assert [r["path_before"] for r in rows] == [java.path] and rows[0]["language"] == "java"
    check_row(rows[0], java)
    assert project["dropped"] == []


def test_cpp_header_is_dropped_when_only_c_is_mined(server, record, tmp_path):
    assert "namespace leveldb {" in record.rows[HEADER, 1].before_text  # linguist's C++ rule for .h files
    project, rows = mine(server, record, tmp_path / "out", ("c",))
    (c_file,) = expected(record, {"c"}).values()
    assert [r["path_before"] for r in rows] == [c_file.path]
    check_row(rows[0], c_file)
    assert [(d["change"], d["path"], d["round_id"]) for d in project["dropped"]] == [
        (str(NUMBER), HEADER, f"github:{urlsplit(server.url).netloc}:{REPO}:{NUMBER}:1")]
    assert project["dropped_by_reason"] == {DropReason.OTHER_LANGUAGE.value: 1}
    dropped = read_table(tmp_path / "out" / "dropped.parquet", expect="mine_dropped/2").to_pylist()
    assert [d["path"] for d in dropped] == [HEADER] and "cpp" in dropped[0]["detail"] \
        and dropped[0]["reason"] == DropReason.OTHER_LANGUAGE.value


def test_cpp_header_is_kept_as_cpp_when_cpp_is_mined(server, record, tmp_path):
    project, rows = mine(server, record, tmp_path / "out", ("cpp",))
    want = expected(record, {"cpp"})
    assert sorted(r["path_before"] for r in rows) == sorted(w.path for w in want.values()) and len(want) == 3
    got = {(r["path_before"], r["round"]): r for r in rows}
    for key, w in want.items():
        check_row(got[key], w)
    assert got[HEADER, 1]["content_base"] is None  # the pull request adds it
    assert project["dropped"] == []
