"""Mining on Dask: projects spread over two worker processes write what an in-process run writes, and the
job's politeness holds across the workers (requests in flight to a host, a token's quota)."""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_miners_batch import server, write_job  # noqa: E402,F401 - server: the same mirrored forge fixture

from revmine.runtime.engine import open_engine  # noqa: E402
from revmine.miners import JobOptions, run_job  # noqa: E402
from revmine.miners.jobs import MiningFailed  # noqa: E402

MARK = "ghp_DASK-SECRET-51f0"


@pytest.fixture(scope="module")
def scheduler() -> str:
    """Two worker processes holding a GitHub token in their environment (as a cluster's workers would)."""
    distributed = pytest.importorskip("distributed")
    saved = os.environ.get("GITHUB_TOKEN")
    os.environ["GITHUB_TOKEN"] = MARK  # spawned workers copy the environment when they start
    try:
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                           scheduler_port=0, dashboard_address="127.0.0.1:0",
                                           silence_logs=logging.ERROR)
    finally:
        os.environ.pop("GITHUB_TOKEN") if saved is None else os.environ.update(GITHUB_TOKEN=saved)
    with cluster:
        yield cluster.scheduler_address


def _revmine_semaphores(dask_scheduler=None) -> list[str]:  # noqa: ANN001 - Dask passes the scheduler
    return sorted(name for name in dask_scheduler.extensions["semaphores"].max_leases if name.startswith("revmine-"))


def _summaries(out: Path) -> list[dict]:
    """The manifest's projects without times: the seconds they took, the window's end (when the run began)."""
    projects = json.loads((out / "manifest.json").read_text())["projects"]
    return [{k: v for k, v in p.items() if k not in ("seconds_this_run", "window")} for p in projects]


def _untimed(checkpoint: Path) -> dict:
    """A project's checkpoint without the window's end (when the run began)."""
    return {k: v for k, v in json.loads(checkpoint.read_text()).items() if k != "until"}


def test_projects_mined_on_workers_write_the_bytes_of_an_in_process_run_and_keep_the_host_limit(
        server, tmp_path, scheduler, monkeypatch):
    forge = server.forge
    forge.latency = 0.02
    monkeypatch.setenv("GITHUB_TOKEN", MARK)  # the in-process run uses the token the workers have
    projects = [("gerrit", f"demo/p{k}", None) for k in range(3)] + [("github", f"octo/p{k}", None) for k in range(3)]
    job = write_job(tmp_path / "job.toml", server, projects, batch_size=4)
    run_job(job, tmp_path / "local", JobOptions(progress=False, concurrency=4, max_concurrent_per_host=2))
    local_requests = sum(forge.hits.values())
    forge.max_in_flight = 0
    forge.hits.clear()
    with open_engine("dask", address=scheduler) as engine:
        run_job(job, tmp_path / "dask", JobOptions(progress=False, concurrency=4, max_concurrent_per_host=2,
                                                   engine=engine))
        # the job's semaphores (the request slots of its hosts and of the job) are gone from the scheduler
        assert engine.client.run_on_scheduler(_revmine_semaphores) == []
    assert 1 < forge.max_in_flight <= 2  # two workers, four requests each allowed: the host's two in all
    assert sum(forge.hits.values()) == local_requests

    def data(out: Path) -> dict[str, bytes]:
        return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*.parquet")) if p.is_file()}
    local, dask = data(tmp_path / "local"), data(tmp_path / "dask")
    assert sum(name.startswith("rounds.parquet/") for name in local) > len(projects)  # several parts a project
    assert "dropped.parquet" in local and any(name.startswith("state/dropped/") for name in local)
    assert local == dask
    assert _summaries(tmp_path / "local") == _summaries(tmp_path / "dask")
    for state in (tmp_path / "local" / "state").glob("*.json"):
        assert _untimed(state) == _untimed(tmp_path / "dask" / "state" / state.name)


def test_workers_sharing_a_token_never_exceed_its_quota(server, tmp_path, scheduler):
    """Three projects on two workers, one token with quota for 10 requests and no waiting for its reset: the
    token is spent to its last request and never beyond, then the projects fail as rate limited."""
    forge = server.forge
    forge.latency, forge.quota = 0.02, 10
    job = write_job(tmp_path / "job.toml", server, [("github", f"octo/p{k}", None) for k in range(3)])
    with open_engine("dask", address=scheduler) as engine, pytest.raises(MiningFailed, match="rate_limited"):
        run_job(job, tmp_path / "out", JobOptions(progress=False, concurrency=4, wait_on_rate_limit=False,
                                                  engine=engine))
    assert forge.hits["over_quota"] == 0
    assert forge.used == {f"Bearer {MARK}": 10}
    assert forge.max_in_flight > 1  # the token was spent by concurrent requests
    written = "".join(p.read_text(errors="replace") for p in (tmp_path / "out").rglob("*") if p.is_file())
    assert MARK not in written


def test_credentials_given_in_code_do_not_travel_to_the_workers(server, tmp_path, scheduler):
    from revmine.errors import InputError
    from revmine.miners.http import Credentials

    job = write_job(tmp_path / "job.toml", server, [("github", "octo/demo", None)])
    with open_engine("dask", address=scheduler) as engine, pytest.raises(InputError, match="environment") as err:
        run_job(job, tmp_path / "out", JobOptions(progress=False, engine=engine,
                                                  credentials={"github": Credentials(tokens=[MARK])}))
    assert MARK not in str(err.value)
