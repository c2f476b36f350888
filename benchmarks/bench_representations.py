"""Parse speed of tree-sitter-java on real methods, beside javalang's, and the fixture's SPT totals.

    python benchmarks/bench_representations.py [--runs N] [--sample N]

The methods are the 2021 test split's raw m_s and m_r (``before``/``after`` of the fixture's test.csv:
3,438 methods). Each is parsed as the export parses it, inside a class (tree-sitter-java, like javac,
reads a method only as a class member), and timed three ways in the same run: tree-sitter's parse alone,
revmine's whole SPT (parse, simplification, labels, the JSON graph), and javalang's tokenizer and parser
on the same wrapped text (revmine's other Java parser, used by the preprocess stage and TREED). Figures
are methods per second, median of the runs and their spread (min-max). Then the SPT totals of the
fixture, as the dataset card gives them (CodeNet's Table 6: methods, SPT nodes, SPT edges).
"""

from __future__ import annotations

import argparse
import csv
import statistics
import time
from pathlib import Path
from typing import Callable

import javalang
import tree_sitter
import tree_sitter_java

from revmine.lang.representations import simplified_parse_tree, spt_size

FIXTURE = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "tufano2021" / "test.csv"


def rate(methods: list[str], parse: Callable[[str], object], runs: int) -> tuple[float, float, float]:
    """(median, min, max) methods per second over ``runs`` passes."""
    rates = []
    for _ in range(runs):
        start = time.perf_counter()
        for code in methods:
            parse(code)
        rates.append(len(methods) / (time.perf_counter() - start))
    return statistics.median(rates), min(rates), max(rates)


def javalang_parse(code: str) -> object:
    try:
        return javalang.parse.parse("class _ {\n" + code + "\n}")
    except (javalang.parser.JavaSyntaxError, javalang.tokenizer.LexerError):
        return None  # counted: the time to fail is part of reading the dataset


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sample", type=int, default=0, help="only the first N rows (0: all)")
    args = parser.parse_args()

    with open(FIXTURE, encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    if args.sample:
        rows = rows[: args.sample]
    methods = [row[column] for row in rows for column in ("before", "after")]
    ts = tree_sitter.Parser(tree_sitter.Language(tree_sitter_java.language()))

    def tree_sitter_parse(code: str) -> object:
        return ts.parse(("class _ {\n" + code + "\n}").encode("utf-8"))

    print(f"{len(methods):,} methods (m_s and m_r of {len(rows):,} rows), {args.runs} runs, methods/s "
          "median (min-max):")
    figures = {"tree-sitter-java parse": rate(methods, tree_sitter_parse, args.runs),
               "revmine SPT (parse + simplify + JSON graph)": rate(methods, simplified_parse_tree, args.runs),
               "javalang tokenize + parse (reference)": rate(methods, javalang_parse, args.runs)}
    for name, (median, low, high) in figures.items():
        print(f"  {name:45s} {median:10,.0f}  ({low:,.0f}-{high:,.0f})")
    reference = figures["javalang tokenize + parse (reference)"][0]
    print(f"  tree-sitter parse is {figures['tree-sitter-java parse'][0] / reference:.1f}x javalang; "
          f"the whole SPT {figures['revmine SPT (parse + simplify + JSON graph)'][0] / reference:.1f}x")
    failed = sum(javalang_parse(code) is None for code in methods)
    graphs = [simplified_parse_tree(code)["graph"] for code in methods]
    nodes = sum(spt_size({"graph": g})[0] for g in graphs)
    edges = sum(spt_size({"graph": g})[1] for g in graphs)
    print(f"javalang cannot parse {failed} of them; tree-sitter reports parse errors in "
          f"{sum(g['errors'] > 0 for g in graphs)} (their trees hold the tokens it recovered)")
    print(f"SPT totals: {len(methods):,} methods, {nodes:,} nodes, {edges:,} edges "
          f"(mean {nodes / len(methods):.1f} nodes per method)")


if __name__ == "__main__":
    main()
