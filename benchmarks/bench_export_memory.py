"""Peak memory of ``revmine export`` on splits of N and 4N rows: the streaming export against the one that read
each split whole (issue 9: memory that does not grow with the corpus).

    python benchmarks/bench_export_memory.py [--n 25000] [--repeat 3] [--base /tmp/export-base] [--representations tokens]

The rows are benchmarks/bench_dask_job.py's candidates (the fixture's 1,719 published methods, perturbed; half
triplets, half pairs), numbered and dealt 8/1/1 to train/eval/test, written as the split stage writes them.
``--base`` is a checkout of the export before streaming (``git worktree add /tmp/export-base 9096cf9``). Each
export runs in a fresh interpreter that imports revmine from one checkout (PYTHONPATH) and reports its own peak
resident set (VmHWM, see :func:`peak_mib`), together with that of an interpreter that only imports the export (what the
interpreter, pyarrow and revmine cost before any row). Runs alternate between the two versions; figures are the
median of ``--repeat`` runs with the spread (min-max). The outputs are compared file by file: text files and the
card must be byte-identical; a Parquet file must be byte-identical up to 10,000 rows (one row group either way)
and hold the same table beyond (row groups of 10,000 rows instead of one).

Measured 2026-11-25 on the 2-core machine shared with other jobs, default formats (Parquet, OpenNMT, JSON
Lines), 3 runs each:

    FIGURES

The streaming export's peak stays where the import leaves it plus a few batches and one row group per kind,
while the whole-table export's grows with the rows (the table, then every row as a Python dict for JSON Lines).
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

from bench_dask_job import candidates

ROOT = Path(__file__).resolve().parents[1]
SPLIT_OF = ("train",) * 8 + ("eval", "test")  # row i goes to SPLIT_OF[i % 10]
LABELS = {"old": "whole tables (old)", "new": "streaming (new)"}


def make_splits(n: int, seed: int, out: Path, row_group_rows: int | None) -> None:
    """``n`` dataset rows (the schema of the split stage's output) in ``out/{train,eval,test}.parquet``, in row
    groups of ``row_group_rows`` (None: one, as the split stage writes them whole)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from revmine.schema import DATASET_SCHEMA
    from revmine.store import RowGroupWriter

    table = candidates(n, seed)
    ids = pa.array([f"row{i:08d}" for i in range(n)])
    names = pa.array([SPLIT_OF[i % 10] for i in range(n)])
    table = table.add_column(0, "id", ids).add_column(1, "split", names).add_column(2, "cluster_id", ids)
    for name in ("train", "eval", "test"):
        with RowGroupWriter(out / f"{name}.parquet", DATASET_SCHEMA, row_group_rows or n) as writer:
            writer.write(table.filter(pc.equal(table.column("split"), name)))


def child(splits: str, out: str, representations: str) -> dict:
    """In a fresh interpreter: import the export, and run it unless ``splits`` is empty; peak MiB and seconds."""
    from revmine.dataset.export import ExportOptions, export_dataset

    started = time.perf_counter()
    if splits:
        export_dataset(splits, out, ExportOptions(representations=tuple(filter(None, representations.split(",")))))
    return {"mib": peak_mib(), "seconds": time.perf_counter() - started}


def peak_mib() -> float:
    """This process's peak resident set in MiB: VmHWM, which belongs to the program exec'd. Not ``ru_maxrss``: Linux
    carries it over exec from the parent's memory (Python spawns with vfork), so a child of a parent holding
    400 MiB of generated rows reported 449 MiB where it used 290."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise OSError("no VmHWM in /proc/self/status (Linux only)")


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
    parser.add_argument("--base", type=Path, default=Path("/tmp/export-base"))
    parser.add_argument("--representations", default="", help="e.g. tokens (spt is slow on 100,000 rows)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--split-row-groups", type=int, default=None,
                        help="rows per row group of the splits read (default: one row group, as split writes them)")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)  # SPLITS OUT REPRESENTATIONS: JSON on stdout
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(*args.child)))
        return
    if not (args.base / "revmine" / "dataset" / "export.py").is_file():
        sys.exit(f"{args.base}: no checkout of the old export; make one: git worktree add {args.base} 9096cf9")
    versions = {"old": args.base, "new": ROOT}
    print(f"export of N = {args.n:,} and 4N rows, default formats, splits in "
          f"{f'row groups of {args.split_row_groups:,} rows' if args.split_row_groups else 'one row group'}"
          f"{', representations ' + args.representations if args.representations else ''}; "
          f"{args.repeat} runs per size and version, alternating")
    for label, code in versions.items():
        imports = [run(code, "", "", "")["mib"] for _ in range(args.repeat)]
        print(f"{LABELS[label]:>18}: import only {statistics.median(imports):.0f} MiB (spread {min(imports):.0f}-"
              f"{max(imports):.0f})")
    with tempfile.TemporaryDirectory() as tmp:
        for n in (args.n, 4 * args.n):
            splits = Path(tmp) / f"splits-{n}"
            make_splits(n, args.seed, splits, args.split_row_groups)
            runs: dict[str, list[dict]] = {label: [] for label in versions}
            for r in range(args.repeat):
                for label, code in versions.items():
                    runs[label].append(run(code, splits, Path(tmp) / f"{n}-{label}-{r}", args.representations))
            for label, done in runs.items():
                mib, seconds = [d["mib"] for d in done], [d["seconds"] for d in done]
                print(f"{n:>9,} rows, {LABELS[label]:>18}: peak {statistics.median(mib):5.0f} MiB (spread {min(mib):.0f}-"
                      f"{max(mib):.0f}), {statistics.median(seconds):5.1f} s (spread {min(seconds):.1f}-{max(seconds):.1f})")
            print(f"{n:>9,} rows, outputs old vs new: {compare(Path(tmp) / f'{n}-old-0', Path(tmp) / f'{n}-new-0')}")


if __name__ == "__main__":
    main()
