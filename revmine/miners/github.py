"""GitHub: review rounds from pull-request review comments (discussion) and ``refs/pull/*/head``.

Listing: ``/repos/{o}/{r}/pulls?state=all&sort=updated&direction=desc`` following ``Link`` pages and
stopping at the first pull request updated before ``since``. Newest-first is the order that only
*repeats* (never skips) an entry when a pull request is updated while we page; repeats are dropped by
number. The first page is revalidated (``If-None-Match``) so a later run sees new activity.

Rounds: a review comment is anchored on ``original_commit_id`` / ``original_line`` (outdated comments
keep these anchors and are flagged ``outdated``). The round of commit C is C (round = its 1-based
position among the pull request's commits) and, per file, the next commit of the pull request that
changed that file, else the pull request's final head. A commented commit that is no longer in the
pull request (force-pushed) gets a round number after the listed commits, its content is read from
the REST contents endpoint when git cannot reach it (counted), and the round is dropped if that fails.
Requests: comments, then commits only when a reviewer commented on a Java file (<= 2 per pull request
plus pagination).
"""

from __future__ import annotations

import base64
import binascii
from datetime import datetime
from typing import Any, Iterator
from urllib.parse import quote, urlsplit

from .http import Client, MalformedResponse, RemoteError
from .rounds import ContentReader, Dropped, Fallback, Round, is_java, parse_time, round_rows

REFSPECS = ["+refs/pull/*/head:refs/pull/*/head", "+refs/heads/*:refs/heads/*"]
DEFAULT_API = "https://api.github.com"


def _login(user: Any) -> str | None:
    return user.get("login") if isinstance(user, dict) else None


class GitHubMiner:
    """Lists a repository's pull requests and turns each into review-round rows."""

    source = "github"
    refspecs = REFSPECS

    def __init__(self, client: Client, repo: str, since: datetime | None, until: datetime | None,
                 api_url: str = DEFAULT_API, page_size: int = 100):
        if repo.count("/") != 1 or not all(repo.split("/")):
            raise ValueError(f"repository must be OWNER/NAME, not {repo!r}")
        self.client = client
        self.project = repo
        self.api = api_url.rstrip("/")
        netloc = urlsplit(self.api).netloc
        self.host = "github.com" if netloc == "api.github.com" else netloc
        self.since, self.until = since, until
        self.page_size = page_size

    @property
    def default_clone_url(self) -> str:
        scheme = urlsplit(self.api).scheme or "https"
        return f"{scheme}://{self.host}/{self.project}.git"

    def key(self, pull: dict) -> str:
        return str(pull["number"])

    def updated(self, pull: dict) -> datetime | None:
        return parse_time(pull.get("updated_at"), "updated_at")

    def _pages(self, url: str, **kwargs: Any) -> Iterator[list]:
        return self.client.get_pages(url, {"per_page": self.page_size}, **kwargs)

    def list_changes(self) -> Iterator[dict]:
        """Every pull request updated in [since, until], once each, newest first."""
        seen: set[int] = set()
        url = f"{self.api}/repos/{self.project}/pulls?state=all&sort=updated&direction=desc"
        for i, page in enumerate(self._pages(url, revalidate=True)):
            for pull in page:
                if not isinstance(pull, dict) or not isinstance(pull.get("number"), int):
                    raise MalformedResponse(url, f"page {i + 1}: a pull request lacks its number")
                updated = self.updated(pull)
                if self.since and updated and updated < self.since:
                    return
                if (self.until and updated and updated > self.until) or pull["number"] in seen:
                    continue
                seen.add(pull["number"])
                yield pull

    def fallback(self, pull: dict) -> Fallback:
        """REST contents endpoint for a commit git cannot reach (a 404 drops the round)."""
        def read(sha: str, path: str) -> str | None:
            url = f"{self.api}/repos/{self.project}/contents/{quote(path)}"
            try:
                body, response = self.client.get(url, {"ref": sha}, expect=dict)
            except RemoteError as exc:
                if exc.status in (404, 504):  # 504: not in the cache when offline
                    raise Dropped(f"commit {sha} is gone from git and from the contents API ({exc.status})") from None
                raise
            try:
                return base64.b64decode(body.get("content") or "").decode("utf-8", "replace")
            except (binascii.Error, ValueError):
                self.client.evict(response)
                raise MalformedResponse(response.url, "content is not valid base64") from None
        return read

    def rounds(self, pull: dict, content: ContentReader, drops: list[dict]) -> list[dict]:
        """Rows of every round of ``pull`` (see the module docstring for what a round is)."""
        number, updated = pull["number"], self.updated(pull)
        base = f"{self.api}/repos/{self.project}/pulls/{number}"
        owner = _login(pull.get("user"))
        comments = [self._comment(c, owner, base) for page in self._pages(f"{base}/comments", fresh_after=updated)
                    for c in page if is_java(c.get("path") if isinstance(c, dict) else None)]
        if not any(not c["is_owner"] for c, _ in comments):
            return []
        commits = [c.get("sha") for page in self._pages(f"{base}/commits", fresh_after=updated) for c in page
                   if isinstance(c, dict)]
        head = (pull.get("head") or {}).get("sha") or (commits[-1] if commits else None)
        if head is None:
            raise MalformedResponse(f"{base}/commits", "pull request has no commits and no head sha")
        order = {sha: i + 1 for i, sha in enumerate(commits)}
        unlisted = sorted({sha for _, sha in comments if sha not in order},
                          key=lambda s: (min(c["created"].timestamp() if c["created"] else 0.0
                                             for c, x in comments if x == s), s))
        order.update({sha: len(commits) + 1 + i for i, sha in enumerate(unlisted)})
        grouped: dict[str, dict[str, list[dict]]] = {}
        for comment, sha in comments:
            grouped.setdefault(sha, {}).setdefault(comment["path"], []).append(comment)
        reviewed = sorted(((sha, path) for sha, by_path in grouped.items() for path, items in by_path.items()
                           if not all(c["is_owner"] for c in items)), key=lambda w: (order[w[0]], w[1]))
        afters = self._next_touching(reviewed, commits, head, content)
        rows: list[dict] = []
        for sha, path in reviewed:
            rnd = Round(self.source, self.host, self.project, str(number), pull.get("node_id"), order[sha],
                        sha, afters[sha, path], owner, parse_time(pull.get("created_at"), "created_at"), updated)
            rows += round_rows(rnd, {path: grouped[sha][path]}, content, drops)
        return rows

    @staticmethod
    def _next_touching(wanted: list[tuple[str, str]], commits: list[str], head: str,
                       content: ContentReader) -> dict[tuple[str, str], str]:
        """For each (commit, path): the first later commit of the pull request where ``path`` differs,
        else the head. The blob ids of every commented path at every commit come in one git round trip."""
        content.check(commits)
        listed = [c for c in commits if content.in_git(c)]
        keys = [(c, path) for path in sorted({path for _, path in wanted}) for c in listed]
        blobs = dict(zip(keys, content.repo.blob_ids(keys)))
        afters = {}
        for sha, path in wanted:
            later = listed[listed.index(sha) + 1:] if sha in listed else []
            afters[sha, path] = next((c for c in later if blobs[c, path] != blobs[sha, path]), head)
        return afters

    @staticmethod
    def _comment(item: dict, owner: str | None, url: str) -> tuple[dict, str]:
        sha = item.get("original_commit_id") or item.get("commit_id")
        if not isinstance(sha, str) or not isinstance(item.get("id"), int):
            raise MalformedResponse(url, "a review comment lacks id or original_commit_id")
        line = item.get("original_line")
        author = _login(item.get("user"))
        reply = item.get("in_reply_to_id")
        return {
            "id": str(item["id"]), "author": author, "is_owner": author is not None and author == owner,
            "path": item["path"], "side": item.get("side") or "RIGHT", "line": line,
            "start_line": item.get("original_start_line") or line, "end_line": line,
            "start_character": None, "end_character": None, "message": item.get("body"),
            "in_reply_to": None if reply is None else str(reply),
            "created": parse_time(item.get("created_at"), "created_at"), "unresolved": None,
            "outdated": item.get("position") is None and item.get("line") is None,
        }, sha
