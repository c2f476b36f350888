"""Edit distances between a prediction and its reference: Levenshtein, its normalised similarity, and SED.

All three rest on the Levenshtein distance ``d`` (unit-cost insertions, deletions and substitutions),
``rapidfuzz.distance.Levenshtein.distance``'s (the reference here; large token batches use a compiled
kernel that gives the same values, see Speed), over whitespace tokens (``tokenize="space"``,
``str.split()``) or characters (``tokenize="char"``):

* ``Levenshtein`` — ``d`` itself (an edit count; lower is better). Columns ``levenshtein_tok`` and
  ``levenshtein_char``.
* ``LevenshteinSimilarity`` — ``1 - d / max(|hyp|, |ref|)``, 1 when both are empty; this is rapidfuzz's
  ``Levenshtein.normalized_similarity`` and the string-similarity component (STS) of RUBY (Tran et al.,
  "Does BLEU Score Work for Code Migration?", ICPC 2019), which falls back to it when the code does not
  parse. Columns ``levenshtein_sim_tok`` / ``levenshtein_sim_char``.
* ``SED`` — the token edit distance normalised, lower is better, in the two ways the literature uses:
  ``normalize="max"`` gives ``d / max(|hyp|, |ref|)`` (RUBY's, Tran et al. 2019; 0 when both are
  empty), column ``sed_max``; ``normalize="ref"`` gives ``d / |ref|``, the share of the reference that
  must be edited (Tran et al. 2019 as cited for SED; unbounded above: a long wrong prediction exceeds 1;
  ``inf`` for an empty reference with a non-empty prediction, 0 when both are empty), column ``sed_ref``.
  Papers that say "SED" without saying which are not comparable with each other; the signature says.

Speed. On token lists, making the lists costs more than the distances: ``str.split`` of 17,190
predictions (~800k ``str`` objects) takes about three times as long as rapidfuzz's distances on the
split lists. So for batches of at least ``NUMBA_MIN_PAIRS`` pairs, when numba is installed, the token
distances come from :mod:`revmine.metrics._levenshtein`, which never makes a token object (UTF-32 code
points, exact token numbering, Myers' bit-parallel algorithm, compiled): 0.6-0.95x the time of rapidfuzz
on already-split lists (benchmarks/bench_code_metrics.py prints both). Smaller batches, or no numba, use
rapidfuzz on ``str.split()`` lists (same values; it also avoids numba's start-up for one ``score()``).
Character distances are rapidfuzz's on the strings in every case.

Shared statistics. ``Levenshtein``, ``LevenshteinSimilarity`` and both ``SED`` are functions of one
:class:`EditStatistics` (distance and both lengths), so they are ``SharedStatistics`` metrics with the
key ``("edit", tokenize)``: the score stage (``score.score_columns``) computes the statistics once per
batch for every such metric with the same tokeniser and passes them to each metric's
``scores_from_statistics``, as sacrebleu's metrics separate ``_extract_corpus_statistics`` from
``_compute_score_from_stats``. A metric called on its own (``sentence_scores``) computes its own; nothing
is cached between calls.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Hashable, Sequence

import numpy as np
from rapidfuzz.distance import Levenshtein as _rapidfuzz_levenshtein

from .base import SharedStatistics, check_lengths, distinct
from .tokens import check_tokenizer, token_sequence


#: token distances of at least this many pairs use the compiled kernel (when numba is installed)
NUMBA_MIN_PAIRS = 1000


@dataclass(frozen=True)
class EditStatistics:
    """Per pair: the Levenshtein distance and the hypothesis and reference lengths (tokens or characters),
    as read-only float64 arrays (several metrics read them)."""

    distance: np.ndarray
    hyp_len: np.ndarray
    ref_len: np.ndarray

    def __post_init__(self) -> None:
        for column in (self.distance, self.hyp_len, self.ref_len):
            column.flags.writeable = False


def edit_statistics(hypotheses: Sequence[str], references: Sequence[str], tokenize: str = "space") -> EditStatistics:
    """Levenshtein distance, hypothesis length and reference length (in tokens or characters) per pair."""
    check_lengths(hypotheses, references)
    check_tokenizer(tokenize)
    hypotheses, references = list(hypotheses), list(references)
    if tokenize == "space":
        return EditStatistics(*_token_statistics(hypotheses, references))
    return EditStatistics(*_rapidfuzz_statistics(hypotheses, references))


def _token_statistics(hypotheses: list[str], references: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if len(hypotheses) >= NUMBA_MIN_PAIRS:
        from . import _levenshtein
        if _levenshtein.AVAILABLE:
            return tuple(column.astype(np.float64)  # type: ignore[return-value]
                         for column in _levenshtein.token_distances(hypotheses, references))
    ref_index, distinct_refs = distinct(references)
    split_refs = [token_sequence(r, "space") for r in distinct_refs]
    return _rapidfuzz_statistics([token_sequence(h, "space") for h in hypotheses],
                                 [split_refs[i] for i in ref_index.tolist()])


def _rapidfuzz_statistics(hyps: list, refs: list) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """rapidfuzz's distance of each pair of strings (characters) or token lists, and both lengths."""
    n = len(hyps)
    distance = np.fromiter(map(_rapidfuzz_levenshtein.distance, hyps, refs), dtype=np.float64, count=n)
    return (distance, np.fromiter(map(len, hyps), dtype=np.float64, count=n),
            np.fromiter(map(len, refs), dtype=np.float64, count=n))


class _EditMetric(SharedStatistics):
    """Shared settings, statistics and column naming of the edit-distance metrics."""

    def __init__(self, tokenize: str = "space") -> None:
        check_tokenizer(tokenize)
        self.tokenize = tokenize

    @property
    def statistics_key(self) -> Hashable:
        return ("edit", self.tokenize)

    def statistics(self, hypotheses: Sequence[str], references: Sequence[str]) -> EditStatistics:
        return edit_statistics(hypotheses, references, self.tokenize)

    def settings(self) -> dict[str, object]:
        return {"tok": self.tokenize}

    @property
    def column(self) -> str:
        return f"{self.name}_{'tok' if self.tokenize == 'space' else 'char'}"


class Levenshtein(_EditMetric):
    """Levenshtein distance (number of token or character edits)."""

    name = "levenshtein"
    higher_is_better = False

    def scores_from_statistics(self, statistics: EditStatistics) -> np.ndarray:
        return statistics.distance.copy()  # the caller's own array


class LevenshteinSimilarity(_EditMetric):
    """``1 - d / max(|hyp|, |ref|)`` (rapidfuzz's normalized similarity, RUBY's STS)."""

    name = "levenshtein_sim"

    def scores_from_statistics(self, statistics: EditStatistics) -> np.ndarray:
        distance, longest = statistics.distance, np.maximum(statistics.hyp_len, statistics.ref_len)
        return 1 - np.divide(distance, longest, out=np.zeros_like(distance), where=longest > 0)


class SED(_EditMetric):
    """Token edit distance normalised by the reference length (``ref``) or the longer side (``max``)."""

    name = "sed"
    higher_is_better = False
    NORMALIZATIONS = ("ref", "max")

    def __init__(self, normalize: str = "ref", tokenize: str = "space") -> None:
        super().__init__(tokenize)
        if normalize not in self.NORMALIZATIONS:
            raise ValueError(f"normalize must be one of {self.NORMALIZATIONS}, not {normalize!r}")
        self.normalize = normalize

    def settings(self) -> dict[str, object]:
        return {"tok": self.tokenize, "norm": self.normalize}

    @property
    def column(self) -> str:
        return f"sed_{self.normalize}" + ("_char" if self.tokenize == "char" else "")

    def scores_from_statistics(self, statistics: EditStatistics) -> np.ndarray:
        distance, ref_len = statistics.distance, statistics.ref_len
        scale = ref_len if self.normalize == "ref" else np.maximum(statistics.hyp_len, ref_len)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(distance == 0, 0.0, distance / scale)  # 0/0 = 0, d/0 = inf


__all__ = ["EditStatistics", "Levenshtein", "LevenshteinSimilarity", "SED", "edit_statistics"]
