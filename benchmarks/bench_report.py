"""Time to write ``report.html`` for a run of 100,000 candidates (issue 20: "a run of 100,000 candidates gets
its report in seconds").

    python benchmarks/bench_report.py [--n 100000] [--repeat 5] [--run OUT]

The run is the bundled example's (``revmine run examples/job.toml``, or an existing run folder given with
``--run``), copied to a temporary folder with its candidates, the filter's kept and dropped rows and the
splits replicated until the candidates number N (each copy's ids and clusters made its own, so the
near-duplicate clusters and the sample are drawn from N-sized tables; the mined rounds stay as they are).
Each repeat writes the report in a fresh process (imports and all, as ``revmine report`` pays them);
reported: median and spread (min-max) of the wall-clock times, and the report's size.

Measured 2026-11-26 on the 2-core machine shared with other jobs, 5 runs: 100,050 candidates (70,702 rows in
the splits): median 2.28 s (1.93-2.47) a fresh process, of which writing the report in a warm process is
0.53 s (0.40-0.78; mostly splitting the abstracted texts into tokens for the length histograms); 47 KiB.
"""

from __future__ import annotations

import argparse
import math
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[1]
#: the files replicated, relative to the run folder
ROWS = ["preprocessed/candidates.parquet", "filtered/kept.parquet", "filtered/dropped.parquet",
        "splits/train.parquet", "splits/eval.parquet", "splits/test.parquet"]


def replicate(run: Path, target: Path, n: int) -> int:
    """Copy ``run`` to ``target`` with its row files repeated until the candidates number about ``n``."""
    shutil.copytree(run, target, ignore=shutil.ignore_patterns("repos", "http_cache.sqlite", "report.html"))
    copies = math.ceil(n / pq.read_metadata(run / ROWS[0]).num_rows)
    for name in ROWS:
        table = pq.read_table(run / name)
        parts = []
        for i in range(copies):
            part = table
            for column in ("id", "cluster_id"):
                if column in part.column_names:
                    index = part.column_names.index(column)
                    part = part.set_column(index, part.field(index), pc.binary_join_element_wise(
                        part[column], pa.scalar(str(i)), "-"))
            parts.append(part)
        pq.write_table(pa.concat_tables(parts), target / name, row_group_size=10_000)
    return pq.read_metadata(target / ROWS[0]).num_rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000, help="candidates (default 100,000)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--run", type=Path, help="an existing run folder (default: run the example job)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-report-") as tmp:
        run = args.run
        if run is None:
            run = Path(tmp) / "example"
            subprocess.run([sys.executable, "-m", "revmine.cli", "run", str(ROOT / "examples" / "job.toml"), "--out",
                            str(run), "-q"], check=True, stdout=subprocess.DEVNULL)
        big = Path(tmp) / "big"
        candidates = replicate(run, big, args.n)
        kept = sum(pq.read_metadata(big / name).num_rows for name in ROWS[3:])
        times = []
        for _ in range(args.repeat):
            started = time.perf_counter()
            subprocess.run([sys.executable, "-m", "revmine.cli", "report", str(big), "-q"], check=True,
                           stdout=subprocess.DEVNULL)
            times.append(time.perf_counter() - started)
        size = (big / "report.html").stat().st_size
    print(f"report.html of a run of {candidates:,} candidates ({kept:,} rows in the splits): "
          f"median {statistics.median(times):.2f} s (min {min(times):.2f}, max {max(times):.2f}) over {args.repeat} "
          f"runs, each a fresh process; {size / 1024:.0f} KiB")
    print("reference (issue 20): in seconds")


if __name__ == "__main__":
    main()
