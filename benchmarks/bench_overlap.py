"""Contamination check: 1,000,000 new rows against a 20,000-row benchmark (``revmine overlap``).

    python benchmarks/bench_overlap.py [--new 1000000] [--benchmark 20000] [--runs 3] [--seed 0]

Goal (issue 10): under 5 minutes on this machine (2 cores shared). Rows are made from the real methods of
the 2021 test split (``../shared/fixtures/tufano2021/{src,tgt}-test.txt``, 1,719 abstracted m_s / m_r): each
generated row is one of them with 5-20% of its tokens edited (replaced by another token of the fixture's
vocabulary, inserted or deleted, in m_s and m_r alike), so rows share the vocabulary, lengths and the
repetitiveness of abstracted Java, and many new rows come from the same method as some benchmark row (the
hard case: many candidates to verify). Into NEW are planted 0.5% exact copies of benchmark rows and 0.5%
near copies (one token of m_s edited); NEW is a splits folder (80/10/10), the benchmark one Parquet file.

Each run is its own process (``check_overlap``, wall and CPU time, peak resident memory), on the local engine
and on Dask with 2 local workers (the CPU time and memory are then the driver's only); the median of the runs
and the spread are printed beside the goal, per engine. The reference measured in the same run is the brute force
(every benchmark row verified with the exact indices) on a sample of new rows: its time per row says what
the naive check of 1M rows would cost, and its findings on the sample must equal the index's.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from memory import peak_mib  # the benchmarks' folder is the script's path

FIXTURE = Path(__file__).resolve().parents[1] / ".." / "shared" / "fixtures" / "tufano2021"
GOAL_SECONDS = 300.0
SAMPLE = 100


def perturb(tokens: list[str], rate: float, vocabulary: list[str], rng: random.Random) -> list[str]:
    out = list(tokens)
    for _ in range(max(1, round(rate * len(out)))):
        at = rng.randrange(len(out))
        edit = rng.random()
        if edit < 0.5:
            out[at] = rng.choice(vocabulary)
        elif edit < 0.75:
            out.insert(at, rng.choice(vocabulary))
        elif len(out) > 1:
            del out[at]
    return out


def generate(folder: Path, n_new: int, n_bench: int, seed: int) -> dict[str, int]:
    """The benchmark file and NEW's splits folder under ``folder`` (made once per size and seed)."""
    src = (FIXTURE / "src-test.txt").read_text(encoding="utf-8").splitlines()
    tgt = (FIXTURE / "tgt-test.txt").read_text(encoding="utf-8").splitlines()
    methods = [(s.split(), t.split()) for s, t in zip(src, tgt)]
    vocabulary = sorted({token for s, t in methods for token in s + t})
    rng = random.Random(seed)

    def row(k: int) -> tuple[str, str]:
        s, t = methods[rng.randrange(len(methods))]
        rate = rng.uniform(0.05, 0.20)
        return " ".join(perturb(s, rate, vocabulary, rng)), " ".join(perturb(t, rate, vocabulary, rng))

    bench = [row(k) for k in range(n_bench)]
    pq.write_table(pa.table({"id": [f"b{k}" for k in range(n_bench)], "m_s_abstract": [b[0] for b in bench],
                             "m_r_abstract": [b[1] for b in bench]}), folder / "benchmark.parquet")
    planted = {"exact": 0, "near": 0}
    new_dir = folder / "new"
    new_dir.mkdir(exist_ok=True)
    bounds = {"train": (0, int(0.8 * n_new)), "eval": (int(0.8 * n_new), int(0.9 * n_new)), "test": (int(0.9 * n_new), n_new)}
    for name, (lo, hi) in bounds.items():
        rows = []
        for k in range(lo, hi):
            roll = rng.random()
            if roll < 0.005:
                rows.append(bench[rng.randrange(n_bench)])
                planted["exact"] += 1
            elif roll < 0.01:
                s, t = bench[rng.randrange(n_bench)]
                rows.append((" ".join(perturb(s.split(), 0.0, vocabulary, rng)), t))
                planted["near"] += 1
            else:
                rows.append(row(k))
        pq.write_table(pa.table({"id": [f"n{k}" for k in range(lo, hi)], "m_s_abstract": [r[0] for r in rows],
                                 "m_r_abstract": [r[1] for r in rows]}), new_dir / f"{name}.parquet")
    return planted


def run_one(folder: Path, engine: str) -> dict:
    from revmine.dataset.overlap import check_overlap

    start, cpu = time.perf_counter(), time.process_time()
    summary, table = check_overlap(folder / "new", folder / "benchmark.parquet", engine=engine,
                                   workers=2 if engine == "dask" else None)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    peak = peak_mib()
    found = {m: sum(s[m] for s in summary["splits"].values()) for m in ("exact", "near")}
    return {"seconds": seconds, "cpu": cpu, "peak_mib": peak, "found": found,
            "rows": sum(s["rows"] for s in summary["splits"].values())}


def reference(folder: Path) -> dict:
    """Brute force on a sample of NEW's test rows: every benchmark row verified on the split's own bags
    (:meth:`revmine.io.rows.CandidateRows.bags`), compared with what the index finds."""
    from revmine.dataset.overlap import _best_match
    from revmine.algorithms.near_duplicates import NearDuplicateConfig, NearDuplicateIndex, jaccard
    from revmine.io.rows import DUPLICATE_FIELDS, CandidateRows

    bench = CandidateRows(pq.read_table(folder / "benchmark.parquet"))
    sample = CandidateRows(pq.read_table(folder / "new" / "test.parquet").slice(0, SAMPLE))
    config = NearDuplicateConfig()
    references = [Counter(doc) for doc in bench.bags(range(len(bench)))]
    start = time.process_time()
    brute = []
    for doc in sample.bags(range(len(sample))):
        query = Counter(doc)
        brute.append(any(s >= config.set_threshold and m >= config.multiset_threshold
                         for s, m in (jaccard(query, other) for other in references)))
    cpu = time.process_time() - start
    index = NearDuplicateIndex(list(zip(*(bench.tokens(f) for f in DUPLICATE_FIELDS))), config)
    indexed = [_best_match(index, doc) is not None for doc in zip(*(sample.tokens(f) for f in DUPLICATE_FIELDS))]
    return {"cpu_per_row": cpu / len(brute), "agree": sum(a == b for a, b in zip(brute, indexed)),
            "sample": len(brute), "brute_found": sum(brute)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--new", type=int, default=1_000_000)
    parser.add_argument("--benchmark", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--engines", default="local,dask", help="engines to time (dask: 2 local workers)")
    parser.add_argument("--one", type=Path, help=argparse.SUPPRESS)  # child process: one run, JSON out
    parser.add_argument("--engine", default="local", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run_one(args.one, args.engine)))
        return
    with tempfile.TemporaryDirectory(prefix="bench_overlap.") as tmp:
        folder = Path(tmp)
        start = time.perf_counter()
        planted = generate(folder, args.new, args.benchmark, args.seed)
        print(f"generated {args.new:,} new rows ({planted['exact']:,} exact and {planted['near']:,} near copies "
              f"planted) and {args.benchmark:,} benchmark rows from the 1,719 fixture methods in "
              f"{time.perf_counter() - start:.0f} s")
        results = {}
        for engine in args.engines.split(","):
            runs = results[engine] = []
            for k in range(args.runs):
                out = subprocess.run([sys.executable, __file__, "--one", str(folder), "--engine", engine], check=True,
                                     capture_output=True, text=True).stdout
                runs.append(json.loads(out.strip().splitlines()[-1]))
                r = runs[-1]
                print(f"{engine} run {k + 1}: {r['seconds']:.1f} s wall, {r['cpu']:.1f} s CPU (this process), peak "
                      f"{r['peak_mib']:.0f} MiB; found {r['found']['exact']:,} exact, {r['found']['near']:,} near in "
                      f"{r['rows']:,} rows", flush=True)
        ref = reference(folder)
    for engine, runs in results.items():
        seconds = [r["seconds"] for r in runs]
        median = statistics.median(seconds)
        verdict = "meets" if median < GOAL_SECONDS else "MISSES"
        print(f"check_overlap {args.new:,} x {args.benchmark:,}, engine {engine}: median {median:.1f} s wall (spread "
              f"{min(seconds):.1f}-{max(seconds):.1f} s over {len(runs)} runs), CPU median "
              f"{statistics.median(r['cpu'] for r in runs):.1f} s, peak memory median "
              f"{statistics.median(r['peak_mib'] for r in runs):.0f} MiB; goal < {GOAL_SECONDS:.0f} s: {verdict} the goal")
    print(f"reference (brute force, same run): {ref['cpu_per_row'] * 1e3:.1f} ms CPU per new row, so "
          f"{ref['cpu_per_row'] * args.new / 3600:.1f} h for {args.new:,} rows; on {ref['sample']} sampled rows it "
          f"finds {ref['brute_found']} overlapping, the index agrees on {ref['agree']}/{ref['sample']}")
    print(f"planted: {planted['exact']:,} exact copies (all must be found as exact, more may occur by chance), "
          f"{planted['near']:,} near copies")


if __name__ == "__main__":
    main()
