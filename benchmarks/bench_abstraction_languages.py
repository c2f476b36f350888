"""Abstraction cost per method for seven languages (tree-sitter, :mod:`revmine.preprocess.treeabstraction`)
against Java's src2abs-exact ``abstract`` on methods of similar size, measured in the same run.

    python benchmarks/bench_abstraction_languages.py [--repeats N]

Java's methods are the 1,719 ``before`` methods of the test split of Tufano et al. 2021
(``../shared/fixtures/tufano2021/test.csv``, the test split only); the other languages' are every function
lizard finds in the ``before`` side of ``../shared/fixtures/code_revisions/revisions.jsonl``. Methods are
grouped by their number of abstracted tokens, so that each language is compared with Java on methods of the
same size. The figure is single-process CPU time (``time.process_time``, i.e. per core) per method for one
``abstract``/``abstract_code`` call, end to end (parsing included), each language with its shipped idioms
(an empty list where that file does not exist yet: the idioms only decide which tokens stay, a set lookup
either way). Median of ``--repeats`` runs with min-max; languages alternate within each run so that all see
the same machine load. Goal (issue 21): within 2x of Java's per method of similar size.
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import time
from pathlib import Path

import lizard

from revmine.lang.idioms import default_idioms
from revmine.preprocess.abstraction import abstract
from revmine.preprocess.treeabstraction import TREE_LANGUAGES, abstract_code

FIXTURES = Path(__file__).resolve().parents[2] / "shared" / "fixtures"
JAVA = FIXTURES / "tufano2021" / "test.csv"
REVISIONS = FIXTURES / "code_revisions" / "revisions.jsonl"
#: abstracted tokens per method: the groups compared (the 2021 dataset kept methods of at most 100)
BINS = ((1, 25), (26, 50), (51, 100), (101, 200))
GOAL = 2.0


def idioms_of(language: str) -> frozenset[str]:
    try:
        return default_idioms(language)
    except FileNotFoundError:
        return frozenset()


def size_bin(tokens: int) -> tuple[int, int] | None:
    return next((b for b in BINS if b[0] <= tokens <= b[1]), None)


def methods() -> dict[str, list[str]]:
    """Every method of each language, Java's from the 2021 test split, the others' from the fixture."""
    with open(JAVA, newline="", encoding="utf-8") as handle:
        found = {"java": [row["before"] for row in csv.DictReader(handle)]}
    for line in REVISIONS.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        lines = row["before"].splitlines(keepends=True)
        for function in lizard.analyze_file.analyze_source_code(row["path"], row["before"]).function_list:
            found.setdefault(row["language"], []).append("".join(lines[function.start_line - 1:function.end_line]))
    return found


def abstractor(language: str):
    idioms = idioms_of(language)
    if language == "java":
        return lambda code: abstract(code, idioms)
    return lambda code: abstract_code(code, language, idioms)


def per_method_us(run, group: list[str]) -> float:
    start = time.process_time()
    for code in group:
        run(code)
    return (time.process_time() - start) / len(group) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="runs per figure; median and min-max shown")
    args = parser.parse_args()

    languages = ("java", *TREE_LANGUAGES)
    runs = {language: abstractor(language) for language in languages}
    groups: dict[tuple[str, tuple[int, int]], list[str]] = {}
    for language, codes in methods().items():
        for code in codes:
            found = size_bin(len(runs[language](code).code.split()))
            if found is not None:
                groups.setdefault((language, found), []).append(code)

    figures: dict[tuple[str, tuple[int, int]], list[float]] = {key: [] for key in groups}
    for _ in range(args.repeats):
        for key, group in groups.items():
            figures[key].append(per_method_us(runs[key[0]], group))

    print(f"us per method (CPU, one core), median (min-max) of {args.repeats} runs; ratio to Java's median in the "
          f"same size group; goal <= {GOAL:.0f}x")
    for low, high in BINS:
        java = figures.get(("java", (low, high)))
        java_median = statistics.median(java) if java else None
        java_text = (f"{java_median:6.0f} ({min(java):.0f}-{max(java):.0f}), {len(groups['java', (low, high)])} "
                     f"methods") if java else "no Java methods"
        print(f"\n{low}-{high} tokens: java {java_text}")
        for language in TREE_LANGUAGES:
            values = figures.get((language, (low, high)))
            if not values:
                continue
            median = statistics.median(values)
            ratio = f"{median / java_median:5.2f}x" if java_median else "   -"
            print(f"  {language:<11} {median:6.0f} ({min(values):.0f}-{max(values):.0f})  {ratio}  "
                  f"{len(groups[language, (low, high)]):>5} methods")


if __name__ == "__main__":
    main()
