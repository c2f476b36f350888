"""The GraphQL part of the look-alike GitHub (tests/miners_server.py answers ``POST /github/graphql`` through
:func:`answer`), run by graphql-core over the very data the REST endpoints serve (``forge.github_pulls``,
``github_comments``, ``github_commits``).

The schema is GitHub's (docs.github.com/en/graphql/reference) for the fields the miner asks: ``PullRequest``,
``PullRequestReviewThread`` (a thread is a root comment and the comments replying to it), ``PullRequestReviewComment``,
the ``Actor`` interface with ``User`` and ``Bot`` (a bot's ``login`` without REST's ``[bot]`` suffix), cursor
connections with ``pageInfo``, and ``rateLimit { cost remaining resetAt }``. A query's cost is computed as GitHub
documents it ("Rate limits and query limits for the GraphQL API"): for each connection field, the product of the
``first``/``last`` of the connections around it (the requests needed to fill it), summed, divided by 100,
rounded, at least 1. Points are counted per token (``Authorization``) against ``forge.graphql_quota``, renewed
every ``forge.graphql_window`` seconds; a query costing more than what is left is refused with ``RATE_LIMITED``,
as GitHub does.
"""

from __future__ import annotations

import base64
import json
import math
import time
from typing import Any

import graphql
from graphql.language import FieldNode, FragmentSpreadNode, InlineFragmentNode, OperationDefinitionNode

from miners_server import COMMITS_CAP

SDL = """
type Query {
  repository(owner: String!, name: String!): Repository
  node(id: ID!): Node
  rateLimit: RateLimit
}
interface Node { id: ID! }
interface Actor { login: String! }
type User implements Actor { login: String! }
type Bot implements Actor { login: String! }
type RateLimit { cost: Int! limit: Int! remaining: Int! resetAt: String! }
type PageInfo { hasNextPage: Boolean! endCursor: String }
enum IssueOrderField { CREATED_AT UPDATED_AT COMMENTS }
enum OrderDirection { ASC DESC }
enum PullRequestState { OPEN CLOSED MERGED }
enum DiffSide { LEFT RIGHT }
input IssueOrder { field: IssueOrderField!, direction: OrderDirection! }
type Repository {
  pullRequests(first: Int, after: String, orderBy: IssueOrder, states: [PullRequestState!]): PullRequestConnection!
  pullRequest(number: Int!): PullRequest
}
type PullRequestConnection { nodes: [PullRequest] pageInfo: PageInfo! totalCount: Int! }
type PullRequest implements Node {
  id: ID! number: Int! createdAt: String! updatedAt: String! author: Actor headRefOid: String! baseRefOid: String!
  commits(first: Int, after: String): PullRequestCommitConnection!
  reviewThreads(first: Int, after: String): PullRequestReviewThreadConnection!
}
type Commit { oid: String! }
type PullRequestCommit { commit: Commit! }
type PullRequestCommitConnection { nodes: [PullRequestCommit] pageInfo: PageInfo! totalCount: Int! }
type PullRequestReviewThread implements Node {
  id: ID! isResolved: Boolean! isOutdated: Boolean!
  comments(first: Int, after: String): PullRequestReviewCommentConnection!
}
type PullRequestReviewThreadConnection { nodes: [PullRequestReviewThread] pageInfo: PageInfo! totalCount: Int! }
type PullRequestReviewComment {
  databaseId: Int author: Actor body: String! path: String! originalCommit: Commit commit: Commit
  originalLine: Int originalStartLine: Int line: Int startLine: Int diffSide: DiffSide! startDiffSide: DiffSide
  outdated: Boolean! replyTo: PullRequestReviewComment createdAt: String!
}
type PullRequestReviewCommentConnection { nodes: [PullRequestReviewComment] pageInfo: PageInfo! totalCount: Int! }
"""

SCHEMA = graphql.build_schema(SDL)
LIMIT = 5000  # points an hour


def _type(value: Any, *_: Any) -> str:
    """The concrete type of an interface value (each value says it under ``__typename``)."""
    return value["__typename"]


for _name in ("Node", "Actor"):
    SCHEMA.type_map[_name].resolve_type = _type  # type: ignore[attr-defined]


def connection(items: list, first: int | None = None, after: str | None = None, **_: Any) -> dict:
    """A cursor connection over ``items`` (``first`` at most 100, as GitHub's)."""
    if first is None or not 1 <= first <= 100:
        raise graphql.GraphQLError("You must provide a `first` value between 1 and 100")
    start = int(base64.b64decode(after).decode().split(":")[1]) if after else 0
    page = items[start:start + first]
    end = start + len(page)
    return {"nodes": page, "totalCount": len(items),
            "pageInfo": {"hasNextPage": end < len(items),
                         "endCursor": base64.b64encode(f"cursor:{end}".encode()).decode() if page else None}}


def actor(user: dict | None) -> dict | None:
    """REST's ``user`` as GraphQL's ``Actor``: a bot's login loses its ``[bot]``."""
    if user is None:
        return None
    if user.get("type") == "Bot":
        return {"__typename": "Bot", "login": user["login"].removesuffix("[bot]")}
    return {"__typename": "User", "login": user["login"]}


def threads(forge: Any, number: int) -> list[dict]:
    """A pull request's review threads from its REST comments: each root comment and the replies to it."""
    items = forge.github_comments.get(number) or []
    by_id = {c["id"]: c for c in items}
    roots: dict[int, list[dict]] = {}
    for c in items:
        root = c
        while root.get("in_reply_to_id") in by_id:
            root = by_id[root["in_reply_to_id"]]
        roots.setdefault(root["id"], []).append(c)
    out = []
    for root, comments in roots.items():
        def node(c: dict) -> dict:
            outdated = c["position"] is None and c["line"] is None
            reply = by_id.get(c.get("in_reply_to_id"))
            return {"databaseId": c["id"], "author": actor(c["user"]), "body": c["body"], "path": c["path"],
                    "originalCommit": {"oid": c["original_commit_id"]},
                    "commit": c["commit_id"] and {"oid": c["commit_id"]}, "originalLine": c["original_line"],
                    "originalStartLine": c.get("original_start_line"), "line": c["line"],
                    "startLine": c.get("start_line"), "diffSide": c["side"], "startDiffSide": c.get("start_side"),
                    "outdated": outdated, "replyTo": reply and node(reply), "createdAt": c["created_at"]}
        nodes = [node(c) for c in comments]
        out.append({"__typename": "PullRequestReviewThread", "id": f"PRRT_{root}",
                    "isResolved": root in forge.github_resolved, "isOutdated": nodes[0]["outdated"],
                    "comments": lambda info, n=nodes, **kw: connection(n, **kw)})
    return out


def pull_request(forge: Any, pull: dict) -> dict:
    number = pull["number"]
    return {"__typename": "PullRequest", "id": pull["node_id"], "number": number, "createdAt": pull["created_at"],
            "updatedAt": pull["updated_at"], "author": actor(pull["user"]), "headRefOid": pull["head"]["sha"],
            "baseRefOid": pull["base"]["sha"],
            "commits": lambda info, **kw: connection([{"commit": {"oid": c["sha"]}}  # at most 250, as REST's
                                                      for c in (forge.github_commits.get(number) or [])[:COMMITS_CAP]],
                                                     **kw),
            "reviewThreads": lambda info, **kw: connection(threads(forge, number), **kw)}


def root(forge: Any) -> dict:
    """The query root over the forge's data."""
    def pulls(info: Any, orderBy: dict | None = None, **kw: Any) -> dict:  # noqa: N803 - GitHub's name
        found = sorted(forge.github_pulls.values(), key=lambda p: (p["updated_at"], p["number"]),
                       reverse=orderBy is None or orderBy["direction"] == "DESC")
        return connection([pull_request(forge, p) for p in found], **kw)

    def one(info: Any, number: int) -> dict | None:
        pull = forge.github_pulls.get(number)
        return pull and pull_request(forge, pull)

    def repository(info: Any, owner: str, name: str) -> dict | None:
        if f"{owner}/{name}" != "octo/demo" and not forge.mirror:
            return None
        return {"pullRequests": pulls, "pullRequest": one}

    def node(info: Any, id: str) -> dict | None:  # noqa: A002 - GitHub's name
        return next((t for number in forge.github_pulls for t in threads(forge, number) if t["id"] == id), None)

    return {"repository": repository, "node": node}


def requests_needed(document: graphql.DocumentNode, variables: dict) -> int:
    """GitHub's count of the requests a query needs: every connection field (one with ``first``/``last``) is
    filled once per node of the connections around it."""
    fragments = {d.name.value: d for d in document.definitions if isinstance(d, graphql.FragmentDefinitionNode)}

    def limit(field: FieldNode) -> int | None:
        for arg in field.arguments or ():
            if arg.name.value in ("first", "last"):
                return graphql.value_from_ast_untyped(arg.value, variables)
        return None

    def walk(selections: Any, outer: int) -> int:
        total = 0
        for sel in selections:
            if isinstance(sel, FieldNode):
                n = limit(sel)
                if n is not None:
                    total += outer
                if sel.selection_set:
                    total += walk(sel.selection_set.selections, outer * n if n is not None else outer)
            elif isinstance(sel, InlineFragmentNode):
                total += walk(sel.selection_set.selections, outer)
            elif isinstance(sel, FragmentSpreadNode):
                total += walk(fragments[sel.name.value].selection_set.selections, outer)
        return total

    op = next(d for d in document.definitions if isinstance(d, OperationDefinitionNode))
    return walk(op.selection_set.selections, 1)


def cost(document: graphql.DocumentNode, variables: dict) -> int:
    """The points GitHub charges (module docstring)."""
    return max(1, int(requests_needed(document, variables) / 100 + 0.5))


def answer(handler: Any, fault: Any) -> None:
    """Answer one ``POST /github/graphql`` as GitHub's GraphQL API would."""
    forge = handler.forge
    forge.hits["github_graphql"] += 1
    request = json.loads(handler.rfile.read(int(handler.headers.get("Content-Length", 0))) or b"{}")
    variables = request.get("variables") or {}
    forge.graphql_log.append(request)
    token = handler.headers.get("Authorization", "")
    try:
        document = graphql.parse(request["query"])
    except graphql.GraphQLError as exc:
        return _send(handler, {"errors": [{"message": exc.message}]}, {}, fault)
    points = cost(document, variables)
    with forge.lock:
        now = time.time()
        reset = math.ceil(forge.graphql_window_start + forge.graphql_window)  # GitHub's: whole seconds
        if now >= reset:  # a new window: the quota is renewed
            forge.graphql_window_start = now
            forge.graphql_used.clear()
            reset = math.ceil(now + forge.graphql_window)
        left = forge.graphql_quota - forge.graphql_used[token]
        limited = fault is not None and fault.kind == "graphql-ratelimited"  # refused whatever is left
        refused = points > left or limited
        if not refused:
            forge.graphql_used[token] += points
            left -= points
    headers = {"X-RateLimit-Limit": str(LIMIT), "X-RateLimit-Remaining": str(max(left, 0)),
               "X-RateLimit-Used": str(forge.graphql_used[token]), "X-RateLimit-Resource": "graphql",
               "X-RateLimit-Reset": str(math.ceil(now + fault.value) if limited else reset)}
    if refused:
        forge.hits["graphql_rate_limited"] += 1
        return _send(handler, {"data": None, "errors": [
            {"type": "RATE_LIMITED", "message": "API rate limit exceeded for user ID 1."}]}, headers, None)
    forge.graphql_points.append(points)
    value = dict(root(forge))
    value["rateLimit"] = {"cost": points, "limit": LIMIT, "remaining": left,
                          "resetAt": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(reset))}
    result = graphql.execute(SCHEMA, document, root_value=value, variable_values=variables,
                             field_resolver=_resolve)
    body: dict[str, Any] = {"data": result.data}
    if result.errors:
        body["errors"] = [{"message": e.message, "path": e.path} for e in result.errors]
    _send(handler, body, headers, fault)


def _resolve(source: Any, info: Any, **args: Any) -> Any:
    """A field's value: the source's key, called with the arguments when it is a function."""
    value = source.get(info.field_name) if isinstance(source, dict) else getattr(source, info.field_name, None)
    return value(info, **args) if callable(value) else value


def _send(handler: Any, body: dict, headers: dict, fault: Any) -> None:
    kind = fault.kind if fault is not None else None
    handler._send(200, json.dumps(body).encode(), headers=headers, fault=None if kind == "graphql-ratelimited" else fault)
