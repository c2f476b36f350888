"""The whole dataset on a real Gerrit: all 1,719 rows of the 2021 test split pushed as real changes, how long that
takes, how many published triplets ``revmine run`` rebuilds from the server, and how fast ``revmine mine`` mines it.

    python benchmarks/bench_real_gerrit.py [--every 1] [--repeat 3] [--concurrency 1 8] [--details] [--keep DIR]

A Gerrit 3.10 (tests/gerrit_server.py) is started in a temporary folder and stopped at the end. The rows are
pushed as tests/tufano_gerrit.py does (one chain of patch sets 1 per owner pushed once, comments through the
REST review endpoint, patch sets 2 as a second chain pushed once, replies and LGTMs): *populate* is that
whole step. ``revmine run`` with default settings (anonymous, as for a public server) then mines,
preprocesses, filters, splits and exports; the export is compared with the published files as in
benchmarks/bench_end_to_end.py (4 files, 3 files without src2; every row not rebuilt with its stage/reason).

Mining speed: ``revmine mine --job JOB --concurrency N`` (a process of its own, as a user runs it), each run into
a fresh output folder (no cache, a fresh clone), ``--repeat`` runs per N: changes mined per second (wall clock
of the command: its clone of the repository and about 1.5 s of start-up and imports included), median and
spread; the server's CPU share (utime + stime of the Gerrit JVM from /proc/<pid>/stat, over the same wall
time, in cores) and the client's (the command's own and its git processes'); requests per change and per
round from the manifest's
``totals.http_requests``. ``--concurrency 8`` is at most ``max_concurrent_per_host`` (4 by default) requests
in flight to the one server.

Measured 2026-11-26, all 1,719 rows, one invocation (4 min 18 s), on a shared 2-core machine (another
engineer's Gerrit tests ran at times: the times are upper bounds):
    Gerrit up in 5.7 s; populate 169.1 s (10.2 changes/s): accounts, project and clones 2.1 s, patch sets 1
    (7 pushes) 31.3 s, reviewer comments 54.0 s, patch sets 2 (7 pushes) 31.7 s, replies and LGTMs 50.0 s.
    `revmine run` 16.9 s, mining 11.1 s (the look-alike forge: 11.9 s, mining 4.0 s). 4 files: 1694/1719 rebuilt
    (98.55%), 3 files: 1698/1719 (98.78%), the look-alike's figures; lost: filter/noise 17, export/src2 differ 4,
    export/src1 differ 2, filter/near_duplicate 1 (row 496; 702 on the look-alike: which twin is kept hangs
    on the port), preprocess/outside_method 1.
    `revmine mine`: 1719 changes, 1719 rounds and rows, 1741 requests (1.01 per change and per round: one
    comment listing per change, 22 listing pages), 0 content fallbacks; median of 3 (min-max):
      --concurrency 1: 164.2 changes/s (156.8-167.7; 10.3-11.0 s); server 0.44 cores (0.41-0.50),
                       client 0.53 cores (0.51-0.53)
      --concurrency 8: 216.4 changes/s (214.3-224.1; 7.7-8.0 s), 1.32x; server 0.50 cores (0.48-0.55),
                       client 0.74 cores (0.67-0.76)
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # measure this tree, not whatever is installed
from gerrit_server import GerritServer  # noqa: E402
from tufano_forge import read_published, read_rows, run_job, sample, write_job  # noqa: E402
from tufano_gerrit import populate_tufano  # noqa: E402

from revmine.io.store import read_table  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")
CLI = "import sys; from revmine.cli import main; sys.exit(main())"  # `revmine` of this tree (run from ROOT)


def cpu_seconds(pid: int) -> float:
    """utime + stime of process ``pid`` (all its threads), in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # fields 14 and 15 of stat(5), after pid and comm


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@dataclass
class MineRun:
    """One ``revmine mine`` into a fresh folder: its counts, wall time and CPU."""

    seconds: float
    changes: int
    rows: int
    rounds: int
    requests: int
    fallbacks: int
    server_cpu: float  # seconds
    client_cpu: float

    @property
    def rate(self) -> float:
        return self.changes / self.seconds


def mine(job: Path, out: Path, concurrency: int, server: GerritServer) -> MineRun:
    """``revmine mine --job`` at ``concurrency`` into ``out`` (which must not exist), measured."""
    assert server.process is not None
    env = {k: v for k, v in os.environ.items() if k not in ("GERRIT_USER", "GERRIT_PASSWORD", "REVMINE_CREDENTIALS")}
    server_before, client_before = cpu_seconds(server.process.pid), children_cpu()
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", CLI, "mine", "--job", str(job), "--out", str(out),
                           "--concurrency", str(concurrency), "--json", "-q"], capture_output=True, text=True,
                          env=env, cwd=ROOT)
    seconds = time.perf_counter() - started
    server_cpu, client_cpu = cpu_seconds(server.process.pid) - server_before, children_cpu() - client_before
    if proc.returncode != 0:
        raise RuntimeError(f"revmine mine exited with {proc.returncode}: {proc.stderr.strip()[-500:]}")
    manifest = json.loads(proc.stdout)
    totals = manifest["totals"]
    rounds = read_table(Path(manifest["output"]), columns=["change", "round"]).to_pylist()
    return MineRun(seconds, totals["changes_done"], totals["rows"], len({(r["change"], r["round"]) for r in rounds}),
                   totals["http_requests"], totals["content_fallbacks"], server_cpu, client_cpu)


def spread(values: list[float], fmt: str = ".1f") -> str:
    return f"median {statistics.median(values):{fmt}} (min {min(values):{fmt}}, max {max(values):{fmt}})"


def report_mining(concurrency: int, runs: list[MineRun]) -> None:
    first = runs[0]
    if any((r.changes, r.rows, r.requests) != (first.changes, first.rows, first.requests) for r in runs):
        print(f"  the runs disagree: {[(r.changes, r.rows, r.requests) for r in runs]}")
    print(f"--concurrency {concurrency}: {first.changes} changes, {first.rounds} rounds, {first.rows} rows, "
          f"{first.requests} requests ({first.requests / first.changes:.2f} per change, "
          f"{first.requests / max(first.rounds, 1):.2f} per round), {first.fallbacks} content fallbacks")
    print(f"  changes/s: {spread([r.rate for r in runs])}; seconds: {', '.join(f'{r.seconds:.1f}' for r in runs)}")
    print(f"  server CPU (cores): {spread([r.server_cpu / r.seconds for r in runs], '.2f')}; "
          f"client CPU (cores, git included): {spread([r.client_cpu / r.seconds for r in runs], '.2f')}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--every", type=int, default=1, help="take every N-th row (1: all 1,719)")
    parser.add_argument("--repeat", type=int, default=3, help="timed mining runs per concurrency")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 8], help="the concurrencies measured")
    parser.add_argument("--details", action="store_true", help="print every lost row with its detail")
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it (default: a temporary one)")
    args = parser.parse_args(argv)
    rows = sample(read_rows(), args.every)
    with tempfile.TemporaryDirectory() as scratch:
        root = args.keep or Path(scratch)
        with GerritServer.start(root / "gerrit") as server:
            print(f"Gerrit {server.version} up in {server.start_seconds:.1f} s at {server.url}", flush=True)
            built = populate_tufano(server, rows, root / "pushes")
            print(f"populate: {len(rows)} changes in {built.populate_seconds:.1f} s "
                  f"({len(rows) / built.populate_seconds:.1f} changes/s)")
            for name, seconds in built.seconds.items():
                print(f"  {name:<36} {seconds:6.1f} s")
            print(flush=True)
            job = write_job(root / "job.toml", server.url, window=None)
            rebuilt = run_job(job, rows, built.provenance, root / "e2e", read_published())
            print(f"`revmine run`: {rebuilt.seconds:.1f} s, of which mining {rebuilt.stage_seconds['mine']:.1f} s; "
                  + ", ".join(f"{k} {v:.1f} s" for k, v in rebuilt.stage_seconds.items() if k != "mine"))
            print(rebuilt.report(details=args.details))
            print(flush=True)
            for concurrency in args.concurrency:
                runs = [mine(job, root / f"mine-c{concurrency}-{k}", concurrency, server) for k in range(args.repeat)]
                report_mining(concurrency, runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
