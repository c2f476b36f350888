"""Peak memory of ``revmine import codereviewer`` against the size of the JSON Lines file, this code beside a
baseline revision measured in the same run (issue 31, item 6: a 100 MB file was held whole, 1.17 GB).

    python benchmarks/bench_import_memory.py [--mb 25,100] [--repeat 3] [--baseline 11e8cbc]

The file is CodeReviewer's refinement task (``ref-train.jsonl``: ``old``, ``new``, ``comment``, ``id``), rows
of about 1.5 KB made from the bundled example's Java methods, so that a row weighs what a real one does. Each
(revision, size) imports in a fresh process whose peak resident set (``VmHWM``) is the figure; the baseline runs
from a ``git worktree`` of ``--baseline``. Printed: median and spread (min-max) of ``--repeat`` runs, the growth
in bytes of memory per byte of input between the two sizes, the seconds at the largest, and whether both
revisions wrote the same rows.

Measured 2026-11-28 on the 2-core machine shared with other jobs, 3 runs each (24,573 and 98,182 rows; both
revisions wrote the same rows):

      baseline 11e8cbc: 25 MB: 396 MiB (396-396); 100 MB: 1,097 (1,089-1,099); 9.79 bytes per byte; 28.3 s at 100 MB
             this code: 25 MB: 224 MiB (223-230); 100 MB:   240 (236-240);   0.22 bytes per byte; 18.9 s at 100 MB
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from memory import baseline_worktree, peak_mib, runs_by_revision  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
WORDS = "int x = 1 ; return foo ( bar , baz ) + qux . size ( ) ; if ( a != null ) { b . run ( ) ; }".split()


def write_jsonl(path: Path, megabytes: int, seed: int = 0) -> None:
    """``megabytes`` MB of refinement records (hunks of 15-25 lines, a one-line comment), each distinct."""
    rng = random.Random(seed)
    target, written, n = megabytes * 1_000_000, 0, 0
    with open(path, "w", encoding="utf-8") as out:
        while written < target:
            lines = [" ".join(rng.choices(WORDS, k=rng.randint(4, 12))) for _ in range(rng.randint(15, 25))]
            old = "\n".join(("-" if k % 5 == 2 else " ") + line for k, line in enumerate(lines))
            new = "\n".join(("+" if k % 5 == 2 else " ") + line for k, line in enumerate(lines))
            line = json.dumps({"old": old, "new": new, "comment": f"why {n}?", "id": n}) + "\n"
            out.write(line)
            written += len(line.encode())
            n += 1


def run_one(source: Path, out: Path) -> dict:
    """The import in this process (the revision on PYTHONPATH): seconds, peak MiB."""
    from revmine.interop.importer import import_dataset

    started = time.perf_counter()
    summary = import_dataset("codereviewer", source, out)
    return {"seconds": time.perf_counter() - started, "mib": peak_mib(), "rows": summary["sizes"]["train"]}


def child(root: Path, source: Path, out: Path) -> dict:
    done = subprocess.run([sys.executable, __file__, "--one", str(source), str(out)], check=True, capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": str(root)}, cwd=str(root))
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", default="25,100", help="input sizes in MB, comma-separated")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--baseline", default="11e8cbc", help="revision to compare with (before streaming)")
    parser.add_argument("--one", nargs=2, help=argparse.SUPPRESS)  # child: SOURCE OUT, JSON on stdout
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run_one(Path(args.one[0]), Path(args.one[1]))))
        return
    import pyarrow.parquet as pq

    sizes = [int(s) for s in args.mb.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for mb in sizes:
            (tmp / str(mb)).mkdir()
            write_jsonl(tmp / str(mb) / "ref-train.jsonl", mb)
        with baseline_worktree(ROOT, args.baseline, tmp / "baseline") as base:
            revisions = {f"baseline {args.baseline}": base, "this code": ROOT}
            runs = runs_by_revision(revisions, sizes, args.repeat, lambda root, mb, tag: child(
                root, tmp / str(mb) / "ref-train.jsonl", tmp / f"out-{tag}"))
        for mb in sizes:
            same = all(pq.read_table(tmp / f"out-baseline-{mb}-0" / f)
                       .equals(pq.read_table(tmp / f"out-this-{mb}-0" / f))
                       for f in ("train.parquet", "eval.parquet", "test.parquet", "candidates.parquet"))
            print(f"{mb} MB ({runs[('this code', mb)][0]['rows']:,} rows): same rows in both revisions: {same}")
        print(f"peak resident memory, MiB: median (spread) of {args.repeat} runs")
        for name in revisions:
            peaks = {mb: [run["mib"] for run in runs[(name, mb)]] for mb in sizes}
            median = {mb: statistics.median(p) for mb, p in peaks.items()}
            small, large = min(sizes), max(sizes)
            growth = (median[large] - median[small]) / (large - small)  # MiB per MB: bytes of memory per byte
            seconds = statistics.median(run["seconds"] for run in runs[(name, large)])
            print(f"{name:>18}: " + "; ".join(f"{mb} MB: {median[mb]:,.0f} ({min(p):,.0f}-{max(p):,.0f})"
                                              for mb, p in sorted(peaks.items()))
                  + f"; growth {growth * 2 ** 20 / 10 ** 6:.2f} bytes per byte of input; {seconds:.1f} s at {large} MB")


if __name__ == "__main__":
    main()
