"""The GitLab part of the local forge (tests/miners_server.py answers ``/gitlab/api/v4/...`` through
:func:`answer`): merge requests, diff versions, discussions and repository files shaped as GitLab's API
documentation shows them (docs.gitlab.com: api/merge_requests "List merge requests" and "List merge
request diff versions", api/discussions "List project merge request discussion items" with a diff note's
``position``, api/repository_files "Get file from repository", api/rest "Pagination" (offset: ``X-Next-Page``
and ``Link``) and user/gitlab_com "Rate limits" (``RateLimit-*`` headers)), over a real git repository.

Every merge request has three diff versions; version 1 was force-pushed away (its head is reachable only from
``refs/keep-around/*``, which a clone of ``refs/merge-requests/*/head`` and the branches does not bring, as on
GitLab, where keep-around refs are hidden). Its notes cover what a position can be (see :func:`build_gitlab`).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import time
from datetime import datetime, timedelta, timezone
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from miners_server import T0, RepoBuilder, ghost_sha, java

PROJECT, PROJECT_ID = "demo/gl", 42
OWNER, REVIEWER = {"id": 10, "username": "owner"}, {"id": 20, "username": "reviewer"}
#: the user of a project access token: GitLab names it project_<id>_bot_<hex> and marks it a bot
TOKEN_BOT = {"id": 30, "username": f"project_{PROJECT_ID}_bot_3f2a9c", "bot": True}


def _iso(t: datetime) -> str:
    """GitLab's times: UTC with milliseconds."""
    return t.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _user(user: dict) -> dict:
    """A UserBasic as the API shows a note's or a merge request's author."""
    return {"id": user["id"], "username": user["username"], "name": user["username"].title(), "state": "active",
            "locked": False, "avatar_url": None, "web_url": f"https://gitlab.example.com/{user['username']}",
            **({"bot": True} if user.get("bot") else {})}


def line_code(path: str, old: int | None, new: int | None) -> str:
    """GitLab's line code: sha1 of the path, the old and the new line number (0: none)."""
    return f"{hashlib.sha1(path.encode()).hexdigest()}_{old or 0}_{new or 0}"


def position(version: dict, path: str, old: int | None, new: int | None, old_path: str | None = None,
             start: tuple[int | None, int | None] | None = None, kind: str = "text", start_new_at: int = 0) -> dict:
    """A diff note's ``position`` on ``version`` (``start``: the first line of a multi-line note, as (old,
    new); its ``line_range`` ends on the note's line; ``start_new_at``: the new-file line a removed start line
    sits at, which its line code holds)."""
    pos = {"base_sha": version["base_commit_sha"], "start_sha": version["start_commit_sha"],
           "head_sha": version["head_commit_sha"], "old_path": old_path or path, "new_path": path,
           "position_type": kind, "old_line": old, "new_line": new, "line_range": None}
    if start is not None:
        def point(o: int | None, n: int | None, code: tuple[int | None, int | None]) -> dict:
            return {"line_code": line_code(path, *code), "type": "new" if o is None else "old" if n is None else None,
                    "old_line": o, "new_line": n}
        # a removed line's code carries the new-file line it sits at (GitLab's diff lines have both numbers)
        pos["line_range"] = {"start": point(*start, (start[0], start[1] or start_new_at)),
                             "end": point(old, new, (old, new))}
    return pos


def note(nid: int, author: dict, body: str, created: datetime, iid: int, pos: dict | None = None,
         system: bool = False, resolvable: bool = False, resolved: bool = False) -> dict:
    """A note as ``/discussions`` lists it (``DiffNote`` when it has a position)."""
    return {"id": nid, "type": "DiffNote" if pos else ("DiscussionNote" if resolvable else None), "body": body,
            "attachment": None, "author": _user(author), "created_at": _iso(created), "updated_at": _iso(created),
            "system": system, "noteable_id": 5000 + iid, "noteable_type": "MergeRequest", "project_id": PROJECT_ID,
            "noteable_iid": iid, "commit_id": pos and pos["head_sha"], "resolvable": resolvable,
            **({"resolved": resolved, "resolved_by": _user(REVIEWER) if resolved else None,
                "resolved_at": _iso(created) if resolved else None} if resolvable else {}),
            "confidential": False, "internal": False, "imported": False, "imported_from": "none",
            **({"position": pos} if pos else {})}


def discussion(did: str, notes: list[dict]) -> dict:
    return {"id": hashlib.sha1(did.encode()).hexdigest(), "individual_note": len(notes) == 1 and not notes[0]["resolvable"],
            "notes": notes}


def merge_request(iid: int, head: str, base: str, start: str, created: datetime, updated: datetime,
                  base_url: str = "https://gitlab.example.com") -> dict:
    """A merge request as ``/merge_requests`` lists it."""
    return {"id": 5000 + iid, "iid": iid, "project_id": PROJECT_ID, "title": f"MR {iid}", "description": "",
            "state": "opened", "created_at": _iso(created), "updated_at": _iso(updated), "merged_by": None,
            "merged_at": None, "closed_by": None, "closed_at": None, "target_branch": "main",
            "source_branch": f"topic{iid}", "user_notes_count": 5, "upvotes": 0, "downvotes": 0,
            "author": _user(OWNER), "assignees": [], "assignee": None, "reviewers": [_user(REVIEWER)],
            "source_project_id": PROJECT_ID, "target_project_id": PROJECT_ID, "labels": [], "draft": False,
            "work_in_progress": False, "milestone": None, "merge_when_pipeline_succeeds": False,
            "merge_status": "can_be_merged", "detailed_merge_status": "mergeable", "sha": head,
            "merge_commit_sha": None, "squash_commit_sha": None, "discussion_locked": None,
            "should_remove_source_branch": None, "force_remove_source_branch": False,
            "reference": f"!{iid}", "references": {"short": f"!{iid}", "relative": f"!{iid}", "full": f"{PROJECT}!{iid}"},
            "web_url": f"{base_url}/{PROJECT}/-/merge_requests/{iid}",
            "time_stats": {"time_estimate": 0, "total_time_spent": 0, "human_time_estimate": None,
                           "human_total_time_spent": None},
            "squash": False, "task_completion_status": {"count": 0, "completed_count": 0}, "has_conflicts": False,
            "blocking_discussions_resolved": True,
            "diff_refs": {"base_sha": base, "head_sha": head, "start_sha": start}}


def version(vid: int, iid: int, head: str, base: str, start: str, created: datetime) -> dict:
    """A diff version as ``/versions`` lists it."""
    return {"id": vid, "head_commit_sha": head, "base_commit_sha": base, "start_commit_sha": start,
            "created_at": _iso(created), "merge_request_id": 5000 + iid, "state": "collected", "real_size": "4",
            "patch_id_sha": hashlib.sha1(f"{vid}".encode()).hexdigest()}


# --- the project's history and reviews ------------------------------------------------------------------
def build_gitlab(forge: Any, n: int) -> None:
    """Project ``demo/gl`` (id 42) with ``n`` merge requests of three diff versions each; ``forge.expected``
    says what a correct miner finds. Per merge request k, on version 1 (round 1: version 1 -> 2):

    - ``src/Gk.java`` (modified in every version): a resolved thread on an added-line range (new 6-8) with the
      owner's reply, an unresolved note on a deleted line (old 7), a note on an unchanged line (5), a range
      from a deleted line to an added one (old 6 .. new 9), an image note and a system note (skipped);
    - ``src/Oldk.java``, renamed to ``src/Movedk.java`` in version 2: a note on an unchanged line (and on
      version 2 one on ``Movedk``, whose position has the two paths: round 2, unchanged in version 3);
    - ``src/Delk.java``, deleted in version 2: a note on an added line;
    - ``src/Newk.java``, added in version 1 and unchanged after: a note by a project access token's bot user;
    on version 2, a reviewer's note on ``Gk`` (round 2) and the owner's alone on ``Newk`` (no round); on version
    3 (the last), a reviewer's note (no round: ``last_revision``). Merge request 1 also has a note on a head no
    version lists (``unknown_revision``); merge request 2's version 1 is gone from git, its ``Gk`` only
    readable through the repository files API (its notes are on ``Gk`` alone)."""
    rb = RepoBuilder(forge.gitlab_repo)
    names = {k: {"g": f"src/G{k}.java", "old": f"src/Old{k}.java", "moved": f"src/Moved{k}.java",
                 "del": f"src/Del{k}.java", "new": f"src/New{k}.java"} for k in range(1, n + 1)}
    files = {}
    for k, f in names.items():
        files.update({f["g"]: java(f"G{k}", 1), f["old"]: java(f"Old{k}", 1), f["del"]: java(f"Del{k}", 1)})
    root = rb.commit("refs/heads/main", {**files, "README.md": "demo\n"})
    main2 = rb.commit("refs/heads/main", {"README.md": "moved on\n"}, root)  # the target branch moves on
    marks = {}
    for k, f in names.items():
        v1 = rb.commit(f"refs/keep-around/v1-{k}", {f["g"]: java(f"G{k}", 2), f["old"]: java(f"Old{k}", 2),
                                                    f["del"]: java(f"Del{k}", 2), f["new"]: java(f"New{k}", 1)}, root)
        v2 = rb.commit(f"refs/merge-requests/{k}/head", {  # force-pushed: a new commit on the base
            f["g"]: java(f"G{k}", 3), f["old"]: None, f["moved"]: java(f"Old{k}", 2), f["del"]: None,
            f["new"]: java(f"New{k}", 1)}, root)
        v3 = rb.commit(f"refs/merge-requests/{k}/head", {f["g"]: java(f"G{k}", 4)}, v2)
        marks[k] = (v1, v2, v3)
    shas = rb.finish()
    rows, dropped = 0, []
    for k, f in names.items():
        created = T0 + timedelta(hours=k)
        heads = [shas[m] for m in marks[k]]
        if k == 2:
            heads[0] = ghost_sha("gitlab-version-1-of-2")
            forge.contents[(heads[0], f["g"])] = java(f"G{k}", 2)
        versions = [version(k * 10 + i, k, head, shas[root], shas[root if i < 2 else main2],
                            created + timedelta(minutes=10 * i)) for i, head in enumerate(heads)]
        v1, v2, v3 = versions
        at = created + timedelta(minutes=30)
        nid = iter(range(k * 100, k * 100 + 99))

        def said(author: dict, pos: dict | None, **kw: Any) -> dict:
            return note(next(nid), author, f"note {k}", at + timedelta(seconds=len(kw)), k, pos, **kw)
        threads = [
            [said(REVIEWER, position(v1, f["g"], None, 8, start=(None, 6)), resolvable=True, resolved=True),
             said(OWNER, position(v1, f["g"], None, 8, start=(None, 6)), resolvable=True, resolved=True)],
            [said(REVIEWER, position(v1, f["g"], 7, None), resolvable=True),
             said(REVIEWER, position(v1, f["g"], 7, None), system=True)],  # "changed this line in version 2"
            [said(REVIEWER, position(v1, f["g"], None, 9, start=(6, None), start_new_at=6), resolvable=True)],
            [said(REVIEWER, position(v1, f["g"], 5, 5))],
            [said(REVIEWER, position(v1, f["g"], None, None, kind="image"))],
            [said(OWNER, None, system=True)],  # "added 1 commit"
            [said(REVIEWER, None)],  # a comment on the merge request, outside the diff
            [said(REVIEWER, position(v2, f["g"], None, 6), resolvable=True)],
            [said(OWNER, position(v2, f["new"], None, 2), resolvable=True)],
            [said(REVIEWER, position(v3, f["g"], None, 6), resolvable=True)],
        ]
        rows += 2
        if k != 2:
            threads += [[said(REVIEWER, position(v1, f["old"], 5, 5))],
                        [said(REVIEWER, position(v1, f["del"], None, 6))],
                        [said(TOKEN_BOT, position(v1, f["new"], None, 3))],
                        [said(REVIEWER, position(v2, f["moved"], 5, 5, old_path=f["old"]))]]  # renamed in its diff
            rows += 4
        if k == 1:
            ghost = version(0, k, ghost_sha("gitlab-unlisted"), shas[root], shas[root], created)
            threads.append([said(REVIEWER, position(ghost, f["g"], None, 6))])
            dropped.append(("unknown_revision", str(k), f["g"]))
        dropped.append(("last_revision", str(k), f["g"]))
        forge.gitlab_versions[k] = list(reversed(versions))  # newest first, as GitLab lists them
        forge.gitlab_discussions[k] = [discussion(f"{k}-{i}", t) for i, t in enumerate(threads)]
        forge.gitlab_mrs[k] = merge_request(k, heads[-1], shas[root], shas[main2], created, at)
    forge.expected.update(gitlab_rows=rows, gitlab_dropped=dropped)


# --- HTTP ---------------------------------------------------------------------------------------------
def answer(handler: Any, query: dict, fault: Any) -> None:
    """Answer one GET under ``/gitlab`` as GitLab's API v4 would."""
    forge = handler.forge
    m = re.fullmatch(r"/gitlab/api/v4/projects/([^/]+)(/.*)?", urlsplit(handler.path).path)  # %2F kept
    if m is None or unquote(m.group(1)) not in (PROJECT, str(PROJECT_ID)):
        return _json(handler, 404, {"message": "404 Project Not Found"}, fault)
    rest = unquote(m.group(2) or "")
    if forge.gitlab_auth_required and handler.headers.get("PRIVATE-TOKEN") is None \
            and not (handler.headers.get("Authorization") or "").startswith("Bearer "):
        return _json(handler, 401, {"message": "401 Unauthorized"}, fault)
    if rest == "":
        return _json(handler, 200, {"id": PROJECT_ID, "path_with_namespace": PROJECT,
                                    "http_url_to_repo": str(forge.gitlab_repo)}, fault)
    if rest == "/merge_requests":
        forge.hits["gitlab_list"] += 1
        after = query.get("updated_after", [None])[0]
        before = query.get("updated_before", [None])[0]
        found = [mr for mr in forge.gitlab_mrs.values()
                 if (after is None or _time(mr["updated_at"]) >= _time(after))
                 and (before is None or _time(mr["updated_at"]) <= _time(before))]
        found.sort(key=lambda mr: (mr["updated_at"], mr["id"]), reverse=True)
        return _paged(handler, found, query, fault)
    if mr := re.fullmatch(r"/merge_requests/(\d+)/(discussions|versions)", rest):
        forge.hits[f"gitlab_{mr.group(2)}"] += 1
        iid = int(mr.group(1))
        if iid not in forge.gitlab_mrs:
            return _json(handler, 404, {"message": "404 Not found"}, fault)
        items = (forge.gitlab_discussions if mr.group(2) == "discussions" else forge.gitlab_versions)[iid]
        return _paged(handler, items, query, fault)
    if file := re.fullmatch(r"/repository/files/(.+)", rest):
        forge.hits["gitlab_files"] += 1
        ref, name = query.get("ref", [""])[0], file.group(1)
        text = forge.contents.get((ref, name))
        if text is None:  # lib/api/files.rb: not_found!('Commit') before not_found!('File')
            known = any(sha == ref for sha, _ in forge.contents)
            return _json(handler, 404, {"message": f"404 {'File' if known else 'Commit'} Not Found"}, fault)
        data = text if isinstance(text, bytes) else text.encode()
        return _json(handler, 200, {"file_name": name.rsplit("/", 1)[-1], "file_path": name, "size": len(data),
                                    "encoding": "base64", "content": base64.b64encode(data).decode(),
                                    "content_sha256": hashlib.sha256(data).hexdigest(), "ref": ref,
                                    "blob_id": hashlib.sha1(data).hexdigest(), "commit_id": ref,
                                    "last_commit_id": ref, "execute_filemode": False}, fault)
    return _json(handler, 404, {"error": "404 Not Found"}, fault)


def _time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _headers(handler: Any) -> dict[str, str]:
    """GitLab.com's rate-limit headers (user/gitlab_com/index.md "Rate limits")."""
    forge = handler.forge
    left = max(0, 2000 - len(forge.log))
    return {"RateLimit-Limit": "2000", "RateLimit-Observed": str(2000 - left), "RateLimit-Remaining": str(left),
            "RateLimit-Reset": str(int(time.time()) + 60),
            "RateLimit-ResetTime": time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(time.time() + 60))}


def _json(handler: Any, status: int, body: Any, fault: Any, headers: dict[str, str] | None = None) -> None:
    handler._send(status, json.dumps(body).encode(), headers={**_headers(handler), **(headers or {})}, fault=fault)


def _paged(handler: Any, items: list, query: dict, fault: Any) -> None:
    """Offset paging (api/rest "Pagination"): ``X-Page``, ``X-Next-Page``..., and ``Link`` unless the forge
    drops it (a proxy may: then ``X-Next-Page`` is all a client has)."""
    per_page = min(int(query.get("per_page", ["20"])[0]), 100)
    page = int(query.get("page", ["1"])[0])
    total = len(items)
    pages = max((total + per_page - 1) // per_page, 1)
    headers = {"X-Page": str(page), "X-Per-Page": str(per_page), "X-Total": str(total), "X-Total-Pages": str(pages),
               "X-Next-Page": str(page + 1) if page < pages else "", "X-Prev-Page": str(page - 1) if page > 1 else ""}
    if page < pages and not handler.forge.gitlab_no_link:
        rest = "&".join(f"{k}={quote(v[0])}" for k, v in query.items() if k != "page")
        url = f"http://{handler.headers.get('Host')}{handler.path.split('?')[0]}?{rest}"
        headers["Link"] = f'<{url}&page={page + 1}>; rel="next", <{url}&page=1>; rel="first", ' \
                          f'<{url}&page={pages}>; rel="last"'
    _json(handler, 200, items[(page - 1) * per_page: page * per_page], fault, headers)
