"""A local forge for the miners' tests and benchmark: git repositories plus an HTTP server on 127.0.0.1
answering like Gerrit (``/gerrit/...``), GitHub (``/github/...``) and GitLab (``/gitlab/api/v4/...``, built in
tests/gitlab_forge.py), with fault injection.

GitHub objects are built from recorded real responses (``../shared/fixtures/github_api``) with only the
fields that matter overridden, so their shape is the real one; Gerrit objects follow the REST docs
(ChangeInfo/RevisionInfo/FileInfo/CommentInfo, bodies prefixed with ``)]}'``).
"""

from __future__ import annotations

import ast
import copy
import email.utils
import hashlib
import json
import re
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from functools import lru_cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable
from urllib.parse import parse_qs, unquote, urlsplit

from revmine.miners.replay import fast_import, fast_import_commit


GITHUB_API = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "github_api"
T0 = datetime(2023, 3, 1, 12, 0, tzinfo=timezone.utc)
OWNER_ID, REVIEWER_ID = 1000, 2000
#: GitHub's ``/pulls/{n}/commits`` lists at most this many commits.
COMMITS_CAP = 250


def recorded(name: str) -> list[dict]:
    """The exchanges of a recorded fixture file (11 lines each)."""
    lines = (GITHUB_API / name).read_text(encoding="utf-8").split("\n")
    out = []
    for i in range(0, len(lines) - 10, 11):
        out.append({"path": lines[i + 4], "status": int(lines[i + 7]),
                    "headers": ast.literal_eval(lines[i + 8]), "body": json.loads(lines[i + 9] or "null")})
    return out


def _gerrit_time(t: datetime) -> str:
    """Gerrit's timestamp: NoteDb keeps whole seconds, printed with nine zero decimals (a real 3.10)."""
    return t.strftime("%Y-%m-%d %H:%M:%S") + ".000000000"


def _iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def java(name: str, version: int) -> str:
    body = "\n".join(f"        int x{k} = {k * version};" for k in range(6))
    return f"package demo;\n\npublic class {name} {{\n    void run() {{\n{body}\n    }}\n}}\n"


@lru_cache(maxsize=None)
def _github_template(name: str) -> dict:
    """The first item of a recorded GitHub list answer: the shape every built object copies."""
    return recorded(name)[0]["body"][0]


def github_pull(number: int, head: str, base: str, updated: datetime, owner: str = "owner") -> dict:
    """A pull request as ``/pulls`` lists it: the recorded one with its number, times, owner and shas replaced
    (``base`` is where the base branch is now, as GitHub says, not necessarily the first commit's parent)."""
    template = _github_template("Repository.testGetPulls.txt")
    pull = copy.deepcopy(template)
    pull.update({"number": number, "id": 9000 + number, "node_id": f"PR_node{number}", "state": "open",
                 "title": f"PR {number}", "created_at": _iso(T0), "updated_at": _iso(updated),
                 "user": {**template["user"], "login": owner}})
    pull["head"] = {**template["head"], "sha": head, "ref": f"pr{number}"}
    pull["base"] = {**template["base"], "sha": base, "ref": "main"}
    return pull


def github_commits(shas: list[str]) -> list[dict]:
    """``/pulls/{n}/commits``: the recorded commit once per sha, oldest first."""
    template = _github_template("PullRequest.testGetCommits.txt")
    return [{**copy.deepcopy(template), "sha": sha} for sha in shas]


def github_comment(cid: int, sha: str, path: str, login: str, line: int | None, created: datetime,
                   commit_id: str | None, reply: int | None = None, outdated: bool = False,
                   start_line: int | None = None, body: str | None = None) -> dict:
    """A review comment as ``/pulls/{n}/comments`` lists it, made on commit ``sha`` (``original_commit_id``)
    at ``original_line`` (``start_line``: the first line of a multi-line comment); ``commit_id`` is where
    GitHub shows it now. Its author is the pull request's owner when ``login`` is ``"owner"``."""
    template = _github_template("PullRequest.testGetReviewComments.txt")
    c = copy.deepcopy(template)
    c.update({"id": cid, "node_id": f"PRRC_{cid}", "path": path, "commit_id": commit_id, "original_commit_id": sha,
              "user": {**template["user"], "login": login}, "body": body or f"comment {cid}",
              "created_at": _iso(created), "updated_at": _iso(created), "original_line": line,
              "line": None if outdated else line, "position": None if outdated else 1,
              "original_start_line": start_line, "start_line": None if outdated else start_line, "side": "RIGHT",
              "author_association": "OWNER" if login == "owner" else "CONTRIBUTOR"})
    if reply is not None:
        c["in_reply_to_id"] = reply
    return c


# --- git ----------------------------------------------------------------------------------------------
class RepoBuilder:
    """Builds a bare repository with one ``git fast-import`` for all commits (fast), through the
    helpers that build the recorded example's repositories (:mod:`revmine.miners.replay`)."""

    def __init__(self, path: Path):
        self.path = path
        self.stream: list[bytes] = []
        self.clock = 1_600_000_000

    def commit(self, ref: str, files: dict[str, str | None], parent: int | None = None, msg: str = "c") -> int:
        self.clock += 60
        mark = len(self.stream) + 1
        data = {path: None if text is None else text.encode() for path, text in files.items()}
        self.stream.append(fast_import_commit(mark, ref, "T <t@example.org>", self.clock, msg, data, parent,
                                              author=False))
        return mark

    def finish(self) -> dict[int, str]:
        """Run the import; return mark -> sha."""
        return fast_import(self.path, self.stream)


def ghost_sha(label: str) -> str:
    """A commit id that no repository has (a force-pushed / vanished commit)."""
    return hashlib.sha1(label.encode()).hexdigest()


# --- the forge's data ---------------------------------------------------------------------------------
@dataclass
class Fault:
    match: str  # substring of the request path (with query)
    # 429 | 429-reset | 429-date | 429-gitlab[-reset] | 403-ratelimit | 403-secondary | 401-echo | 500 | timeout | truncated | html
    # | graphql-ratelimited (a GraphQL query refused with RATE_LIMITED, the reset ``value`` seconds away)
    # | noprefix | wrongtype | reset | nofyi (Gerrit file content without its X-FYI-Content-Encoding header)
    kind: str
    times: int = 1
    value: float = 1.0  # Retry-After seconds (429, 429-date), reset delay (429-reset, 403-ratelimit), timeout


@dataclass
class Forge:
    root: Path
    gerrit_changes: dict[int, dict] = field(default_factory=dict)
    gerrit_comments: dict[int, dict] = field(default_factory=dict)
    gerrit_robot_comments: dict[int, dict] = field(default_factory=dict)  # RobotCommentInfo by path, per change
    github_pulls: dict[int, dict] = field(default_factory=dict)
    github_comments: dict[int, list] = field(default_factory=dict)
    github_commits: dict[int, list] = field(default_factory=dict)
    github_resolved: set[int] = field(default_factory=set)  # root comments of resolved review threads (GraphQL)
    graphql_quota: int = 5000  # GraphQL points per token and window (tests/github_graphql_forge.py)
    graphql_window: float = 3600.0  # seconds until the points are renewed
    graphql_window_start: float = 0.0
    graphql_used: Counter = field(default_factory=Counter)  # points spent per token
    graphql_points: list[int] = field(default_factory=list)  # the cost of each query answered
    graphql_log: list[dict] = field(default_factory=list)  # each query and its variables
    gitlab_mrs: dict[int, dict] = field(default_factory=dict)  # by iid
    gitlab_discussions: dict[int, list] = field(default_factory=dict)
    gitlab_versions: dict[int, list] = field(default_factory=dict)  # newest first
    gitlab_no_link: bool = False  # answer pages without Link (X-Next-Page only)
    gitlab_auth_required: bool = False  # a private project: 401 without a token
    contents: dict[tuple[str, str], str | bytes] = field(default_factory=dict)  # REST fallback content
    github_license: dict | None = None  # GET /repos/{repo}/license's answer (None: 404, GitHub found no licence)
    faults: list[Fault] = field(default_factory=list)
    log: list[tuple[str, dict]] = field(default_factory=list)
    sent: list[dict] = field(default_factory=list)  # the headers of each answer
    hits: Counter = field(default_factory=Counter)
    hooks: list[Callable[[str], None]] = field(default_factory=list)
    delay: dict[str, float] = field(default_factory=dict)  # path substring -> seconds
    expected: dict[str, int] = field(default_factory=dict)  # what a correct miner finds
    latency: float = 0.0  # seconds every request waits before its answer (a forge far away)
    mirror: bool = False  # any project / repository name is answered with demo/app's / octo/demo's data
    gerrit_ignores_bounds: set[str] = field(default_factory=set)  # projects whose listing ignores before/after
    gerrit_query_limit: int = 500  # a page holds at most this many changes whatever ``n`` asks (Gerrit's default)
    github_churning: set[str] = field(default_factory=set)  # repos where reading page 2+ bumps a pull request
    quota: int | None = None  # requests per token (Authorization header) until renew_quota(); then 403
    used: Counter = field(default_factory=Counter)  # requests per token
    in_flight: int = 0  # requests being answered now
    max_in_flight: int = 0  # the most answered at once
    lock: threading.Lock = field(default_factory=threading.Lock)

    def renew_quota(self) -> None:
        with self.lock:
            self.used.clear()

    @property
    def gerrit_repo(self) -> Path:
        return self.root / "gerrit.git"

    @property
    def github_repo(self) -> Path:
        return self.root / "github.git"

    @property
    def gitlab_repo(self) -> Path:
        return self.root / "gitlab.git"


def build_forge(root: Path, n_changes: int = 6, n_pulls: int = 4, long_pull: int = 0, n_mrs: int = 0,
                github_files: dict[str, str] | None = None) -> Forge:
    """Gerrit project ``demo/app`` and GitHub repo ``octo/demo`` with known rounds (see ``expected``), and
    GitLab project ``demo/gl`` with ``n_mrs`` merge requests (:func:`gitlab_forge.build_gitlab`).

    ``long_pull`` > 0 adds pull request ``n_pulls + 1`` with that many commits, each changing
    ``src/Long.java`` but the last; a reviewer commented on the third to last one (so the next commit
    that changed the file is not the head). ``github_files`` are more files of ``octo/demo``'s first commit
    (a LICENSE)."""
    forge = Forge(root)
    root.mkdir(parents=True, exist_ok=True)
    _build_gerrit(forge, n_changes)
    _build_github(forge, n_pulls, long_pull, github_files or {})
    if n_mrs:
        from gitlab_forge import build_gitlab  # it builds on this module

        build_gitlab(forge, n_mrs)
    return forge


def _account(aid: int) -> dict:
    name = "owner" if aid == OWNER_ID else "reviewer"
    return {"_account_id": aid, "name": name.title(), "email": f"{name}@example.org", "username": name}


def _build_gerrit(forge: Forge, n: int) -> None:
    rb = RepoBuilder(forge.gerrit_repo)
    files = {f"src/Foo{i}.java": java(f"Foo{i}", 1) for i in range(1, n + 1)}
    root = rb.commit("refs/heads/master", {**files, "README.md": "demo\n"})
    plan: dict[int, dict] = {}
    for i in range(1, n + 1):
        path = f"src/Foo{i}.java"
        ps1 = rb.commit(f"refs/changes/{i % 100:02d}/{i}/1", {path: java(f"Foo{i}", 2), "README.md": f"c{i}\n"}, root)
        if i % 6 == 2:  # renamed in patch set 2
            ps2_files = {path: None, f"src/Renamed{i}.java": java(f"Foo{i}", 2)}
        elif i % 6 == 3:  # deleted in patch set 2
            ps2_files = {path: None}
        else:
            ps2_files = {path: java(f"Foo{i}", 3)}
        ps2 = rb.commit(f"refs/changes/{i % 100:02d}/{i}/2", ps2_files, root)
        plan[i] = {"ps": [ps1, ps2], "path": path}
    shas = rb.finish()
    rows = 0
    for i, p in plan.items():
        revs = [shas[m] for m in p["ps"]]
        kind = i % 6
        if kind == 4:
            revs[1] = ghost_sha(f"gerrit-vanished-{i}")  # patch set 2 no longer exists anywhere
        if kind == 5:
            revs = revs[:1]  # a single patch set: no round
        updated = T0 + timedelta(minutes=i)
        change = {
            "id": f"demo%2Fapp~{i}", "triplet_id": f"demo%2Fapp~master~I{i:040x}", "project": "demo/app",
            "branch": "master",
            "change_id": f"I{i:040x}", "subject": f"Change {i}", "status": "NEW",
            "created": _gerrit_time(T0), "updated": _gerrit_time(updated), "_number": i,
            "owner": _account(OWNER_ID),
            "revisions": {sha: {"kind": "REWORK", "_number": k + 1, "created": _gerrit_time(T0 + timedelta(seconds=k)),
                                "uploader": _account(OWNER_ID), "ref": f"refs/changes/{i % 100:02d}/{i}/{k + 1}",
                                "files": {p["path"]: {"lines_inserted": 6, "lines_deleted": 6}}}
                          for k, sha in enumerate(revs)},
        }
        forge.gerrit_changes[i] = change
        reviewer_on_ps1 = kind != 0  # kind 0: only the owner commented -> no round
        comments = [
            {"id": f"c{i}a", "patch_set": 1, "line": 5, "message": "Rename x1?", "updated": _gerrit_time(updated),
             "author": _account(REVIEWER_ID if reviewer_on_ps1 else OWNER_ID), "unresolved": True,
             "range": {"start_line": 5, "start_character": 8, "end_line": 6, "end_character": 20}},
            {"id": f"c{i}b", "patch_set": 1, "line": 5, "in_reply_to": f"c{i}a", "message": "Done",
             "updated": _gerrit_time(updated + timedelta(seconds=1)), "author": _account(OWNER_ID), "unresolved": False},
            {"id": f"c{i}c", "patch_set": 2, "line": 2, "message": "LGTM", "updated": _gerrit_time(updated),
             "author": _account(REVIEWER_ID)},
        ]
        for comment in comments:  # a real Gerrit names the commit commented on
            comment["commit_id"] = shas[p["ps"][comment["patch_set"] - 1]]
        # and lists comments on the commit message and the patch set as a whole under these pseudo-paths
        forge.gerrit_comments[i] = {
            p["path"]: comments,
            "README.md": [{"id": f"r{i}", "patch_set": 1, "line": 1, "message": "typo", "commit_id": revs[0],
                           "updated": _gerrit_time(updated), "author": _account(REVIEWER_ID)}],
            "/COMMIT_MSG": [{"id": f"m{i}", "patch_set": 1, "line": 7, "message": "Say why", "commit_id": revs[0],
                             "updated": _gerrit_time(updated), "author": _account(REVIEWER_ID), "unresolved": True}],
            "/PATCHSET_LEVEL": [{"id": f"p{i}", "patch_set": 1, "message": "Close", "commit_id": revs[0],
                                 "updated": _gerrit_time(updated), "author": _account(REVIEWER_ID),
                                 "unresolved": False}]}
        if kind in (1, 2, 3):
            rows += 1
        elif kind == 4:
            forge.expected["gerrit_dropped"] = forge.expected.get("gerrit_dropped", 0) + 1
    forge.expected["gerrit_rows"] = rows


def _build_github(forge: Forge, n: int, long_pull: int = 0, files: dict[str, str] | None = None) -> None:
    rb = RepoBuilder(forge.github_repo)
    base = {f"src/A{k}.java": java(f"A{k}", 1) for k in range(1, n + 1)} | (files or {})
    base.update({f"src/B{k}.java": java(f"B{k}", 1) for k in range(1, n + 1)})
    root = rb.commit("refs/heads/main", base)
    plan = {}
    for k in range(1, n + 1):
        c1 = rb.commit(f"refs/pull/{k}/head", {f"src/A{k}.java": java(f"A{k}", 2), f"src/B{k}.java": java(f"B{k}", 2)}, root)
        c2 = rb.commit(f"refs/pull/{k}/head", {f"src/A{k}.java": java(f"A{k}", 3)}, c1)
        c3 = rb.commit(f"refs/pull/{k}/head", {"docs.md": f"pr {k}\n"}, c2)
        plan[k] = (c1, c2, c3)
    if long_pull:
        chain = [root]
        for i in range(1, long_pull + 1):
            change = {"src/Long.java": java("Long", i)} if i < long_pull else {"docs.md": "long\n"}
            chain.append(rb.commit(f"refs/pull/{n + 1}/head", change, chain[-1]))
        plan[n + 1] = tuple(chain[1:])
    shas = rb.finish()
    rows = 0
    for k, marks in plan.items():
        updated = T0 + timedelta(hours=k)
        forge.github_pulls[k] = github_pull(k, shas[marks[-1]], shas[root], updated)
        forge.github_commits[k] = github_commits([shas[mark] for mark in marks])

        def comment(cid: int, sha: str, path: str, login: str, line: int | None, reply: int | None = None,
                    outdated: bool = False) -> dict:
            return github_comment(cid, sha, path, login, line, updated, c3, reply, outdated)

        if k > n:  # the long pull request: one round, on its third to last commit
            forge.github_comments[k] = [comment(k * 100 + 1, shas[marks[-3]], "src/Long.java", "reviewer", 2)]
            rows += 1
            continue
        c1, c2, c3 = (shas[m] for m in marks)
        items = [comment(k * 100 + 1, c1, f"src/A{k}.java", "reviewer", 4),
                 comment(k * 100 + 2, c1, f"src/A{k}.java", "owner", 4, reply=k * 100 + 1),
                 comment(k * 100 + 3, c1, f"src/B{k}.java", "reviewer", 5),
                 comment(k * 100 + 4, c3, "docs.md", "reviewer", 1)]
        rows += 2
        if k == 2:  # a request on the pull request's last commit: nothing revised after it, no round
            items.append(comment(k * 100 + 6, c3, f"src/A{k}.java", "reviewer", 4))
            forge.expected["github_last_commit"] = [(str(k), f"src/A{k}.java", c3)]
        if k == 1:  # an outdated comment on a commit force-pushed away: read through the contents API
            ghost = ghost_sha("github-force-pushed")
            items.append(comment(k * 100 + 5, ghost, f"src/A{k}.java", "reviewer", 3, outdated=True))
            forge.contents[(ghost, f"src/A{k}.java")] = java(f"A{k}", 9)
            rows += 1
        forge.github_comments[k] = items
    forge.expected["github_rows"] = rows


# --- HTTP ---------------------------------------------------------------------------------------------
def _parse_gerrit_time(text: str) -> datetime:
    return datetime.fromisoformat(text[:23]).replace(tzinfo=timezone.utc)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body are two writes: Nagle + delayed ACK would add 40 ms
    forge: Forge

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def do_GET(self) -> None:  # noqa: N802
        forge = self.forge
        with forge.lock:
            forge.in_flight += 1
            forge.max_in_flight = max(forge.max_in_flight, forge.in_flight)
        self._pending = True
        try:
            time.sleep(forge.latency)
            self._answer()
        finally:
            self._answered()

    def do_POST(self) -> None:  # noqa: N802 - GitHub's GraphQL endpoint
        self._pending = False
        if urlsplit(self.path).path != "/github/graphql":
            return self._send(404, b'{"message": "Not Found"}')
        self.forge.log.append((self.path, dict(self.headers)))
        fault = next((f for f in self.forge.faults if f.match in self.path and f.times > 0), None)
        if fault:
            fault.times -= 1
        from github_graphql_forge import answer  # it builds on this module

        answer(self, fault)

    def _answered(self) -> None:
        """The request stops counting as in flight when its answer starts (the client cannot have it before)."""
        if self._pending:
            self._pending = False
            with self.forge.lock:
                self.forge.in_flight -= 1

    def _answer(self) -> None:
        forge = self.forge
        forge.log.append((self.path, dict(self.headers)))
        self._quota_headers: dict[str, str] = {}
        if forge.quota is not None and self._over_quota():
            return
        for hook in list(forge.hooks):
            hook(self.path)
        for key, seconds in forge.delay.items():
            if key in self.path:
                time.sleep(seconds)
        fault = next((f for f in forge.faults if f.match in self.path and f.times > 0), None)
        if fault:
            fault.times -= 1
        parts = urlsplit(self.path)
        path, query = unquote(parts.path), parse_qs(parts.query)
        if path.startswith("/gerrit/"):
            rest = path[len("/gerrit"):]
            self._gerrit(rest.removeprefix("/a"), query, fault, authenticated=rest.startswith("/a/"))
        elif path.startswith("/github/"):
            self._github(path[len("/github"):], query, fault)
        elif path.startswith("/gitlab/"):
            from gitlab_forge import answer

            answer(self, query, fault)
        else:
            self._send(404, b"not found", "text/plain")

    def _over_quota(self) -> bool:
        """Count the request on its token; past the quota, answer GitHub's 403 (counted in hits)."""
        forge, token = self.forge, self.headers.get("Authorization", "")
        with forge.lock:
            forge.used[token] += 1
            left = forge.quota - forge.used[token]
        self._quota_headers = {"X-RateLimit-Remaining": str(max(left, 0)),
                               "X-RateLimit-Reset": str(int(time.time()) + 3600)}
        if left >= 0:
            return False
        forge.hits["over_quota"] += 1
        self._send(403, b'{"message": "API rate limit exceeded"}', headers=self._quota_headers)
        return True

    # faults and framing
    def _send(self, status: int, body: bytes, ctype: str = "application/json; charset=utf-8",
              headers: dict[str, str] | None = None, fault: Fault | None = None) -> None:
        kind = fault.kind if fault else None
        if kind == "timeout":
            time.sleep(fault.value)
        if kind in ("429-gitlab", "429-gitlab-reset"):  # GitLab's RateLimit-* headers (user/gitlab_com "Rate
            status, ctype, body = 429, "text/plain", b"Retry later\n"  # limits"), with or without Retry-After
            headers = {"RateLimit-Limit": "2000", "RateLimit-Remaining": "0", "RateLimit-Observed": "2000",
                       "RateLimit-Reset": str(int(time.time() + fault.value))}
            if kind == "429-gitlab":
                headers["Retry-After"] = str(int(fault.value))
        elif kind in ("429", "429-reset", "429-date", "403-ratelimit", "500"):
            status = 500 if kind == "500" else (403 if kind == "403-ratelimit" else 429)
            headers = {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(int(time.time() + fault.value))} \
                if kind != "500" else {}
            if kind == "429":
                headers = {"Retry-After": str(int(fault.value))}
            if kind == "429-date":
                headers = {"Retry-After": email.utils.formatdate(time.time() + fault.value, usegmt=True)}
            body, ctype = b'{"message": "slow down"}', "application/json"
        elif kind == "403-secondary":  # GitHub's secondary rate limit: no rate-limit header at all
            status, headers, ctype = 403, {}, "application/json"
            body = b'{"message": "You have exceeded a secondary rate limit. Please wait a few minutes."}'
        elif kind == "401-echo":  # an error body quoting the credentials it was sent
            status, headers, ctype = 401, {}, "application/json"
            body = json.dumps({"message": f"Bad credentials: {self.headers.get('Authorization')}"}).encode()
        elif kind == "html":
            body, ctype = b"<html><body><h1>502 Bad Gateway</h1></body></html>", "text/html"
        elif kind == "truncated":
            body = body[: len(body) // 2]
        elif kind == "noprefix":
            body = body.removeprefix(b")]}'\n")
        elif kind == "wrongtype":
            body = b")]}'\n" + b'{"oops": 1}' if body.startswith(b")]}'") else b'{"oops": 1}'
        elif kind == "nofyi":
            headers = {k: v for k, v in (headers or {}).items() if k != "X-FYI-Content-Encoding"}
        self.forge.sent.append(dict(headers or {}))
        self._answered()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        if kind == "reset":
            self.send_header("Content-Length", str(len(body) + 100))
            self.end_headers()
            self.wfile.write(body[:10])
            self.wfile.flush()
            self.close_connection = True
            return
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    # Gerrit
    def _gerrit(self, path: str, query: dict, fault: Fault | None, authenticated: bool = False) -> None:
        forge = self.forge
        if path == "/changes/":
            forge.hits["gerrit_list"] += 1
            q = query.get("q", [""])[0]
            project = re.search(r"project:(\S+)", q).group(1)
            after = _parse_gerrit_time(re.search(r'after:"([^"]+)"', q).group(1))
            before = _parse_gerrit_time(re.search(r'before:"([^"]+)"', q).group(1))
            n = min(int(query.get("n", [forge.gerrit_query_limit])[0]), forge.gerrit_query_limit)
            start = int(query.get("S", ["0"])[0])

            def ms(c: dict) -> datetime:
                return _parse_gerrit_time(c["updated"])
            if project in forge.gerrit_ignores_bounds:
                after, before = datetime.min.replace(tzinfo=timezone.utc), datetime.max.replace(tzinfo=timezone.utc)
            found = sorted((c for c in forge.gerrit_changes.values()
                            if (c["project"] == project or forge.mirror) and after <= ms(c) <= before),
                           key=lambda c: (c["updated"], c["_number"]), reverse=True)
            page = [dict(c) for c in found[start:start + n]]
            for c in page:  # as the project asked for (the same as stored unless mirrored)
                c["project"] = project
                for key in ("id", "triplet_id"):
                    if key in c:
                        c[key] = c[key].replace("demo%2Fapp", project.replace("/", "%2F"))
            if start + n < len(found) and page:
                page[-1]["_more_changes"] = True
            return self._send(200, b")]}'\n" + json.dumps(page).encode(), fault=fault)
        m = re.fullmatch(r"/changes/(.+?)~(\d+)/comments", path)
        if m:
            forge.hits["gerrit_comments"] += 1
            data = forge.gerrit_comments.get(int(m.group(2)))
            if data is None:
                return self._send(404, b"Not found", "text/plain")
            return self._send(200, b")]}'\n" + json.dumps(data).encode(), fault=fault)
        m = re.fullmatch(r"/changes/(.+?)~(\d+)/robotcomments", path)
        if m:  # as a real 3.10: the change's robot comments by path, {} when there is none
            forge.hits["gerrit_robotcomments"] += 1
            if int(m.group(2)) not in forge.gerrit_comments:
                return self._send(404, b"Not found", "text/plain")
            data = forge.gerrit_robot_comments.get(int(m.group(2)), {})
            return self._send(200, b")]}'\n" + json.dumps(data).encode(), fault=fault)
        m = re.fullmatch(r"/changes/(.+?)~(\d+)/revisions/([0-9a-f]+)/files/(.+)/content", path)
        if m:
            forge.hits["gerrit_content"] += 1
            sha = m.group(3)
            text = forge.contents.get((sha, m.group(4)))
            if text is None and any(known == sha for known, _ in forge.contents):  # as a real Gerrit 3.10
                return self._send(404, b"Not Found\n", "text/plain")  # the revision lacks the file
            if text is None:  # a revision it does not know: hidden from anonymous users
                return self._send(404, f"Not found: {sha}\n".encode(), "text/plain") if authenticated \
                    else self._send(403, b"Authentication required\n", "text/plain")
            import base64
            data = text if isinstance(text, bytes) else text.encode()  # bytes: a file that is not UTF-8
            return self._send(200, base64.b64encode(data), "text/plain; charset=ISO-8859-1",
                              {"X-FYI-Content-Encoding": "base64"}, fault)
        self._send(404, b"Not found", "text/plain")

    # GitHub
    def _github(self, path: str, query: dict, fault: Fault | None) -> None:
        forge = self.forge
        per_page, page_no = int(query.get("per_page", ["30"])[0]), int(query.get("page", ["1"])[0])
        items: list | dict | None = None
        paged = True
        repo = re.match(r"/repos/([^/]+/[^/]+)/", path)
        if repo and (repo.group(1) == "octo/demo" or forge.mirror):
            path = path.replace(repo.group(1), "octo/demo", 1)
        if m := re.fullmatch(r"/repos/octo/demo/pulls", path):
            forge.hits["github_pulls"] += 1
            if repo.group(1) in forge.github_churning and page_no > 1:  # a pull request jumps to the top
                bumped = forge.github_pulls[1 + forge.hits["github_pulls"] % len(forge.github_pulls)]
                bumped["updated_at"] = _iso(T0 + timedelta(days=100 + forge.hits["github_pulls"]))
            items = sorted(forge.github_pulls.values(), key=lambda p: (p["updated_at"], p["number"]), reverse=True)
        elif m := re.fullmatch(r"/repos/octo/demo/pulls/(\d+)/comments", path):
            forge.hits["github_comments"] += 1
            items = forge.github_comments.get(int(m.group(1)))
        elif m := re.fullmatch(r"/repos/octo/demo/pulls/(\d+)/commits", path):
            forge.hits["github_commits"] += 1
            items = forge.github_commits.get(int(m.group(1)))
            items = items and items[:COMMITS_CAP]
        elif path == "/repos/octo/demo/license":
            forge.hits["github_license"] += 1
            items, paged = forge.github_license, False
        elif m := re.fullmatch(r"/repos/octo/demo/contents/(.+)", path):
            forge.hits["github_contents"] += 1
            text = forge.contents.get((query.get("ref", [""])[0], m.group(1)))
            if text is not None:
                import base64
                items = {"type": "file", "encoding": "base64", "path": m.group(1),
                         "content": base64.encodebytes(text if isinstance(text, bytes) else text.encode()).decode()}
            paged = False
        if items is None:
            return self._send(404, b'{"message": "Not Found"}')
        headers = {"X-RateLimit-Limit": "5000", "X-RateLimit-Remaining": str(max(0, 5000 - len(forge.log))),
                   "X-RateLimit-Reset": str(int(time.time()) + 3600), "X-RateLimit-Resource": "core",
                   "Vary": "Accept, Authorization, Cookie, X-GitHub-OTP, Accept-Encoding",
                   **self._quota_headers}
        if paged:
            total = len(items)
            items = items[(page_no - 1) * per_page: page_no * per_page]
            if page_no * per_page < total:
                host = self.headers.get("Host")
                path = path.replace("octo/demo", repo.group(1), 1) if repo else path
                rest = "&".join(f"{k}={v[0]}" for k, v in query.items() if k != "page")
                last = (total + per_page - 1) // per_page
                headers["Link"] = (f'<http://{host}/github{path}?{rest}&page={page_no + 1}>; rel="next", '
                                   f'<http://{host}/github{path}?{rest}&page={last}>; rel="last"')
        body = json.dumps(items).encode()
        etag = '"' + hashlib.sha1(body).hexdigest() + '"'
        headers["ETag"] = etag
        if self.headers.get("If-None-Match") == etag and not fault:
            forge.hits["github_304"] += 1
            self._answered()
            self.send_response(304)
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self._send(200, body, headers=headers, fault=fault)


class ForgeServer:
    """Serves a :class:`Forge` on 127.0.0.1 in a thread (use as a context manager)."""

    def __init__(self, forge: Forge):
        handler = type("Handler", (_Handler,), {"forge": forge})
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.forge = forge
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    @property
    def gerrit_url(self) -> str:
        return f"{self.url}/gerrit"

    @property
    def github_api(self) -> str:
        return f"{self.url}/github"

    @property
    def gitlab_url(self) -> str:
        return f"{self.url}/gitlab"

    def __enter__(self) -> "ForgeServer":
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
