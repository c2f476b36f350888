"""Mining many projects from a forge far away: changes/s with 1 worker and with N concurrent requests.

Goal (issue 9): with 100 ms of latency per request, 8 concurrent requests mine >= 6x the changes per
second of one worker, and no host ever sees more than its limit of concurrent requests.

The forge is the tests' local one (tests/miners_server.py), slowed down: every request sleeps
``--latency`` seconds before its answer. It is served on ``--hosts`` ports (two hosts by default, so that
8 requests in flight fit under a polite limit of 4 per host), each in a process of its own (a forge is
another machine: its threads must not compete with the miner's for the interpreter), each counting the
most requests it had in flight at once (from arrival until its answer starts). ``--projects`` projects alternate between hosts and
between Gerrit (``--changes`` changes, about one request each) and GitHub (as many pull requests, about
two requests each); every project is a mirror of the same data under its own name, cloned from a local
repository. Each run is a whole ``run_job`` into a fresh directory (fresh cache, fresh clones): listing,
comments, contents from git, Parquet parts, checkpoints, manifest. The sequential run is the reference,
measured in the same invocation; the concurrent run's output must be byte for byte the sequential one's.

Run: ``python benchmarks/bench_mining_concurrency.py [--projects 200] [--changes 50] [--repeat 3]``
(the full scale takes about 30 minutes a sequential run; ``--projects 16`` gives the same ratio sooner).

Measured 2026-11-25, ``--projects 16 --changes 50 --repeat 3``, final code (a pool of threads per host, one
cache backend per file and process): 1 worker 6.2 changes/s (129.2-130.0 s), 8 concurrent 49.4 changes/s
(16.1-16.2 s), 8.02x; the most requests any host saw in flight: 4; outputs byte-identical.
"""

from __future__ import annotations

import argparse
import hashlib
import multiprocessing
import multiprocessing.connection
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # measure this tree, not whatever is installed
from miners_server import T0, Forge, ForgeServer, build_forge  # noqa: E402

from revmine.miners import JobOptions, run_job  # noqa: E402

GOAL_SPEEDUP = 6.0


class Host:
    """One host of the forge, served by a child process (forked: it shares the forge built here; fork it
    before any thread or Dask cluster is started)."""

    def __init__(self, forge: Forge):
        self.conn, child = multiprocessing.get_context("fork").Pipe()
        self.process = multiprocessing.get_context("fork").Process(target=self._serve, args=(forge, child),
                                                                    daemon=True)
        self.process.start()
        self.url = self.conn.recv()
        self.gerrit_url, self.github_api = f"{self.url}/gerrit", f"{self.url}/github"

    @staticmethod
    def _serve(forge: Forge, conn: multiprocessing.connection.Connection) -> None:
        with ForgeServer(forge) as server:
            conn.send(server.url)
            while (command := conn.recv()) != "stop":
                if command == "reset":
                    forge.max_in_flight = 0
                conn.send(forge.max_in_flight)

    def peak(self, reset: bool = False) -> int:
        """The most requests this host had in flight at once (since the last reset)."""
        self.conn.send("reset" if reset else "peak")
        return self.conn.recv()

    def close(self) -> None:
        self.conn.send("stop")
        self.process.join()


def write_job(path: Path, hosts: list[Host], forge: Forge, projects: int) -> Path:
    """The job file: ``projects`` mirrored projects alternating between hosts and between Gerrit and GitHub."""
    lines = ["[job]", "batch_size = 50"]
    for k in range(projects):
        server = hosts[k % len(hosts)]
        if (k // len(hosts)) % 2 == 0:
            lines += ["[[projects]]", 'source = "gerrit"', f'url = "{server.gerrit_url}"', f'project = "bench/g{k}"',
                      f'until = "{T0.replace(year=2024).isoformat()}"', f'clone_url = "{forge.gerrit_repo}"']
        else:
            lines += ["[[projects]]", 'source = "github"', f'repo = "bench/h{k}"', f'api_url = "{server.github_api}"',
                      f'clone_url = "{forge.github_repo}"']
    path.write_text("\n".join(lines) + "\n")
    return path


def digest(out: Path) -> str:
    """One hash of every Parquet file of a run (parts, drops), by relative path."""
    h = hashlib.sha256()
    for f in sorted(p for p in out.rglob("*.parquet") if p.is_file()):
        h.update(str(f.relative_to(out)).encode() + b"\0" + f.read_bytes())
    return h.hexdigest()


def run(job: Path, out: Path, hosts: list[Host], options: JobOptions) -> dict:
    """One whole ``run_job`` into ``out``: its seconds, counts, each host's peak in flight and its digest."""
    for host in hosts:
        host.peak(reset=True)
    start = time.perf_counter()
    manifest = run_job(job, out, options)
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "changes": manifest["totals"]["changes_done"], "rows": manifest["totals"]["rows"],
            "requests": manifest["totals"]["http_requests"], "peaks": [host.peak() for host in hosts],
            "digest": digest(out)}


def report(label: str, runs: list[dict]) -> float:
    """Print one way's line (counts, median changes/s and spread, most in flight per host); its median."""
    rates = [r["changes"] / r["seconds"] for r in runs]
    median = statistics.median(rates)
    seconds = ", ".join(f"{r['seconds']:.1f}" for r in runs)
    print(f"{label}: {runs[0]['changes']} changes, {runs[0]['requests']} requests, {runs[0]['rows']} rows | "
          f"median {median:.1f} changes/s over {len(runs)} runs (min {min(rates):.1f}, max {max(rates):.1f}; "
          f"seconds {seconds}) | most requests in flight per host: "
          f"{max(max(r['peaks']) for r in runs)}")
    return median


def forge_arguments(ap: argparse.ArgumentParser, projects: int) -> None:
    """The flags of the forge and the job (``projects``: the default number of projects)."""
    ap.add_argument("--projects", type=int, default=projects)
    ap.add_argument("--changes", type=int, default=50, help="changes (Gerrit) / pull requests (GitHub) a project")
    ap.add_argument("--latency", type=float, default=0.1, help="seconds each request waits at the forge")
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--hosts", type=int, default=2)
    ap.add_argument("--per-host", type=int, default=4, help="max_concurrent_per_host")
    ap.add_argument("--repeat", type=int, default=3)


def start_forge(root: Path, args: argparse.Namespace, stack: ExitStack) -> tuple[list[Host], Path]:
    """The forge's hosts (closed by ``stack``) and the job file mining them, under ``root``; prints the setting."""
    forge = build_forge(root / "forge", n_changes=args.changes, n_pulls=args.changes)
    forge.mirror, forge.latency = True, args.latency
    hosts = [Host(forge) for _ in range(args.hosts)]
    for host in hosts:
        stack.callback(host.close)
    print(f"{args.projects} projects x {args.changes} changes, {args.latency * 1000:.0f} ms per request, "
          f"{args.hosts} hosts, limit {args.per_host} requests in flight per host")
    return hosts, write_job(root / "job.toml", hosts, forge, args.projects)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    forge_arguments(ap, projects=200)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp, ExitStack() as stack:
        root = Path(tmp)
        hosts, job = start_forge(root, args, stack)
        options = [JobOptions(progress=False, concurrency=n, max_concurrent_per_host=args.per_host)
                   for n in (1, args.concurrency)]
        sequential, concurrent = [], []
        for i in range(args.repeat):  # interleaved, so that a busy moment of the machine hits both
            sequential.append(run(job, root / f"seq{i}", hosts, options[0]))
            concurrent.append(run(job, root / f"par{i}", hosts, options[1]))
        base = report("1 worker          ", sequential)
        fast = report(f"{args.concurrency} concurrent      ", concurrent)
        identical = len({r["digest"] for r in sequential + concurrent}) == 1
        peak = max(max(r["peaks"]) for r in concurrent)
        verdict = "met" if fast / base >= GOAL_SPEEDUP and peak <= args.per_host else "NOT met"
        print(f"speed-up {fast / base:.2f}x (goal >= {GOAL_SPEEDUP:.0f}x), host limit {args.per_host} "
              f"{'respected' if peak <= args.per_host else 'EXCEEDED'} (most seen {peak}): {verdict} | "
              f"outputs byte-identical: {'yes' if identical else 'NO'}")


if __name__ == "__main__":
    main()
