"""Meta-evaluation: how well each metric agrees with human judgements of (prediction, reference) pairs.

For every metric: its score per pair, then Spearman's ρ, Kendall's τ-b and Pearson's r (scipy.stats)
against the mean human score, each with a bootstrap confidence interval (percentile method; pairs are
resampled with replacement; ``n_boot`` resamples from ``numpy.random.default_rng(seed)``, drawn afresh
for each metric so one metric's interval does not depend on which others were asked for). Resamples on
which a coefficient is undefined (a constant resample) are left out of its interval.

Pairs where a metric is NaN (e.g. a cmg2022 variant on an empty string) are left out of that metric's
row, with a warning; ``n`` says how many pairs each row used.

Post-processing options reproduce Dey et al. 2022 (``cmg2022.CMG2022_AGREEMENT``): ``rounding`` rounds
each score (Python's ``round``, as their scripts), ``normalise_by_max`` divides scores by their maximum over
the sample (then rounds again) and each human-score column by its maximum before averaging, and
``distances_as_similarity`` turns lower-is-better metrics into ``1 - x``. These change ties, so they can
change rank correlations; they are appended to the row's signature. Post-processing happens once on the
whole sample, before resampling.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from ..errors import InputError
from ..io.store import check_columns
from ..io.textio import max_line_bytes
from ..schema import AGREEMENT_SCHEMA
from .base import Metric, check_lengths
from .score import score_columns

HumanScores = Mapping[str, Sequence[float]] | Sequence[float] | np.ndarray


@dataclass(frozen=True)
class Judgements:
    """Pairs with their human scores, one array per judge/criterion column."""

    predictions: list[str]
    references: list[str]
    scores: dict[str, np.ndarray]


def read_judgements(
    path: str | Path, prediction_col: str, reference_col: str, score_cols: Sequence[str]
) -> Judgements:
    """Read a CSV or Parquet file of judged pairs; errors name the file, the missing columns, bad rows."""
    path = Path(path)
    wanted = [prediction_col, reference_col, *score_cols]
    if not score_cols:
        raise InputError(path, "no human-score columns given")
    suffix = path.suffix.lower()
    try:
        if suffix == ".csv":
            # blocks of the text-line limit: a row that does not fit in two is refused (pyarrow: "straddling
            # object"), as a too long line of the text readers is
            blocks = pacsv.ReadOptions(block_size=max_line_bytes())
            header = pacsv.open_csv(path, read_options=blocks).schema.names
            _check_columns(path, header, wanted)
            table = pacsv.read_csv(
                path,
                read_options=blocks,
                convert_options=pacsv.ConvertOptions(
                    include_columns=wanted,
                    column_types={prediction_col: pa.string(), reference_col: pa.string()},
                ),
            )
        elif suffix in (".parquet", ".pq"):
            schema = pq.read_schema(path)
            _check_columns(path, schema.names, wanted)
            # a column of numbers where texts are expected is refused, not turned into strings
            check_columns(path, schema, pa.schema([pa.field(c, pa.string()) for c in (prediction_col, reference_col)]))
            table = pq.read_table(path, columns=wanted)
        else:
            raise InputError(path, f"unsupported file type {path.suffix!r}: expected .csv or .parquet")
    except (pa.ArrowInvalid, OSError) as exc:
        if isinstance(exc, FileNotFoundError):
            raise InputError(path, "no such file") from exc
        if "straddling" in str(exc):
            raise InputError(path, f"a row too long to read in blocks of {max_line_bytes():,} bytes (the line "
                                   "limit, set by REVMINE_MAX_LINE_BYTES)") from exc
        raise InputError(path, f"cannot read: {exc}") from exc
    if table.num_rows == 0:  # else: tables of NaN correlations, and exit status 0
        raise InputError(path, "no judged pairs: the file has no rows")
    row0 = 2 if suffix == ".csv" else 1  # report CSV line numbers (header is line 1), Parquet row numbers
    texts = {}
    for col in (prediction_col, reference_col):
        values = table.column(col).to_pylist()
        bad = next((k for k, v in enumerate(values) if v is None), None)
        if bad is not None:
            raise InputError(path, "empty value", line=bad + row0, field=col)
        texts[col] = [str(v) for v in values]
    scores = {}
    for col in score_cols:
        try:
            values = np.asarray(table.column(col).to_pylist(), dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise InputError(path, f"human scores must be numbers ({exc})", field=col) from exc
        bad = np.flatnonzero(np.isnan(values))
        if bad.size:
            raise InputError(path, "missing human score", line=int(bad[0]) + row0, field=col)
        scores[col] = values
    return Judgements(texts[prediction_col], texts[reference_col], scores)


def _check_columns(path: Path, header: Sequence[str], wanted: Sequence[str]) -> None:
    missing = [c for c in dict.fromkeys(wanted) if c not in header]
    if missing:
        raise InputError(path, f"missing column(s) {', '.join(missing)}; the file has {', '.join(header)}")


def agreement(
    predictions: Sequence[str],
    references: Sequence[str],
    human_scores: HumanScores,
    metrics: Sequence[Metric],
    n_boot: int = 1000,
    seed: int = 0,
    rounding: int | None = None,
    normalise_by_max: bool = False,
    distances_as_similarity: bool = False,
    confidence: float = 0.95,
) -> pa.Table:
    """One ``AGREEMENT_SCHEMA`` row per metric: correlations with the mean human score and their CIs."""
    check_lengths(predictions, references)
    human = _mean_human(human_scores, len(predictions), rounding, normalise_by_max)
    rows = []
    for metric, values in zip(metrics, score_columns(metrics, predictions, references)):
        flip = distances_as_similarity and not metric.higher_is_better
        scores = _postprocess(values, rounding, normalise_by_max, flip)
        ok = ~np.isnan(scores)
        if not ok.all():
            warnings.warn(f"{metric.column}: {int((~ok).sum())} pair(s) without a score left out", stacklevel=2)
        x, y = scores[ok], human[ok]
        row: dict[str, object] = {
            "metric": metric.column,
            "signature": metric.signature() + _post_signature(rounding, normalise_by_max, flip),
            "n": int(ok.sum()),
        }
        row.update(correlations(x, y, n_boot=n_boot, seed=seed, confidence=confidence))
        rows.append(row)
    return pa.Table.from_pylist(rows, schema=AGREEMENT_SCHEMA)


def correlations(
    x: np.ndarray, y: np.ndarray, n_boot: int = 1000, seed: int = 0, confidence: float = 0.95
) -> dict[str, float]:
    """Spearman, Kendall (τ-b) and Pearson of x with y, each with ``_lo``/``_hi`` percentile bootstrap bounds."""
    from scipy import stats  # imported here: the command line builds its parsers from this module

    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    out: dict[str, float] = {}
    with warnings.catch_warnings():  # constant input: scipy warns and returns NaN, which is the answer
        warnings.simplefilter("ignore")
        if len(x) >= 2:
            point = (
                stats.spearmanr(x, y).statistic,
                stats.kendalltau(x, y).statistic,
                stats.pearsonr(x, y).statistic,
            )
        else:
            point = (np.nan,) * 3
    if len(x) >= 2 and n_boot > 0:
        idx = np.random.default_rng(seed).integers(0, len(x), size=(n_boot, len(x)))
        boot = bootstrap_coefficients(x, y, idx)
    else:
        boot = np.full((0, 3), np.nan)
    tail = (1 - confidence) / 2 * 100
    for k, name in enumerate(("spearman", "kendall", "pearson")):
        out[name] = float(point[k])
        values = boot[:, k][~np.isnan(boot[:, k])]
        lo, hi = np.percentile(values, [tail, 100 - tail]) if values.size else (np.nan, np.nan)
        out[f"{name}_lo"], out[f"{name}_hi"] = float(lo), float(hi)
    return out


def bootstrap_coefficients(x: np.ndarray, y: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """(Spearman, Kendall τ-b, Pearson) for each resample ``x[idx[b]], y[idx[b]]``, vectorised.

    scipy takes about a millisecond per call, so 1,000 resamples × 3 coefficients × every metric would
    take seconds; these are the same formulas on whole arrays. Kendall works on the multiplicities of the
    original pairs in each resample (a copy of a pair is tied with it on both sides), which needs n×n
    sign matrices: fine for the few thousand pairs human judgements come in.
    """
    from scipy import stats

    xs, ys = x[idx], y[idx]
    spearman = _rowwise_pearson(stats.rankdata(xs, axis=1), stats.rankdata(ys, axis=1))
    pearson = _rowwise_pearson(xs, ys)
    n = len(x)
    counts = np.bincount((idx + n * np.arange(len(idx))[:, None]).ravel(), minlength=len(idx) * n)
    counts = counts.reshape(len(idx), n).astype(np.float64)
    dx, dy = np.sign(x[:, None] - x[None, :]), np.sign(y[:, None] - y[None, :])
    concordance = ((counts @ (dx * dy)) * counts).sum(axis=1) / 2
    # pairs tied on x (resp. y), copies of one pair included: the quadratic form counts the diagonal
    # c_k^2 times where c_k(c_k-1) is wanted, hence the - n/2
    tied_x = ((counts @ (dx == 0).astype(np.float64)) * counts).sum(axis=1) / 2 - n / 2
    tied_y = ((counts @ (dy == 0).astype(np.float64)) * counts).sum(axis=1) / 2 - n / 2
    total = n * (n - 1) / 2
    with np.errstate(invalid="ignore", divide="ignore"):
        kendall = concordance / np.sqrt((total - tied_x) * (total - tied_y))
    return np.column_stack([spearman, kendall, pearson])


def _rowwise_pearson(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a = a - a.mean(axis=1, keepdims=True)
    b = b - b.mean(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.clip((a * b).sum(axis=1) / np.sqrt((a * a).sum(axis=1) * (b * b).sum(axis=1)), -1.0, 1.0)


def _round(values: np.ndarray, digits: int) -> np.ndarray:
    # Python's round (correctly rounded decimal), as the scripts being reproduced; np.round can differ.
    return np.array([round(float(v), digits) for v in values], dtype=np.float64)


def _postprocess(scores: np.ndarray, rounding: int | None, by_max: bool, flip: bool) -> np.ndarray:
    s = np.asarray(scores, dtype=np.float64)
    if rounding is not None:
        s = _round(s, rounding)
    if by_max:
        top = np.nanmax(s) if np.any(~np.isnan(s)) else np.nan
        if top > 0:
            s = s / top
            if rounding is not None:
                s = _round(s, rounding)
    if flip:
        s = 1.0 - s
        if rounding is not None:
            s = _round(s, rounding)
    return s


def _mean_human(human_scores: HumanScores, n: int, rounding: int | None, by_max: bool) -> np.ndarray:
    """Mean over judges per pair (after dividing each judge's scores by their maximum when ``by_max``)."""
    if isinstance(human_scores, Mapping):
        columns = [np.asarray(v, dtype=np.float64) for v in human_scores.values()]
    else:
        arr = np.asarray(human_scores, dtype=np.float64)
        columns = [arr] if arr.ndim == 1 else list(arr.T)
    if not columns:
        raise ValueError("no human scores given")
    for c in columns:
        if c.shape != (n,):
            raise ValueError(f"{n} pairs but a human-score column of shape {c.shape}")
        if np.isnan(c).any():
            raise ValueError("human scores contain NaN")
    if by_max:
        columns = [c / c.max() if c.max() > 0 else c for c in columns]
    mean = np.mean(columns, axis=0)
    return _round(mean, rounding) if rounding is not None else mean


def _post_signature(rounding: int | None, by_max: bool, flip: bool) -> str:
    parts = []
    if rounding is not None:
        parts.append(f"round:{rounding}")
    if by_max:
        parts.append("maxnorm:yes")
    if flip:
        parts.append("dist:1-x")
    return "".join(f"|{p}" for p in parts)
