"""GitHub's GraphQL API as the GitHub miner's source of pull requests, review comments and commits (``api =
"graphql"``; :mod:`.github` is the REST source and does everything else the same way).

Why: REST spends about two requests per pull request (its comments, then its commits) out of 5,000 an hour; one
GraphQL query lists a page of pull requests *with* their review threads, comments and commits, and GitHub
charges it by what it may return, not per pull request (docs.github.com, "Rate limits and query limits for
the GraphQL API": the requests needed to fill every connection at its ``first``, summed, divided by 100,
rounded, at least 1 point, out of 5,000 points an hour).

Queries
- Listing: ``repository.pullRequests(first: N, after, orderBy: UPDATED_AT DESC)`` (every state, as REST's
  ``state=all``), each with ``commits(first: 100)`` and ``reviewThreads(first: THREADS)`` whose
  ``comments(first: 100)``. Its cost is ``(1 + N + N + N * THREADS) / 100`` (the comments connection is asked
  once per thread, the commits and threads once per pull request): :func:`listing_cost`. ``THREADS`` is kept
  small (most pull requests have few threads) so a page of 100 pull requests costs 22 points.
- Follow-ups, only for a pull request that has more: its next threads (``pullRequest(number).reviewThreads``),
  a thread's next comments (``node(id)`` of the thread), its next commits. Each costs 1 point.
- Budget: each answer's ``rateLimit { cost remaining resetAt }`` is read (``cost`` adds to the client's
  ``graphql_points``); the next listing page asks for as many pull requests as the points left pay for, up to
  the page size. When none are left, the token's quota headers (``X-RateLimit-Remaining``, which GitHub sends
  for GraphQL in points) make the client wait for the reset or take another token, and an answer refused with
  ``RATE_LIMITED`` is waited for the same way (:meth:`~revmine.miners.http.Client.post`). With several tokens
  the points left are the last answer's token's; a page planned on them and sent on a token with fewer is
  refused, that token marked spent until its reset and the query sent on another.

Mapping (:func:`rest_comment`): every field becomes the REST field the miner reads, so the rows are the REST
miner's: ``databaseId`` is the comment's id, ``originalCommit``/``originalLine``/``originalStartLine`` its
anchors, ``diffSide`` its side, ``replyTo`` its ``in_reply_to_id``, the comment's ``outdated`` REST's "no
position and no line". An author whose ``__typename`` is ``Bot`` is REST's ``type: Bot``, and its login gets
the ``[bot]`` suffix REST shows and GraphQL's ``Bot.login`` lacks. One difference: GraphQL says whether a
thread is resolved (``isResolved``), REST cannot; its comments' ``unresolved`` column is filled here and null
from REST.

Not cached: GraphQL queries are POSTs (see :meth:`~revmine.miners.http.Client.post`); offline replay needs REST.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

import requests

from .http import Client
from .rounds import typed

#: Pull requests a listing page asks for at most (GraphQL's ``first`` allows 100).
MAX_PAGE = 100
#: Review threads a listed pull request brings; more are asked for with follow-ups.
THREADS = 20
#: Comments and commits per connection (GraphQL's maximum ``first``).
CONNECTION = 100

_COMMENT = ("databaseId author { login __typename } body path originalCommit { oid } commit { oid } originalLine "
            "originalStartLine line startLine diffSide startDiffSide outdated replyTo { databaseId } createdAt")
_PAGE = "pageInfo { hasNextPage endCursor }"
_THREAD = f"id isResolved isOutdated comments(first: {CONNECTION}) {{ nodes {{ {_COMMENT} }} {_PAGE} }}"
_COMMITS = f"nodes {{ commit {{ oid }} }} {_PAGE}"
_RATE = "rateLimit { cost remaining resetAt }"
#: the keys of a listed pull request's ``graphql`` entry -> the GraphQL connection they page
_CONNECTIONS = {"threads": "reviewThreads", "commits": "commits"}
LISTING = f"""query($owner: String!, $name: String!, $first: Int!, $after: String) {{
  repository(owner: $owner, name: $name) {{
    pullRequests(first: $first, after: $after, orderBy: {{field: UPDATED_AT, direction: DESC}}) {{
      nodes {{ id number createdAt updatedAt author {{ login __typename }} headRefOid baseRefOid
        commits(first: {CONNECTION}) {{ {_COMMITS} }}
        reviewThreads(first: {THREADS}) {{ nodes {{ {_THREAD} }} {_PAGE} }} }}
      {_PAGE} }} }}
  {_RATE} }}"""
MORE_THREADS = f"""query($owner: String!, $name: String!, $number: Int!, $after: String) {{
  repository(owner: $owner, name: $name) {{ pullRequest(number: $number) {{
    reviewThreads(first: {CONNECTION}, after: $after) {{ nodes {{ {_THREAD} }} {_PAGE} }} }} }}
  {_RATE} }}"""
MORE_COMMENTS = f"""query($id: ID!, $after: String) {{
  node(id: $id) {{ ... on PullRequestReviewThread {{ comments(first: {CONNECTION}, after: $after) {{
    nodes {{ {_COMMENT} }} {_PAGE} }} }} }}
  {_RATE} }}"""
MORE_COMMITS = f"""query($owner: String!, $name: String!, $number: Int!, $after: String) {{
  repository(owner: $owner, name: $name) {{ pullRequest(number: $number) {{
    commits(first: {CONNECTION}, after: $after) {{ {_COMMITS} }} }} }}
  {_RATE} }}"""


def points(requests_needed: int) -> int:
    """GitHub's charge for a query needing ``requests_needed`` requests: divided by 100, rounded half up, at
    least 1."""
    return max(1, (requests_needed + 50) // 100)


def listing_cost(first: int, threads: int = THREADS) -> int:
    """Points of a listing page of ``first`` pull requests (module docstring)."""
    return points(1 + first + first + first * threads)


def graphql_url(api: str) -> str:
    """The GraphQL endpoint of a REST API base: ``https://api.github.com/graphql``; on GitHub Enterprise
    Server, ``https://HOST/api/graphql`` for ``https://HOST/api/v3``."""
    return api[:-len("/v3")] + "/graphql" if api.endswith("/api/v3") else api + "/graphql"


def _user(author: Any, what: str) -> dict | None:
    """A GraphQL ``Actor`` as REST's ``user``: ``type: Bot`` and the ``[bot]`` login suffix for a ``Bot``."""
    if author is None:
        return None
    login = typed(author, "login", str, what, required=True)
    bot = typed(author, "__typename", str, what) == "Bot"
    return {"login": f"{login}[bot]" if bot else login, "type": "Bot" if bot else "User"}


def _oid(item: Any, key: str, what: str) -> str | None:
    ref = typed(item, key, dict, what)
    return None if ref is None else typed(ref, "oid", str, f"{what}.{key}")


def rest_comment(node: Any, resolved: bool) -> dict:
    """A GraphQL review comment as the REST item :meth:`GitHubMiner._comment` reads (see the module docstring),
    with ``outdated`` and ``unresolved`` (its thread's ``isResolved``), which only GraphQL says directly."""
    what = f"review comment {typed(node, 'databaseId', int, 'a review comment', required=True)}"
    reply = typed(node, "replyTo", dict, what)
    original = typed(node, "originalCommit", dict, what, required=True)  # REST's original_commit_id: always set
    return {"id": node["databaseId"], "original_commit_id": typed(original, "oid", str, what, required=True),
            "commit_id": _oid(node, "commit", what), "original_line": typed(node, "originalLine", int, what),
            "original_start_line": typed(node, "originalStartLine", int, what), "line": typed(node, "line", int, what),
            "side": typed(node, "diffSide", str, what), "path": typed(node, "path", str, what, required=True),
            "body": typed(node, "body", str, what), "created_at": typed(node, "createdAt", str, what),
            "user": _user(typed(node, "author", dict, what), f"{what}.author"),
            "in_reply_to_id": None if reply is None else typed(reply, "databaseId", int, f"{what}.replyTo"),
            "outdated": bool(typed(node, "outdated", bool, what)),
            "unresolved": not resolved}


def _connection(parent: Any, key: str, what: str) -> tuple[list, str | None]:
    """A connection's nodes and the cursor after them (None: no more)."""
    conn = typed(parent, key, dict, what, required=True)
    nodes = typed(conn, "nodes", list, f"{what}.{key}", required=True)
    info = typed(conn, "pageInfo", dict, f"{what}.{key}", required=True)
    more = typed(info, "hasNextPage", bool, f"{what}.{key}.pageInfo", required=True)
    return nodes, typed(info, "endCursor", str, f"{what}.{key}.pageInfo", required=True) if more else None


class GraphQLSource:
    """Pull requests, review comments and commits of one repository through GraphQL (module docstring)."""

    def __init__(self, client: Client, api: str, repo: str, page_size: int = MAX_PAGE):
        self.client = client
        self.url = graphql_url(api)
        self.owner, self.name = repo.split("/")
        self.page_size = min(page_size, MAX_PAGE)
        self.remaining: int | None = None  # points left, as the last answer said

    def _query(self, query: str, **variables: Any) -> tuple[dict, requests.Response]:
        """Run one query; return its ``data`` (checked) and the response, and note its cost and the points left."""
        answer, response = self.client.post(self.url, {"query": query, "variables": variables})
        with self.client.validating(response):
            data = typed(answer, "data", dict, "the answer", required=True)
            rate = typed(data, "rateLimit", dict, "data")
            if rate is not None:
                self.client.stats.add("graphql_points", typed(rate, "cost", int, "rateLimit", required=True))
                self.remaining = typed(rate, "remaining", int, "rateLimit", required=True)
        return data, response

    def first(self) -> int:
        """Pull requests the next listing page asks for: as many as the points left pay for, up to the page
        size (at least one: the client waits for a reset when even that is refused)."""
        first = self.page_size
        while first > 1 and self.remaining is not None and listing_cost(first) > self.remaining:
            first -= 1
        return first

    def pull_pages(self) -> Iterator[tuple[list[dict], requests.Response]]:
        """Listing pages, newest update first, each a list of pull requests shaped as REST lists them (plus
        ``graphql``: what the listing brought of their threads and commits)."""
        after: str | None = None
        while True:
            data, response = self._query(LISTING, owner=self.owner, name=self.name, first=self.first(), after=after)
            with self.client.validating(response):
                repo = typed(data, "repository", dict, "data", required=True)
                nodes, after = _connection(repo, "pullRequests", "repository")
                page = [self._pull(node) for node in nodes]
            yield page, response
            if after is None:
                return

    @staticmethod
    def _pull(node: Any) -> dict:
        """A listed pull request as REST lists it, with ``graphql``: its threads (comments converted) and commits
        so far, and the cursors after them."""
        what = f"pull request {typed(node, 'number', int, 'a pull request', required=True)}"
        threads, threads_after = _connection(node, "reviewThreads", what)
        commits, commits_after = _connection(node, "commits", what)
        return {"number": node["number"], "node_id": typed(node, "id", str, what),
                "created_at": typed(node, "createdAt", str, what), "updated_at": typed(node, "updatedAt", str, what),
                "user": _user(typed(node, "author", dict, what), f"{what}.author"),
                "head": {"sha": typed(node, "headRefOid", str, what)},
                "base": {"sha": typed(node, "baseRefOid", str, what)},
                "graphql": {"threads": [_thread(t, what) for t in threads], "threads_after": threads_after,
                            "commits": _shas(commits, what), "commits_after": commits_after}}

    def _rest_of(self, query: str, pull: dict, key: str, convert: Callable[[list, str], list]) -> list:
        """What the listing brought of ``pull``'s connection ``key`` and every follow-up page of it, each page's
        nodes converted (``convert(nodes, what)``) inside the check of its answer."""
        listed = pull["graphql"]
        items, after = list(listed[key]), listed[f"{key}_after"]
        what = f"pull request {pull['number']}"
        while after is not None:
            data, response = self._query(query, owner=self.owner, name=self.name, number=pull["number"], after=after)
            with self.client.validating(response):
                repo = typed(data, "repository", dict, "data", required=True)
                nodes, after = _connection(typed(repo, "pullRequest", dict, "repository", required=True),
                                           _CONNECTIONS[key], "pullRequest")
                items += convert(nodes, what)
        return items

    def comments(self, pull: dict) -> list[dict]:
        """Every review comment of ``pull`` as REST items, by id (REST's order), paging threads and comments."""
        threads = self._rest_of(MORE_THREADS, pull, "threads", lambda nodes, what: [_thread(t, what) for t in nodes])
        items = []
        for thread in threads:
            items += thread["comments"]
            after = thread["after"]
            while after is not None:
                data, response = self._query(MORE_COMMENTS, id=thread["id"], after=after)
                with self.client.validating(response):
                    node = typed(data, "node", dict, "data", required=True)
                    nodes, after = _connection(node, "comments", f"review thread {thread['id']}")
                    items += [rest_comment(c, thread["resolved"]) for c in nodes]
        return sorted(items, key=lambda c: c["id"])

    def commits(self, pull: dict) -> list[str]:
        """``pull``'s commits, oldest first, paging past the first hundred."""
        return self._rest_of(MORE_COMMITS, pull, "commits", _shas)


def _thread(node: Any, what: str) -> dict:
    """A review thread: its id, whether resolved, its comments so far (REST items) and the cursor after them."""
    where = f"a review thread of {what}"
    resolved = typed(node, "isResolved", bool, where, required=True)
    comments, after = _connection(node, "comments", where)
    return {"id": typed(node, "id", str, where, required=True), "resolved": resolved,
            "comments": [rest_comment(c, resolved) for c in comments], "after": after}


def _shas(nodes: list, what: str) -> list[str]:
    return [typed(typed(n, "commit", dict, f"a commit of {what}", required=True), "oid", str,
                  f"a commit of {what}", required=True) for n in nodes]
