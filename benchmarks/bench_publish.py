"""What publishing costs (issue 26): the export of the 2021 test split (1,719 real rows, imported from the shared
fixture) with ``[publish]`` doing nothing (no pseudonyms, no secret scan, every licence) against the defaults
(pseudonyms, secrets redacted) and against everything on (also a permissive allowlist and an opt-out list), as
seconds per 10,000 rows, median and spread of several runs, in the same run; beside them, the export alone.

    PYTHONPATH=. python3 benchmarks/bench_publish.py [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from revmine.dataset.export import ExportOptions, export_dataset
from revmine.dataset.options import PublishOptions

PACKAGE = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "tufano2021"
#: licences given to the imported rows (the package records none), round robin: two of three pass "permissive"
LICENCES = ("MIT", "Apache-2.0", "GPL-3.0-only")


def _splits(work: Path) -> tuple[Path, int]:
    """The fixture imported as revmine's splits, each row given a licence; and how many rows."""
    subprocess.run([shutil.which("revmine") or "revmine", "import", "tufano2021", str(PACKAGE), "--out",
                    str(work / "splits"), "-q"], check=True, capture_output=True, timeout=1200)
    rows = 0
    for part in (work / "splits").glob("*.parquet"):
        table = pq.read_table(part)
        if "licence" in table.column_names and table.num_rows:
            licences = pa.array([LICENCES[i % 3] for i in range(table.num_rows)], pa.string())
            table = table.set_column(table.column_names.index("licence"), "licence", licences)
            pq.write_table(table, part)
            rows += table.num_rows if part.stem in ("train", "eval", "test") else 0
    return work / "splits", rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    os.environ.setdefault("REVMINE_PSEUDONYM_KEY", "bench")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        splits, rows = _splits(work)
        optout = work / "opt-out.txt"
        optout.write_text("nobody-in-particular\n")
        settings = {
            "nothing": PublishOptions(pseudonyms=False, secrets="off"),
            "defaults": PublishOptions(),
            "everything": PublishOptions(licences=("permissive",), opt_out=optout),
        }
        times: dict[str, list[float]] = {name: [] for name in settings}
        for run in range(args.runs):
            for name, publish in settings.items():  # interleaved: the machine's load falls on each alike
                start = time.perf_counter()
                export_dataset(splits, work / f"out-{name}-{run}", ExportOptions(publish=publish))
                times[name].append((time.perf_counter() - start) / rows * 10_000)
    print(f"{rows:,} rows; seconds per 10,000 rows, median (min-max) of {args.runs} runs")
    base = statistics.median(times["nothing"])
    for name, values in times.items():
        median = statistics.median(values)
        print(f"  export, publishing {name:<10} {median:7.2f} ({min(values):.2f}-{max(values):.2f})"
              + ("" if name == "nothing" else f"   added {median - base:+.2f}"))


if __name__ == "__main__":
    main()
