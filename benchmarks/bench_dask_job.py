"""The job after preprocessing (filter with near-duplicates, split, export) on 100,000 candidates: in-process
vs a local Dask cluster of 2 worker processes (issue 9).

    python benchmarks/bench_dask_job.py [--n 100000] [--repeat 3] [--workers 2] [--seed 0]

The candidates are the 1,719 published test methods of ../shared/fixtures/tufano2021 (abstracted m_s, m_r, the
comment as published and raw, the marked m_s), perturbed as benchmarks/bench_near_duplicates.py perturbs its
methods: 80% are a published row with 4 to 8 tokens of m_s and m_r replaced by tokens of the same method
(a new method, so the join has a realistic share of false candidates), 12% are one to three token edits of
an earlier candidate (near-duplicates) and 3% exact copies; half are pairs, 3% of the triplets carry a
comment by the change's owner. Every run gets a fresh output folder and, on Dask, a fresh cluster, and runs
in its own process (so its peak memory, ``VmHWM``, is its own); both engines' outputs are checked to be byte-identical.

Figures: wall-clock seconds of the three stages (the Dask cluster's start-up is reported apart), median of
``--repeat`` runs and the spread (min-max); CPU seconds of the client and the workers together (what the
engine costs in work, steadier than wall clock on a shared machine); peak resident memory of the client and,
on Dask, of each worker (``VmHWM`` of the worker process, read on the worker after the run).

Measured 2026-11-25 (filter, split and export streaming by parts; export formatting on the engine too; peak
memory read as VmHWM) on the 2-core machine shared with other jobs (load 0.3 to 2), 100,000 candidates, 3 runs
each, outputs byte-identical (21,107 rows kept):

    in-process:      44.9 s (spread 38.6-59.7); filter 40.2 s, split 3.4 s, export 0.9 s; CPU 42 s; peak 793 MiB
    dask, 2 workers: 83.6 s (spread 55.7-92.9); filter 76.5 s, split 5.2 s, export 1.9 s; CPU 91 s (client
                     + workers); client peak 939 MiB, per worker peak 427 MiB; cluster start-up 1.0 s
    ratio dask / in-process: 1.86 (the day before, before streaming and with ru_maxrss: 1.52 and 1.99;
                     in-process peak then reported 1,518 MiB)

Dask is slower here, for two reasons the figures show: the work doubles (91 s of CPU against 42 s: each
worker imports scikit-learn and loads the noise model, comments and keys are pickled both ways, and the
client still builds the join's key index, as in-process), and the two workers could not get two cores (on
workers, a chunk of 2,000 comments took 1.5 s of CPU in 3 s of wall clock). What the engine buys is memory
per machine and machines beyond this one; on 2 shared cores it does not pay.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import memory  # noqa: E402  (the benchmarks' folder is the script's path)
from memory import peak_mib  # noqa: E402

FIXTURE = Path(__file__).resolve().parents[1].parent / "shared" / "fixtures" / "tufano2021"


def published(fixture: Path = FIXTURE) -> list[tuple[str, str, str, str, str]]:
    """(m_s, m_r, comment_abstract, m_s_marked, raw comment) of every published test row."""
    lines = [(fixture / f"{name}-test.txt").read_text(encoding="utf-8").splitlines()
             for name in ("src", "tgt", "src1", "src2")]
    with open(fixture / "test.csv", newline="", encoding="utf-8") as f:
        raw = [row["comment"] for row in csv.DictReader(f)]
    return list(zip(*lines, raw))


def _edit(tokens: list[str], edits: int, rng: random.Random) -> list[str]:
    tokens = list(tokens)
    for _ in range(edits):
        at = rng.randrange(len(tokens))
        roll = rng.random()
        if roll < 0.4 or len(tokens) < 3:
            tokens[at] = rng.choice(tokens)
        elif roll < 0.7:
            tokens.insert(at, rng.choice(tokens))
        else:
            del tokens[at]
    return tokens


def candidates(n: int, seed: int) -> "pa.Table":
    """``n`` candidate rows (the schema of ``candidates.parquet``) made from the published methods."""
    import pyarrow as pa

    from revmine.schema import CANDIDATES_SCHEMA

    rng = random.Random(seed)
    base = published()
    made: list[dict] = []  # code and comment of every candidate (a pair's comment is dropped in ``rows``)
    rows: list[dict] = []
    for i in range(n):
        roll = rng.random()
        if made and roll < 0.03:
            row = dict(made[rng.randrange(len(made))])
        elif made and roll < 0.15:
            row = dict(made[rng.randrange(len(made))])
            row["m_s_abstract"] = " ".join(_edit(row["m_s_abstract"].split(), rng.randint(1, 3), rng))
        else:
            m_s, m_r, comment, marked, raw = rng.choice(base)
            edits = rng.randint(4, 8)
            row = {"m_s_abstract": " ".join(_edit(m_s.split(), edits, rng)),
                   "m_r_abstract": " ".join(_edit(m_r.split(), edits, rng)),
                   "comment_abstract": comment, "comment": raw, "m_s_marked": marked}
        made.append(row)
        triplet = rng.random() < 0.5
        row = dict(row)
        row.update({
            "kind": "triplet" if triplet else "pair", "round_id": f"gerrit:h:p:{i}:1", "source": "gerrit",
            "project": f"p{i % 37}", "change": str(i), "round": 1, "path": "A.java",
            "comment_id": f"c{i}" if triplet else None, "comment_author": "reviewer" if triplet else None,
            "comment_is_owner": (rng.random() < 0.03) if triplet else None, "comment_in_reply_to": None,
            "comment_start_line": 11 if triplet else None, "comment_end_line": 12 if triplet else None,
            "path_after": "A.java", "method_name": "m", "signature": "m()", "signature_after": "m()",
            "match_rule": "signature", "start_line_before": 10, "end_line_before": 40, "start_line_after": 10,
            "end_line_after": 40, "changed": True, "m_s": "void m() {...}", "m_r": "void m() {..}",
            "abstraction_map": "{}"})
        if not triplet:
            row.update(comment=None, comment_abstract=None, m_s_marked=None)
        rows.append(row)
    return pa.Table.from_pylist(rows, schema=CANDIDATES_SCHEMA)


def cpu_seconds() -> float:
    """CPU time (user + system) of the calling process so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run_one(engine_name: str, workers: int, data: Path, out: Path) -> dict:
    """The three stages once, in this process, on ``engine_name``; seconds, memory, a digest of the outputs."""
    from revmine.dataset.export import ExportOptions, export_dataset
    from revmine.dataset.split import SplitOptions, split_dataset
    from revmine.runtime.engine import open_engine
    from revmine.filters.stage import FilterOptions, filter_candidates

    started = time.perf_counter()
    with open_engine(engine_name, workers=workers if engine_name == "dask" else None) as engine:
        ready, cpu_before = time.perf_counter(), cpu_seconds()
        workers_before = sum(engine.client.run(cpu_seconds).values()) if engine_name == "dask" else 0.0
        on = engine if engine_name == "dask" else None
        timings = {}
        filtered = filter_candidates(data, out / "filtered", FilterOptions(engine=on))
        timings["filter"] = time.perf_counter() - ready
        split_dataset(filtered["kept_path"], out / "splits", SplitOptions(engine=on))
        timings["split"] = time.perf_counter() - ready - timings["filter"]
        export_dataset(out / "splits", out / "dataset",
                       ExportOptions(filter_report=out / "filtered" / "filter_report.parquet", engine=on))
        seconds = time.perf_counter() - ready
        timings["export"] = seconds - timings["filter"] - timings["split"]
        if engine_name == "dask":  # sent whole: the workers need not find the benchmarks' folder
            import cloudpickle

            cloudpickle.register_pickle_by_value(memory)
        worker_mib = sorted(engine.client.run(peak_mib).values()) if engine_name == "dask" else []
        cpu = cpu_seconds() - cpu_before
        cpu += sum(engine.client.run(cpu_seconds).values()) - workers_before if engine_name == "dask" else 0.0
    digest = hashlib.sha256()
    for path in sorted(p for p in out.rglob("*") if p.is_file()):
        digest.update(path.relative_to(out).as_posix().encode() + b"\0" + path.read_bytes())
    return {"seconds": seconds, "cpu": cpu, "startup": ready - started, "stages": timings, "client_mib": peak_mib(),
            "worker_mib": worker_mib, "kept": filtered["kept"], "digest": digest.hexdigest()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--one", nargs=3, help=argparse.SUPPRESS)  # child: ENGINE DATA OUT, JSON on stdout
    args = parser.parse_args()
    if args.one:
        engine, data, out = args.one
        print(json.dumps(run_one(engine, args.workers, Path(data), Path(out))))
        return
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "candidates.parquet"
        import pyarrow.parquet as pq

        pq.write_table(candidates(args.n, args.seed), data)
        print(f"{args.n:,} candidates from {FIXTURE}; filter (near-duplicates), split, export; "
              f"{args.repeat} runs per engine, alternating")
        runs: dict[str, list[dict]] = {"local": [], "dask": []}
        for r in range(args.repeat):
            for engine in runs:
                out = Path(tmp) / f"{engine}-{r}"
                child = subprocess.run([sys.executable, __file__, "--workers", str(args.workers), "--one", engine,
                                        str(data), str(out)], check=True, capture_output=True, text=True)
                runs[engine].append(json.loads(child.stdout.strip().splitlines()[-1]))
        digests = {run["digest"] for engine in runs.values() for run in engine}
        print(f"outputs byte-identical across engines and runs: {len(digests) == 1} "
              f"({runs['local'][0]['kept']:,} rows kept)")
        for engine, done in runs.items():
            seconds = [run["seconds"] for run in done]
            stages = {s: statistics.median(run["stages"][s] for run in done) for s in ("filter", "split", "export")}
            label = "in-process" if engine == "local" else f"dask, {args.workers} workers"
            print(f"{label:>18}: {statistics.median(seconds):7.1f} s (spread {min(seconds):.1f}-{max(seconds):.1f}); "
                  + ", ".join(f"{s} {t:.1f} s" for s, t in stages.items())
                  + f"; CPU {statistics.median(run['cpu'] for run in done):.0f} s (client + workers)"
                  + f"; client peak {statistics.median(run['client_mib'] for run in done):.0f} MiB"
                  + (f"; per worker peak {max(max(run['worker_mib']) for run in done):.0f} MiB, cluster start-up "
                     f"{statistics.median(run['startup'] for run in done):.1f} s" if engine == "dask" else ""))
        local = statistics.median(run["seconds"] for run in runs["local"])
        dask = statistics.median(run["seconds"] for run in runs["dask"])
        print(f"ratio dask / in-process: {dask / local:.2f} (medians, start-up excluded)")


if __name__ == "__main__":
    main()
