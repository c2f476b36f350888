"""Abstraction throughput on the 1,719 test pairs of Tufano et al. 2021 at 1x/4x/16x: tree-sitter name sets
(with the javalang fallback) against javalang for every method, measured in the same run.

    python benchmarks/bench_abstraction.py [--repeats N] [--scales 1 4 16]

Goal (issue 9, section 5): at least 3,000 pairs/s per core, the abstraction still exact on every fixture
row (tests/test_abstraction.py checks that; here the two name-set paths are also checked to give identical
output). The figure is single-process CPU time (``time.process_time``), i.e. per core, for
``abstract_pair`` end to end: comment stripping, lexing, name sets of both methods, the walk and
post-processing. Larger inputs repeat the fixture; nothing is cached between pairs, so a repeated pair
costs what it cost first. Each figure is the median of ``--repeats`` runs with the spread (min-max); the
two paths alternate run by run so that both see the same machine load. "javalang" is the abstraction as
it was before tree-sitter (:func:`revmine.preprocess.javatree.tree_names` switched off, so every method
is parsed by javalang).

The floor (issue 28): no abstraction that reads methods with tree-sitter can beat tree-sitter parsing both
methods of each pair (as :mod:`revmine.preprocess.javatree` wraps them, in a class), nothing else; timed
at 1x alternating with ``abstract_pair``, and ``abstract_pair`` printed as a ratio to it, run by run (goal:
at least 0.5x).

Then: which path the fixture's 3,438 methods take (and why javalang is asked), the per-stage split, and
the price of the 2-encoder input (``abstract_pair(..., spans=True)`` plus one ``marked()`` per pair).
"""

from __future__ import annotations

import argparse
import csv
import gc
import statistics
import time
from collections import Counter
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator
from unittest import mock

from revmine.lang.idioms import default_idioms
from revmine.preprocess import javanames
from revmine.preprocess.abstraction import _Abstraction, _prepare, abstract_pair
from revmine.preprocess.javanames import NameSets, _collect_with_javalang, collect_names
from revmine.lang.languages import parser as sitter_parser
from revmine.preprocess.javatree import _WRAPPER, javalang_reason, tree_names

FIXTURE = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "tufano2021" / "test.csv"
GOAL = 3000.0
FLOOR_GOAL = 0.5


@contextmanager
def javalang_only() -> Iterator[None]:
    """Every method parsed by javalang, as before tree-sitter (the fallback path taken for all)."""
    with mock.patch.object(javanames, "tree_names", lambda source: None):
        yield


@contextmanager
def tree_sitter() -> Iterator[None]:
    yield


PATHS = {"javalang": javalang_only, "tree-sitter": tree_sitter}


def abstract_all(batch: list[tuple[str, str]]) -> None:
    """Abstract every pair and drop the result, as a streaming stage does (retaining 27k results would
    make the garbage collector's full passes, not the abstraction, grow with the input)."""
    for before, after in batch:
        abstract_pair(before, after)


def abstract_and_mark_all(batch: list[tuple[str, str]]) -> None:
    """The 2-encoder input's cost: positions recorded, and the method's first line marked."""
    for before, after in batch:
        abstract_pair(before, after, spans=True).marked(0, before.find("\n"))


def cpu_seconds(run: Callable[[], object]) -> float:
    start = time.process_time()
    run()
    return time.process_time() - start


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):>8,.0f} ({min(values):,.0f}-{max(values):,.0f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="runs per figure; median and min-max shown")
    parser.add_argument("--scales", type=int, nargs="+", default=[1, 4, 16], help="input sizes, x the fixture")
    args = parser.parse_args()

    with open(FIXTURE, newline="", encoding="utf-8") as handle:
        pairs = [(row["before"], row["after"]) for row in csv.DictReader(handle)]
    default_idioms()  # loaded once per process, not per pair

    outputs = {}
    for name, path in PATHS.items():
        with path():
            outputs[name] = [tuple(abstract_pair(before, after)) for before, after in pairs]
    same = outputs["javalang"] == outputs["tree-sitter"]
    del outputs  # retained results would make the garbage collector's passes part of the figures
    print(f"abstract_pair on {len(pairs)} pairs; both paths give identical output: {'yes' if same else 'NO'}")

    print(f"pairs/s per core, median (min-max) of {args.repeats} runs; goal {GOAL:,.0f}")
    print(f"{'input':>6} {'pairs':>7}  {'javalang':>26}  {'tree-sitter':>26}  speed-up  vs goal")
    for scale in args.scales:
        batch = pairs * scale
        rates: dict[str, list[float]] = {name: [] for name in PATHS}
        for _ in range(args.repeats):
            for name, path in PATHS.items():
                with path():
                    rates[name].append(len(batch) / cpu_seconds(lambda: abstract_all(batch)))
        old, new = (statistics.median(rates[name]) for name in PATHS)
        print(f"{scale:>5}x {len(batch):>7}  {spread(rates['javalang']):>26}  {spread(rates['tree-sitter']):>26}"
              f"  {new / old:>7.2f}x  {new / GOAL:.2f}x")

    java = sitter_parser("java")
    sources = [_WRAPPER % code.encode("utf-8") for pair in pairs for code in pair]
    floor: dict[str, list[float]] = {"abstract_pair": [], "parse": []}
    for _ in range(args.repeats):
        floor["abstract_pair"].append(len(pairs) / cpu_seconds(lambda: abstract_all(pairs)))
        floor["parse"].append(len(pairs) / cpu_seconds(lambda: [java.parse(source) for source in sources]))
    to_floor = [a / b for a, b in zip(floor["abstract_pair"], floor["parse"])]
    print(f"floor at 1x, tree-sitter parsing both methods of each pair: {spread(floor['parse'])} pairs/s; "
          f"abstract_pair {spread(floor['abstract_pair'])}; abstract_pair / floor, run by run: median "
          f"{statistics.median(to_floor):.2f}x ({min(to_floor):.2f}-{max(to_floor):.2f}), goal {FLOOR_GOAL}x -> "
          f"{'met' if statistics.median(to_floor) >= FLOOR_GOAL else 'NOT met'}")

    prepared = [_prepare(code) for pair in pairs for code in pair]
    paths: Counter[str] = Counter()
    for p in prepared:
        if p.lex_error:
            paths["no parse: the lexer dropped a character"] += 1
        elif (reason := javalang_reason(p.text)) is not None:
            paths[f"javalang, {reason}"] += 1
        elif tree_names(p.text) is False:
            paths["tree-sitter, rejected (a default method)"] += 1
        else:
            paths["tree-sitter"] += 1
    print(f"name-set paths of the {len(prepared)} methods:")
    for name, count in paths.most_common():
        print(f"  {count:>5}  {name}")

    idioms = default_idioms()
    gc.collect()
    gc.freeze()  # the 3,438 retained prepared methods are not rescanned by every collection below
    stages = {
        "comments + lexing": lambda: [_prepare(code) for pair in pairs for code in pair],
        "name sets, tree-sitter path": lambda: [collect_names(p.tokens, NameSets(), p.text) for p in prepared],
        "name sets, javalang for all": lambda: [_collect_with_javalang(p.tokens, NameSets()) for p in prepared],
        "walk": lambda: [_Abstraction(idioms).walk(p) for p in prepared],
    }
    print("stages at 1x (both methods of each pair), us/pair, median (min-max):")
    for name, run in stages.items():
        per_pair = [cpu_seconds(run) / len(pairs) * 1e6 for _ in range(args.repeats)]
        print(f"  {name:<30} {spread(per_pair)}")

    times: dict[str, list[float]] = {"abstract_pair": [], "abstract_pair(spans=True) + marked": []}
    for _ in range(args.repeats):
        for name, run in (("abstract_pair", lambda: abstract_all(pairs)),
                          ("abstract_pair(spans=True) + marked", lambda: abstract_and_mark_all(pairs))):
            times[name].append(cpu_seconds(run))
    print("marking (2-encoder input) at 1x, us/pair, median (min-max):")
    for name, runs in times.items():
        print(f"  {name:<36} {spread([t / len(pairs) * 1e6 for t in runs])}")
    ratio = statistics.median(times["abstract_pair(spans=True) + marked"]) / statistics.median(times["abstract_pair"])
    print(f"  marking costs {ratio:.2f}x plain abstraction")


if __name__ == "__main__":
    main()
