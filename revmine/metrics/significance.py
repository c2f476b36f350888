"""Is system B better than system A on the same references? Paired tests, as sacrebleu runs them.

Both tests follow sacrebleu 2.x (``sacrebleu.significance``, its ``--paired-bs`` and ``--paired-ar``),
itself following Koehn (2004, "Statistical Significance Tests for Machine Translation Evaluation") and
Riezler & Maxwell (2005, "On Some Pitfalls in Automatic Evaluation and Significance Testing for MT"):

- **Paired bootstrap resampling** (``paired_bootstrap``): ``n_samples`` resamples of the segments with
  replacement (``numpy.random.default_rng(seed).choice(n, (n_samples, n))``); each system's corpus score
  on every resample; the p-value of the observed absolute difference against the resampled absolute
  differences centred on their mean: ``(#{|d_i| - mean |d| > |d|} + 1) / (n_samples + 1)``. Also the
  system's mean and 95% confidence half-width over the resamples (sacrebleu's ``estimate_ci``).
- **Approximate randomisation** (``approximate_randomization``): ``n_samples`` trials, each swapping every
  segment between the systems with probability 1/2 (``rng.integers(2, (n_samples, n), dtype=bool)``);
  p = ``(#{|score(a_i) - score(b_i)| > |d|} + 1) / (n_samples + 1)``.

With the same seed the resamples are sacrebleu's, so for BLEU, chrF and TER (whose corpus scores are
computed from summed segment statistics, ``Metric.segment_statistics``) the p-values are sacrebleu's.
Any other metric is tested on its corpus value, the mean of its sentence scores. The default seed is
sacrebleu's (12345, its ``SACREBLEU_SEED``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Callable, Sequence

import numpy as np

from .base import Metric

SEED = 12345


@dataclass(frozen=True)
class PairedResult:
    """One metric's comparison of a system with the baseline."""

    metric: str
    signature: str
    test: str  # "bootstrap" or "randomization"
    baseline: float
    system: float
    p_value: float
    n_samples: int
    seed: int | None
    system_mean: float | None = None  # over the bootstrap resamples
    system_ci: float | None = None  # 95% half-width, as sacrebleu's ``estimate_ci``

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def _statistics(metric: Metric, baseline: Sequence[str], system: Sequence[str],
                reference_sets: Sequence[Sequence[str]]) -> tuple[np.ndarray, np.ndarray]:
    if not (len(baseline) == len(system) == len(reference_sets)):
        raise ValueError(f"the systems have {len(baseline)} and {len(system)} hypotheses "
                         f"for {len(reference_sets)} references")
    if not len(baseline):
        raise ValueError("nothing to compare: no hypotheses")
    return (metric.segment_statistics(list(baseline), reference_sets),
            metric.segment_statistics(list(system), reference_sets))


def _p_value(samples: np.ndarray, observed: float) -> float:
    return float((np.sum(samples > observed) + 1) / (len(samples) + 1))


def paired_bootstrap(metric: Metric, baseline: Sequence[str], system: Sequence[str],
                     reference_sets: Sequence[Sequence[str]], n_samples: int = 1000,
                     seed: int | None = SEED, progress: Callable[[int], None] = lambda n: None) -> PairedResult:
    """sacrebleu's paired bootstrap resampling test of ``system`` against ``baseline`` (``progress(1)`` after
    each resample: a long test on a large file shows it is alive)."""
    bl, sy = _statistics(metric, baseline, system, reference_sets)
    bl_score, sy_score = metric.corpus_from_statistics(bl), metric.corpus_from_statistics(sy)
    idx = np.random.default_rng(seed).choice(len(bl), size=(n_samples, len(bl)), replace=True)
    scores_bl, scores_sy = np.empty(n_samples), np.empty(n_samples)
    for t, i in enumerate(idx):
        scores_bl[t], scores_sy[t] = metric.corpus_from_statistics(bl[i]), metric.corpus_from_statistics(sy[i])
        progress(1)
    diffs = np.abs(scores_sy - scores_bl)
    mean, half = confidence_half_width(scores_sy)
    return PairedResult(metric.column, metric.signature(), "bootstrap", bl_score, sy_score,
                        _p_value(diffs - diffs.mean(), abs(bl_score - sy_score)), n_samples, seed, mean, half)


def approximate_randomization(metric: Metric, baseline: Sequence[str], system: Sequence[str],
                              reference_sets: Sequence[Sequence[str]], n_samples: int = 10000,
                              seed: int | None = SEED, progress: Callable[[int], None] = lambda n: None
                              ) -> PairedResult:
    """sacrebleu's paired approximate randomisation test of ``system`` against ``baseline`` (``progress(1)``
    after each trial)."""
    bl, sy = _statistics(metric, baseline, system, reference_sets)
    bl_score, sy_score = metric.corpus_from_statistics(bl), metric.corpus_from_statistics(sy)
    swap = np.random.default_rng(seed).integers(2, size=(n_samples, len(bl)), dtype=bool)
    diffs = np.empty(n_samples)
    for t, keep in enumerate(swap):
        a = np.where(keep[:, None], bl, sy)
        b = np.where(keep[:, None], sy, bl)
        diffs[t] = abs(metric.corpus_from_statistics(a) - metric.corpus_from_statistics(b))
        progress(1)
    return PairedResult(metric.column, metric.signature(), "randomization", bl_score, sy_score,
                        _p_value(diffs, abs(bl_score - sy_score)), n_samples, seed)


def confidence_half_width(samples: np.ndarray) -> tuple[float, float]:
    """Mean and 95% half-width of resampled scores, as sacrebleu's ``estimate_ci`` (sorted, the n//40-th
    from each end)."""
    ordered = np.sort(samples)
    lo = len(ordered) // 40
    return float(ordered.mean()), float(0.5 * (ordered[len(ordered) - lo - 1] - ordered[lo]))


def bootstrap_interval(values: np.ndarray, n_samples: int, seed: int | None = SEED,
                       confidence: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of ``values`` (NaN and infinite values left out)."""
    ok = values[np.isfinite(values)]
    if not ok.size or n_samples < 1:
        return float("nan"), float("nan")
    idx = np.random.default_rng(seed).integers(0, ok.size, size=(n_samples, ok.size))
    means = ok[idx].mean(axis=1)
    tail = (1 - confidence) / 2 * 100
    lo, hi = np.percentile(means, [tail, 100 - tail])
    return float(lo), float(hi)
