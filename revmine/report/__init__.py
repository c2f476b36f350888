"""Self-contained HTML reports of a run folder (``report.html``) and of a score folder.

A report reads several stages' outputs, so it lives here rather than in any stage's sub-package; it reads
only the columns it needs (with pyarrow) and samples rows, so a run of 100,000 candidates is reported in
seconds (``benchmarks/bench_report.py``).
"""

from pathlib import Path

from .run import STATE_FILE, write_run_report
from .scores import write_score_report

__all__ = ["write_folder_report", "write_run_report", "write_score_report"]


def write_folder_report(out: Path) -> Path:
    """``report.html`` for a run folder (it has run.json) or a score folder (summary.json)."""
    if (out / "summary.json").is_file() and not (out / STATE_FILE).is_file():
        return write_score_report(out)
    return write_run_report(out)
