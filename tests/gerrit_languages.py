"""Python, Go and C++ reviews on a real Gerrit, built on real consecutive revisions, with a Java and a C one beside.

``../shared/fixtures/code_revisions`` holds real edits of real files (two versions a row) and no reviews. Each
change here is three real consecutive revisions of one file, from two rows of that file where the older row's
``after`` is the newer row's ``before`` (a chain, as ``tests/test_hunks.py`` finds them): the file at the change's
base is the older row's ``before`` (one merged base commit holds every file), patch set 1 is the older row's
``after``, patch set 2 the newer row's ``after``. The fixture has no comments: the reviewer writes two on patch set
1, on the lines patch set 2 changes (the first run of lines git's diff from patch set 1 to patch set 2 removes):
one on its first line, one a range over the whole run; the owner replies to the first. Rows (older -> newer
commit, :data:`CHAINS`), per language one where those lines are in a hunk of the diff from the base to patch set 1
and one where they are not (CodeReviewer's hunk level drops that comment):

* python, psf/requests: ``src/requests/__init__.py`` 4bd79e39 -> b2a1d33f; ``src/requests/sessions.py``
  5f338446 -> ef439eb7 (not in a hunk);
* go, spf13/cobra: ``completions.go`` 756ba6da -> 0745e557; ``doc/yaml_docs.go`` 7790bf97 -> dbf85f61 (not);
* cpp, google/leveldb: ``util/env_posix.cc`` c5d5174a -> dd665875; ``db/write_batch.cc`` f7b0e1d9 -> fe449480 (not);
* c, jqlang/jq: ``src/jv_parse.c`` 96d19ca2 -> f28720f6: reviewed like the others, in no language the tests mine.

The fixture has no Java: the Java change is hand-written (:func:`gerrit_reviews.java_class`), built the same way.
A file lives under its repository's name (``requests/src/requests/__init__.py``) in the one project
:data:`PROJECT`; the record (:class:`Scenario`) holds what the test pushed, with each file's language as the
fixture names it.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gerrit_reviews import SRC, Comment, Record, Reviews, create_project, java_class, method  # noqa: E402
from gerrit_server import GerritServer  # noqa: E402
from git_diff import REVISIONS, git_hunks, header_numbers  # noqa: E402

PROJECT = "polyglot"


@dataclass(frozen=True)
class Chain:
    """Two fixture rows of one file, ``older``'s ``after`` being ``newer``'s ``before`` (commit shas)."""

    repo: str
    path: str
    older: str
    newer: str


CHAINS = (
    Chain("psf/requests", "src/requests/__init__.py", "4bd79e397304d46dfccd76f36c07f66c0295ff82",
          "b2a1d33f571518ca9a6148e7da787cc5827f897a"),
    Chain("psf/requests", "src/requests/sessions.py", "5f338446f9eabd956e7e132668f330d9de4fc368",
          "ef439eb779c1eba7cbdeeeb302b11e1e061b4b7d"),
    Chain("spf13/cobra", "completions.go", "756ba6dad61458cbbf7abecfc502d230574c57d2",
          "0745e5576205cd05fada5bb2e01500d97e1a04be"),
    Chain("spf13/cobra", "doc/yaml_docs.go", "7790bf97fd40e285913066cf65387ad281cd6c2e",
          "dbf85f6104904d539cabceebec234e817fa0df0c"),
    Chain("google/leveldb", "util/env_posix.cc", "c5d5174a66f02e66d8e30c21ff4761214d8e4d6d",
          "dd6658754f85f54058be416e1b43150e39d8ffa5"),
    Chain("google/leveldb", "db/write_batch.cc", "f7b0e1d901da26ac5ce6ad7f0a9806ce1440197e",
          "fe4494804f5e3a2e25485d32aeb0eb7d2f25732e"),
    Chain("jqlang/jq", "src/jv_parse.c", "96d19ca2eef4bed201c5b1175ed013bc3122a001",
          "f28720f699ab35643edec2a42a2f47c3ddaf3b32"),
)

#: the hand-written Java change: patch set 1 adds a line, patch set 2 takes it out again
JAVA_PATH = f"{SRC}/Calc.java"
JAVA = (java_class("Calc", method("add", "int s = a + b;", "return s;")),
        java_class("Calc", method("add", "int s = a + b;", "s = s * 1;", "return s;")),
        java_class("Calc", method("add", "int s = a + b;", "return s;") + method("twice", "return a + a;")))


@dataclass(frozen=True)
class Reviewed:
    """One file of one change as the test pushed it: at the base, patch set 1 and patch set 2."""

    path: str
    language: str  # the fixture's word ("java" for the hand-written change)
    base: str
    submitted: str
    revised: str
    lines: tuple[int, int]  # the run of patch-set-1 lines patch set 2 changes, first and last


@dataclass
class Scenario:
    record: Record
    files: dict[str, Reviewed]  # by path in PROJECT

    def language(self, path: str) -> str:
        return self.files[path].language


def changed_run(old: str, new: str, tmp: Path) -> tuple[int, int]:
    """The first run of consecutive ``old`` lines that git's diff (``git diff -U3``) to ``new`` removes."""
    run: list[int] = []
    for hunk in git_hunks(tmp, old, new):
        line = header_numbers(hunk)[0]
        for diff_line in hunk.split("\n")[1:]:
            if diff_line.startswith("-"):
                if run and line != run[-1] + 1:
                    return run[0], run[-1]
                run.append(line)
            elif run:
                return run[0], run[-1]
            if diff_line[:1] in (" ", "-"):
                line += 1
    assert run, "patch set 2 removes no line of patch set 1"
    return run[0], run[-1]


def reviewed_files(tmp: Path) -> list[Reviewed]:
    """The files of :data:`CHAINS` (checked to be chains) and the Java change, with the lines to comment on."""
    wanted = {(c.repo, c.path, sha) for c in CHAINS for sha in (c.older, c.newer)}
    rows = {}
    with open(REVISIONS, encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            if (row["repo"], row["path"], row["commit"]) in wanted:
                rows[row["commit"]] = row
    files = []
    for chain in CHAINS:
        older, newer = rows[chain.older], rows[chain.newer]
        assert older["after"] == newer["before"] and older["language"] == newer["language"], chain
        path = f"{chain.repo.split('/')[1]}/{chain.path}"
        files.append(Reviewed(path, older["language"], older["before"], older["after"], newer["after"],
                              changed_run(older["after"], newer["after"], tmp)))
    files.append(Reviewed(JAVA_PATH, "java", *JAVA, changed_run(JAVA[1], JAVA[2], tmp)))
    return files


def populate_languages(server: GerritServer, root: Path, admin: tuple[str, str]) -> Scenario:
    """Project :data:`PROJECT`: a merged change with every file at its base, then one change per file (see the
    module docstring), each with two patch sets, two reviewer comments on patch set 1 and the owner's reply."""
    reviews = Reviews(server, root)
    owner = reviews.account("olivia", "Olivia Owner")
    reviewer = reviews.account("rafael", "Rafael Reviewer")
    create_project(server, PROJECT)
    (root / "diff").mkdir(parents=True, exist_ok=True)
    files = reviewed_files(root / "diff")
    ws = reviews.workspace(PROJECT, owner)
    ws.start()
    for f in files:
        ws.write(f.path, f.base)
    ws.commit("Base files")
    reviews.merge(reviews.new_change(ws), admin)
    for f in files:
        ws.start()
        ws.write(f.path, f.submitted)
        ws.commit(f"{f.path}: patch set 1")
        change = reviews.new_change(ws)
        first, last = f.lines
        on_line = f"{f.path}: why line {first}?"
        end_character = len(f.submitted.split("\n")[last - 1])
        reviews.comment(reviewer, change, 1, [
            Comment(on_line, f.path, line=first),
            Comment(f"{f.path}: lines {first}-{last} need another look", f.path, line=last, unresolved=False,
                    range={"start_line": first, "start_character": 0, "end_line": last,
                           "end_character": end_character})])
        reviews.comment(owner, change, 1, [Comment(f"{f.path}: changed in patch set 2", f.path, line=first,
                                                   unresolved=False, in_reply_to=on_line)])
        ws.write(f.path, f.revised)
        reviews.new_patch_set(ws, change, f"{f.path}: patch set 2")
    return Scenario(reviews.record, {f.path: f for f in files})
