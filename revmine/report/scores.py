"""The score report: perfect predictions per k, each metric per k (best of k) with which way is better and how
many examples it could not score, a seeded sample of rank-1 predictions against their references (token diff and
each metric's value), the distributions of the rank-1 scores, the corpus values, signatures and the versions of the
packages that compute them, and the box plots of ``--plot`` when they were drawn (embedded as PNG; without
matplotlib the report has every table and the SVG histograms)."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..errors import InputError
from .diffs import token_diff
from .render import histogram, write_report

#: rank-1 predictions shown against their references
EXAMPLES = 6


def write_score_report(out: str | Path) -> Path:
    """Write ``out/report.html`` for a score folder (``summary.json``, ``scores.parquet``) and return its path."""
    out = Path(out)
    summary_path = out / "summary.json"
    if not summary_path.is_file():
        raise InputError(out, "no summary.json: not the output folder of revmine score")
    summary = json.loads(summary_path.read_text(encoding="utf-8"))
    metrics = list(summary.get("signatures", {}))
    distributions: list[dict] = []
    examples: list[dict] = []
    scores = out / "scores.parquet"
    if scores.exists() and metrics:
        table = pq.read_table(scores, columns=["example", "k", "prediction", "reference", "exact_match", *metrics])
        first = table.filter(pc.equal(table["k"], 1))
        distributions = [{"name": m, **histogram(first[m].to_numpy(zero_copy_only=False).astype(np.float64))}
                         for m in metrics]
        examples = _examples(first, metrics)
    plots = [{"name": p.stem, "data": base64.b64encode(p.read_bytes()).decode("ascii")}
             for p in sorted((out / "plots").glob("*.png"))]
    return write_report(out, "score.html", folder=str(out.resolve()), summary=summary, metrics=metrics,
                        distributions=distributions, plots=plots, examples=examples,
                        better=summary.get("better", {}), scoring_versions=summary.get("versions", {}))


def _examples(first: pa.Table, metrics: list[str], size: int = EXAMPLES, seed: int = 0) -> list[dict]:
    """``size`` rank-1 predictions drawn with ``seed``: the text against its reference as a token diff, and each
    metric's value for it (None: the metric could not score it)."""
    chosen = np.sort(np.random.default_rng(seed).choice(first.num_rows, size=min(size, first.num_rows), replace=False))
    rows = first.take(pa.array(chosen, pa.int64())).to_pylist()
    for row in rows:
        row["tokens"] = token_diff(row["reference"].split(), row["prediction"].split())
        row["values"] = {m: row[m] for m in metrics}
    return rows
