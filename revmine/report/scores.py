"""The score report: perfect predictions per k, each metric per k (best of k), the distributions of the
rank-1 scores, the corpus values and signatures, and the box plots of ``--plot`` when they were drawn
(embedded as PNG; without matplotlib the report has every table and the SVG histograms)."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..errors import InputError
from .render import histogram, write_report


def write_score_report(out: str | Path) -> Path:
    """Write ``out/report.html`` for a score folder (``summary.json``, ``scores.parquet``) and return its path."""
    out = Path(out)
    summary_path = out / "summary.json"
    if not summary_path.is_file():
        raise InputError(out, "no summary.json: not the output folder of revmine score")
    summary = json.loads(summary_path.read_text(encoding="utf-8"))
    metrics = list(summary.get("signatures", {}))
    distributions = []
    scores = out / "scores.parquet"
    if scores.exists() and metrics:
        table = pq.read_table(scores, columns=["k", *metrics])
        first = table.filter(pc.equal(table["k"], 1))
        distributions = [{"name": m, **histogram(first[m].to_numpy(zero_copy_only=False).astype(np.float64))}
                         for m in metrics]
    plots = [{"name": p.stem, "data": base64.b64encode(p.read_bytes()).decode("ascii")}
             for p in sorted((out / "plots").glob("*.png"))]
    return write_report(out, "score.html", folder=str(out.resolve()), summary=summary, metrics=metrics,
                        distributions=distributions, plots=plots)
