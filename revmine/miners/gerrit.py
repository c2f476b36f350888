"""Gerrit: review rounds from the REST API (discussion) and ``refs/changes/*`` (contents).

Listing: ``/changes/?q=project:P after:"since" before:"hi"`` with ``ALL_REVISIONS`` and ``ALL_FILES``,
newest update first. Instead of offset paging (``S=``), which loses and repeats changes when the
"updated" order moves while we page, the window's upper bound is moved down to the oldest ``updated``
seen (keyset paging on time; bounds are inclusive, so changes are de-duplicated by number). Only
when more than a page of changes share one instant do we page by offset inside that instant.

Rounds: patch set N of a change is a round when it has a successor N+1 and a reviewer other than the
owner commented on one of its Java files. The row holds those files at N and N+1 and every comment
on them at N (the owner's replies too, flagged ``is_owner``). Requests: one comment listing per change
with at least two patch sets, plus the listing pages shared by up to ``page_size`` changes.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any, Iterator
from urllib.parse import quote, urlsplit

from .http import Client, MalformedResponse, RemoteError
from .rounds import ContentReader, Dropped, Fallback, Round, is_java, parse_time, round_rows

QUERY_OPTIONS = ("ALL_REVISIONS", "ALL_FILES", "DETAILED_ACCOUNTS")
REFSPECS = ["+refs/changes/*:refs/changes/*", "+refs/heads/*:refs/heads/*"]


def _fmt(t: datetime) -> str:
    """Gerrit's query time format (UTC, millisecond precision)."""
    return t.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


def _account(info: Any) -> str | None:
    if not isinstance(info, dict):
        return None
    for key in ("username", "email", "name", "_account_id"):
        if info.get(key) is not None:
            return str(info[key])
    return None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class GerritMiner:
    """Lists a project's changes and turns each into review-round rows."""

    source = "gerrit"
    refspecs = REFSPECS

    def __init__(self, client: Client, url: str, project: str, since: datetime, until: datetime,
                 page_size: int = 100):
        self.client = client
        self.base = url.rstrip("/") + ("/a" if client.credentials else "")
        self.url = url.rstrip("/")
        self.host = urlsplit(url).netloc
        self.project = project
        self.since, self.until = since, until
        self.page_size = page_size

    @property
    def default_clone_url(self) -> str:
        return f"{self.url}/{self.project}"

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
        page, response = self.client.get(f"{self.base}/changes/", params, expect=list)
        for change in page:
            if not isinstance(change, dict) or _int(change.get("_number")) is None or "updated" not in change:
                self.client.evict(response)
                raise MalformedResponse(response.url, "a ChangeInfo lacks _number or updated")
        return page

    def list_changes(self) -> Iterator[dict]:
        """Every change updated in [since, until], once each, newest first."""
        seen: set[int] = set()
        hi = self.until
        while True:
            page = self._query(self.since, hi)
            yield from self._unseen(page, seen)
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
                yield from self._unseen(page, seen)
            hi = hi - timedelta(milliseconds=1)
            if hi < self.since:
                return

    @staticmethod
    def _unseen(page: list[dict], seen: set[int]) -> Iterator[dict]:
        for change in page:
            if change["_number"] not in seen:
                seen.add(change["_number"])
                yield change

    # --- one change ---------------------------------------------------------------------------------
    def _change_id(self, change: dict) -> str:
        return f"{quote(self.project, safe='')}~{change['_number']}"

    def fallback(self, change: dict) -> Fallback:
        """REST content endpoint for a revision git cannot reach (a 404 drops the round)."""
        def read(sha: str, path: str) -> str | None:
            url = (f"{self.base}/changes/{self._change_id(change)}/revisions/{sha}/files/"
                   f"{quote(path, safe='')}/content")
            try:
                return self.client.get(url, expect=str)[0]
            except RemoteError as exc:
                if exc.status in (404, 504):  # 504: not in the cache when offline
                    raise Dropped(f"revision {sha} is gone from git and from the content endpoint ({exc.status})") from None
                raise
        return read

    def rounds(self, change: dict, content: ContentReader, drops: list[dict]) -> list[dict]:
        """Rows of every round of ``change`` (see the module docstring for what a round is)."""
        revisions = change.get("revisions") or {}
        by_number = {rev["_number"]: (sha, rev) for sha, rev in revisions.items()
                     if isinstance(rev, dict) and _int(rev.get("_number")) is not None}
        if not any(n + 1 in by_number for n in by_number):
            return []  # a single patch set cannot be a round: no need to ask for its comments
        url = f"{self.base}/changes/{self._change_id(change)}/comments"
        comments, response = self.client.get(url, expect=dict, fresh_after=self.updated(change))
        owner = change.get("owner") or {}
        grouped: dict[int, dict[str, list[dict]]] = {}
        reviewed: set[int] = set()
        for path, items in comments.items():
            if not isinstance(items, list):
                self.client.evict(response)
                raise MalformedResponse(response.url, f"comments of {path!r} are not a list")
            if not is_java(path):
                continue
            for item in items:
                if not isinstance(item, dict) or _int(item.get("patch_set")) is None:
                    self.client.evict(response)
                    raise MalformedResponse(response.url, f"a CommentInfo of {path!r} lacks patch_set")
                comment = self._comment(item, path, owner)
                grouped.setdefault(item["patch_set"], {}).setdefault(path, []).append(comment)
                if not comment["is_owner"]:
                    reviewed.add(item["patch_set"])
        rows: list[dict] = []
        for n in sorted(reviewed):
            if n + 1 not in by_number or n not in by_number:
                continue
            (before, rev), (after, _) = by_number[n], by_number[n + 1]
            rnd = Round(self.source, self.host, self.project, str(change["_number"]), change.get("change_id"),
                        n, before, after, _account(owner), parse_time(rev.get("created"), "created"),
                        self.updated(change))
            paths = {p: cs for p, cs in grouped[n].items() if any(not c["is_owner"] for c in cs)}
            rows += round_rows(rnd, paths, content, drops)
        return rows

    @staticmethod
    def _comment(item: dict, path: str, owner: dict) -> dict:
        rng = item.get("range") if isinstance(item.get("range"), dict) else {}
        line = _int(item.get("line"))
        author = item.get("author") or {}
        return {
            "id": str(item.get("id")), "author": _account(author),
            "is_owner": author.get("_account_id") is not None and author.get("_account_id") == owner.get("_account_id"),
            "path": path, "side": item.get("side", "REVISION"), "line": line,
            "start_line": _int(rng.get("start_line")) or line, "end_line": _int(rng.get("end_line")) or line,
            "start_character": _int(rng.get("start_character")), "end_character": _int(rng.get("end_character")),
            "message": item.get("message"), "in_reply_to": item.get("in_reply_to"),
            "created": parse_time(item.get("updated"), "updated"), "unresolved": item.get("unresolved"),
            "outdated": False,
        }
