"""TREED throughput on the Tufano et al. 2021 k=10 predictions, beside the goal and the pure-Python TEDs.

    python benchmarks/bench_treed.py [--sample N] [--reference-pairs N]

Goal (issue 2): at least 500 pairs/s on these ~41-token methods. The reference figures are zss and apted
(pure Python, test-only installs) computing the distance between the very same trees (``method_tree``)
for a few pairs; their parsing is not counted, so the comparison flatters them. The TREED figure is end to
end: parsing every distinct string, building trees, TED, normalisation. numba's one-off compilation (or
cache load) is reported separately: it happens once per process, not per batch.
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

import numpy as np

from revmine.metrics.predictions import read_tufano
from revmine.metrics.tree import LabelTree, TreeEditSimilarity, method_tree

FIXTURE = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "tufano2021" / "predictions"
GOAL = 500.0


def zss_seconds(pairs: list[tuple[LabelTree, LabelTree]]) -> float | None:
    try:
        import zss
    except ImportError:
        return None

    def convert(tree: LabelTree) -> "zss.Node":
        node = zss.Node(tree[0])
        for child in tree[1]:
            node.addkid(convert(child))
        return node

    converted = [(convert(a), convert(b)) for a, b in pairs]
    start = time.perf_counter()
    for a, b in converted:
        zss.simple_distance(a, b)
    return (time.perf_counter() - start) / len(pairs)


def apted_seconds(pairs: list[tuple[LabelTree, LabelTree]]) -> float | None:
    try:
        from apted import APTED, Config
        from apted.helpers import Tree
    except ImportError:
        return None

    def convert(tree: LabelTree) -> Tree:
        return Tree(tree[0], *(convert(child) for child in tree[1]))

    converted = [(convert(a), convert(b)) for a, b in pairs]
    start = time.perf_counter()
    for a, b in converted:
        APTED(a, b, Config()).compute_edit_distance()
    return (time.perf_counter() - start) / len(pairs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", type=Path, default=FIXTURE / "1-encoder_k10_abstracted.txt")
    parser.add_argument("--sample", type=int, default=0, help="score only the first N pairs (0: all)")
    parser.add_argument("--reference-pairs", type=int, default=20, help="pairs timed with zss and apted")
    args = parser.parse_args()

    preds = read_tufano(args.file)
    hyps = [h for beam in preds.predictions for h in beam]
    refs = [r for r in preds.references for _ in range(preds.k)]
    if args.sample:
        hyps, refs = hyps[: args.sample], refs[: args.sample]
    tokens = np.mean([len(h.split()) for h in hyps])

    start = time.perf_counter()
    TreeEditSimilarity().score("void m ( ) { }", "void n ( ) { }")
    warmup = time.perf_counter() - start

    metric = TreeEditSimilarity()
    start = time.perf_counter()
    details = metric.sentence_details(hyps, refs)
    elapsed = time.perf_counter() - start
    rate = len(hyps) / elapsed

    rng = random.Random(0)
    rows = [i for i in rng.sample(range(len(hyps)), min(len(hyps), 10 * args.reference_pairs))
            if not details.fallback[i]][: args.reference_pairs]
    pairs = [(method_tree(hyps[i]), method_tree(refs[i])) for i in rows]
    nodes = np.mean([details.hyp_nodes[i] + details.ref_nodes[i] for i in rows]) / 2

    print(f"file: {args.file.name}, {len(hyps)} pairs, {tokens:.1f} tokens per hypothesis on average")
    print(f"signature: {metric.signature()}")
    print(f"numba compile / cache load (once per process): {warmup:.2f} s")
    print(f"TREED: {rate:,.0f} pairs/s ({elapsed:.1f} s, {1000 / rate:.2f} ms a pair)   goal: {GOAL:,.0f} pairs/s"
          f"   -> {'met' if rate >= GOAL else 'NOT met'} ({rate / GOAL:.1f}x)")
    print(f"  unparsable rows (NaN): {details.unparsable} of {len(hyps)}; "
          f"mean {metric.column} over the rest {np.nanmean(details.score):.4f}")
    for name, seconds in (("zss", zss_seconds(pairs)), ("apted", apted_seconds(pairs))):
        if seconds is None:
            print(f"reference {name}: not installed")
        else:
            print(f"reference {name} (pure Python, TED only, {len(pairs)} pairs of ~{nodes:.0f} nodes): "
                  f"{seconds * 1000:.1f} ms a pair = {1 / seconds:,.0f} pairs/s; TREED end to end is "
                  f"{rate * seconds:,.0f}x faster")


if __name__ == "__main__":
    main()
