"""GitLab: review rounds from a merge request's diff versions and its discussions' diff notes.

Any instance (``url``, e.g. ``https://gitlab.com`` or ``https://gitlab.gnome.org``), API v4 under
``{url}/api/v4``; the project is ``group/subgroup/name`` (sent URL-encoded) or its numeric id.

Listing: ``/projects/:id/merge_requests?state=all&order_by=updated_at&sort=desc`` bounded by
``updated_after=since`` and ``updated_before=hi``, where ``hi`` starts at ``until`` (none when the user gave
none, as on GitHub: the first page's URL is then the same in every run, so a replay finds it) and then moves
down to the oldest ``updated_at`` of the page read (plus a millisecond: GitLab prints milliseconds and keeps
microseconds, and both bounds are inclusive), de-duplicating by ``iid``: each page is a fresh query, so a
merge request updated while we list moves above the pages still to read instead of shifting an offset
page under us (the listing of :mod:`revmine.miners.gerrit`); it is listed by the next run. Only a full page
updated within one millisecond needs offsets (``page=2``, ...); a server ignoring the bounds stalls the listing
(:class:`~revmine.miners.base.ListingStalled`). Listing pages are revalidated (``If-None-Match``), as GitHub's.
The window is on a merge request's *last* update.

Rounds: GitLab keeps every push to a merge request as a diff *version* (``GET .../versions``, newest first:
``head_commit_sha``, ``base_commit_sha`` (the merge base), ``start_commit_sha`` (the target branch then)).
Version k (1-based, oldest first) is round k: its head, the next version's head, and the reviewer diff
notes whose ``position.head_sha`` is version k's head (GitLab moves a note's position to each new version
where its line is unchanged, and leaves it on the last version where it was when the line changed: so
``position`` names the version after which the commented code was revised, and its lines are that
version's). ``position``: ``new_line`` only is an added line, ``old_line`` only a deleted one (side ``LEFT``,
a line of the base ``position.base_sha``), both an unchanged one; ``line_range.start``/``end`` give a
multi-line note's first and last lines on the note's side (a range starting on a deleted line while the note
is on an added one takes the start's new-file number from its ``line_code``, ``<sha1(path)>_<old>_<new>``,
which GitLab sets on both sides); ``old_path``/``new_path`` differ on a renamed file (the row is on
``new_path``, the path in the version's head). A note on a version that is no longer listed is an
``unknown_revision`` drop; on the last version, ``last_revision``. System notes ("added 1 commit", "changed
this line in version 2") are GitLab's, not a reviewer's: skipped, as are image notes and notes outside a
diff. The author's own notes are kept, flagged ``is_owner``, and make no round alone. A resolvable note's
``unresolved`` is its thread's state (resolved threads are kept, as Gerrit's resolved comments are); a note
is ``outdated`` when its position is not on the merge request's current head. Replies point to the thread's
first note (``in_reply_to``).
Requests: the discussions, then the versions only when a reviewer wrote a diff note on a file in a language
mined (<= 2 per merge request plus pagination).

Contents come from git: ``refs/merge-requests/*/head`` and the branches in one clone, then every version's
head, base and start commits not brought by those refs (force-pushed versions, which GitLab keeps) in one
fetch by sha. What git cannot reach is read from ``GET /projects/:id/repository/files/:path?ref=`` (the JSON
form, base64 as GitHub's contents; the raw form's bytes would be parsed as JSON), counted as a fallback:
"404 File Not Found" is a file the commit lacks, any other 404 (``Commit Not Found``) drops the round.

Who wrote each note (:mod:`revmine.miners.authors`): ``bot: true`` on the author, the user names of project
and group access tokens' bot users, and the list of known accounts.
Credentials (:func:`~revmine.miners.http.credentials_from_env`): personal, project and group access tokens
go in ``PRIVATE-TOKEN``, OAuth tokens as ``Bearer``; without one, public projects are read anonymously.
git gets the token in a header as user ``oauth2``, which GitLab accepts for both kinds.
"""

from __future__ import annotations

import base64
import re
from datetime import datetime, timedelta, timezone
from typing import Any, Iterator
from urllib.parse import quote

from ..lang.languages import DEFAULT_LANGUAGES
from .authors import Accounts, gitlab_author
from .base import DropReason, Fallback, Mined, Miner, Progress, no_round
from .http import Client, MalformedResponse, host_of
from .rounds import (ContentReader, Round, base64_contents, last_revision, parse_time, reads, round_rows, typed,
                     typed_time)

REFSPECS = ["+refs/merge-requests/*/head:refs/merge-requests/*/head", "+refs/heads/*:refs/heads/*"]
DEFAULT_URL = "https://gitlab.com"
MS = timedelta(milliseconds=1)
#: a diff note's line code: sha1 of the path, the old line, the new line (0 or empty when there is none)
LINE_CODE = re.compile(r"[0-9a-f]{40}_(\d*)_(\d*)")


def _fmt(t: datetime) -> str:
    """GitLab's time format (ISO 8601, UTC, milliseconds)."""
    return t.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


class GitLabMiner(Miner):
    """Lists a project's merge requests and turns each into review-round rows."""

    source = "gitlab"
    refspecs = REFSPECS

    def __init__(self, client: Client, url: str, project: str, since: datetime | None, until: datetime | None,
                 page_size: int = 100, languages: tuple[str, ...] = DEFAULT_LANGUAGES,
                 accounts: Accounts | None = None):
        self.client = client
        self.languages = languages
        self.accounts = accounts  # known bot and AI-reviewer accounts (None: the shipped list)
        self.url = url.rstrip("/")
        self.api = f"{self.url}/api/v4/projects/{quote(project, safe='')}"
        self.host = host_of(self.url)
        self.project = project
        self.since, self.until = since, until
        self.page_size = page_size

    @property
    def default_clone_url(self) -> str:
        """``{url}/{group/name}.git``; a numeric id asks the project for its ``http_url_to_repo``."""
        if not self.project.isdigit():
            return f"{self.url}/{self.project}.git"
        body, response = self.client.get(self.api, expect=dict)
        with self.client.validating(response):
            return typed(body, "http_url_to_repo", str, f"project {self.project}", required=True)

    def git_auth_header(self) -> str | None:
        tokens = self.client.credentials.tokens
        if not tokens:
            return None
        return "Authorization: Basic " + base64.b64encode(f"oauth2:{tokens[0]}".encode("utf-8")).decode("ascii")

    def key(self, mr: dict) -> str:
        return str(mr["iid"])

    def updated(self, mr: dict) -> datetime:
        return parse_time(mr["updated_at"])  # checked by _merge_request

    # --- listing ------------------------------------------------------------------------------------
    def _query(self, hi: datetime | None, page: int = 1) -> list[dict]:
        params: dict[str, Any] = {"state": "all", "order_by": "updated_at", "sort": "desc",
                                  "per_page": self.page_size}
        if self.since:
            params["updated_after"] = _fmt(self.since)
        if hi:
            params["updated_before"] = _fmt(hi)
        if page > 1:
            params["page"] = page
        items, response = self.client.get(f"{self.api}/merge_requests", params, expect=list, revalidate=True)
        with self.client.validating(response):
            return [self._merge_request(item) for item in items]

    def list_changes(self) -> Iterator[dict]:
        """Every merge request updated in [since, until], once each, newest first (module docstring)."""
        seen: set[int] = set()
        progress = Progress(f"{self.api}/merge_requests")
        hi, page_no = self.until, 1
        while True:
            page = self._query(hi, page_no)
            yield from progress.unseen(page, seen, "iid")
            if len(page) < self.page_size:
                return
            lower = min(self.updated(mr) for mr in page) + MS
            if hi is None or lower < hi:
                hi, page_no = lower, 1
            else:  # a full page within one millisecond: offsets inside it
                page_no += 1

    @staticmethod
    def _merge_request(item: Any) -> dict:
        """A listed merge request, its fields checked (:class:`BadField` otherwise)."""
        what = f"merge request {typed(item, 'iid', int, 'a merge request', required=True)}"
        typed_time(item, "updated_at", what, required=True)
        typed_time(item, "created_at", what)
        typed(item, "id", int, what)
        typed(item, "sha", str, what)
        author = typed(item, "author", dict, what)
        if author is not None:
            typed(author, "id", int, f"{what}.author")
            typed(author, "username", str, f"{what}.author")
        return item

    # --- one merge request --------------------------------------------------------------------------
    def fallback(self, mr: dict) -> Fallback:
        """The repository files API for a commit git cannot reach (see the module docstring)."""
        def read(sha: str, path: str) -> str | None:
            return base64_contents(self.client, f"{self.api}/repository/files/{quote(path, safe='')}", sha, path,
                                   "repository files API", absent="File Not Found")
        return read

    def rounds(self, mr: dict, content: ContentReader) -> Mined:
        """Rows of every round of ``mr`` (see the module docstring for what a round is)."""
        iid, updated = mr["iid"], self.updated(mr)
        base = f"{self.api}/merge_requests/{iid}"
        author = mr.get("author") or {}
        owner_id = author.get("id")
        notes: list[tuple[dict, str]] = []
        for page, response in self._pages(f"{base}/discussions", updated):
            with self.client.validating(response):
                for discussion in page:
                    notes += [n for n in self._notes(discussion, owner_id, mr.get("sha"), self.accounts)
                              if reads(n[0]["path"], self.languages)]
        if all(note["is_owner"] for note, _ in notes):
            return Mined()
        versions = self._versions(base, updated)
        heads = [v["head_commit_sha"] for v in versions]
        order = {sha: k + 1 for k, sha in reversed(list(enumerate(heads)))}  # a head listed twice: its first
        content.check(sha for v in versions for sha in (v["head_commit_sha"], v["base_commit_sha"],
                                                         v["start_commit_sha"]) if sha)
        grouped: dict[str, dict[str, list[dict]]] = {}
        for note, sha in notes:
            grouped.setdefault(sha, {}).setdefault(note["path"], []).append(note)
        mined, key = Mined(), str(iid)
        for sha in sorted(grouped, key=lambda s: (order.get(s, len(heads) + 1), s)):
            paths = {p: ns for p, ns in grouped[sha].items() if not all(n["is_owner"] for n in ns)}
            k = order.get(sha)
            if k is None:
                mined += no_round(DropReason.UNKNOWN_REVISION, f"diff version head {sha} is not among the merge "
                                  "request's versions", key, paths)
            elif k == len(heads):
                mined += last_revision(key, paths, sha)
            else:
                version = versions[k - 1]
                rnd = Round(self.source, self.host, self.project, key, None if mr.get("id") is None else str(mr["id"]),
                            k, sha, heads[k], author.get("username"), parse_time(version.get("created_at")),
                            updated, version.get("base_commit_sha"), self.languages)
                mined += round_rows(rnd, paths, content)
        return mined

    def _pages(self, url: str, updated: datetime) -> Iterator[tuple[list, Any]]:
        return self.client.get_pages(url, {"per_page": self.page_size}, fresh_after=updated)

    def _versions(self, base: str, updated: datetime) -> list[dict]:
        """The merge request's diff versions, oldest first (fields checked)."""
        versions = []
        for page, response in self._pages(f"{base}/versions", updated):
            with self.client.validating(response):
                for item in page:
                    what = f"diff version {typed(item, 'id', int, 'a diff version', required=True)}"
                    typed(item, "head_commit_sha", str, what, required=True)
                    typed(item, "base_commit_sha", str, what)
                    typed(item, "start_commit_sha", str, what)
                    typed_time(item, "created_at", what)
                    versions.append(item)
        if not versions:
            raise MalformedResponse(f"{base}/versions", "merge request with diff notes has no diff version")
        return sorted(versions, key=lambda v: v["id"])

    @staticmethod
    def _notes(discussion: Any, owner_id: int | None, head: str | None,
               accounts: Accounts | None = None) -> list[tuple[dict, str]]:
        """A discussion's diff notes as ``COMMENT_TYPE`` dicts with the version head each is on (fields
        checked: :class:`BadField`)."""
        what = f"discussion {typed(discussion, 'id', str, 'a discussion', required=True)!r}"
        items = typed(discussion, "notes", list, what) or []
        resolvable = [n for n in items if isinstance(n, dict) and n.get("resolvable") is True]
        resolved = all(n.get("resolved") is True for n in resolvable)
        out: list[tuple[dict, str]] = []
        first: str | None = None
        for item in items:
            note = f"note {typed(item, 'id', int, f'a note of {what}', required=True)}"
            position = typed(item, "position", dict, note)
            if typed(item, "system", bool, note) or position is None:
                continue
            where = f"{note}.position"
            if typed(position, "position_type", str, where) == "image":
                continue
            sha = typed(position, "head_sha", str, where, required=True)
            path = typed(position, "new_path", str, where) or typed(position, "old_path", str, where, required=True)
            typed(position, "old_path", str, where)
            new, old = typed(position, "new_line", int, where), typed(position, "old_line", int, where)
            side = "LEFT" if new is None and old is not None else "RIGHT"
            line = old if side == "LEFT" else new
            span = typed(position, "line_range", dict, where) or {}
            user = typed(item, "author", dict, note)
            author_id = typed(user or {}, "id", int, f"{note}.author")
            kind, evidence = gitlab_author(user, accounts)
            ident = str(item["id"])
            out.append(({
                "id": ident, "author": typed(user or {}, "username", str, f"{note}.author"),
                "is_owner": author_id is not None and author_id == owner_id, "path": path, "side": side,
                "line": line, "start_line": _range_line(span, "start", side, where) or line,
                "end_line": _range_line(span, "end", side, where) or line,
                "start_character": None, "end_character": None, "message": typed(item, "body", str, note),
                "in_reply_to": first, "created": typed_time(item, "created_at", note),
                "unresolved": (not resolved) if typed(item, "resolvable", bool, note) else None,
                "outdated": head is not None and sha != head, "author_kind": kind, "author_evidence": evidence,
            }, sha))
            first = first or ident
        return out


def _range_line(span: dict, end: str, side: str, where: str) -> int | None:
    """The line of ``line_range[end]`` on ``side``; where that end has none (a range from a deleted line to an
    added one), its number on that side from its ``line_code``."""
    point = typed(span, end, dict, f"{where}.line_range")
    if point is None:
        return None
    what = f"{where}.line_range.{end}"
    line = typed(point, "new_line" if side == "RIGHT" else "old_line", int, what)
    if line is not None:
        return line
    code = LINE_CODE.fullmatch(typed(point, "line_code", str, what) or "")
    number = int(code.group(2 if side == "RIGHT" else 1) or 0) if code else 0
    return number or None  # 0: the line code has no line on that side either
