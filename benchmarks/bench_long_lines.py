"""Peak memory and time of the preprocess stage against the size of one minified JavaScript file (issue 31, item 1:
"memory quadratic in a line's length"), this code beside a baseline revision measured in the same run.

    python benchmarks/bench_long_lines.py [--sizes 50000,100000,200000,400000,990000] [--repeat 3]
                                          [--baseline 11e8cbc] [--baseline-max 200000]

Each file is one line of small functions (``function f17(a,b){return a+b*17}``, what a minifier makes), revised
in one function, with a reviewer comment on line 1: a rounds file of that one row goes through
``revmine.preprocess.candidates.preprocess`` in a fresh process, whose peak resident set (``VmHWM``) is the
figure. The baseline (every function carrying its own copy of the line) runs from a ``git worktree`` of
``--baseline``, only up to ``--baseline-max`` bytes: its peak grows with the square of the size (3.2 GB at
400 KB, MemoryError at 990 KB). Printed per revision: median and spread (min-max) of ``--repeat`` runs per size,
the growth in bytes of memory per byte of file between the two largest sizes, the seconds, and what became of
the file (its candidates, or its drop reason).

Measured 2026-11-28 on the 2-core machine shared with other jobs, 3 runs each (the baseline's runs end in
the per-file time limit, its memory already spent; its spread is wide as the time limit cuts it at varying
points):

      baseline 11e8cbc    50,000 bytes:   336 MiB (302-375),  12.60 s; dropped: timeout
      baseline 11e8cbc   100,000 bytes:   684 MiB (418-742),  12.35 s; dropped: timeout
      baseline 11e8cbc   200,000 bytes: 1,217 MiB (1,217-2,262), 11.45 s; dropped: timeout
             this code    50,000 bytes:   147 MiB (147-147),   1.05 s; dropped: file_too_large
             this code   100,000 bytes:   154 MiB (154-155),   1.23 s; dropped: file_too_large
             this code   200,000 bytes:   174 MiB (170-174),   2.75 s; dropped: file_too_large
             this code   400,000 bytes:   204 MiB (204-206),   4.07 s; dropped: file_too_large
             this code   990,000 bytes:   266 MiB (265-295),  10.88 s; dropped: file_too_large
             growth 400,000 -> 990,000: 110 bytes of memory per byte of file (the tree-sitter tree and its walk)

(the process's own start, imports included, is about 140 MiB and 1 s).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from memory import baseline_worktree, peak_mib  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def minified(size: int, changed: bool = False) -> str:
    """One line of functions, ``size`` characters or a few more; ``changed`` revises the first function."""
    parts, n, i = [], 0, 0
    while n < size:
        body = f"function f{i}(a,b){{return a+b*{i if (i or not changed) else 99}}}"
        parts.append(body)
        n += len(body) + 1
        i += 1
    return ";".join(parts) + "\n"


def write_rounds(size: int, path: Path) -> None:
    from revmine.io.store import write_table
    from revmine.schema import ROUNDS_SCHEMA

    comment = {"id": "c1", "author": "reviewer", "is_owner": False, "path": "app.min.js", "line": 1,
               "start_line": 1, "end_line": 1, "side": "REVISION", "message": "Rename this.",
               "created": datetime(2026, 11, 28, tzinfo=timezone.utc)}
    row = {"round_id": "github:example:app:1:1", "source": "github", "host": "example", "project": "app",
           "change": "1", "round": 1, "path_before": "app.min.js", "path_after": "app.min.js",
           "file_status": "modified", "language": "javascript", "content_before": minified(size),
           "content_after": minified(size, changed=True), "comments": [comment]}
    import pyarrow as pa

    fields = {f.name for f in ROUNDS_SCHEMA}
    write_table(pa.Table.from_pylist([{k: v for k, v in row.items() if k in fields}], schema=ROUNDS_SCHEMA),
                path, ROUNDS_SCHEMA)


def run_one(rounds: Path, out: Path) -> dict:
    """The stage in this process (the revision on PYTHONPATH): seconds, peak MiB, and the file's fate."""
    from revmine.preprocess.candidates import preprocess
    import pyarrow.parquet as pq

    started = time.perf_counter()
    error = None
    try:
        preprocess(rounds, out)
    except MemoryError:
        error = "MemoryError: the job stopped"
    seconds = time.perf_counter() - started
    fate = error
    if fate is None:
        dropped = [d for d in pq.read_table(out / "dropped.parquet").to_pylist() if d["kind"] == "file"]
        fate = (f"dropped: {dropped[0]['reason']}" if dropped else
                f"{pq.read_metadata(out / 'candidates.parquet').num_rows} candidates")
    return {"seconds": seconds, "mib": peak_mib(), "fate": fate}


def child(root: Path, rounds: Path, out: Path) -> dict:
    done = subprocess.run([sys.executable, __file__, "--one", str(rounds), str(out)], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(root)}, cwd=str(root))
    lines = done.stdout.strip().splitlines()
    if done.returncode or not lines:
        return {"seconds": float("nan"), "mib": float("nan"), "fate": f"exit {done.returncode}: "
                + (done.stderr.strip().splitlines() or ["?"])[-1][:80]}
    return json.loads(lines[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="50000,100000,200000,400000,990000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--baseline", default="11e8cbc", help="revision to compare with (before the fix)")
    parser.add_argument("--baseline-max", type=int, default=200_000, help="largest size the baseline is run on")
    parser.add_argument("--one", nargs=2, help=argparse.SUPPRESS)  # child: ROUNDS OUT, JSON on stdout
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run_one(Path(args.one[0]), Path(args.one[1]))))
        return
    sizes = [int(s) for s in args.sizes.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        with baseline_worktree(ROOT, args.baseline, tmp / "baseline") as base:
            for size in sizes:
                write_rounds(size, tmp / f"rounds-{size}.parquet")
            revisions = {f"baseline {args.baseline}": (base, args.baseline_max), "this code": (ROOT, max(sizes))}
            runs: dict[tuple[str, int], list[dict]] = {}
            for r in range(args.repeat):
                for name, (root, largest) in revisions.items():
                    for size in (s for s in sizes if s <= largest):
                        out = tmp / f"out-{name.split()[0]}-{size}-{r}"
                        runs.setdefault((name, size), []).append(child(root, tmp / f"rounds-{size}.parquet", out))
        print(f"peak resident memory (MiB) and seconds per file size, median (spread) of {args.repeat} runs")
        for name in revisions:
            done = sorted(size for (n, size) in runs if n == name)
            for size in done:
                mib = [run["mib"] for run in runs[(name, size)]]
                secs = [run["seconds"] for run in runs[(name, size)]]
                print(f"{name:>18} {size:>9,} bytes: {statistics.median(mib):7,.0f} MiB "
                      f"({min(mib):,.0f}-{max(mib):,.0f}), {statistics.median(secs):6.2f} s "
                      f"({min(secs):.2f}-{max(secs):.2f}); "
                      f"{runs[(name, size)][0]['fate']}")
            if len(done) >= 2:
                a, b = done[-2], done[-1]
                growth = ((statistics.median(r["mib"] for r in runs[(name, b)])
                           - statistics.median(r["mib"] for r in runs[(name, a)])) * 2 ** 20 / (b - a))
                print(f"{name:>18} growth {a:,} -> {b:,}: {growth:,.0f} bytes of memory per byte of file")


if __name__ == "__main__":
    main()
