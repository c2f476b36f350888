"""Peak memory of the filter and split stages at N and 4N candidates, this code against a baseline revision
measured in the same run (issue 9: "memory that does not grow with the corpus where it need not").

    python benchmarks/bench_stage_memory.py [--n 25000] [--repeat 3] [--baseline 9096cf9]

The candidates are those of ``bench_dask_job.py`` (the 1,719 published test methods, perturbed, with planted
near-duplicates), with the published raw methods (``before``/``after`` of test.csv, cycled) as m_s and m_r,
written in row groups of 10,000 rows as the preprocess stage writes a row group a batch, so that a row
weighs what a real one does (about 2 KiB; a mined row also carries its abstraction maps, which
the published data lacks, so real rows weigh more and the baseline's growth is understated). Each (revision,
size, stage) runs in a fresh process, whose peak resident set (``VmHWM``) is the figure; the baseline
runs from a ``git worktree`` of ``--baseline``. Reported: median and spread (min-max) of ``--repeat`` runs, and
the growth per row, (peak at 4N - peak at N) / 3N, which is what the corpus size costs. Both revisions'
outputs are checked to hold the same rows (tables equal; the Parquet row groups differ, so bytes may).

Measured 2026-11-25 on the 2-core machine shared with other jobs (load 1.5-2.5), 3 runs each, the baseline
9096cf9 (filter and split holding the whole table), same rows written by both:

    filter   baseline: 25,000: 629 MiB (621-641); 100,000: 1,682 (1,667-1,685); growth 14,722 bytes/row; 44.8 s
    filter  this code: 25,000: 504 MiB (499-504); 100,000:   791 (790-809);   growth  4,012 bytes/row; 40.9 s
     split   baseline: 25,000: 273 MiB (268-274); 100,000:   395 (381-399);   growth  1,695 bytes/row;  3.4 s
     split  this code: 25,000: 263 MiB (261-267); 100,000:   336 (336-349);   growth  1,026 bytes/row;  3.3 s

(the split's input is the filter's kept rows, about a fifth of the candidates; growth is per candidate).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from itertools import cycle
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_dask_job import FIXTURE, candidates  # noqa: E402
from memory import baseline_worktree, growth_line, peak_mib  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
STAGES = ("filter", "split")
ROW_GROUP = 10_000  # the preprocess stage writes a row group per batch of rounds, not one for the whole file
OUTPUTS = {"filter": ("kept.parquet", "dropped.parquet", "filter_report.parquet"),
           "split": ("train.parquet", "eval.parquet", "test.parquet", "dropped.parquet")}


def realistic(n: int, seed: int) -> "pa.Table":
    """``bench_dask_job.candidates`` with the published raw methods as m_s and m_r."""
    import pyarrow as pa

    with open(FIXTURE / "test.csv", newline="", encoding="utf-8") as f:
        raw = [(row["before"], row["after"]) for row in csv.DictReader(f)]
    table = candidates(n, seed)
    pairs = [pair for pair, _ in zip(cycle(raw), range(n))]
    for column, values in (("m_s", [b for b, _ in pairs]), ("m_r", [a for _, a in pairs])):
        table = table.set_column(table.schema.get_field_index(column), column, pa.array(values, pa.string()))
    return table


def run_stage(stage: str, data: Path, out: Path) -> dict:
    """One stage in this process (the revision on PYTHONPATH); seconds and peak MiB."""
    started = time.perf_counter()
    if stage == "filter":
        from revmine.filters.stage import filter_candidates

        filter_candidates(data, out)
    else:
        from revmine.dataset.split import split_dataset

        split_dataset(data, out)
    return {"seconds": time.perf_counter() - started, "mib": peak_mib()}


def child(root: Path, stage: str, data: Path, out: Path) -> dict:
    """``run_stage`` in a fresh process importing revmine from ``root``."""
    done = subprocess.run([sys.executable, __file__, "--one", stage, str(data), str(out)], check=True,
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(root)},
                          cwd=str(root))
    return json.loads(done.stdout.strip().splitlines()[-1])


def same_rows(a: Path, b: Path, stage: str) -> bool:
    import pyarrow.parquet as pq

    return all(pq.read_table(a / name).equals(pq.read_table(b / name)) for name in OUTPUTS[stage])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=25_000, help="the smaller size N (the larger is 4N)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--baseline", default="9096cf9", help="revision to compare with (before streaming)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--one", nargs=3, help=argparse.SUPPRESS)  # child: STAGE DATA OUT, JSON on stdout
    args = parser.parse_args()
    if args.one:
        stage, data, out = args.one
        print(json.dumps(run_stage(stage, Path(data), Path(out))))
        return
    import pyarrow.parquet as pq

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        with baseline_worktree(ROOT, args.baseline, tmp / "baseline") as base:
            sizes = (args.n, 4 * args.n)
            for n in sizes:
                pq.write_table(realistic(n, args.seed), tmp / f"candidates-{n}.parquet", row_group_size=ROW_GROUP)
            revisions = {f"baseline {args.baseline}": base, "this code": ROOT}
            runs: dict[tuple[str, int, str], list[dict]] = {}
            for r in range(args.repeat):
                for name, root in revisions.items():
                    for n in sizes:
                        data = tmp / f"candidates-{n}.parquet"
                        for stage in STAGES:
                            out = tmp / f"{name.split()[0]}-{n}-{r}" / stage
                            runs.setdefault((name, n, stage), []).append(child(root, stage, data, out))
                            data = out / "kept.parquet"
            for n in sizes:
                for stage in STAGES:
                    ok = same_rows(tmp / f"baseline-{n}-0" / stage, tmp / f"this-{n}-0" / stage, stage)
                    print(f"{n:>9,} candidates, {stage}: same rows in both revisions: {ok}")
            print(f"peak resident memory, MiB: median (spread) of {args.repeat} runs; growth per row = "
                  f"(peak at {sizes[1]:,} - peak at {sizes[0]:,}) / {sizes[1] - sizes[0]:,}")
            for stage in STAGES:
                for name in revisions:
                    peaks = {n: [run["mib"] for run in runs[(name, n, stage)]] for n in sizes}
                    seconds = [run["seconds"] for run in runs[(name, sizes[1], stage)]]
                    print(f"{stage:>6} {name:>18}: " + growth_line(peaks, seconds, "row"))


if __name__ == "__main__":
    main()
