"""The whole dataset, end to end, on all 1,719 rows of the 2021 test split: how many published triplets
``revmine run`` rebuilds exactly, which stage lost the others and why, and how long the run takes.

    python benchmarks/bench_end_to_end.py [--every 1] [--repeat 3] [--details] [--keep DIR]

A local Gerrit-like forge (tests/tufano_forge.py, on the test forge of tests/miners_server.py) serves one
change per published row of ../shared/fixtures/tufano2021/test.csv: patch set 1 holds ``before`` in a class,
patch set 2 ``after``, and a reviewer's comment sits on the lines marked ``START ... END``. ``revmine run``
mines, preprocesses, filters (default settings), splits and exports it; the export's OpenNMT triplet files
(all splits together) are compared with src-, src1-, src2- and tgt-test.txt as multisets of rows (a row is
the 4-tuple of lines i). The 3-file figure leaves src2 out (reported separately, since an export may not
have src2). Every row not rebuilt is traced by provenance (change = row + 1) to the stage/reason that
dropped or changed it: ``--details`` prints each row with the stage's detail.

Time: wall-clock seconds of ``revmine run`` (mining against the local server, no network) and of each
stage from its ``run.json``, median and spread over ``--repeat`` runs, each into a fresh output directory
(so mining asks the server again); the forge is built once, outside the timing. The figures and the losses
per stage/reason are checked to be the same in every repeat. Which row of a near-duplicate cluster is kept may
change between runs: it is the smallest id, a hash of the provenance, which holds the server's (random) port.
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
from tufano_forge import build_tufano_forge, read_published, read_rows, run_end_to_end, sample  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--every", type=int, default=1, help="take every N-th row (1: all 1,719)")
    parser.add_argument("--repeat", type=int, default=3, help="runs timed (the figures must agree)")
    parser.add_argument("--details", action="store_true", help="print every lost row with its detail")
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it (default: a temporary one)")
    args = parser.parse_args(argv)
    rows = sample(read_rows(), args.every)
    published = read_published()
    with tempfile.TemporaryDirectory() as scratch:
        root = args.keep or Path(scratch)
        started = time.perf_counter()
        forge = build_tufano_forge(root / "forge", rows)
        print(f"forge: {len(rows)} changes built in {time.perf_counter() - started:.1f} s", flush=True)
        runs = []
        for k in range(args.repeat):
            work = root / f"run{k}"
            work.mkdir(parents=True)
            runs.append(run_end_to_end(forge, rows, work, published))
            print(f"run {k + 1}/{args.repeat}: {runs[-1].seconds:.1f} s", flush=True)
    first = runs[0]
    for k, other in enumerate(runs[1:], start=2):
        counts = {reason: len(lost) for reason, lost in first.losses().items()}
        if other.matched != first.matched or counts != {r: len(lost) for r, lost in other.losses().items()}:
            print(f"run {k} disagrees with run 1: {other.matched} {other.losses()} against {first.matched} "
                  f"{first.losses()}")
            return 1
        moved = sorted(i for i in first.fate if first.fate[i][0] != other.fate[i][0])
        if moved:  # ids hash the provenance, which holds the server's port: another duplicate may be kept
            print(f"run {k}: the same figures, but rows {moved} were lost in place of others (another "
                  "near-duplicate kept: ids, hashes of the provenance, hold the server's random port)")
    print()
    print(first.report(details=args.details))
    print()
    totals = [r.seconds for r in runs]
    print(f"time of `revmine run` over {len(rows)} changes, {len(runs)} run(s): median {statistics.median(totals):.1f} s "
          f"(min {min(totals):.1f}, max {max(totals):.1f}), {len(rows) / statistics.median(totals):.1f} rows/s")
    for stage in first.stage_seconds:
        values = [r.stage_seconds[stage] for r in runs]
        print(f"  {stage:<10} median {statistics.median(values):6.1f} s  (min {min(values):.1f}, max {max(values):.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
