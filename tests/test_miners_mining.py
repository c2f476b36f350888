"""Both miners end to end against the local forge: rounds, statuses, drops, paging, replay, resume."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from miners_server import T0, ForgeServer, _gerrit_time, _iso, build_forge  # noqa: E402

from revmine.errors import InputError  # noqa: E402
from revmine.miners import JobOptions, mine_gerrit, mine_github, run_job  # noqa: E402
from revmine.miners import jobs  # noqa: E402
from revmine.miners.gerrit import GerritMiner  # noqa: E402
from revmine.miners.github import GitHubMiner  # noqa: E402
from revmine.miners.http import Client  # noqa: E402
from revmine.store import read_table  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
UNTIL = T0 + timedelta(days=30)


@pytest.fixture()
def server(tmp_path):
    forge = build_forge(tmp_path / "forge", n_changes=12, n_pulls=4)
    with ForgeServer(forge) as srv:
        yield srv


def opts(**kw) -> JobOptions:
    return JobOptions(progress=False, **kw)


def keys(out: Path) -> list[tuple[str, str]]:
    table = read_table(out / "rounds.parquet", expect="rounds/1", columns=["round_id", "path_before"])
    return sorted(zip(table.column("round_id").to_pylist(), table.column("path_before").to_pylist()))


def test_gerrit_rounds(server, tmp_path):
    forge = server.forge
    m = mine_gerrit(server.gerrit_url, "demo/app", tmp_path / "out", until=UNTIL,
                    clone_url=str(forge.gerrit_repo), options=opts())
    rows = read_table(tmp_path / "out" / "rounds.parquet", expect="rounds/1").to_pylist()
    assert len(rows) == forge.expected["gerrit_rows"]
    status = Counter(r["file_status"] for r in rows)
    assert status == {"modified": 2, "renamed": 2, "deleted": 2}
    renamed = next(r for r in rows if r["file_status"] == "renamed")
    assert renamed["path_after"].startswith("src/Renamed") and renamed["content_after"]
    first = next(r for r in rows if r["change"] == "1")
    assert first["round"] == 1 and "x1 = 2" in first["content_before"] and "x1 = 3" in first["content_after"]
    c = {x["id"]: x for x in first["comments"]}
    assert set(c) == {"c1a", "c1b"}  # PS2 comment and README comment are not part of the round
    assert (c["c1a"]["start_line"], c["c1a"]["end_line"], c["c1a"]["start_character"], c["c1a"]["end_character"]) == (5, 6, 8, 20)
    assert c["c1b"]["is_owner"] and c["c1b"]["in_reply_to"] == "c1a" and c["c1a"]["side"] == "REVISION"
    project = m["projects"][0]
    assert len(project["dropped"]) == forge.expected["gerrit_dropped"]
    assert "gone from git" in project["dropped"][0]["reason"]
    dropped = read_table(tmp_path / "out" / "dropped.parquet", expect="mine_dropped/1").to_pylist()
    assert [(d["source"], d["reason"]) for d in dropped] == [("gerrit", d["reason"]) for d in project["dropped"]]
    # requests per change: one listing page for all + one comments request per multi-patch-set change
    assert project["http"]["requests"] / project["changes_done"] <= 3
    assert m["versions"]["revmine"] and m["totals"]["rows"] == len(rows)


def test_github_rounds_with_outdated_and_force_pushed(server, tmp_path):
    forge = server.forge
    m = mine_github("octo/demo", tmp_path / "out", api_url=server.github_api,
                    clone_url=str(forge.github_repo), options=opts())
    rows = read_table(tmp_path / "out" / "rounds.parquet").to_pylist()
    assert len(rows) == forge.expected["github_rows"]
    pr1 = {(r["round"], r["path_before"]): r for r in rows if r["change"] == "1"}
    a = pr1[(1, "src/A1.java")]
    commits = [c["sha"] for c in forge.github_commits[1]]
    assert (a["revision_before"], a["revision_after"], a["file_status"]) == (commits[0], commits[1], "modified")
    assert pr1[(1, "src/B1.java")]["revision_after"] == commits[2]  # untouched later: the final head
    ghost = pr1[(4, "src/A1.java")]  # force-pushed commit, read through the contents API
    assert ghost["comments"][0]["outdated"] and ghost["comments"][0]["line"] == 3
    assert "x1 = 9" in ghost["content_before"]
    p = m["projects"][0]
    assert p["content_fallbacks"] == 1
    assert p["http"]["requests"] <= 2 * p["changes_done"] + 1 + p["content_fallbacks"]


def test_replay_offline_from_cache(server, tmp_path):
    forge = server.forge
    cache = tmp_path / "cache.sqlite"
    mine_gerrit(server.gerrit_url, "demo/app", tmp_path / "a", until=UNTIL, clone_url=str(forge.gerrit_repo),
                options=opts(cache=cache))
    n = len(forge.log)
    m = mine_gerrit(server.gerrit_url, "demo/app", tmp_path / "b", until=UNTIL, clone_url=str(forge.gerrit_repo),
                    options=opts(cache=cache, cache_mode="offline"))
    assert len(forge.log) == n and m["projects"][0]["http"].get("requests", 0) == 0
    assert keys(tmp_path / "a") == keys(tmp_path / "b")


def test_gerrit_keyset_paging_with_moving_order(server, tmp_path):
    forge = server.forge
    for i in (7, 8, 9):  # three changes share an instant: more than a page -> offsets inside it
        forge.gerrit_changes[i]["updated"] = forge.gerrit_changes[6]["updated"]
    seen_pages = []

    def bump(path: str) -> None:  # after the first page, the newest change moves again (stays in window)
        if path.startswith("/gerrit/changes/?"):
            seen_pages.append(path)
            if len(seen_pages) == 2:
                forge.gerrit_changes[12]["updated"] = _gerrit_time(T0 + timedelta(days=1))
    forge.hooks.append(bump)
    client = Client("gerrit", cache_mode="off")
    miner = GerritMiner(client, server.gerrit_url, "demo/app", T0 - timedelta(days=1), UNTIL, page_size=2)
    numbers = [c["_number"] for c in miner.list_changes()]
    assert sorted(numbers) == list(range(1, 13)) and len(seen_pages) > 3


def test_github_pages_changing_between_requests(server):
    forge = server.forge

    def bump(path: str) -> None:  # while paging, PR 1 (last page) is updated and jumps to the top
        if "/pulls?" in path and "page=2" in path:
            forge.github_pulls[1]["updated_at"] = _iso(T0 + timedelta(days=2))
    forge.hooks.append(bump)
    miner = GitHubMiner(Client("github", cache_mode="off"), "octo/demo", None, None, server.github_api, page_size=2)
    numbers = [p["number"] for p in miner.list_changes()]
    assert sorted(numbers) == [1, 2, 3, 4]


def test_job_toml_errors(tmp_path):
    job = tmp_path / "job.toml"
    job.write_text('[[projects]]\nsource = "github"\nrepo = "o/n"\ntoken = "ghp_x"\n')
    with pytest.raises(InputError, match=r"projects\[0\]\.token") as err:
        run_job(job, tmp_path / "out")
    assert "ghp_x" not in str(err.value)
    job.write_text('[[projects]]\nsource = "gitlab"\n')
    with pytest.raises(InputError, match=r"job.toml \[projects\[0\]\.source\]"):
        run_job(job, tmp_path / "out")
    job.write_text('[[projects]]\nsource = "github"\nrepo = "o/n"\nsince = "last tuesday"\n')
    with pytest.raises(InputError, match=r"since"):
        run_job(job, tmp_path / "out")


def _write_job(tmp_path: Path, server) -> Path:
    job = tmp_path / "job.toml"
    job.write_text(f"""
[job]
batch_size = 2
[[projects]]
source = "gerrit"
url = "{server.gerrit_url}"
project = "demo/app"
until = "{UNTIL.isoformat()}"
clone_url = "{server.forge.gerrit_repo}"
[[projects]]
source = "github"
repo = "octo/demo"
api_url = "{server.github_api}"
clone_url = "{server.forge.github_repo}"
""")
    return job


def test_crash_between_part_and_checkpoint(server, tmp_path, monkeypatch):
    job = _write_job(tmp_path, server)
    reference = run_job(job, tmp_path / "ref", opts())
    real_save, calls = jobs._Checkpoint.save, Counter()

    def crashing_save(self):
        calls["n"] += 1
        if calls["n"] == 3:  # the part of batch 3 is on disk, its checkpoint is not
            raise KeyboardInterrupt("killed")
        real_save(self)
    monkeypatch.setattr(jobs._Checkpoint, "save", crashing_save)
    with pytest.raises(KeyboardInterrupt):
        run_job(job, tmp_path / "out", opts())
    monkeypatch.setattr(jobs._Checkpoint, "save", real_save)
    resumed = run_job(job, tmp_path / "out", opts())
    got = keys(tmp_path / "out")
    assert got == keys(tmp_path / "ref") and len(set(got)) == len(got)
    assert resumed["totals"]["rows"] == reference["totals"]["rows"]


def test_kill_9_and_resume(server, tmp_path):
    job = _write_job(tmp_path, server)
    run_job(job, tmp_path / "ref", opts())
    expected = keys(tmp_path / "ref")
    forge = server.forge
    forge.delay["/comments"] = 0.05
    script = ("import sys; from revmine.miners import run_job, JobOptions; "
              "run_job(sys.argv[1], sys.argv[2], JobOptions(progress=False))")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = tmp_path / "out"
    killed = 0
    for kill_after in (3, 9, 14):  # kill at several points: mid-Gerrit, mid-GitHub
        start = forge.hits["gerrit_comments"] + forge.hits["github_comments"]
        proc = subprocess.Popen([sys.executable, "-c", script, str(job), str(out)], env=env)
        deadline = time.monotonic() + 20
        while proc.poll() is None and time.monotonic() < deadline:
            if forge.hits["gerrit_comments"] + forge.hits["github_comments"] - start >= kill_after:
                os.kill(proc.pid, signal.SIGKILL)
                break
            time.sleep(0.005)
        killed += proc.wait() == -signal.SIGKILL
    forge.delay.clear()
    assert killed >= 2
    final = run_job(job, out, opts())
    got = keys(out)
    assert got == expected and len(set(got)) == len(got)
    assert all(p["changes_done"] == p["changes_listed_this_run"] for p in final["projects"])
