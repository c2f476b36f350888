"""Preprocess stage throughput, in-process against Dask, on a synthetic rounds table built from real methods.

    python benchmarks/bench_preprocess.py [--files 300] [--methods 8] [--workers 2] [--batch-size 16 64]

The rounds table: ``--files`` Java files, each a class wrapping ``--methods`` consecutive methods of the
Tufano et al. 2021 test set (../shared/fixtures/tufano2021/test.csv): the submitted file holds their
``before``, the revised one their ``after``, and every method carries its reviewer comment on its first
line. So each file gives about one triplet and one pair per method, through the whole stage: Lizard on
both revisions, matching, linking, javalang abstraction, Parquet out.

Figures are wall-clock seconds (best of ``--repeats``) for ``preprocess()`` end to end, as files/s and
candidates/s (triplets + pairs):

- ``local``: ``engine="local"``, this process.
- ``dask (running)``: ``engine="dask"`` on a LocalCluster of ``--workers`` processes started beforehand
  (``address=``), i.e. the steady state of a long-lived cluster.
- ``dask (own)``: ``engine="dask", workers=N``: preprocess starts and stops its cluster, as
  ``revmine preprocess --engine dask`` would; the difference is the cluster's start-up.

Every Dask output is checked byte for byte against the local one. On a machine with N cores, N workers
compete with this process (which reads batches, and decodes and writes results), so the speed-up stays
under N; it grows with the per-file work.
"""

from __future__ import annotations

import argparse
import csv
import logging
import os
import tempfile
import time
from pathlib import Path

import pyarrow as pa

from revmine.preprocess.candidates import preprocess
from revmine.schema import ROUNDS_SCHEMA
from revmine.io.store import write_table

FIXTURE = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "tufano2021" / "test.csv"


def synthetic_rounds(path: Path, files: int, methods: int) -> Path:
    with open(FIXTURE, newline="", encoding="utf-8") as handle:
        examples = [(r["before"], r["after"], r["comment"]) for r in csv.DictReader(handle)]
    rows = []
    for n in range(files):
        chunk = [examples[(n * methods + k) % len(examples)] for k in range(methods)]
        header = f"package bench;\n\npublic class Gen{n} {{\n"
        before, after, comments = [header], [header], []
        line = 4
        for k, (m_s, m_r, text) in enumerate(chunk):
            m_s, m_r = m_s.rstrip("\n") + "\n\n", m_r.rstrip("\n") + "\n\n"
            comments.append({"id": f"c{n}_{k}", "author": "reviewer", "is_owner": False, "path": f"Gen{n}.java",
                             "side": "REVISION", "line": line, "message": text})
            before.append(m_s)
            after.append(m_r)
            line += m_s.count("\n")
        rows.append({
            "round_id": f"gerrit:bench:demo:{n}:1", "source": "gerrit", "host": "bench", "project": "demo",
            "change": str(n), "round": 1, "path_before": f"Gen{n}.java", "path_after": f"Gen{n}.java",
            "file_status": "modified", "content_before": "".join(before) + "}\n",
            "content_after": "".join(after) + "}\n", "comments": comments,
        })
    write_table(pa.Table.from_pylist(rows, schema=ROUNDS_SCHEMA), path, ROUNDS_SCHEMA)
    return path


def best_wall_seconds(run, repeats: int) -> tuple[float, dict]:
    best, counts = float("inf"), {}
    for _ in range(repeats):
        start = time.perf_counter()
        counts = run()
        best = min(best, time.perf_counter() - start)
    return best, counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=300)
    parser.add_argument("--methods", type=int, default=8, help="methods per file")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--batch-size", type=int, nargs="+", default=[16, 64])
    parser.add_argument("--repeats", type=int, default=2, help="runs per figure; the best is kept")
    args = parser.parse_args()

    from distributed import LocalCluster

    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        rounds = synthetic_rounds(tmp / "rounds.parquet", args.files, args.methods)
        print(f"preprocess on {args.files} synthetic files ({args.methods} methods each, "
              f"{rounds.stat().st_size / 1e6:.1f} MB of rounds), {os.cpu_count()} CPUs, "
              f"dask with {args.workers} worker processes")
        print(f"{'engine':<16} {'batch':>5} {'wall s':>7} {'files/s':>8} {'cands/s':>8} {'speed-up':>8}  output")
        with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                          scheduler_port=0, dashboard_address="127.0.0.1:0", silence_logs=logging.ERROR) as cluster:
            for batch_size in args.batch_size:
                runs = {
                    "local": lambda: preprocess(rounds, tmp / "local", batch_size=batch_size),
                    "dask (running)": lambda: preprocess(rounds, tmp / "dask", batch_size=batch_size, engine="dask",
                                                         address=cluster.scheduler_address),
                    "dask (own)": lambda: preprocess(rounds, tmp / "dask_own", batch_size=batch_size,
                                                     engine="dask", workers=args.workers),
                }
                local_seconds = None
                for name, run in runs.items():
                    seconds, counts = best_wall_seconds(run, args.repeats)
                    local_seconds = local_seconds or seconds
                    candidates = counts["triplets"] + counts["pairs"]
                    same = all((Path(counts[f"{kind}_path"]).read_bytes() ==
                                (tmp / "local" / Path(counts[f"{kind}_path"]).name).read_bytes())
                               for kind in ("candidates", "dropped"))
                    print(f"{name:<16} {batch_size:>5} {seconds:>7.2f} {counts['files'] / seconds:>8.1f} "
                          f"{candidates / seconds:>8.1f} {local_seconds / seconds:>7.2f}x  "
                          f"{'identical' if same else 'DIFFERENT'} ({candidates} candidates, "
                          f"{counts['dropped']} dropped)")


if __name__ == "__main__":  # dask spawns its worker processes: they re-import this file
    main()
