"""Abstraction throughput on the 1,719 test pairs of Tufano et al. 2021, beside the goal, at 1x/4x/16x.

    python benchmarks/bench_abstraction.py [--repeats N]

Goal (issue 3): at least 1,000 pairs/s per core, with cost growing linearly in the input size. The
figure is single-process CPU time (``time.process_time``), i.e. per core, for ``abstract_pair`` end to
end: comment stripping, lexing, javalang parsing of both methods, the walk and post-processing. Larger
inputs repeat the fixture; nothing is cached between pairs, so a repeated pair costs what it cost first.
The per-stage split shows where the time goes (parsing dominates). Each figure is the best of
``--repeats`` runs, which filters out noise from other processes on a shared machine.

The last lines price the 2-encoder input: ``abstract_pair(..., spans=True)`` plus one ``marked()`` per
pair (the first line of the method), against plain ``abstract_pair`` in the same run: median and spread
(min-max) of ``--repeats`` runs each, alternated so that both see the same machine load.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import time
from pathlib import Path

from revmine.idioms import default_idioms
from revmine.preprocess.abstraction import _Abstraction, _prepare, abstract_pair
from revmine.preprocess.javanames import NameSets, collect_names

FIXTURE = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "tufano2021" / "test.csv"
GOAL = 1000.0


def abstract_all(batch: list[tuple[str, str]]) -> None:
    """Abstract every pair and drop the result, as a streaming stage does (retaining 27k results would
    make the garbage collector's full passes, not the abstraction, grow with the input)."""
    for before, after in batch:
        abstract_pair(before, after)


def abstract_and_mark_all(batch: list[tuple[str, str]]) -> None:
    """The 2-encoder input's cost: positions recorded, and the method's first line marked."""
    for before, after in batch:
        abstract_pair(before, after, spans=True).marked(0, before.find("\n"))


def best_cpu_seconds(run, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        run()
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2, help="runs per figure; the best is kept")
    args = parser.parse_args()

    with open(FIXTURE, newline="", encoding="utf-8") as handle:
        pairs = [(row["before"], row["after"]) for row in csv.DictReader(handle)]
    default_idioms()  # loaded once per process, not per pair

    print(f"abstract_pair on {len(pairs)} pairs; goal {GOAL:,.0f} pairs/s per core")
    print(f"{'input':>6} {'pairs':>7} {'CPU s':>8} {'pairs/s/core':>13} {'us/pair':>8}  vs goal")
    per_pair_1x = None
    for scale in (1, 4, 16):
        batch = pairs * scale
        seconds = best_cpu_seconds(lambda: abstract_all(batch), args.repeats)
        rate = len(batch) / seconds
        per_pair = seconds / len(batch) * 1e6
        per_pair_1x = per_pair_1x or per_pair
        print(
            f"{scale:>5}x {len(batch):>7} {seconds:>8.2f} {rate:>13,.0f} {per_pair:>8.0f}  "
            f"{rate / GOAL:.2f}x goal; cost per pair {per_pair / per_pair_1x:.2f}x of 1x"
        )

    codes = [code for pair in pairs for code in pair]
    prepared = [_prepare(code) for code in codes]
    idioms = default_idioms()
    stages = {
        "comments + lexing": lambda: [_prepare(code) for code in codes],
        "javalang parse + name sets": lambda: [collect_names(p.tokens, NameSets()) for p in prepared],
        "walk": lambda: [_Abstraction(idioms).walk(p) for p in prepared],
    }
    print("stages at 1x (both methods of each pair):")
    for name, run in stages.items():
        seconds = best_cpu_seconds(run, args.repeats)
        print(f"  {name:<28} {seconds / len(pairs) * 1e6:>6.0f} us/pair")

    times: dict[str, list[float]] = {"abstract_pair": [], "abstract_pair(spans=True) + marked": []}
    for _ in range(max(args.repeats, 3)):
        for name, run in (("abstract_pair", lambda: abstract_all(pairs)),
                          ("abstract_pair(spans=True) + marked", lambda: abstract_and_mark_all(pairs))):
            times[name].append(best_cpu_seconds(run, 1))
    print("marking (2-encoder input) at 1x, median (min-max) of runs:")
    for name, runs in times.items():
        per_pair = [t / len(pairs) * 1e6 for t in runs]
        print(f"  {name:<36} {statistics.median(per_pair):>6.0f} us/pair ({min(per_pair):.0f}-{max(per_pair):.0f})")
    ratio = statistics.median(times["abstract_pair(spans=True) + marked"]) / statistics.median(times["abstract_pair"])
    print(f"  marking costs {ratio:.2f}x plain abstraction")


if __name__ == "__main__":
    main()
