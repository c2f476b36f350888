"""The contract every metric follows, modelled on sacrebleu's metric classes.

A metric is a small object built with its settings; ``signature()`` renders those settings as a string
(``bleu|tok:space|smooth:exp|n:4|version:0.1.0``) that is stored beside every score, so a reported figure
always says how it was computed. Metrics score whole lists at once (``sentence_scores``) because the
score stage works on columns, and batching is what lets a metric be fast.

Contract of ``sentence_scores``: the value of pair *i* depends on that pair and the metric's settings
only, never on the other pairs of the batch (caches of tokens or reference statistics shared within a
batch are fine as long as they do not change a value). This is what lets the score stage split the
pairs into contiguous chunks, score the chunks in worker processes and concatenate the results,
byte-identical to one call (``score_predictions(..., workers=N)``). A metric that cannot promise it sets
``parallel_safe = False`` and is always scored in the calling process, on the whole list at once.
Metrics that share per-pair statistics (the edit distances) derive from ``SharedStatistics``: the score
stage computes the statistics once and passes them to each, explicitly, with no cache between calls.
Metrics sent to workers are pickled; one that holds something unpicklable (a WordNet reader, a
closure) defines ``__getstate__``/``__setstate__`` to rebuild it in the worker.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar, Hashable, Sequence

import numpy as np

from ..package import __version__


class Metric(ABC):
    """A sentence-level metric over (hypothesis, reference) strings.

    Subclasses set ``name`` (the signature's first field) and implement ``settings`` and
    ``sentence_scores``. ``column`` is the name of the score column; it defaults to ``name`` and
    includes the variant where one metric class has several (``bleu4_exp``).
    """

    name: ClassVar[str]
    #: False for distances (lower is better); summaries use it to pick the best of k.
    higher_is_better: ClassVar[bool] = True
    #: True when a pair's value does not depend on the other pairs of the batch (see the module
    #: docstring); the score stage then may score chunks in worker processes.
    parallel_safe: ClassVar[bool] = True

    @property
    def column(self) -> str:
        return self.name

    @abstractmethod
    def settings(self) -> dict[str, object]:
        """Every setting that changes the value, in a stable order."""

    def signature(self) -> str:
        parts = [self.name] + [f"{k}:{_fmt(v)}" for k, v in self.settings().items()]
        parts.append(f"version:{__version__}")
        return "|".join(parts)

    @abstractmethod
    def sentence_scores(self, hypotheses: Sequence[str], references: Sequence[str]) -> np.ndarray:
        """One float per (hypothesis, reference) pair, as a float64 array of the same length."""

    def score(self, hypothesis: str, reference: str) -> float:
        return float(self.sentence_scores([hypothesis], [reference])[0])

    def corpus_score(self, hypotheses: Sequence[str], references: Sequence[str]) -> float:
        """Corpus-level value with one reference each: ``multi_reference_corpus_score``, so the mean of
        sentence scores unless the metric defines its own corpus form (``has_corpus_form``: BLEU, chrF, TER)."""
        check_lengths(hypotheses, references)
        return self.multi_reference_corpus_score(hypotheses, [[r] for r in references])

    def multi_reference_scores(self, hypotheses: Sequence[str],
                               reference_sets: Sequence[Sequence[str]]) -> np.ndarray:
        """One float per hypothesis against its set of references: the best over the references (max, or
        min for distances), the rule of nltk's ``meteor_score``, rouge-score's ``score_multi`` and
        sacrebleu's chrF. Metrics with another rule (BLEU, TER) override it."""
        sizes = check_reference_sets(hypotheses, reference_sets)
        if not len(hypotheses):
            return np.zeros(0)
        values = self.sentence_scores([h for h, n in zip(hypotheses, sizes) for _ in range(n)],
                                      [r for refs in reference_sets for r in refs])
        best = np.fmax if self.higher_is_better else np.fmin
        return best.reduceat(np.asarray(values, dtype=np.float64), np.cumsum(sizes) - sizes)

    def multi_reference_corpus_score(self, hypotheses: Sequence[str],
                                     reference_sets: Sequence[Sequence[str]]) -> float:
        """Corpus value with several references each; the mean of ``multi_reference_scores`` by default. A
        metric with a corpus form of its own implements it, or the ``corpus_from_statistics`` behind it
        (``has_corpus_form``, which the one-call ``revmine.metrics.corpus_score`` requires)."""
        return self.corpus_from_statistics(self.segment_statistics(hypotheses, reference_sets))

    def segment_statistics(self, hypotheses: Sequence[str], reference_sets: Sequence[Sequence[str]]) -> np.ndarray:
        """One row per hypothesis from which ``corpus_from_statistics`` computes the corpus value of any
        subset of rows (what bootstrap resampling needs, as sacrebleu's ``_extract_corpus_statistics``):
        the sentence score by default; BLEU's n-gram counts, chrF's and TER's sacrebleu statistics."""
        return np.asarray(self.multi_reference_scores(hypotheses, reference_sets), dtype=np.float64)[:, None]

    def corpus_from_statistics(self, statistics: np.ndarray) -> float:
        """The corpus value of ``segment_statistics`` rows: the mean sentence score by default."""
        return float(statistics[:, 0].mean()) if len(statistics) else float("nan")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.signature()}>"


class SharedStatistics(Metric):
    """A metric computed from per-pair statistics that other metrics compute alike, split in two steps as
    sacrebleu splits its metrics (``_extract_corpus_statistics``, ``_compute_score_from_stats``).

    Metrics whose ``statistics_key`` are equal compute equal statistics from the same pairs (the edit
    metrics: one Levenshtein distance per pair for four scores). The score stage
    (:func:`revmine.metrics.score.score_columns`) computes them once per batch with the first such
    metric's ``statistics`` and hands the result to each one's ``scores_from_statistics``; called on its
    own, ``sentence_scores`` does both steps. The statistics object is shared, so
    ``scores_from_statistics`` must not change it and returns an array of its own.
    """

    @property
    @abstractmethod
    def statistics_key(self) -> Hashable:
        """Equal keys mean equal ``statistics`` on the same pairs."""

    @abstractmethod
    def statistics(self, hypotheses: Sequence[str], references: Sequence[str]) -> object:
        """The per-pair statistics of a batch (for the contract of ``sentence_scores``: pair by pair)."""

    @abstractmethod
    def scores_from_statistics(self, statistics: object) -> np.ndarray:
        """One float per pair from ``statistics`` (which it must not change)."""

    def sentence_scores(self, hypotheses: Sequence[str], references: Sequence[str]) -> np.ndarray:
        return self.scores_from_statistics(self.statistics(hypotheses, references))


def has_corpus_form(metric: Metric) -> bool:
    """True when the metric defines a corpus value of its own rather than the mean of its sentence scores:
    its class implements ``multi_reference_corpus_score`` or the ``corpus_from_statistics`` behind the
    default one (BLEU sums n-gram counts, chrF and TER sacrebleu's statistics). What the one-call
    ``corpus_score`` requires; the mean of sentence scores is what ``compute`` gives."""
    cls = type(metric)
    return (cls.multi_reference_corpus_score is not Metric.multi_reference_corpus_score
            or cls.corpus_from_statistics is not Metric.corpus_from_statistics)


def _fmt(value: object) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def check_lengths(hypotheses: Sequence[str], references: Sequence[str]) -> None:
    if len(hypotheses) != len(references):
        raise ValueError(f"{len(hypotheses)} hypotheses but {len(references)} references")


def check_reference_sets(hypotheses: Sequence[str], reference_sets: Sequence[Sequence[str]]) -> np.ndarray:
    """The number of references of each hypothesis; an error when the lengths differ or one has none."""
    if len(hypotheses) != len(reference_sets):
        raise ValueError(f"{len(hypotheses)} hypotheses but {len(reference_sets)} reference sets")
    sizes = np.fromiter(map(len, reference_sets), dtype=np.intp, count=len(reference_sets))
    if (sizes == 0).any():
        raise ValueError(f"hypothesis {int(np.argmin(sizes))} has no reference")
    return sizes


def distinct(strings: Sequence[str]) -> tuple[np.ndarray, list[str]]:
    """Index of each string in the list of distinct strings (references repeat k times in a beam)."""
    seen: dict[str, int] = {}
    index = np.fromiter((seen.setdefault(s, len(seen)) for s in strings), dtype=np.int64, count=len(strings))
    return index, list(seen)


def distinct_pairs(hypotheses: Sequence[str], references: Sequence[str]) -> tuple[list[tuple[str, str]], np.ndarray]:
    """The distinct (hypothesis, reference) pairs in first-seen order, and for each input pair the index
    of its distinct pair: ``values[inverse]`` expands scores of the distinct pairs back to every pair."""
    check_lengths(hypotheses, references)
    index: dict[tuple[str, str], int] = {}
    inverse = np.fromiter((index.setdefault(pair, len(index)) for pair in zip(hypotheses, references)),
                          dtype=np.intp, count=len(hypotheses))
    return list(index), inverse


def memo(function):
    """``function`` with a plain dict cache of its results by argument (one batch's lifetime)."""
    cache: dict = {}

    def cached(arg):
        try:
            return cache[arg]
        except KeyError:
            value = cache[arg] = function(arg)
            return value

    return cached
