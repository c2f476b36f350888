"""GVED throughput on the Tufano et al. 2021 fixture, beside the goal and networkx's exact GED.

Two sets of pairs: the k=10 predictions against their references (abstracted code), and the test
split's raw methods, ``before`` against ``after`` (test.csv, longer methods).

    python benchmarks/bench_gved.py [--runs N] [--sample N] [--exact-pairs N] [--exact-max-nodes N]

Goal (issue 12): at least 200 pairs/s on the fixture's methods. The GVED figure is end to end (parsing
every distinct string, building the PDGs, the bipartite GED, normalisation), median of ``--runs`` fresh
metric objects with the spread (min-max). The reference, in the same run, is networkx's exact
``graph_edit_distance`` with the same unit costs on the very same graphs, for pairs of small PDGs
(``--exact-min-nodes`` to ``--exact-max-nodes`` nodes each, where exact GED is feasible): its time per pair, and the gap between
the bipartite upper bound and the exact value (how many pairs agree, mean and largest difference of GVED).
"""

from __future__ import annotations

import argparse
import csv
import random
import statistics
import time
from pathlib import Path

import networkx as nx
import numpy as np

from revmine.metrics.graph import PDG, GraphEditDistance, GraphArrays, bipartite_ged, program_dependence_graph
from revmine.metrics.predictions import read_tufano

FIXTURE = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "tufano2021"
GOAL = 200.0


def as_networkx(graph: PDG) -> nx.DiGraph:
    g = nx.DiGraph()
    g.add_nodes_from((i, {"label": label}) for i, label in enumerate(graph.labels))
    g.add_edges_from((a, b, {"label": label}) for (a, b), label in graph.edges.items())
    return g


def exact_ged(g1: PDG, g2: PDG, timeout: float) -> float:
    """networkx's exact unit-cost GED (node and edge relabelling cost 1; the best found at the timeout)."""
    same = lambda x, y: x["label"] == y["label"]  # noqa: E731
    return nx.graph_edit_distance(as_networkx(g1), as_networkx(g2), node_match=same, edge_match=same,
                                  timeout=timeout)


def measure(name: str, hyps: list[str], refs: list[str], args: argparse.Namespace) -> None:
    rates = []
    for _ in range(args.runs):
        metric = GraphEditDistance()
        start = time.perf_counter()
        details = metric.sentence_details(hyps, refs)
        rates.append(len(hyps) / (time.perf_counter() - start))
    rate = statistics.median(rates)
    ok = ~details.fallback
    print(f"{name}: {len(hyps)} pairs ({len(set(zip(hyps, refs)))} distinct), "
          f"{np.mean([len(h.split()) for h in hyps]):.1f} whitespace tokens per hypothesis on average")
    print(f"  GVED: {rate:,.0f} pairs/s median of {args.runs} (spread {min(rates):,.0f}-{max(rates):,.0f}); "
          f"goal: {GOAL:,.0f} pairs/s -> {'met' if rate >= GOAL else 'NOT met'} ({rate / GOAL:.1f}x)")
    print(f"  rows without two PDGs (NaN): {int((~ok).sum())} of {len(hyps)}; mean gved over the rest "
          f"{np.nanmean(details.score):.4f}; PDG nodes per reference: median "
          f"{np.median([len(program_dependence_graph(r).labels) for r in set(np.array(refs)[ok])]):.0f}")

    graphs: dict[str, PDG | None] = {}

    def graph(text: str) -> PDG | None:
        if text not in graphs:
            graphs[text] = program_dependence_graph(text)
        return graphs[text]

    candidates = [int(i) for i in np.flatnonzero(ok) if hyps[i] != refs[i]]
    random.Random(0).shuffle(candidates)
    chosen = [i for i in candidates
              if all(args.exact_min_nodes <= len(graph(t).labels) <= args.exact_max_nodes for t in (hyps[i], refs[i]))]
    chosen = chosen[: args.exact_pairs]
    exact_values, timed_out = [], 0
    start = time.perf_counter()
    for i in chosen:
        began = time.perf_counter()
        exact_values.append(exact_ged(graph(hyps[i]), graph(refs[i]), args.exact_timeout))
        timed_out += time.perf_counter() - began >= args.exact_timeout  # then the value is only the best found
    exact_seconds = (time.perf_counter() - start) / max(1, len(chosen))
    vocabulary: dict[str, int] = {}
    arrays = [(GraphArrays.build(graph(hyps[i]), vocabulary), GraphArrays.build(graph(refs[i]), vocabulary)) for i in chosen]
    start = time.perf_counter()
    approx = np.array([bipartite_ged(g1, g2) for g1, g2 in arrays])
    approx_seconds = (time.perf_counter() - start) / max(1, len(chosen))
    totals = np.array([g1.size + g2.size for g1, g2 in arrays])
    gaps = (approx - np.array(exact_values)) / totals
    print(f"  reference networkx exact GED ({len(chosen)} pairs of PDGs with {args.exact_min_nodes}-"
          f"{args.exact_max_nodes} nodes each, |V|+|E| of a pair mean {totals.mean():.1f}): "
          f"{exact_seconds * 1000:,.1f} ms a pair = {1 / exact_seconds:,.1f} pairs/s; bipartite GED on the same "
          f"graphs {approx_seconds * 1000:.2f} ms a pair ({exact_seconds / approx_seconds:,.0f}x faster; both "
          f"without parsing)")
    print(f"  bipartite - exact: equal GED on {int((gaps == 0).sum())} of {len(gaps)} pairs; never below exact: "
          f"{bool((gaps >= 0).all())}; GVED gap mean {gaps.mean():.4f}, max {gaps.max():.4f}; exact runs that "
          f"hit the {args.exact_timeout:g} s timeout (value = best found): {timed_out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", type=Path, default=FIXTURE / "predictions" / "1-encoder_k10_abstracted.txt")
    parser.add_argument("--csv", type=Path, default=FIXTURE / "test.csv")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sample", type=int, default=0, help="score only the first N pairs (0: all)")
    parser.add_argument("--exact-pairs", type=int, default=20, help="pairs scored with networkx's exact GED")
    parser.add_argument("--exact-min-nodes", type=int, default=6)
    parser.add_argument("--exact-max-nodes", type=int, default=10)
    parser.add_argument("--exact-timeout", type=float, default=10.0, help="seconds per exact pair")
    args = parser.parse_args()

    preds = read_tufano(args.file)
    hyps = [h for beam in preds.predictions for h in beam]
    refs = [r for r in preds.references for _ in range(preds.k)]
    with args.csv.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    befores, afters = [r["before"] for r in rows], [r["after"] for r in rows]
    if args.sample:
        hyps, refs, befores, afters = hyps[: args.sample], refs[: args.sample], befores[: args.sample], afters[: args.sample]
    print(f"signature: {GraphEditDistance().signature()}")
    measure(f"{args.file.name} (predictions vs references)", hyps, refs, args)
    measure(f"{args.csv.name} (raw methods, before vs after)", befores, afters, args)


if __name__ == "__main__":
    main()
