"""Batch jobs over many projects: a failed project does not stop the others, listings cannot loop, and
concurrent mining is polite (per host, per token) and writes exactly what a sequential run writes."""

from __future__ import annotations

import functools
import json
import re
import sys
import threading
import time
from datetime import timedelta
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from miners_server import T0, ForgeServer, Fault, build_forge  # noqa: E402
from stalling_servers import SilentServer  # noqa: E402

from revmine.miners import JobOptions, run_job  # noqa: E402
from revmine.miners import jobs  # noqa: E402
from revmine.miners.base import STALL_LIMIT, ListingStalled  # noqa: E402
from revmine.miners.gerrit import GerritMiner  # noqa: E402
from revmine.miners.github import GitHubMiner  # noqa: E402
from revmine.miners.http import Client, Credentials, Limiter  # noqa: E402
from revmine.miners.jobs import MiningFailed  # noqa: E402
from revmine.io.store import read_table  # noqa: E402
from revmine.runtime.progress import Watch  # noqa: E402

UNTIL = T0 + timedelta(days=30)
MARK = "ghp_BATCH-SECRET-3c1e"


@pytest.fixture()
def server(tmp_path):
    forge = build_forge(tmp_path / "forge", n_changes=12, n_pulls=4)
    forge.mirror = True  # every project name is answered, with demo/app's or octo/demo's data
    with ForgeServer(forge) as srv:
        yield srv


def write_job(path: Path, server, projects: list[tuple[str, str, str | None]], **job: object) -> Path:
    """A job file: (source, name, clone_url) per project (clone_url None: the forge's repository)."""
    forge = server.forge
    lines = ["[job]"] + [f"{k} = {json.dumps(v)}" for k, v in job.items()]
    for source, name, clone in projects:
        if source == "gerrit":
            lines += ["[[projects]]", 'source = "gerrit"', f'url = "{server.gerrit_url}"', f'project = "{name}"',
                      f'until = "{UNTIL.isoformat()}"', f'clone_url = "{clone or forge.gerrit_repo}"']
        else:
            lines += ["[[projects]]", 'source = "github"', f'repo = "{name}"', f'api_url = "{server.github_api}"',
                      f'clone_url = "{clone or forge.github_repo}"']
    path.write_text("\n".join(lines) + "\n")
    return path


def small_pages(monkeypatch) -> None:
    """Two changes a page, so that a listing has several pages (the forge holds a dozen changes)."""
    real = jobs._miner

    def miner(*args):
        m = real(*args)
        m.page_size = 2
        return m
    monkeypatch.setattr(jobs, "_miner", miner)


def test_failed_projects_are_recorded_and_the_others_mined(server, tmp_path, monkeypatch):
    forge = server.forge
    small_pages(monkeypatch)
    forge.gerrit_ignores_bounds.add("demo/stuck")
    forge.github_churning.add("octo/churn")
    forge.faults.append(Fault("/repos/octo/locked/", "401-echo", times=1000))
    projects = [("gerrit", "demo/app", None), ("gerrit", "demo/cloneless", str(tmp_path / "no-such-repo.git")),
                ("gerrit", "demo/stuck", None), ("github", "octo/demo", None), ("github", "octo/locked", None),
                ("github", "octo/churn", None)]
    job = write_job(tmp_path / "job.toml", server, projects, batch_size=2)
    out = tmp_path / "out"
    options = JobOptions(progress=False, credentials={"github": Credentials(tokens=[MARK])})
    with pytest.raises(MiningFailed) as err:
        run_job(job, out, options)
    message = str(err.value)
    assert message.splitlines()[0].startswith("mining failed for 4 of 6 projects")
    assert [line.split(":")[:2] for line in message.splitlines()[1:5]] == [
        ["  gerrit demo/cloneless", " git_error"], ["  gerrit demo/stuck", " listing_stalled"],
        ["  github octo/locked", " bad_credentials"], ["  github octo/churn", " listing_stalled"]]
    assert len(message.splitlines()) <= 24  # one screen

    manifest = json.loads((out / "manifest.json").read_text())
    assert [(p["status"], (p["failure"] or {}).get("kind")) for p in manifest["projects"]] == [
        ("mined", None), ("failed", "git_error"), ("failed", "listing_stalled"), ("mined", None),
        ("failed", "bad_credentials"), ("failed", "listing_stalled")]
    assert manifest["totals"]["projects_failed"] == 4
    rows = read_table(out / "rounds.parquet", expect="rounds/4").to_pylist()
    mined = {(r["source"], r["project"]) for r in rows}
    assert mined <= {("gerrit", "demo/app"), ("github", "octo/demo"),
                     ("gerrit", "demo/stuck"), ("github", "octo/churn")}  # stalled ones keep what they mined
    assert sum(r["project"] == "demo/app" for r in rows) == forge.expected["gerrit_rows"]
    assert sum(r["project"] == "octo/demo" for r in rows) == forge.expected["github_rows"]
    dropped = read_table(out / "dropped.parquet", expect="mine_dropped/2").to_pylist()
    failed = [(d["project"], d["reason"]) for d in dropped if d["change"] is None]
    assert failed == [("demo/cloneless", "git_error"), ("demo/stuck", "listing_stalled"),
                      ("octo/locked", "bad_credentials"), ("octo/churn", "listing_stalled")]
    assert all(d["detail"].startswith("project failed: ") for d in dropped if d["change"] is None)
    stuck_pages = [p for p, _ in forge.log if "project%3Ademo%2Fstuck" in p or "project:demo/stuck" in p]
    assert 0 < len(stuck_pages) <= 12 // 2 + 2 + STALL_LIMIT  # walked once by offset, then stopped
    written = message + (out / "manifest.json").read_text() + "".join(d["detail"] for d in dropped)
    assert MARK not in written and "Bearer REDACTED" in written

    # the clone URL is fixed, and so are the credentials and the GitHub listing; the Gerrit server still
    # ignores the time bounds. The next run asks only for what failed.
    forge.github_churning.clear()
    forge.faults.clear()
    forge.log.clear()
    projects[1] = ("gerrit", "demo/cloneless", None)
    write_job(job, server, projects, batch_size=2)
    with pytest.raises(MiningFailed, match=r"failed for 1 of 6 projects .*\n  gerrit demo/stuck: listing_stalled"):
        run_job(job, out, options)
    again = json.loads((out / "manifest.json").read_text())
    assert [p["status"] for p in again["projects"]] == ["finished_before", "mined", "failed", "finished_before",
                                                        "mined", "mined"]
    asked = {p for p, _ in forge.log}
    assert not [p for p in asked if "demo%2Fapp" in p or "/octo/demo/" in p]
    rows = read_table(out / "rounds.parquet", expect="rounds/4").to_pylist()
    for source, name, _ in projects:
        if name != "demo/stuck":
            assert sum(r["project"] == name for r in rows) == forge.expected[f"{source}_rows"], name
    dropped = read_table(out / "dropped.parquet").to_pylist()
    assert [d["project"] for d in dropped if d["change"] is None] == ["demo/stuck"]


def test_gerrit_ignoring_time_bounds_stops_after_pages_without_progress(server):
    forge = server.forge
    forge.gerrit_ignores_bounds.add("demo/app")
    miner = GerritMiner(Client("gerrit", cache_mode="off"), server.gerrit_url, "demo/app", T0 - timedelta(days=1),
                        UNTIL, page_size=5)
    listed = []
    with pytest.raises(ListingStalled, match=rf"/changes/ \(project demo/app\): {STALL_LIMIT} listing requests"):
        listed.extend(c["_number"] for c in miner.list_changes())
    assert sorted(listed) == list(range(1, 13))  # each change once, then no more pages than the limit allows
    # pages of 5: one by time, the same again (its oldest instant), two by offset reach change 1; then the
    # window's top moves down a millisecond and the same three pages come back: the third is the limit's
    assert forge.hits["gerrit_list"] == 4 + STALL_LIMIT


def test_github_listing_that_keeps_changing_stops_after_passes_without_progress(server):
    forge = server.forge
    forge.github_churning.add("octo/demo")
    miner = GitHubMiner(Client("github", cache_mode="off"), "octo/demo", None, None, server.github_api, page_size=2)
    listed = []
    with pytest.raises(ListingStalled, match=r"/repos/octo/demo/pulls: 3 listing requests"):
        listed.extend(p["number"] for p in miner.list_changes())
    assert sorted(listed) == [1, 2, 3, 4]
    # a first pass of two pages, then STALL_LIMIT passes read again from the top (at most two pages each)
    assert forge.hits["github_pulls"] <= 2 * (1 + STALL_LIMIT)


def test_concurrent_run_writes_what_a_sequential_run_writes_and_is_polite(server, tmp_path):
    forge = server.forge
    forge.latency = 0.02
    projects = [("gerrit", f"demo/p{k}", None) for k in range(3)] + [("github", f"octo/p{k}", None) for k in range(3)]
    job = write_job(tmp_path / "job.toml", server, projects, batch_size=4)
    forge.hits.clear()
    run_job(job, tmp_path / "seq", JobOptions(progress=False))
    sequential = (forge.max_in_flight, sum(forge.hits.values()))
    forge.max_in_flight = 0
    forge.hits.clear()
    manifest = run_job(job, tmp_path / "par", JobOptions(progress=False, concurrency=8, max_concurrent_per_host=3))
    assert sequential[0] == 1 and 1 < forge.max_in_flight <= 3  # one host: its limit, not the job's 8
    assert sum(forge.hits.values()) == sequential[1]  # the same requests
    assert manifest["options"]["concurrency"] == 8
    def parquet_files(out: Path) -> list[Path]:
        return sorted(p.relative_to(out) for p in out.rglob("*.parquet") if p.is_file())
    files = parquet_files(tmp_path / "seq")
    assert len([f for f in files if f.parts[0] == "rounds.parquet"]) > len(projects)  # several parts a project
    assert files == parquet_files(tmp_path / "par")
    for f in files:
        assert (tmp_path / "seq" / f).read_bytes() == (tmp_path / "par" / f).read_bytes(), f
    for state in (tmp_path / "seq" / "state").glob("*.json"):
        seq, par = (json.loads((d / "state" / state.name).read_text()) for d in (tmp_path / "seq", tmp_path / "par"))
        assert seq["done"] == par["done"] and seq["next_part"] == par["next_part"]


def test_a_host_with_free_slots_is_not_held_up_by_a_busy_one(server, tmp_path):
    """Three projects on a slow host (one request at a time) and one on a fast host: the fast host's changes
    do not queue behind the slow host's, which wait for its one slot."""
    slow = server.forge
    slow.latency = 0.15
    answered: list[tuple[float, str]] = []  # (when, which host) of every request
    slow.hooks.append(lambda _: answered.append((time.monotonic(), "slow")))
    fast_forge = build_forge(tmp_path / "fast-forge", n_changes=12, n_pulls=4)
    fast_forge.mirror = True
    fast_forge.delay["/changes/?"] = 0.5  # its listing answers once the slow host's changes wait for their slot
    fast_forge.hooks.append(lambda _: answered.append((time.monotonic(), "fast")))
    with ForgeServer(fast_forge) as fast:
        job = write_job(tmp_path / "job.toml", server, [("gerrit", f"demo/p{k}", None) for k in range(3)])
        with job.open("a") as f:
            f.write(write_job(tmp_path / "fast.toml", fast, [("gerrit", "demo/fast", None)]).read_text()
                    .removeprefix("[job]\n"))
        manifest = run_job(job, tmp_path / "out", JobOptions(progress=False, concurrency=4, max_concurrent_per_host=1))
    assert [p["status"] for p in manifest["projects"]] == ["mined"] * 4
    fast_done = max(t for t, host in answered if host == "fast")
    slow_times = [t for t, host in answered if host == "slow"]
    assert len(slow_times) >= 30 and len([t for t in slow_times if t < fast_done]) < len(slow_times) / 2


def test_threads_sharing_a_token_never_exceed_its_quota(server):
    """Eight threads on one token whose quota is 5 requests: each waits for the reset rather than overspend."""
    forge = server.forge
    forge.latency, forge.quota = 0.02, 5
    waits: list[float] = []

    def sleep(seconds: float) -> None:  # the wait for the reset: the forge renews the quota meanwhile
        waits.append(seconds)
        forge.renew_quota()
    client = Client("github", Credentials(tokens=[MARK]), cache_mode="off", limiter=Limiter(8), sleep=sleep,
                    max_wait=7200)
    bodies, errors = [], []

    def work(k: int) -> None:
        try:
            for n in (1, 2, 3):
                bodies.append(client.get(f"{server.github_api}/repos/octo/demo/pulls/{n}/commits", expect=list)[0])
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(bodies) == 24 and all(len(b) == 3 for b in bodies)
    assert forge.hits["over_quota"] == 0  # never a request past the quota
    assert len(waits) >= 24 // 5 and forge.max_in_flight > 1


def test_cli_mines_concurrently_and_exits_non_zero_with_the_failures(server, tmp_path, capsys):
    from revmine.cli import main

    projects = [("gerrit", "demo/app", None), ("github", "octo/broken", str(tmp_path / "no-such-repo.git")),
                ("github", "octo/demo", None)]
    job = write_job(tmp_path / "job.toml", server, projects)
    out = tmp_path / "out"
    assert main(["mine", "-q", "--job", str(job), "--out", str(out), "--concurrency", "3"]) == 1  # an OperationError
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("revmine: error: mining failed for 1 of 3 projects") and len(err) == 3
    assert err[1].startswith("  github octo/broken: git_error: ") and "no-such-repo.git" in err[1]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["options"]["concurrency"] == 3
    assert [p["status"] for p in manifest["projects"]] == ["mined", "failed", "mined"]


def test_a_stalled_server_fails_its_project_with_the_reason_and_the_others_are_mined(server, tmp_path, capfd,
                                                                                    monkeypatch):
    """A clone URL that accepts and never answers, and a REST API that stops answering: each project fails as
    stalled within its bound after its retries, counted; the third project is mined; the waits are said."""
    silent = SilentServer()
    forge = server.forge
    forge.faults.append(Fault("/repos/octo/slow/", "timeout", times=1000, value=5.0))
    projects = [("gerrit", "demo/silent", silent.url), ("github", "octo/slow", None), ("gerrit", "demo/app", None)]
    job = write_job(tmp_path / "job.toml", server, projects, stall_timeout=2, concurrency=3)
    options = JobOptions(progress=True, client_options={"backoff": 0.01, "max_retries": 1})
    monkeypatch.setattr(jobs, "Watch", functools.partial(Watch, every=1.0))  # a line a second, not every 10 s
    started = time.monotonic()
    try:
        with pytest.raises(MiningFailed) as err:
            run_job(job, tmp_path / "out", options)
    finally:
        silent.close()
    took = time.monotonic() - started
    lines = str(err.value).splitlines()
    assert lines[0].startswith("mining failed for 2 of 3 projects")
    assert lines[1].startswith(f"  gerrit demo/silent: stalled: ") and "stalled: no data for 2 s, 3 tries" in lines[1]
    assert lines[2].startswith("  github octo/slow: stalled: ") and "no answer within 2 s, 2 attempts" in lines[2]
    # git tries 3 times (2 s each, waits 1 and 2 s between), REST twice (2 s each): well under a minute
    assert took < 45, took
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    by_project = {p["asked"]["project"]: p for p in manifest["projects"]}
    assert (by_project["demo/app"]["status"], by_project["demo/app"]["rows"]) == ("mined", forge.expected["gerrit_rows"])
    assert by_project["demo/silent"]["http_this_run"]["git_stalls"] == 3 and silent.accepted >= 3
    assert by_project["demo/silent"]["http_this_run"]["retries"] == 2
    assert by_project["octo/slow"]["http_this_run"]["timeouts"] == 2
    assert manifest["options"]["stall_timeout"] == 2
    said = capfd.readouterr().err.splitlines()
    assert any(re.fullmatch(rf"waiting \d+ s on git fetch from {silent.url}", line) for line in said), said
    assert any(re.fullmatch(r"waiting \d+ s on GET http://127\.0\.0\.1:\d+/github/repos/octo/slow/\S+", line)
               for line in said), said
