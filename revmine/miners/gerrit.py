"""Gerrit: review rounds from the REST API (discussion) and ``refs/changes/*`` (contents).

Listing: ``/changes/?q=project:P after:"since" before:"hi"`` with ``ALL_REVISIONS`` and ``ALL_FILES``,
newest update first. Instead of offset paging (``S=``), which loses and repeats changes when the
"updated" order moves while we page, the window's upper bound is moved down to the oldest ``updated``
seen (keyset paging on time; bounds are inclusive, so changes are de-duplicated by number). Only
when more than a page of changes share one instant do we page by offset inside that instant. Some
servers ignore ``before:``/``after:`` and answer the same page whatever the bounds: after
:data:`~revmine.miners.base.STALL_LIMIT` pages in a row with no new change the listing fails
(:class:`~revmine.miners.base.ListingStalled`) rather than loop.

Rounds: patch set N of a change is a round when it has a successor N+1 and a reviewer other than the
owner commented on one of its files in a language mined (``languages``, Java by default). The row holds
those files at N and N+1 (and at N's parent, the change's base) and every comment on them at N (the owner's
replies too, flagged ``is_owner``). Reviewer comments on the last patch set make
no round (nothing was revised after them): each such file is recorded in the drops with the reason.
Requests: one comment listing per change with at least two patch sets (a change with one patch set
cannot have a round, so its comments are neither fetched nor counted), plus the listing pages shared by
up to ``page_size`` changes. The window is on a change's *last* update: a change updated after
``until`` is outside the run.

Who wrote each comment (human, bot, AI reviewer; :mod:`revmine.miners.authors`): the author's AccountInfo
``tags`` (``SERVICE_USER``: an account of the "Service Users" group; Gerrit sets ``tags`` on detailed account
information, which the comment endpoints give), the list of known accounts, and robot comments. Robot comments
live at their own endpoint (``GET /changes/{id}/robotcomments``) and are mined only when asked (``[job]
robot_comments = true``, ``--robot-comments true``): that is one request more per change with two patch sets or
more, doubling the per-change requests, for comments that are a bot's by definition and that the filter stage
drops by default. When asked, they are mined beside the others and recorded as ``bot`` with their ``robot_id``
(a 404, from a Gerrit without the endpoint, means none), so that the filter drops them with a reason and counts
them in "who commented"; a file with only robot comments then makes a round too.

With credentials, requests go to Gerrit's authenticated ``/a/`` paths on the wire only
(:meth:`~revmine.miners.http.Client.authenticate_under`): URLs in keys and messages stay the same. git
fetches from ``/a/`` too, with the HTTP password in a header (:meth:`git_auth_header`): anonymously a real
Gerrit advertises no ref of a change the account may see but anonymous users may not (a private change),
and would leave its contents to one content request per file.
Answers of the wrong shape raise :class:`~revmine.miners.http.MalformedResponse` naming the URL and
the field, and are evicted from the cache.
"""

from __future__ import annotations

import base64
from datetime import datetime, timedelta, timezone
from typing import Any, Iterator
from urllib.parse import quote

from ..lang.languages import DEFAULT_LANGUAGES
from .authors import Accounts, gerrit_author, robot_comment
from .base import Dropped, DropReason, Fallback, Mined, Miner, Progress, no_round, source_text
from .http import BadField, Client, RemoteError, host_of
from .rounds import ContentReader, Round, last_revision, parse_time, reads, round_rows, typed, typed_time

QUERY_OPTIONS = ("ALL_REVISIONS", "ALL_FILES", "DETAILED_ACCOUNTS")
REFSPECS = ["+refs/changes/*:refs/changes/*", "+refs/heads/*:refs/heads/*"]


def _fmt(t: datetime) -> str:
    """Gerrit's query time format (UTC, millisecond precision)."""
    return t.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


def _account(info: Any, listed: frozenset[str] = frozenset()) -> str | None:
    """The identity recorded for an AccountInfo: its username, else e-mail, else name, else id; but the one the
    opt-out list names (``listed``, lower-cased), if any, so that the miners leave the person out
    (:func:`revmine.miners.jobs._without`) whichever of their identities they listed."""
    if not isinstance(info, dict):
        return None
    known = [str(info[key]) for key in ("username", "email", "name", "_account_id") if info.get(key) is not None]
    return next((name for name in known if name.lower() in listed), known[0] if known else None)


class GerritMiner(Miner):
    """Lists a project's changes and turns each into review-round rows."""

    source = "gerrit"
    refspecs = REFSPECS

    def __init__(self, client: Client, url: str, project: str, since: datetime, until: datetime,
                 page_size: int = 100, languages: tuple[str, ...] = DEFAULT_LANGUAGES, robot_comments: bool = False,
                 accounts: Accounts | None = None, opted_out: frozenset[str] = frozenset()):
        self.client = client
        self.robot_comments = robot_comments
        self.accounts = accounts  # known bot and AI-reviewer accounts (None: the shipped list)
        self.opted_out = opted_out  # the opt-out list's identities (revmine.io.opt_out), lower-cased
        self.languages = languages
        self.url = url.rstrip("/")
        client.authenticate_under(f"{self.url}/", f"{self.url}/a/")
        self.host = host_of(url)
        self.project = project
        self.since, self.until = since, until
        self.page_size = page_size

    @property
    def default_clone_url(self) -> str:
        """Anonymous git is ``{url}/{project}``; with credentials ``{url}/a/{project}``, where Gerrit checks
        the HTTP password and advertises what the account may read (a private change's refs)."""
        return f"{self.url}{'/a' if self.client.credentials else ''}/{self.project}"

    def git_auth_header(self) -> str | None:
        credentials = self.client.credentials
        if not (credentials.user and credentials.password):
            return None
        token = base64.b64encode(f"{credentials.user}:{credentials.password}".encode("utf-8")).decode("ascii")
        return f"Authorization: Basic {token}"

    def key(self, change: dict) -> str:
        return str(change["_number"])

    def updated(self, change: dict) -> datetime | None:
        return parse_time(change.get("updated"), "updated")

    # --- listing ------------------------------------------------------------------------------------
    def _query(self, after: datetime, before: datetime, offset: int = 0) -> list[dict]:
        params: list[tuple[str, Any]] = [
            ("q", f'project:{self.project} after:"{_fmt(after)}" before:"{_fmt(before)}"'),
            ("n", self.page_size)]
        params += [("o", o) for o in QUERY_OPTIONS]
        if offset:
            params.append(("S", offset))
        page, response = self.client.get(f"{self.url}/changes/", params, expect=list)
        with self.client.validating(response):
            for change in page:
                self._check_change(change)
        return page

    @staticmethod
    def _check_change(change: Any) -> None:
        """Check the fields of a ChangeInfo that mining uses (:class:`BadField` otherwise)."""
        what = f"change {typed(change, '_number', int, 'a ChangeInfo', required=True)}"
        typed_time(change, "updated", what, required=True)
        typed(change, "change_id", str, what)
        owner = typed(change, "owner", dict, what)
        if owner is not None:
            typed(owner, "_account_id", int, f"{what}.owner")
        for sha, rev in (typed(change, "revisions", dict, what) or {}).items():
            typed(rev, "_number", int, f"{what} revision {sha}", required=True)
            typed_time(rev, "created", f"{what} revision {sha}")

    def list_changes(self) -> Iterator[dict]:
        """Every change updated in [since, until], once each, newest first."""
        seen: set[int] = set()
        progress = Progress(f"{self.url}/changes/ (project {self.project})")
        hi = self.until
        while True:
            page = self._query(self.since, hi)
            yield from progress.unseen(page, seen, "_number")
            if not page or not page[-1].get("_more_changes"):
                return
            oldest = self.updated(page[-1])
            if _fmt(oldest) < _fmt(hi):
                hi = oldest
                continue
            # more than a page at one instant: offsets are stable enough inside it
            offset = len(page)
            while page and page[-1].get("_more_changes"):
                page = self._query(hi, hi, offset)
                offset += len(page)
                yield from progress.unseen(page, seen, "_number")
            hi = hi - timedelta(milliseconds=1)
            if hi < self.since:
                return

    # --- one change ---------------------------------------------------------------------------------
    def _change_id(self, change: dict) -> str:
        return f"{quote(self.project, safe='')}~{change['_number']}"

    def fallback(self, change: dict) -> Fallback:
        """REST content endpoint for a revision git cannot reach.

        A real Gerrit (3.10, 3.13) answers a file the revision lacks (deleted, not yet added) with a 404
        whose text is "Not Found": the file is absent (None), as git would say. A revision it does not know
        is a 404 "Not found: <sha>", or to anonymous users a 403 "Authentication required" (Gerrit hides
        what they may not see): the round is dropped as unreachable."""
        def read(sha: str, path: str) -> str | None:
            url = (f"{self.url}/changes/{self._change_id(change)}/revisions/{sha}/files/"
                   f"{quote(path, safe='')}/content")
            try:
                response = self.client.get(url, expect=str)[1]  # the text is decoded with replacement: not used
                return source_text(base64.b64decode(b"".join(response.content.split())), f"{path} at {sha}")
            except RemoteError as exc:
                if exc.status == 404 and sha not in exc.detail:
                    return None
                if exc.status in (403, 404, 504):  # 504: not in the cache when offline
                    raise Dropped(DropReason.UNREACHABLE, f"revision {sha} is gone from git and from the content "
                                  f"endpoint ({exc.status})") from None
                raise
        return read

    def rounds(self, change: dict, content: ContentReader) -> Mined:
        """Rows of every round of ``change`` (see the module docstring for what a round is)."""
        by_number = {rev["_number"]: (sha, rev) for sha, rev in (change.get("revisions") or {}).items()}
        if not any(n + 1 in by_number for n in by_number):
            return Mined()  # a single patch set cannot be a round: no need to ask for its comments
        url = f"{self.url}/changes/{self._change_id(change)}/comments"
        comments, response = self.client.get(url, expect=dict, fresh_after=self.updated(change))
        owner = change.get("owner") or {}
        grouped: dict[int, dict[str, list[dict]]] = {}
        reviewed: set[int] = set()
        for listing, answer, robots in ((comments, response, False), *self._robot_comments(change)):
            with self.client.validating(answer):
                for path in listing:
                    items = typed(listing, path, list, "the comments", required=True)
                    if not reads(path, self.languages):
                        continue
                    for item in items:
                        comment, patch_set = self._comment(item, path, owner, robots, self.accounts, self.opted_out)
                        grouped.setdefault(patch_set, {}).setdefault(path, []).append(comment)
                        if not comment["is_owner"]:
                            reviewed.add(patch_set)
        mined = Mined()
        key = self.key(change)
        for n in sorted(reviewed):
            paths = {p: cs for p, cs in grouped[n].items() if any(not c["is_owner"] for c in cs)}
            if n not in by_number:
                mined += no_round(DropReason.UNKNOWN_REVISION, f"patch set {n} is not among the change's revisions",
                                  key, paths)
            elif n + 1 not in by_number:
                mined += last_revision(key, paths, by_number[n][0])
            else:
                (before, rev), (after, _) = by_number[n], by_number[n + 1]
                rnd = Round(self.source, self.host, self.project, key, change.get("change_id"),
                            n, before, after, _account(owner, self.opted_out), parse_time(rev.get("created"), "created"),
                            self.updated(change), f"{before}^", self.languages)
                mined += round_rows(rnd, paths, content)
        return mined

    def _robot_comments(self, change: dict) -> list[tuple[dict, Any, bool]]:
        """The change's robot comments (``GET /changes/{id}/robotcomments``, same shape as the comments plus
        ``robot_id``), as [(listing, response, True)]; none when not asked, or where the server answers 404 (a
        server without the endpoint)."""
        if not self.robot_comments:
            return []
        url = f"{self.url}/changes/{self._change_id(change)}/robotcomments"
        try:
            listing, response = self.client.get(url, expect=dict, fresh_after=self.updated(change))
        except RemoteError as exc:
            if exc.status == 404:
                return []
            raise
        return [(listing, response, True)]

    @staticmethod
    def _comment(item: Any, path: str, owner: dict, robot: bool = False,
                 accounts: Accounts | None = None, listed: frozenset[str] = frozenset()) -> tuple[dict, int]:
        """A CommentInfo (or RobotCommentInfo) as a ``COMMENT_TYPE`` dict and its patch set (fields checked:
        :class:`BadField`)."""
        what = f"{'robot ' if robot else ''}comment {typed(item, 'id', str, f'a comment on {path!r}', required=True)!r}"
        patch_set = typed(item, "patch_set", int, what, required=True)
        rng = typed(item, "range", dict, what) or {}
        line = typed(item, "line", int, what)
        author = typed(item, "author", dict, what) or {}
        author_id = typed(author, "_account_id", int, f"{what}.author")
        tags = typed(author, "tags", list, f"{what}.author")
        if tags is not None and not all(isinstance(tag, str) for tag in tags):
            raise BadField(f"{what}.author: tags holds a non-string")
        kind, evidence = (robot_comment(author, typed(item, "robot_id", str, what), accounts) if robot
                          else gerrit_author(author, accounts))

        def span(key: str) -> int | None:
            return typed(rng, key, int, f"{what}.range")
        return {
            "id": item["id"], "author": _account(author, listed),
            "is_owner": author_id is not None and author_id == owner.get("_account_id"),
            "path": path, "side": typed(item, "side", str, what) or "REVISION", "line": line,
            "start_line": span("start_line") or line, "end_line": span("end_line") or line,
            "start_character": span("start_character"), "end_character": span("end_character"),
            "message": typed(item, "message", str, what), "in_reply_to": typed(item, "in_reply_to", str, what),
            "created": typed_time(item, "updated", what), "unresolved": typed(item, "unresolved", bool, what),
            "outdated": False, "author_kind": kind, "author_evidence": evidence,
        }, patch_set
