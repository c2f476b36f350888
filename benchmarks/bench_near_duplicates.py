"""Near-duplicate detection (exact pigeonhole join + exact verification) on 10k, 30k and 100k synthetic methods.

    python benchmarks/bench_near_duplicates.py [--sizes 10000,30000,100000] [--repeat 3] [--seed 0]

Goals: 100,000 methods of about 60 tokens in under 2 minutes on 2 cores, with cost growing close to
linearly (issue 5); 1,000,000 methods in under 4 GiB of memory (issue 9). Each run of a size is its own
process so that its peak memory (``VmHWM``) is its own; the figure beside it is the growth over the
data alone (peak minus the resident size once the corpus is built). Time is wall clock and CPU time of
:func:`revmine.algorithms.near_duplicates.near_duplicate_clusters` (one core; CPU time is the steadier figure on a
shared machine, and the one growth is computed from). Every size runs ``--repeat`` times, the sizes taking
turns (so that a spell of load on the shared machine falls on all of them), and each figure is the median
with its spread (min-max). The smallest size is the reference measured in the same run: the largest
size's CPU time is printed beside the smallest's scaled linearly, and its peak memory beside the 4 GiB goal.

Measured (``nice -n 5 ... --sizes 100000,1000000 --repeat 3``, 2 shared cores, 9 min in all), median
(min-max) of 3 runs:

=========  ===================  ===================  ===================  ==============
methods    wall s               CPU s                peak MiB             +MiB over data
=========  ===================  ===================  ===================  ==============
100,000    5.8 (5.6-9.3)        5.7 (5.6-6.3)        374 (374-374)        182 (182-182)
1,000,000  125.7 (123.4-146.6)  125.4 (123.4-133.4)  2,902 (2,902-2,902)  1,279 (all)
=========  ===================  ===================  ===================  ==============

1,000,000 methods stay under the 4 GiB goal in every run (the corpus alone holds 1.6 GiB of it). Their CPU
time is x22 that of 100,000, against the linear extrapolation of 56.5 s (10 x 5.7 s) measured beside it:
the corpus has a fixed vocabulary (103 tokens), so a pigeonhole key is shared by more methods as methods
are added, and look-ups grow quadratically (3.4 per method at 100k, 30 at 1M, counted apart from this
script), while the candidates that pass the set index grow linearly (11,826 and 116,444). Load cost wall
time in the first round only (9.3 and 146.6 s for 6.3 and 133.4 s CPU).

The corpus imitates abstracted Java (what the filter step compares): keywords, punctuation and idioms
with a Zipf-like frequency, and ids ``VAR_k``/``METHOD_k``/``TYPE_k`` numbered per method, so unrelated
methods share many tokens, as real ones do. 10% of the methods are edits (one to three tokens replaced,
inserted or deleted) of an earlier one and 3% exact copies, so clusters exist at every size.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time

from memory import peak_mib  # the benchmarks' folder is the script's path

GOAL_SECONDS_100K = 120.0
GOAL_MIB_1M = 4096.0
COMMON = ("( ) { } ; . , = == != + - < > ! && || return if else for new null this true false public "
          "private static final void int boolean String List Map size get add equals 0 1 isEmpty").split()


def corpus(n: int, seed: int) -> list[list[str]]:
    """``n`` token lists of about 60 tokens with planted near-duplicates and exact copies."""
    rng = random.Random(seed)
    weights = [1.0 / (k + 1) for k in range(len(COMMON))]
    docs: list[list[str]] = []
    for i in range(n):
        roll = rng.random()
        if docs and roll < 0.03:
            docs.append(list(docs[rng.randrange(len(docs))]))
        elif docs and roll < 0.13:
            doc = list(docs[rng.randrange(len(docs))])
            for _ in range(rng.randint(1, 3)):
                at = rng.randrange(len(doc))
                edit = rng.random()
                if edit < 0.4:
                    doc[at] = rng.choice(COMMON)
                elif edit < 0.7:
                    doc.insert(at, rng.choice(COMMON))
                else:
                    del doc[at]
            docs.append(doc)
        else:
            length = rng.randint(45, 75)
            ids = [f"{kind}_{rng.randint(1, 12)}" for kind in rng.choices(("VAR", "METHOD", "TYPE", "STRING", "INT"),
                                                                           (6, 3, 2, 1, 1), k=length // 3)]
            docs.append(rng.choices(COMMON, weights, k=length - len(ids)) + ids)
            rng.shuffle(docs[-1])
    return docs


def run_one(n: int, seed: int) -> dict[str, float]:
    from revmine.algorithms.near_duplicates import near_duplicate_clusters

    docs = corpus(n, seed)
    before = peak_mib()
    start, cpu_start = time.perf_counter(), time.process_time()
    clusters = near_duplicate_clusters(docs)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    return {"n": n, "seconds": seconds, "cpu": cpu, "peak_mib": peak_mib(), "data_mib": peak_mib() - before,
            "clusters": clusters.count, "pairs": len(clusters.pairs),
            "tokens": sum(len(d) for d in docs) / n}


def measure(n: int, seed: int) -> dict[str, float]:
    """One run of ``n`` methods in a fresh process, so that its peak memory is not an earlier run's."""
    out = subprocess.run([sys.executable, __file__, "--one", str(n), "--seed", str(seed)],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def spread(values: list[float], digits: int = 0) -> str:
    """Median and min-max: one run on a shared machine says little, several say how much it varies."""
    return f"{statistics.median(values):.{digits}f} ({min(values):.{digits}f}-{max(values):.{digits}f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,30000,100000")
    parser.add_argument("--repeat", type=int, default=3, help="runs per size; median and min-max shown")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # child process: one size, JSON out
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run_one(args.one, args.seed)))
        return

    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"near_duplicate_clusters, CodeNet thresholds (set 0.9, multiset 0.8), one process per run, "
          f"{args.repeat} runs per size; goals: 100k in < {GOAL_SECONDS_100K:.0f} s, close to linear; "
          f"1M in < {GOAL_MIB_1M:,.0f} MiB", flush=True)
    runs: dict[int, list[dict[str, float]]] = {n: [] for n in sizes}
    for k in range(args.repeat):
        for n in sizes:
            r = measure(n, args.seed)
            runs[n].append(r)
            print(f"run {k + 1}/{args.repeat}, {n:,} methods: {r['seconds']:.1f} s wall, {r['cpu']:.1f} s CPU, "
                  f"peak {r['peak_mib']:.0f} MiB (+{r['data_mib']:.0f} over the data)", flush=True)

    print(f"median (min-max) of {args.repeat} runs")
    print(f"{'methods':>9} {'tok/method':>10} {'wall s':>17} {'CPU s':>17} {'CPU us/method':>13} {'peak MiB':>20} "
          f"{'+MiB':>18} {'clusters':>9} {'verified':>9}")
    med: dict[int, dict[str, float]] = {}
    for n in sizes:
        column = {key: [r[key] for r in runs[n]] for key in ("seconds", "cpu", "peak_mib", "data_mib")}
        med[n] = {key: statistics.median(values) for key, values in column.items()}
        r = runs[n][0]  # same seed, same corpus: tokens, clusters and pairs are the same in every run
        print(f"{n:>9,} {r['tokens']:>10.1f} {spread(column['seconds'], 1):>17} {spread(column['cpu'], 1):>17} "
              f"{med[n]['cpu'] / n * 1e6:>13.0f} {spread(column['peak_mib']):>20} {spread(column['data_mib']):>18} "
              f"{r['clusters']:>9,} {r['pairs']:>9,}")
    first, last = sizes[0], sizes[-1]
    scale = last / first
    print(f"growth {first:,} -> {last:,}: CPU time x{med[last]['cpu'] / med[first]['cpu']:.1f} for x{scale:g} "
          f"methods (linear: x{scale:g}); memory over data "
          f"x{med[last]['data_mib'] / max(med[first]['data_mib'], 1):.1f}")
    if last > first:
        print(f"{last:,}: CPU median {med[last]['cpu']:.1f} s vs linear extrapolation of {first:,} measured in this run "
              f"{med[first]['cpu'] * scale:.1f} s ({scale:g} x {med[first]['cpu']:.1f} s)")
    if 100_000 in med:
        verdict = "meets" if med[100_000]["seconds"] < GOAL_SECONDS_100K else "MISSES"
        print(f"100k: median {med[100_000]['seconds']:.1f} s wall ({med[100_000]['cpu']:.1f} s CPU) vs goal "
              f"< {GOAL_SECONDS_100K:.0f} s: {verdict} the goal")
    if 1_000_000 in runs:
        peaks = [r["peak_mib"] for r in runs[1_000_000]]
        verdict = "meets" if max(peaks) < GOAL_MIB_1M else "MISSES"
        print(f"1M: peak memory median {statistics.median(peaks):,.0f} MiB, highest of {len(peaks)} runs "
              f"{max(peaks):,.0f} MiB vs goal < {GOAL_MIB_1M:,.0f} MiB (4 GiB) in every run: {verdict} the goal")


if __name__ == "__main__":
    main()
