"""Peak memory of ``revmine export`` on splits of N and 4N rows: the streaming export against the one that read
each split whole (issue 9: memory that does not grow with the corpus).

    python benchmarks/bench_export_memory.py [--n 25000] [--repeat 3] [--baseline 9096cf9]
                                             [--representations tokens]

The rows are ``bench_stage_memory.realistic``'s (``bench_dask_job``'s candidates from the fixture's 1,719
published methods, with the published raw methods as m_s and m_r: about 2 KiB a row; half triplets, half
pairs), numbered and dealt 8/1/1 to train/eval/test, in row groups of ``reorder.BUCKET_ROWS`` as the split
stage writes them. ``--baseline`` is the revision of the export before streaming, checked out for the run
(``memory.baseline_worktree``). Each export runs in a fresh interpreter importing revmine from one checkout
(PYTHONPATH), whose peak resident set (``VmHWM``, ``memory.peak_mib``) is the figure, beside that of an
interpreter that only imports the export. Runs alternate between the versions; figures are the median of
``--repeat`` runs with the spread (min-max), and the growth per row, (peak at 4N - peak at N) / 3N. The
outputs are compared file by file: text files and the card byte-identical, a Parquet file byte-identical up
to ``export.ROW_GROUP_ROWS`` rows (one row group either way), the same table beyond (row groups of that size
instead of one).

Measured 2026-11-25 on the 2-core machine shared with other jobs (load 3-4), 3 runs each, against 9096cf9:

    default formats (Parquet, OpenNMT, JSON Lines), 25,000 and 100,000 rows:
      whole tables (old): import 76; 25,000: 325 (311-334); 100,000: 714 (705-719); growth 5,434 bytes/row; 10.2 s
      streaming (new):    import 77; 25,000: 286 (270-288); 100,000: 297 (297-308); growth   155 bytes/row;  8.4 s
    the same with --representations tokens:
      whole tables (old): import 77; 25,000: 324 (319-335); 100,000: 706 (704-713); growth 5,343 bytes/row; 87.0 s
      streaming (new):    import 77; 25,000: 268 (261-272); 100,000: 292 (292-305); growth   336 bytes/row; 64.1 s
    files old vs new: every file byte-identical but the Parquet files of more than 10,000 rows (a train file at
    25,000 rows, both at 100,000), which hold the same table in row groups of 10,000 rows instead of one

(seconds at 100,000 rows, median of 3 on a loaded machine). What the streaming export holds is a few batches
of 500 rows and one row group of up to 10,000 rows per kind, reached at 25,000 rows (10,000 train rows of a
kind): below that, the peak still rises with the rows (with tokens, 10,000 and 40,000 rows gave 228 and 278
MiB), above it the growth left is noise.
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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_stage_memory import realistic  # noqa: E402
from memory import baseline_worktree, growth_line, peak_mib  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SPLIT_OF = ("train",) * 8 + ("eval", "test")  # row i goes to SPLIT_OF[i % 10]
LABELS = {"old": "whole tables (old)", "new": "streaming (new)"}


def make_splits(n: int, seed: int, out: Path) -> None:
    """``n`` dataset rows in ``out/{train,eval,test}.parquet``, as the split stage writes them."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from revmine.algorithms.reorder import BUCKET_ROWS
    from revmine.schema import DATASET_SCHEMA
    from revmine.io.store import RowGroupWriter

    table = realistic(n, seed)
    ids = pa.array([f"row{i:08d}" for i in range(n)])
    names = pa.array([SPLIT_OF[i % 10] for i in range(n)])
    table = table.add_column(0, "id", ids).add_column(1, "split", names).add_column(2, "cluster_id", ids)
    for name in ("train", "eval", "test"):
        with RowGroupWriter(out / f"{name}.parquet", DATASET_SCHEMA, BUCKET_ROWS) as writer:
            writer.write(table.filter(pc.equal(table.column("split"), name)))


def child(splits: str, out: str, representations: str) -> dict:
    """In a fresh interpreter: import the export, and run it unless ``splits`` is empty; peak MiB and seconds."""
    from revmine.dataset.export import ExportOptions, export_dataset

    started = time.perf_counter()
    if splits:
        export_dataset(splits, out, ExportOptions(representations=tuple(filter(None, representations.split(",")))))
    return {"mib": peak_mib(), "seconds": time.perf_counter() - started}


def run(code: Path, splits: Path | str, out: Path | str, representations: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(code)}
    done = subprocess.run([sys.executable, __file__, "--child", str(splits), str(out), representations], env=env,
                          check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def compare(old: Path, new: Path) -> dict[str, int]:
    """Files byte-identical, Parquet files with the same table in other row groups, and differing files."""
    import pyarrow.parquet as pq

    names = sorted(p.relative_to(old).as_posix() for p in old.rglob("*") if p.is_file())
    assert names == sorted(p.relative_to(new).as_posix() for p in new.rglob("*") if p.is_file()), "other files"
    counts = {"identical": 0, "same table, other row groups": 0, "different": 0}
    for name in names:
        if (old / name).read_bytes() == (new / name).read_bytes():
            counts["identical"] += 1
        elif name.endswith(".parquet") and pq.read_table(old / name).equals(pq.read_table(new / name)):
            counts["same table, other row groups"] += 1
        else:
            counts["different"] += 1
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=25_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--baseline", default="9096cf9", help="revision to compare with (before streaming)")
    parser.add_argument("--representations", default="", help="e.g. tokens (spt is slow on 100,000 rows)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)  # SPLITS OUT REPRESENTATIONS: JSON on stdout
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(*args.child)))
        return
    sizes = (args.n, 4 * args.n)
    print(f"export of {sizes[0]:,} and {sizes[1]:,} rows, default formats"
          f"{', representations ' + args.representations if args.representations else ''}; "
          f"{args.repeat} runs per size and version, alternating; peak resident memory in MiB, median (spread)")
    with tempfile.TemporaryDirectory() as tmp, baseline_worktree(ROOT, args.baseline, Path(tmp) / "baseline") as base:
        versions = {"old": base, "new": ROOT}
        runs: dict[tuple[str, int], list[dict]] = {}
        for n in sizes:
            make_splits(n, args.seed, Path(tmp) / f"splits-{n}")
        for r in range(args.repeat):
            for label, code in versions.items():
                runs.setdefault((label, 0), []).append(run(code, "", "", ""))
                for n in sizes:
                    out = Path(tmp) / f"{n}-{label}-{r}"
                    runs.setdefault((label, n), []).append(run(code, Path(tmp) / f"splits-{n}", out,
                                                               args.representations))
        for n in sizes:
            print(f"{n:>9,} rows, files old vs new: {compare(Path(tmp) / f'{n}-old-0', Path(tmp) / f'{n}-new-0')}")
        for label in versions:
            imported = statistics.median(run["mib"] for run in runs[(label, 0)])
            peaks = {n: [run["mib"] for run in runs[(label, n)]] for n in sizes}
            seconds = [run["seconds"] for run in runs[(label, sizes[1])]]
            print(f"{LABELS[label]:>18}: import {imported:,.0f}; " + growth_line(peaks, seconds, "row"))


if __name__ == "__main__":
    main()
