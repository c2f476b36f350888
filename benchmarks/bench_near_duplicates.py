"""Near-duplicate detection (exact pigeonhole join + exact verification) on 10k, 30k and 100k synthetic methods.

    python benchmarks/bench_near_duplicates.py [--sizes 10000,30000,100000] [--seed 0]

Goal (issue 5): 100,000 methods of about 60 tokens in under 2 minutes on 2 cores, with cost growing close
to linearly. Each size runs in its own process so that its peak memory (``ru_maxrss``) is its own; the
figure beside it is the growth over the data alone (peak minus the resident size once the corpus is built).
Time is wall clock and CPU time of :func:`revmine.near_duplicates.near_duplicate_clusters` (one core;
CPU time is the steadier figure on a shared machine, and the one growth is computed from).

The corpus imitates abstracted Java (what the filter step compares): keywords, punctuation and idioms
with a Zipf-like frequency, and ids ``VAR_k``/``METHOD_k``/``TYPE_k`` numbered per method, so unrelated
methods share many tokens, as real ones do. 10% of the methods are edits (one to three tokens replaced,
inserted or deleted) of an earlier one and 3% exact copies, so clusters exist at every size.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import time

GOAL_SECONDS_100K = 120.0
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


def rss_mib() -> float:
    """Peak resident set size of this process so far, in MiB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_one(n: int, seed: int) -> dict[str, float]:
    from revmine.near_duplicates import near_duplicate_clusters

    docs = corpus(n, seed)
    before = rss_mib()
    start, cpu_start = time.perf_counter(), time.process_time()
    clusters = near_duplicate_clusters(docs)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    return {"n": n, "seconds": seconds, "cpu": cpu, "peak_mib": rss_mib(), "data_mib": rss_mib() - before,
            "clusters": clusters.count, "pairs": len(clusters.pairs),
            "tokens": sum(len(d) for d in docs) / n}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,30000,100000")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # child process: one size, JSON out
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run_one(args.one, args.seed)))
        return

    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"near_duplicate_clusters, CodeNet thresholds (set 0.9, multiset 0.8), one process per size; "
          f"goal: 100k in < {GOAL_SECONDS_100K:.0f} s, close to linear")
    print(f"{'methods':>8} {'tok/method':>10} {'wall s':>7} {'CPU s':>6} {'CPU us/method':>13} {'peak MiB':>9} {'+MiB':>6} "
          f"{'clusters':>9} {'verified':>9}")
    results = []
    for n in sizes:
        out = subprocess.run([sys.executable, __file__, "--one", str(n), "--seed", str(args.seed)],
                             check=True, capture_output=True, text=True).stdout
        r = json.loads(out)
        results.append(r)
        print(f"{r['n']:>8,} {r['tokens']:>10.1f} {r['seconds']:>7.1f} {r['cpu']:>6.1f} {r['cpu'] / r['n'] * 1e6:>13.0f} "
              f"{r['peak_mib']:>9.0f} {r['data_mib']:>6.0f} {r['clusters']:>9,} {r['pairs']:>9,}")
    first, last = results[0], results[-1]
    growth = last["cpu"] / first["cpu"]
    print(f"growth {first['n']:,} -> {last['n']:,}: CPU time x{growth:.1f} for x{last['n'] / first['n']:.0f} methods "
          f"(linear: x{last['n'] / first['n']:.0f}); memory over data x{last['data_mib'] / max(first['data_mib'], 1):.1f}")
    if last["n"] == 100_000:
        verdict = "meets" if last["seconds"] < GOAL_SECONDS_100K else "MISSES"
        print(f"100k: {last['seconds']:.1f} s wall ({last['cpu']:.1f} s CPU) vs goal < {GOAL_SECONDS_100K:.0f} s: "
              f"{verdict} the goal")


if __name__ == "__main__":
    main()
