"""Reviews made on a real Gerrit the way people make them, and the test's own record of what it posted.

Accounts and HTTP passwords are made through the REST API as the site's administrator; the owner pushes
over git's smart HTTP to ``refs/for/master`` (the server's commit-msg hook adds the Change-Id; amend and
push again for a new patch set); the reviewer comments through ``POST .../revisions/{rev}/review``. The
record (:class:`Record`) holds what the test wrote and posted, never what a miner read: the rows a
miner must produce are derived from it (:func:`expected_rows`), with the server's own names for what
it assigns (change numbers, comment ids of reply targets, the commit of a rebase it made).
"""

from __future__ import annotations

import base64
import re
import subprocess
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable
from urllib.parse import quote

import requests

from gerrit_server import GerritServer


@dataclass
class Account:
    username: str
    password: str
    account_id: int
    email: str

    @property
    def auth(self) -> tuple[str, str]:
        return (self.username, self.password)


@dataclass
class PatchSet:
    number: int
    sha: str
    files: dict[str, str | None]  # the test's own text of every text file it wrote (None: deleted)
    renames: dict[str, str] = field(default_factory=dict)  # path in the previous patch set -> path here


@dataclass
class Comment:
    """One comment as the test posted it; ``message`` is unique and names it."""

    message: str
    path: str
    side: str = "REVISION"
    line: int | None = None
    range: dict[str, int] | None = None
    unresolved: bool = True
    in_reply_to: str | None = None  # the message of the comment replied to
    posted_after: datetime | None = None
    posted_before: datetime | None = None
    author: str = ""  # these three are set when it is posted
    change: int = 0
    patch_set: int = 0


@dataclass
class Change:
    project: str
    number: int
    change_id: str
    owner: str
    private: bool = False
    patch_sets: list[PatchSet] = field(default_factory=list)


@dataclass
class Record:
    """Everything the test made on the server."""

    changes: list[Change] = field(default_factory=list)
    comments: list[Comment] = field(default_factory=list)
    drafts: list[str] = field(default_factory=list)  # messages of drafts never published
    accounts: dict[str, Account] = field(default_factory=dict)


def now() -> datetime:
    return datetime.now(timezone.utc)


def create_account(server: GerritServer, username: str, name: str) -> Account:
    """An account with an email and an HTTP password, made by the administrator."""
    email = f"{username}@example.com"
    password = f"pw-{username}-7f3a"
    info = server.rest("PUT", f"/accounts/{username}",
                       {"name": name, "email": email, "http_password": password})
    return Account(username, password, info["_account_id"], email)


def create_project(server: GerritServer, name: str) -> None:
    server.rest("PUT", f"/projects/{quote(name, safe='')}", {"create_empty_commit": True, "branches": ["master"]})


class Workspace:
    """A local clone of one project, pushed to as one account over HTTP."""

    def __init__(self, server: GerritServer, project: str, account: Account, path: Path):
        self.server, self.project, self.account, self.path = server, project, account, Path(path)
        token = base64.b64encode(f"{account.username}:{account.password}".encode()).decode()
        self.url = f"{server.url}/a/{project}"
        subprocess.run(["git", "-c", f"http.extraHeader=Authorization: Basic {token}", "clone", "-q", self.url,
                        str(self.path)], check=True, capture_output=True)
        for key, value in (("http.extraHeader", f"Authorization: Basic {token}"), ("user.name", account.username),
                           ("user.email", account.email), ("core.autocrlf", "false"),
                           ("core.quotePath", "false")):
            self.git("config", key, value)
        hook = self.path / ".git" / "hooks" / "commit-msg"
        hook.write_bytes(requests.get(f"{server.url}/tools/hooks/commit-msg", timeout=30).content)
        hook.chmod(0o755)
        self.tree: dict[str, str | None] = {}

    def git(self, *args: str) -> str:
        proc = subprocess.run(["git", "-C", str(self.path), *args], capture_output=True, text=True)
        if proc.returncode != 0:
            raise AssertionError(f"git {' '.join(args)}: {proc.stderr.strip()}")
        return proc.stdout + proc.stderr

    def start(self) -> None:
        """Start a new change on the tip of master."""
        self.git("fetch", "-q", "origin", "master")
        self.git("reset", "-q", "--hard", "FETCH_HEAD")
        self.tree = {}

    def write(self, path: str, text: str | bytes) -> None:
        target = self.path / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            target.write_bytes(text)
        else:
            with open(target, "w", encoding="utf-8", newline="") as handle:
                handle.write(text)
            self.tree[path] = text
        self.git("add", "--", path)

    def delete(self, path: str) -> None:
        self.git("rm", "-q", "--", path)
        self.tree[path] = None

    def rename(self, old: str, new: str, text: str) -> None:
        self.git("mv", "--", old, new)
        self.tree[old] = None
        self.write(new, text)

    def commit(self, subject: str, amend: bool = False) -> str:
        """Commit what is staged; ``amend`` keeps the Change-Id, so the push is a new patch set."""
        message = f"{subject}\n\nChange-Id: {self.change_id()}\n" if amend else subject
        self.git("commit", "-q", "--allow-empty", "-m", message, *(["--amend"] if amend else []))
        return self.head()

    def head(self) -> str:
        return self.git("rev-parse", "HEAD").strip()

    def change_id(self) -> str:
        match = re.search(r"^Change-Id: (I[0-9a-f]{40})$", self.git("log", "-1", "--format=%B"), re.M)
        assert match, "the commit-msg hook added no Change-Id"
        return match.group(1)

    def push_for(self, options: str = "") -> int:
        """Push HEAD for review; the change number the server printed."""
        out = self.git("push", "origin", f"HEAD:refs/for/master{'%' + options if options else ''}")
        match = re.search(r"/\+/(\d+)", out)
        assert match, f"no change URL in the push output: {out}"
        return int(match.group(1))

    def checkout_patch_set(self, number: int, patch_set: int) -> None:
        """Take the server's own commit of a patch set (one it made, such as a rebase)."""
        self.git("fetch", "-q", "origin", f"refs/changes/{number % 100:02d}/{number}/{patch_set}")
        self.git("reset", "-q", "--hard", "FETCH_HEAD")


class Reviews:
    """Makes changes, patch sets and comments on ``server`` and records them."""

    def __init__(self, server: GerritServer, root: Path):
        self.server, self.root = server, Path(root)
        self.record = Record()
        self._files: dict[tuple[str, int], dict[str, str | None]] = {}
        self._workspaces = 0

    def account(self, username: str, name: str) -> Account:
        account = create_account(self.server, username, name)
        self.record.accounts[username] = account
        return account

    def workspace(self, project: str, account: Account) -> Workspace:
        self._workspaces += 1
        return Workspace(self.server, project, account, self.root / f"ws{self._workspaces}-{account.username}")

    def _files_of(self, change: Change) -> dict[str, str | None]:
        return self._files.setdefault((change.project, change.number), {})

    def new_change(self, ws: Workspace, options: str = "", private: bool = False) -> Change:
        """Push the workspace's commit as a new change (patch set 1)."""
        number = ws.push_for(options)
        change = Change(ws.project, number, ws.change_id(), ws.account.username, private)
        self.record.changes.append(change)
        files = self._files_of(change)
        files.update(ws.tree)
        change.patch_sets.append(PatchSet(1, ws.head(), dict(files)))
        return change

    def new_patch_set(self, ws: Workspace, change: Change, subject: str, renames: dict[str, str] | None = None,
                      options: str = "") -> PatchSet:
        """Amend and push again: the next patch set of ``change``."""
        sha = ws.commit(subject, amend=True)
        assert ws.push_for(options) == change.number
        return self._add_patch_set(change, sha, ws.tree, renames or {})

    def _add_patch_set(self, change: Change, sha: str, tree: dict[str, str | None],
                       renames: dict[str, str]) -> PatchSet:
        files = self._files_of(change)
        files.update(tree)
        ps = PatchSet(len(change.patch_sets) + 1, sha, dict(files), renames)
        change.patch_sets.append(ps)
        return ps

    def rebase(self, ws: Workspace, change: Change) -> PatchSet:
        """Ask the server to rebase ``change`` onto master (it makes the patch set; the change's own files
        are as they were)."""
        info = self.server.rest("POST", f"/changes/{change.number}/rebase", {}, auth=ws.account.auth)
        ws.checkout_patch_set(change.number, len(change.patch_sets) + 1)
        assert ws.head() == info["current_revision"]
        ws.tree = dict(self._files_of(change))
        return self._add_patch_set(change, info["current_revision"], {}, {})

    def merge(self, change: Change, admin: tuple[str, str]) -> None:
        self.server.rest("POST", f"/changes/{change.number}/revisions/current/review",
                         {"labels": {"Code-Review": 2}}, auth=admin)
        self.server.rest("POST", f"/changes/{change.number}/submit", {}, auth=admin)

    def comment_ids(self, change: Change, auth: tuple[str, str]) -> dict[str, str]:
        """The server's id of each published comment of ``change``, by message."""
        answer = self.server.rest("GET", f"/changes/{change.number}/comments", auth=auth)
        return {c["message"]: c["id"] for items in answer.values() for c in items}

    def comment(self, account: Account, change: Change, patch_set: int, comments: list[Comment]) -> None:
        """Publish ``comments`` on one patch set in one review, as ``account``."""
        ids = self.comment_ids(change, account.auth) if any(c.in_reply_to for c in comments) else {}
        body: dict[str, list[dict[str, Any]]] = {}
        for c in comments:
            c.author, c.change, c.patch_set = account.username, change.number, patch_set
            item: dict[str, Any] = {"message": c.message, "unresolved": c.unresolved}
            if c.side != "REVISION":
                item["side"] = c.side
            if c.line is not None:
                item["line"] = c.line
            if c.range is not None:
                item["range"] = c.range
            if c.in_reply_to is not None:
                item["in_reply_to"] = ids[c.in_reply_to]
            body.setdefault(c.path, []).append(item)
        sha = change.patch_sets[patch_set - 1].sha
        before = now()
        self.server.rest("POST", f"/changes/{change.number}/revisions/{sha}/review",
                         {"comments": body}, auth=account.auth)
        after = now()
        for c in comments:
            c.posted_after, c.posted_before = before, after
        self.record.comments.extend(comments)

    def draft(self, account: Account, change: Change, patch_set: int, path: str, line: int, message: str) -> None:
        """A draft comment, saved and never published."""
        sha = change.patch_sets[patch_set - 1].sha
        self.server.rest("PUT", f"/changes/{change.number}/revisions/{sha}/drafts",
                         {"path": path, "line": line, "message": message}, auth=account.auth)
        self.record.drafts.append(message)


def is_java(path: str) -> bool:
    return path.endswith(".java")


def expected_rows(record: Record, projects: set[str], private_visible: bool,
                  renames_seen: bool = True, mined: Callable[[str], bool] = is_java) -> tuple[list[dict], list[tuple]]:
    """The ``rounds.parquet`` rows (reduced to what the test can know) and the drops a miner must give.

    A round is patch set N with a successor and a reviewer comment (not the owner's) on a file at N in a
    language mined (``mined``: the test's own word for a path; Java by default);
    the row holds the file at N and N+1 and every published comment on it at N. Reviewer comments on the
    last patch set are a ``last_revision`` drop per file; a commented file in neither revision is
    ``no_file``. A rename is seen where git holds both patch sets (``renames_seen``); read through the
    content endpoint, the file is deleted in the next patch set."""
    rows, drops = [], []
    for change in record.changes:
        if change.project not in projects or (change.private and not private_visible):
            continue
        at: dict[int, dict[str, list[Comment]]] = {}
        for c in record.comments:
            if c.change == change.number and mined(c.path):
                at.setdefault(c.patch_set, {}).setdefault(c.path, []).append(c)
        for n, by_path in sorted(at.items()):
            for path, comments in sorted(by_path.items()):
                if all(c.author == change.owner for c in comments):
                    continue
                if n == len(change.patch_sets):
                    drops.append((change.project, str(change.number), path, "last_revision"))
                    continue
                ps, nxt = change.patch_sets[n - 1], change.patch_sets[n]
                before, after = ps.files.get(path), nxt.files.get(path)
                path_after: str | None = path
                if before is None and after is None:
                    drops.append((change.project, str(change.number), path, "no_file"))
                    continue
                if before is None:
                    status = "added"
                elif path in nxt.renames and renames_seen:
                    path_after = nxt.renames[path]
                    status, after = "renamed", nxt.files[path_after]
                elif after is None:
                    status, path_after = "deleted", None
                else:
                    status = "unchanged" if before == after else "modified"
                rows.append({
                    "project": change.project, "change": str(change.number), "change_key": change.change_id,
                    "round": n, "revision_before": ps.sha, "revision_after": nxt.sha, "owner": change.owner,
                    "path_before": path, "path_after": path_after, "file_status": status,
                    "content_before": before, "content_after": after,
                    "comments": sorted(comment_view(c, change.owner) for c in comments)})
    return sorted(rows, key=row_key), sorted(drops)


def row_key(row: dict) -> tuple:
    return (row["project"], int(row["change"]), row["round"], row["path_before"])


def comment_view(c: Comment, owner: str) -> tuple:
    """What a mined comment must say of a posted one (ids are the server's: replies name their target's
    message instead)."""
    rng = c.range or {}
    return (c.message, c.author, c.author == owner, c.path, c.side, c.line,
            rng.get("start_line", c.line), rng.get("end_line", c.line),
            rng.get("start_character"), rng.get("end_character"), c.unresolved, c.in_reply_to)


def posted_times(record: Record) -> dict[str, tuple[datetime, datetime]]:
    return {c.message: (c.posted_after, c.posted_before) for c in record.comments}


def mined_view(row: dict) -> dict:
    """A mined ``rounds.parquet`` row in the shape of :func:`expected_rows`."""
    by_id = {c["id"]: c["message"] for c in row["comments"]}
    return {
        "project": row["project"], "change": row["change"], "change_key": row["change_key"], "round": row["round"],
        "revision_before": row["revision_before"], "revision_after": row["revision_after"], "owner": row["owner"],
        "path_before": row["path_before"], "path_after": row["path_after"], "file_status": row["file_status"],
        "content_before": row["content_before"], "content_after": row["content_after"],
        "comments": sorted((c["message"], c["author"], c["is_owner"], c["path"], c["side"], c["line"],
                            c["start_line"], c["end_line"], c["start_character"], c["end_character"],
                            c["unresolved"], by_id.get(c["in_reply_to"], c["in_reply_to"]))
                           for c in row["comments"])}


# --- the scenario the tests mine ------------------------------------------------------------------------
SRC = "src/main/java/demo"


def java_class(name: str, body: str) -> str:
    return f"package demo;\n\npublic class {name} {{\n{body}}}\n"


def method(name: str, *lines: str) -> str:
    inner = "".join(f"        {line}\n" for line in lines)
    return f"    public int {name}(int a, int b) {{\n{inner}    }}\n\n"


PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")


def populate(server: GerritServer, root: Path, admin: tuple[str, str], fillers: int = 3) -> Record:
    """Two projects with reviews covering what real review data holds (see ``tests/test_real_gerrit.py``).

    Project ``demo``: a merged base change; B (2 patch sets: comments on a line, a range inside a line, a
    range across lines, the file, the PARENT side, a file the change deletes, a non-Java file, the commit
    message and the patch set, the owner's replies, a draft); C (4 patch sets: added, deleted and renamed
    files, a comment on patch set 1 posted after patch set 3, reviewer comments on the last patch set;
    abandoned); D (a trivial rebase made by the server, a commit-message-only patch set; merged); E
    (work in progress); F (private, the reviewer added); G (non-ASCII code, path and comments); ``fillers``
    one-patch-set changes. Project ``other``: H. Every listing page holds at most 5 changes."""
    reviews = Reviews(server, root)
    owner = reviews.account("olivia", "Olivia Owner")
    reviewer = reviews.account("rafael", "Rafael Reviewer")
    for project in ("demo", "other"):
        create_project(server, project)
    server.rest("POST", "/projects/All-Projects/access", {"add": {"GLOBAL_CAPABILITIES": {"permissions": {
        "queryLimit": {"rules": {group: {"action": "ALLOW", "min": 0, "max": 5}
                                 for group in ("global:Anonymous-Users", "global:Registered-Users")}}}}}},
                auth=admin)
    ws = reviews.workspace("demo", owner)
    unicode_path = f"{SRC}/Ünïcödé.java"
    base = {
        f"{SRC}/Calc.java": java_class("Calc", method("add", "int s = a + b;", "return s;")
                                       + method("sub", "int d = a - b;", "return d;")),
        f"{SRC}/Gone.java": java_class("Gone", method("gone", "return a * b;")),
        f"{SRC}/Old.java": java_class("Old", method("old", "int o = a % b;", "return o;")),
        f"{SRC}/Deleted.java": java_class("Deleted", method("deleted", "return a;")),
        f"{SRC}/Util.java": java_class("Util", method("max", "return a > b ? a : b;")),
        unicode_path: java_class("Ünïcödé", method("grüße", 'String s = "héllo";', "return s.length();")),
        "README.md": "# demo\n\nA project for revmine's tests.\n",
    }
    ws.start()
    for path, text in base.items():
        ws.write(path, text)
    ws.commit("Base files")
    reviews.merge(reviews.new_change(ws), admin)

    # B: two patch sets, every kind of comment
    ws.start()
    calc1 = java_class("Calc", method("add", "int s = a + b;", "s = s + 0;", "return s;")
                       + method("sub", "int d = a - b;", "return d;"))
    ws.write(f"{SRC}/Calc.java", calc1)
    ws.write("README.md", base["README.md"] + "\nCalc adds.\n")
    ws.write("docs/logo.png", PNG)
    ws.delete(f"{SRC}/Deleted.java")
    ws.commit("Calc: add a no-op")
    b = reviews.new_change(ws)
    reviews.comment(reviewer, b, 1, [
        Comment("B1 line: drop the no-op", f"{SRC}/Calc.java", line=6, unresolved=True),
        Comment("B2 range in a line: name this s2", f"{SRC}/Calc.java", line=6, unresolved=True,
                range={"start_line": 6, "start_character": 8, "end_line": 6, "end_character": 18}),
        Comment("B3 range across lines: merge these", f"{SRC}/Calc.java", line=7, unresolved=False,
                range={"start_line": 5, "start_character": 0, "end_line": 7, "end_character": 17}),
        Comment("B4 file: add a Javadoc", f"{SRC}/Calc.java", unresolved=True),
        Comment("B5 parent side: this was fine", f"{SRC}/Calc.java", side="PARENT", line=5,
                unresolved=False),
        Comment("B6 deleted file, parent side: why delete?", f"{SRC}/Deleted.java", side="PARENT",
                line=4, unresolved=True),
        Comment("B7 readme: typo", "README.md", line=3, unresolved=True),
        Comment("B8 commit message: say why", "/COMMIT_MSG", line=7, unresolved=True),
        Comment("B9 patch set: looks close", "/PATCHSET_LEVEL", unresolved=False),
    ])
    reviews.draft(reviewer, b, 1, f"{SRC}/Calc.java", 8, "B draft: never published")
    reviews.comment(owner, b, 1, [
        Comment("B1 reply: done", f"{SRC}/Calc.java", line=6, unresolved=False,
                in_reply_to="B1 line: drop the no-op"),
        Comment("B4 reply: will do", f"{SRC}/Calc.java", unresolved=True,
                in_reply_to="B4 file: add a Javadoc"),
    ])
    ws.write(f"{SRC}/Calc.java", java_class("Calc", method("add", "return a + b;")
                                            + method("sub", "int d = a - b;", "return d;")))
    reviews.new_patch_set(ws, b, "Calc: simpler add")

    # C: four patch sets, added / deleted / renamed files, a late comment on patch set 1; abandoned
    ws.start()
    ws.write(f"{SRC}/Added.java", java_class("Added", method("added", "int k = a;", "return k + b;")))
    ws.write(f"{SRC}/Gone.java", java_class("Gone", method("gone", "int g = a * b;", "return g;")))
    ws.write(f"{SRC}/Old.java", java_class("Old", method("old", "int o = a % b;", "o = o + 1;", "return o;")))
    ws.commit("Added, Gone and Old")
    c = reviews.new_change(ws)
    reviews.comment(reviewer, c, 1, [Comment("C1 added file: call it sum", f"{SRC}/Added.java", line=5)])
    ws.write(f"{SRC}/Added.java", java_class("Added", method("added", "int sum = a;", "return sum + b;")))
    reviews.new_patch_set(ws, c, "Added, Gone and Old (2)")
    reviews.comment(reviewer, c, 2, [
        Comment("C2 gone: remove this class", f"{SRC}/Gone.java", line=5),
        Comment("C3 old: rename the class", f"{SRC}/Old.java", line=6)])
    ws.delete(f"{SRC}/Gone.java")
    ws.rename(f"{SRC}/Old.java", f"{SRC}/Renamed.java",
              java_class("Renamed", method("old", "int o = a % b;", "o = o + 1;", "return o;")))
    reviews.new_patch_set(ws, c, "Added and Renamed", renames={f"{SRC}/Old.java": f"{SRC}/Renamed.java"})
    reviews.comment(reviewer, c, 1, [Comment("C4 late, on patch set 1: and test it", f"{SRC}/Added.java",
                                             line=6, unresolved=False)])
    reviews.comment(reviewer, c, 3, [Comment("C5 renamed: o++ reads better", f"{SRC}/Renamed.java",
                                             line=6)])
    ws.write(f"{SRC}/Renamed.java", java_class("Renamed", method("old", "int o = a % b;", "o++;", "return o;")))
    reviews.new_patch_set(ws, c, "Added and Renamed (4)")
    reviews.comment(reviewer, c, 4, [Comment("C6 last patch set: nit", f"{SRC}/Renamed.java", line=6)])
    server.rest("POST", f"/changes/{c.number}/abandon", {}, auth=owner.auth)

    # D: a trivial rebase made by the server, then code, then a commit-message-only patch set; merged
    ws.start()
    util1 = java_class("Util", method("max", "int m = a > b ? a : b;", "return m;"))
    ws.write(f"{SRC}/Util.java", util1)
    ws.commit("Util: name the max")
    d = reviews.new_change(ws)
    reviews.comment(reviewer, d, 1, [Comment("D1 util: fine, but see Math.max", f"{SRC}/Util.java", line=5)])
    ws2 = reviews.workspace("demo", owner)
    ws2.start()
    ws2.write(f"{SRC}/Other.java", java_class("Other", method("other", "return b;")))
    ws2.commit("Other: a new class")
    reviews.merge(reviews.new_change(ws2), admin)
    reviews.rebase(ws, d)
    reviews.comment(reviewer, d, 2, [Comment("D2 after rebase: use Math.max", f"{SRC}/Util.java",
                                             line=5)])
    ws.write(f"{SRC}/Util.java", java_class("Util", method("max", "return Math.max(a, b);")))
    reviews.new_patch_set(ws, d, "Util: use Math.max")
    reviews.comment(reviewer, d, 3, [Comment("D3 code: the subject is stale", f"{SRC}/Util.java",
                                             line=5, unresolved=False)])
    reviews.new_patch_set(ws, d, "Util: max through Math.max")
    for n, parent in ((1, "D1 util: fine, but see Math.max"), (2, "D2 after rebase: use Math.max")):
        # threads resolved before the merge (Gerrit 3.13's default No-Unresolved-Comments requirement)
        reviews.comment(owner, d, n, [Comment(f"D{n} reply: done", f"{SRC}/Util.java", line=5, unresolved=False,
                                              in_reply_to=parent)])
    reviews.merge(d, admin)

    # E: work in progress; F: private, with the reviewer on it; G: non-ASCII
    for name, options, private in (("E", "wip", False), ("F", f"private,r={reviewer.email}", True)):
        ws.start()
        path = f"{SRC}/{name}.java"
        ws.write(path, java_class(name, method("f", "int e = a;", "return e;")))
        ws.commit(f"{name}: a class")
        ch = reviews.new_change(ws, options, private=private)
        reviews.comment(reviewer, ch, 1, [Comment(f"{name}1: inline e", path, line=5)])
        ws.write(path, java_class(name, method("f", "return a;")))
        reviews.new_patch_set(ws, ch, f"{name}: a class (2)", options=options.split(",")[0])
    ws.start()
    ws.write(unicode_path, java_class("Ünïcödé", method("grüße", 'String s = "héllo – 日本";',
                                                        "return s.length();")))
    ws.commit("Ünïcödé: längere Grüße")
    g = reviews.new_change(ws)
    reviews.comment(reviewer, g, 1, [Comment("G1 Ça coûte cher — 変数名を直して", unicode_path, line=5,
                                             range={"start_line": 5, "start_character": 20, "end_line": 5,
                                                    "end_character": 27})])
    ws.write(unicode_path, java_class("Ünïcödé", method("grüße", 'String grüße = "héllo – 日本";',
                                                        "return grüße.length();")))
    reviews.new_patch_set(ws, g, "Ünïcödé: längere Grüße (2)")
    for k in range(fillers):
        ws.start()
        ws.write(f"{SRC}/Filler{k}.java", java_class(f"Filler{k}", method("f", f"return {k};")))
        ws.commit(f"Filler {k}")
        reviews.new_change(ws)

    # H: the second project
    wo = reviews.workspace("other", owner)
    wo.start()
    wo.write("src/Other.java", java_class("Other", method("twice", "int t = a * 2;", "return t;")))
    wo.commit("Other: twice")
    h = reviews.new_change(wo)
    reviews.comment(reviewer, h, 1, [Comment("H1 other project: a + a", "src/Other.java", line=5)])
    wo.write("src/Other.java", java_class("Other", method("twice", "return a + a;")))
    reviews.new_patch_set(wo, h, "Other: twice (2)")
    return reviews.record
