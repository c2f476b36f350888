"""The published test split of Tufano et al. (ICSE 2021) pushed to a real Gerrit (:mod:`gerrit_server`) as
real changes, for the end-to-end test and benchmark against the server itself rather than a look-alike.

Each published row becomes one change of project :data:`~tufano_forge.PROJECT` with the layout of
:mod:`tufano_forge`: patch set 1 holds ``before`` in a class of its own file (:func:`~tufano_forge.java_file`),
patch set 2 holds ``after``; a reviewer comments on the ``START ... END`` marked lines of patch set 1 (line and
range as :mod:`tufano_forge` places them), the owner answers "Done" to it, and the reviewer gives a
patch-set-level "LGTM" on patch set 2. Owners and reviewers are the same small pools of accounts (distinct
people), so one account owns some changes and reviews others.

Why chains: one push per change costs 0.3-0.5 s. As people push a series, each owner's patch sets 1 are one
chain of commits (commit k adds row k's file on top of commit k-1) pushed once to ``refs/for/master``:
Gerrit makes one change per commit. The chain is made by one ``git fast-import`` (a commit per row, without a
process per commit); each commit carries its own ``Change-Id`` footer in the commit-msg hook's format
(``I`` and 40 hex digits). Patch sets 2 are a second chain from the same base with the same Change-Ids, pushed
once more: Gerrit adds a patch set to each change. A commit of a chain holds the earlier rows' files too;
only the commented file matters, and each revision's own files (against its parent) are its row's alone.
The order is a review's: patch sets 1, the reviewers' comments, patch sets 2, the owners' replies and the
LGTMs; comments go through the REST review endpoint (:class:`gerrit_reviews.Reviews`) from a few threads.

What ties a change to its row is this module's record (each Change-Id is made from the row index; the
server's change number and comment id are read back from the REST API), never a miner's output.
"""

from __future__ import annotations

import hashlib
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, TypeVar
from urllib.parse import quote

from gerrit_reviews import Account, Change, Comment, PatchSet, Reviews, Workspace, create_project
from gerrit_server import GerritServer
from tufano_forge import OWNERS, PROJECT, REVIEWERS, Provenance, PublishedRow, _account, reviewer_comment, java_file

#: Threads posting comments: the server has the machine's other cores (2-4 keep it busy without queueing).
THREADS = 4
T = TypeVar("T")


@dataclass
class TufanoGerrit:
    """The rows pushed to ``server`` and this module's record of where each went."""

    server: GerritServer
    rows: list[PublishedRow]
    reviews: Reviews
    changes: dict[int, Change] = field(default_factory=dict)  # row index -> its change
    comment_ids: dict[int, str] = field(default_factory=dict)  # row index -> the server's id of its reviewer comment
    seconds: dict[str, float] = field(default_factory=dict)  # step -> wall-clock seconds

    @property
    def provenance(self) -> Provenance:
        return Provenance({i: str(c.number) for i, c in self.changes.items()}, dict(self.comment_ids))

    @property
    def populate_seconds(self) -> float:
        return sum(self.seconds.values())


def change_id(row: PublishedRow) -> str:
    """The row's Change-Id, in the commit-msg hook's format (one change per row in :data:`PROJECT`)."""
    return "I" + hashlib.sha1(f"{PROJECT} row {row.index}".encode()).hexdigest()


def message(row: PublishedRow, patch_set: int) -> str:
    """The commit message of a patch set: the row in the subject (as the forge's), the Change-Id footer."""
    body = "\n\nReviewed." if patch_set == 2 else ""
    return f"Row {row.index}{body}\n\nChange-Id: {change_id(row)}\n"


def owner_of(row: PublishedRow) -> int:
    """The row's owner in the pools of :mod:`tufano_forge`, as the look-alike forge assigns them."""
    return OWNERS[row.index % len(OWNERS)]


def reviewer_of(row: PublishedRow) -> int:
    return REVIEWERS[row.index % len(REVIEWERS)]


def account_of(reviews: Reviews, aid: int) -> Account:
    """The account of a pool member of :mod:`tufano_forge` (``owner<k>`` or ``reviewer<k>``)."""
    return reviews.record.accounts[_account(aid)["username"]]


def chain(ws: Workspace, base: str, ref: str, commits: list[tuple[str, str, str]]) -> list[str]:
    """Commit (message, path, text) one after another on ``base`` into ``ref`` of ``ws`` with one
    ``git fast-import``, as ``ws``'s account (author and committer: Gerrit checks the committer); their shas."""
    who = f"{ws.account.username} <{ws.account.email}> {int(time.time())} +0000"
    stream = bytearray()
    for mark, (text, path, content) in enumerate(commits, start=1):
        msg, data = text.encode("utf-8"), content.encode("utf-8")
        stream += f"commit {ref}\nmark :{mark}\nauthor {who}\ncommitter {who}\ndata {len(msg)}\n".encode() + msg
        stream += f"\nfrom {base}\n".encode() if mark == 1 else b"\n"
        stream += f"M 100644 inline {path}\ndata {len(data)}\n".encode("utf-8") + data + b"\n"
    marks = ws.path / ".git" / "fast-import.marks"
    proc = subprocess.run(["git", "-C", str(ws.path), "fast-import", "--quiet", f"--export-marks={marks}"],
                          input=bytes(stream), capture_output=True)
    if proc.returncode != 0:
        raise AssertionError(f"git fast-import: {proc.stderr.decode(errors='replace').strip()}")
    shas = dict(line.split() for line in marks.read_text().splitlines())
    return [shas[f":{mark}"] for mark in range(1, len(commits) + 1)]


def listed(server: GerritServer) -> dict[str, dict]:
    """Every change of :data:`PROJECT` as the REST API lists it to the administrator, by Change-Id, with its
    revisions (pages of 500, Gerrit's default query limit)."""
    found: dict[str, dict] = {}
    while True:
        page = server.rest("GET", f"/changes/?q={quote(f'project:{PROJECT}')}&o=ALL_REVISIONS&n=500&S={len(found)}")
        found.update((c["change_id"], c) for c in page)
        if not page or not page[-1].get("_more_changes"):
            return found


def each(threads: int, work: Callable[[T], None], items: Iterable[T]) -> None:
    """``work`` on every item from ``threads`` threads; the first failure is raised."""
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(work, items))


def populate_tufano(server: GerritServer, rows: list[PublishedRow], root: Path,
                    threads: int = THREADS) -> TufanoGerrit:
    """Push ``rows`` to ``server`` as changes of :data:`PROJECT` with their comments (module docstring)."""
    built = TufanoGerrit(server, rows, Reviews(server, root))
    reviews = built.reviews

    def step(name: str, work: Callable[[], None]) -> None:
        started = time.perf_counter()
        work()
        built.seconds[name] = time.perf_counter() - started

    by_owner: dict[int, list[PublishedRow]] = {}
    for row in rows:
        by_owner.setdefault(owner_of(row), []).append(row)
    workspaces: dict[int, tuple[Workspace, str]] = {}

    def setup() -> None:
        for aid in OWNERS + REVIEWERS:
            info = _account(aid)
            reviews.account(info["username"], info["name"])
        create_project(server, PROJECT)
        for aid in by_owner:
            ws = reviews.workspace(PROJECT, account_of(reviews, aid))
            workspaces[aid] = (ws, ws.head())

    def push(patch_set: int) -> list[tuple[PublishedRow, str, str, str]]:
        """One chain per owner, pushed once: (row, path, text, sha) of every row's patch set."""
        made = []
        for aid, owned in by_owner.items():
            ws, base = workspaces[aid]
            files = [java_file(row, row.before if patch_set == 1 else row.after) for row in owned]
            shas = chain(ws, base, f"refs/heads/ps{patch_set}",
                         [(message(row, patch_set), path, text) for row, (path, text) in zip(owned, files)])
            ws.git("push", "-q", "origin", f"{shas[-1]}:refs/for/master")
            made += [(row, path, text, sha) for row, (path, text), sha in zip(owned, files, shas)]
        return made

    def first_patch_sets() -> None:
        made = push(1)
        numbers = {cid: c["_number"] for cid, c in listed(server).items()}
        for row, path, text, sha in made:
            owner = account_of(reviews, owner_of(row)).username
            change = Change(PROJECT, numbers[change_id(row)], change_id(row), owner,
                            patch_sets=[PatchSet(1, sha, {path: text})])
            built.changes[row.index] = change
            reviews.record.changes.append(change)

    def review(row: PublishedRow) -> None:
        change, reviewer = built.changes[row.index], account_of(reviews, reviewer_of(row))
        placed = reviewer_comment(row, "")
        path = java_file(row, row.before)[0]
        reviews.comment(reviewer, change, 1, [Comment(row.comment, path, line=placed["line"],
                                                      range=placed.get("range"), unresolved=True)])
        built.comment_ids[row.index] = reviews.comment_ids(change, reviewer.auth)[row.comment]

    def second_patch_sets() -> None:
        for row, path, text, sha in push(2):
            built.changes[row.index].patch_sets.append(PatchSet(2, sha, {path: text}))
        check_patch_sets(built)

    def answer(row: PublishedRow) -> None:
        change = built.changes[row.index]
        owner = reviews.record.accounts[change.owner]
        reviews.comment(owner, change, 1, [Comment("Done", java_file(row, row.before)[0],
                                                   line=reviewer_comment(row, "")["line"], unresolved=False,
                                                   in_reply_to=row.comment)])
        reviews.comment(account_of(reviews, reviewer_of(row)), change, 2,
                        [Comment("LGTM", "/PATCHSET_LEVEL", unresolved=False)])

    step("accounts, project, clones", setup)
    step("patch sets 1 (one push per owner)", first_patch_sets)
    step("reviewer comments", lambda: each(threads, review, rows))
    step("patch sets 2 (one push per owner)", second_patch_sets)
    step("replies and LGTMs", lambda: each(threads, answer, rows))
    return built


def check_patch_sets(built: TufanoGerrit) -> None:
    """The REST API lists exactly the pushed changes, each with its two pushed commits as patch sets 1 and 2."""
    found = listed(built.server)
    wrong = {}
    for index, change in built.changes.items():
        want = {ps.sha: ps.number for ps in change.patch_sets}
        got = {sha: rev["_number"] for sha, rev in found.get(change.change_id, {}).get("revisions", {}).items()}
        if got != want:
            wrong[index] = (want, got)
    if wrong or len(found) != len(built.changes):
        raise AssertionError(f"{len(found)} changes listed for {len(built.changes)} pushed; rows whose patch sets "
                             f"differ (pushed, listed): {dict(list(wrong.items())[:5])}")
