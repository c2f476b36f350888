"""How many published triplets come back out of the preprocess stage, from clean and from broken Java files.

    python benchmarks/bench_published_rounds.py [--rows N] [--repeats 3]

The rounds are those of tests/published_rounds.py: one per row of the Tufano et al. 2021 test split,
``before`` and ``after`` as two revisions of a class, the comment on the marked lines; *clean* (the class
holds only the method) and *broken* (also a field and two methods that do not compile). For each form the
script prints how many rows come back exactly (triplet with the row's m_s and m_r, abstractions equal to
``src-test.txt``/``tgt-test.txt``), the reasons of the rest (from ``dropped.parquet``, or "abstraction
differs"), and the time of the stage with the comparison (median of ``--repeats`` runs, min and max).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # measure this tree, not whatever is installed
from published_rounds import come_back, published_rounds, published_rows  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=None, help="first N rows only (default: all 1,719)")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    rows = published_rows(args.rows)
    for broken in (False, True):
        rounds = published_rounds(rows, broken)
        times = []
        for _ in range(args.repeats):
            with tempfile.TemporaryDirectory() as tmp:
                started = time.perf_counter()
                exact, lost = come_back(rows, rounds, Path(tmp))
                times.append(time.perf_counter() - started)
        form = "broken" if broken else "clean"
        print(f"{form}: {exact} of {len(rows)} rows come back exactly ({100 * exact / len(rows):.2f}%); "
              f"lost: {dict(lost.most_common())}")
        print(f"  {statistics.median(times):.2f} s median of {len(times)} (min {min(times):.2f}, max {max(times):.2f})")


if __name__ == "__main__":
    main()
