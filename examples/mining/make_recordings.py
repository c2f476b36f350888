"""Write ``recordings/NAME.json`` (Gerrit REST replies) from ``repos/NAME/reviews.toml`` and its history.

Why: a Gerrit change's replies repeat what the history already fixes (commit ids, dates, authors, file
lines), so writing them by hand for a few dozen changes invites mistakes. ``reviews.toml`` holds only the
review side: ``url``, ``project``, the job's ``since``/``until`` (the listing query quotes them),
``[accounts]`` and ``[[changes]]`` with ``number``, ``owner``, ``patch_sets`` (commit labels of
``history.toml``, oldest first) and ``[[changes.comments]]`` (``id``, ``patch_set``, ``path``, ``line``,
``author``, ``time``, ``message``, optional ``in_reply_to``). The comment's range covers the text of its
line. A revision's files are those its commit changes against its parent (``git show --numstat``), with
Gerrit's line counts. Usage: ``python examples/mining/make_recordings.py textkit`` (or ``polyglot``; the
output is deterministic).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from datetime import datetime
from pathlib import Path
from urllib.parse import quote, urlencode

from revmine.miners.gerrit import QUERY_OPTIONS
from revmine.miners.replay import build_repos
from revmine.io.textio import read_toml

HERE = Path(__file__).resolve().parent
HEADERS = {"Content-Type": "application/json; charset=utf-8"}
PREFIX = ")]}'\n"


def gerrit_time(iso: str) -> str:
    """Gerrit's timestamp format (UTC, nanoseconds) for an ISO 8601 time."""
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).strftime("%Y-%m-%d %H:%M:%S.000000000")


def account(accounts: dict, name: str) -> dict:
    return {**accounts[name], "username": name}


def diff_stat(repo: Path, ref: str) -> dict[str, tuple[int, int]]:
    """{path: (lines inserted, lines deleted)} of commit ``ref`` against its parent, as Gerrit counts them;
    a file the commit names but leaves as its parent had it is not among the revision's files."""
    out = subprocess.run(["git", "-C", str(repo), "show", "--numstat", "--no-renames", "--format=", ref],
                         capture_output=True, text=True, check=True).stdout
    rows = (line.split("\t") for line in out.splitlines())
    return {path: (int(added), int(deleted)) for added, deleted, path in rows}


def file_info(inserted: int, deleted: int, size: int) -> dict:
    """A Gerrit ``FileInfo``: the line counts are left out when zero, as Gerrit does."""
    return {**({"lines_inserted": inserted} if inserted else {}), **({"lines_deleted": deleted} if deleted else {}),
            "size": size}


def recordings(name: str) -> list[dict]:
    """The exchanges of ``repos/NAME``: the listing page, then each change's comments."""
    folder = HERE / "repos" / name
    spec, history = read_toml(folder / "reviews.toml"), read_toml(folder / "history.toml")
    commits = {c["id"]: c for c in history["commits"]}
    with tempfile.TemporaryDirectory() as tmp:
        repo = build_repos(HERE, tmp)[history["url"]]
        refs = [commits[label]["ref"] for change in spec["changes"] for label in change["patch_sets"]]
        out = subprocess.run(["git", "-C", str(repo), "rev-parse", *refs], capture_output=True, text=True, check=True)
        numstat = {ref: diff_stat(repo, ref) for ref in refs}
    sha = dict(zip(refs, out.stdout.split()))
    base = spec["url"].rstrip("/")
    changes, exchanges = [], []
    for change in spec["changes"]:
        sets = [commits[label] for label in change["patch_sets"]]
        revisions = {}
        for n, commit in enumerate(sets, start=1):
            files = {path: file_info(*numstat[commit["ref"]][path], (folder / src).stat().st_size)
                     for path, src in commit["files"].items() if path in numstat[commit["ref"]]}
            revisions[sha[commit["ref"]]] = {"kind": "REWORK", "_number": n, "created": gerrit_time(commit["date"]),
                                             "uploader": account(spec["accounts"], change["owner"]),
                                             "ref": commit["ref"], "files": files}
        times = [c["date"] for c in sets] + [c["time"] for c in change.get("comments", [])]
        first = sets[0]["message"]
        change_id = next(line.split(": ", 1)[1] for line in first.splitlines() if line.startswith("Change-Id: "))
        changes.append({
            "id": f"{quote(spec['project'], safe='')}~master~{change_id}", "project": spec["project"],
            "branch": "master", "change_id": change_id, "subject": first.splitlines()[0], "status": "NEW",
            "created": gerrit_time(sets[0]["date"]), "updated": gerrit_time(max(times)), "_number": change["number"],
            "owner": account(spec["accounts"], change["owner"]), "current_revision": sha[sets[-1]["ref"]],
            "revisions": revisions})
        by_path: dict[str, list[dict]] = {}
        for c in change.get("comments", []):
            commit = sets[c["patch_set"] - 1]
            text = (folder / commit["files"][c["path"]]).read_text().split("\n")[c["line"] - 1]
            start = len(text) - len(text.lstrip())
            by_path.setdefault(c["path"], []).append({
                "id": c["id"], "patch_set": c["patch_set"], "line": c["line"],
                "range": {"start_line": c["line"], "start_character": start, "end_line": c["line"],
                          "end_character": len(text)},
                "message": c["message"], "updated": gerrit_time(c["time"]),
                "author": account(spec["accounts"], c["author"]), "unresolved": c["author"] != change["owner"],
                "commit_id": sha[commit["ref"]], **({"in_reply_to": c["in_reply_to"]} if "in_reply_to" in c else {})})
        if by_path:
            exchanges.append({"url": f"{base}/changes/{quote(spec['project'], safe='')}~{change['number']}/comments",
                              "status": 200, "headers": HEADERS, "prefix": PREFIX, "json": by_path})
    changes.sort(key=lambda c: (c["updated"], c["_number"]), reverse=True)  # Gerrit lists the newest first
    query = (f'project:{spec["project"]} after:"{spec["since"]} 00:00:00.000" '
             f'before:"{spec["until"]} 00:00:00.000"')
    params = urlencode([("q", query), ("n", 100), *(("o", o) for o in QUERY_OPTIONS)])
    listing = {"url": f"{base}/changes/?{params}", "status": 200, "headers": HEADERS, "prefix": PREFIX,
               "json": changes}
    return [listing, *exchanges]


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    dest = HERE / "recordings" / f"{sys.argv[1]}.json"
    dest.write_text(json.dumps(recordings(sys.argv[1]), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(dest)
