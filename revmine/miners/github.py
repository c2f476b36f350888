"""GitHub: review rounds from pull-request review comments (discussion) and ``refs/pull/*/head``.

Listing: ``/repos/{o}/{r}/pulls?state=all&sort=updated&direction=desc`` following ``Link`` pages and
stopping at the first pull request updated before ``since``. A pull request updated while we page
jumps to the top, past pages already read: listed from the top, it could be skipped. So after a pass
that took more than one request, the list is read again from the top down to the newest
``updated_at`` seen when that pass began (any pull request updated during the pass is at least that
recent), de-duplicating by number, until a pass takes one request (one answer is a consistent
snapshot). A pull request is thus missed only if it is updated during every pass, i.e. after this run
began; the next run lists it. A list that keeps changing under every pass would be read for ever: after
:data:`~revmine.miners.base.STALL_LIMIT` passes in a row read again with no new pull request, the
listing fails (:class:`~revmine.miners.base.ListingStalled`). Every page is revalidated
(``If-None-Match``): an unchanged page costs a 304. The window is on a pull request's *last* update: one updated
after ``until`` is outside the run, even if it was reviewed inside the window (mine it with a later
``until``).

Rounds: a review comment is anchored on ``original_commit_id`` / ``original_line`` (outdated comments
keep these anchors and are flagged ``outdated``). The round of commit C is C (round = its 1-based
position among the pull request's commits) and, per file, the next commit of the pull request that
changed that file, else the pull request's final head. Reviewer comments on the head itself (the pull
request's last commit) make no round, as on Gerrit's last patch set: nothing was revised after them; each
such file is recorded in the drops with the reason. A commented commit that is no longer in the
pull request (force-pushed) gets a round number after the listed commits, its content is read from
the REST contents endpoint when git cannot reach it (counted), and the round is dropped if that fails.
Requests: comments, then commits only when a reviewer commented on a file in a language mined (<= 2 per pull request
plus pagination). With ``api = "graphql"`` the listing's queries bring both, a page of pull requests at a time
(:mod:`.github_graphql`); everything else here is the same. ``/pulls/{n}/commits`` lists at most 250 commits: a pull request with that many is
listed from git instead (``head ^base``, from ``refs/pull/N/head``); if git cannot, the rounds after
the 250th may be missing and the manifest's drops say so.

Who wrote each comment (human, bot, AI reviewer) is read from its ``user`` object (``type``, the login) and the
list of known accounts: :mod:`revmine.miners.authors`.

Answers of the wrong shape (a field of the wrong type, an unreadable time) raise
:class:`~revmine.miners.http.MalformedResponse` naming the page and the field, and are evicted from
the cache so a re-run asks again.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Generator, Iterator
from urllib.parse import quote, urlsplit

from ..errors import InputError
from ..lang.languages import DEFAULT_LANGUAGES
from .authors import Accounts, github_author
from .github_graphql import GraphQLSource
from .base import Drop, DropReason, Fallback, Mined, Miner, Progress
from .http import Client, MalformedResponse, NotCached, RemoteError, host_of
from .licences import NOASSERTION
from .rounds import (ContentReader, Round, base64_contents, last_revision, parse_time, reads, round_rows, typed,
                     typed_time)

REFSPECS = ["+refs/pull/*/head:refs/pull/*/head", "+refs/heads/*:refs/heads/*"]
DEFAULT_API = "https://api.github.com"
#: ``/pulls/{n}/commits`` never lists more commits than this.
COMMITS_CAP = 250
#: Where pull requests, review comments and commits come from (:mod:`.github_graphql` for ``graphql``).
APIS = ("rest", "graphql")


def _login(user: dict | None, what: str) -> str | None:
    return typed(user, "login", str, what) if user is not None else None


def _sha(item: Any, key: str, what: str) -> str | None:
    """``item[key]["sha"]`` (``head``, ``base``): the nested object and its sha may be null."""
    ref = typed(item, key, dict, what)
    return None if ref is None else typed(ref, "sha", str, f"{what}.{key}")


class GitHubMiner(Miner):
    """Lists a repository's pull requests and turns each into review-round rows."""

    source = "github"
    refspecs = REFSPECS

    def __init__(self, client: Client, repo: str, since: datetime | None, until: datetime | None,
                 api_url: str = DEFAULT_API, page_size: int = 100, languages: tuple[str, ...] = DEFAULT_LANGUAGES,
                 accounts: Accounts | None = None, api: str = "rest"):
        if repo.count("/") != 1 or not all(repo.split("/")):
            raise InputError.setting("repository", f"must be OWNER/NAME, not {repo!r}")
        if api not in APIS:
            raise InputError.setting("api", f"must be 'rest' or 'graphql', not {api!r}")
        self.client = client
        self.languages = languages
        self.accounts = accounts  # known bot and AI-reviewer accounts (None: the shipped list)
        self.project = repo
        self.api = api_url.rstrip("/")
        host = host_of(self.api)
        self.host = "github.com" if host == "api.github.com" else host
        self.since, self.until = since, until
        self.page_size = page_size
        self.graphql = GraphQLSource(client, self.api, repo, page_size) if api == "graphql" else None

    @property
    def default_clone_url(self) -> str:
        scheme = urlsplit(self.api).scheme or "https"
        return f"{scheme}://{self.host}/{self.project}.git"

    def licence_answer(self) -> tuple[str, str, str] | None:
        """GitHub's licence endpoint (licensee's answer for the default branch): the file it read, its blob id
        and the SPDX id; None when the repository has no licence GitHub found (404) or says ``NOASSERTION``."""
        try:
            body, response = self.client.get(f"{self.api}/repos/{self.project}/license", expect=dict,
                                             revalidate=True)
        except NotCached:  # an offline replay of a cache filled before licences were asked: the files decide
            return None
        except RemoteError as exc:
            if exc.status == 404:
                return None
            raise
        with self.client.validating(response):
            path, sha = typed(body, "path", str, "license", True), typed(body, "sha", str, "license", True)
            spdx = typed(typed(body, "license", dict, "license") or {}, "spdx_id", str, "license.license")
        return None if not spdx or spdx == NOASSERTION else (path, sha, spdx)

    def key(self, pull: dict) -> str:
        return str(pull["number"])

    def updated(self, pull: dict) -> datetime:
        return parse_time(pull["updated_at"])  # checked by _pull

    def _pages(self, url: str, **kwargs: Any) -> Iterator[tuple[list, Any]]:
        return self.client.get_pages(url, {"per_page": self.page_size}, **kwargs)

    def list_changes(self) -> Iterator[dict]:
        """Every pull request updated in [since, until], once each (see the module docstring)."""
        seen: set[int] = set()
        progress = Progress(f"{self.api}/repos/{self.project}/pulls")
        threshold: datetime | None = None
        while True:
            before = len(seen)
            top, requests = yield from self._list_pass(seen, threshold)
            if requests <= 1 or top is None:
                return
            if threshold is not None:  # a pass read again from the top: did it find anything?
                progress.step(len(seen) - before)
            threshold = top

    def _list_pass(self, seen: set[int], threshold: datetime | None
                   ) -> Generator[dict, None, tuple[datetime | None, int]]:
        """Yield the unseen pull requests from the newest down to ``threshold`` (and ``since``); return
        the newest ``updated_at`` when the pass began and how many pages it read."""
        url = f"{self.api}/repos/{self.project}/pulls?state=all&sort=updated&direction=desc"
        top, pages = None, 0
        listing = self.graphql.pull_pages() if self.graphql else self._pages(url, revalidate=True)
        for page, response in listing:
            pages += 1
            with self.client.validating(response):
                pulls = [self._pull(item) for item in page]
            for pull in pulls:
                updated = self.updated(pull)
                top = updated if top is None else top
                if (threshold and updated < threshold) or (self.since and updated < self.since):
                    return top, pages
                if (self.until and updated > self.until) or pull["number"] in seen:
                    continue
                seen.add(pull["number"])
                yield pull
        return top, pages

    @staticmethod
    def _pull(item: Any) -> dict:
        """A listed pull request, its fields checked (:class:`BadField` otherwise)."""
        typed(item, "number", int, "a pull request", required=True)
        what = f"pull request {item['number']}"
        typed_time(item, "updated_at", what, required=True)
        typed_time(item, "created_at", what)
        typed(item, "node_id", str, what)
        _login(typed(item, "user", dict, what), f"{what}.user")
        _sha(item, "head", what)
        _sha(item, "base", what)
        return item

    def fallback(self, pull: dict) -> Fallback:
        """REST contents endpoint for a commit git cannot reach (a 404 drops the round)."""
        def read(sha: str, path: str) -> str | None:
            return base64_contents(self.client, f"{self.api}/repos/{self.project}/contents/{quote(path)}", sha, path,
                                   "contents API")
        return read

    def rounds(self, pull: dict, content: ContentReader) -> Mined:
        """Rows of every round of ``pull`` (see the module docstring for what a round is)."""
        number, updated = pull["number"], self.updated(pull)
        base = f"{self.api}/repos/{self.project}/pulls/{number}"
        owner = _login(pull.get("user"), "")  # checked by _pull
        comments = [c for c in self._review_comments(pull, base, owner) if reads(c[0]["path"], self.languages)]
        if not any(not c["is_owner"] for c, _ in comments):
            return Mined()
        commits, mined = self._commits(pull, base, content)
        head = _sha(pull, "head", "") or (commits[-1] if commits else None)
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
        for sha, path in reviewed:
            if sha == head:
                mined += last_revision(str(number), [path], sha)
                continue
            rnd = Round(self.source, self.host, self.project, str(number), pull.get("node_id"), order[sha],
                        sha, afters[sha, path], owner, parse_time(pull.get("created_at"), "created_at"), updated,
                        f"{commits[0]}^" if commits else None, self.languages)
            mined += round_rows(rnd, {path: grouped[sha][path]}, content)
        return mined

    def _review_comments(self, pull: dict, base: str, owner: str | None) -> list[tuple[dict, str]]:
        """The pull request's review comments (:meth:`_comment`); GraphQL's were checked as they were converted
        to REST items (:func:`~revmine.miners.github_graphql.rest_comment`)."""
        if self.graphql:
            return [self._comment(item, owner, self.accounts) for item in self.graphql.comments(pull)]
        comments = []
        for page, response in self._pages(f"{base}/comments", fresh_after=self.updated(pull)):
            with self.client.validating(response):
                comments += [self._comment(item, owner, self.accounts) for item in page]
        return comments

    def _commits(self, pull: dict, base: str, content: ContentReader) -> tuple[list[str], Mined]:
        """The pull request's commits, oldest first: from the API, or from git past the API's cap (a drop
        says so when git cannot list them either)."""
        commits = self.graphql.commits(pull) if self.graphql else self._rest_commits(pull, base)
        if len(commits) < COMMITS_CAP:
            return commits, Mined()
        head, base_sha = _sha(pull, "head", ""), _sha(pull, "base", "")
        listed = content.repo.commits_between(base_sha, head) if head and base_sha else None
        if listed is None:
            return commits, Mined(drops=[Drop(
                DropReason.COMMITS_CAPPED, f"the API lists only {COMMITS_CAP} commits and git cannot list the rest "
                "(head or base missing): later rounds may be missing", str(pull["number"]))])
        return listed, Mined()

    def _rest_commits(self, pull: dict, base: str) -> list[str]:
        commits: list[str] = []
        for page, response in self._pages(f"{base}/commits", fresh_after=self.updated(pull)):
            with self.client.validating(response):
                commits += [typed(item, "sha", str, "a commit", required=True) for item in page]
        return commits

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
    def _comment(item: Any, owner: str | None, accounts: Accounts | None = None) -> tuple[dict, str]:
        """A review comment as a ``COMMENT_TYPE`` dict and the commit it was made on (fields checked)."""
        what = f"review comment {typed(item, 'id', int, 'a review comment', required=True)}"
        sha = typed(item, "original_commit_id", str, what) or typed(item, "commit_id", str, what, required=True)
        line = typed(item, "original_line", int, what)
        user = typed(item, "user", dict, what)
        author = _login(user, f"{what}.user")
        typed(user or {}, "type", str, f"{what}.user")
        kind, evidence = github_author(user, accounts)
        reply = typed(item, "in_reply_to_id", int, what)
        return {
            "id": str(item["id"]), "author": author, "is_owner": author is not None and author == owner,
            "path": typed(item, "path", str, what, required=True), "side": typed(item, "side", str, what) or "RIGHT",
            "line": line, "start_line": typed(item, "original_start_line", int, what) or line, "end_line": line,
            "start_character": None, "end_character": None, "message": typed(item, "body", str, what),
            "in_reply_to": None if reply is None else str(reply),
            "created": typed_time(item, "created_at", what), "unresolved": item.get("unresolved"),  # GraphQL's
            "outdated": item["outdated"] if "outdated" in item else  # GraphQL says it; REST: no position, no line
            typed(item, "position", int, what) is None and typed(item, "line", int, what) is None,
            "author_kind": kind, "author_evidence": evidence,
        }, sha
