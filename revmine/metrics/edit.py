"""Edit distances between a prediction and its reference: Levenshtein, its normalised similarity, and SED.

All three rest on the Levenshtein distance ``d`` (unit-cost insertions, deletions and substitutions),
computed by ``rapidfuzz.distance.Levenshtein.distance`` (its reference implementation here), over
whitespace tokens (``tokenize="space"``, ``str.split()``) or characters (``tokenize="char"``):

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

Speed: the Levenshtein computation is rapidfuzz's (bit-parallel, in C++); the only Python work per
pair is ``str.split`` of the prediction (each distinct reference is split once, and its tokens keep their
cached hashes). That split, not the distance, is most of the cost: about 3-4x the time of rapidfuzz on
already-split lists (benchmarks/bench_code_metrics.py). Interning tokens with numpy instead
(``bleu.intern_tokens``) measured slower than ``str.split`` here.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from rapidfuzz.distance import Levenshtein as _rapidfuzz_levenshtein

from .base import Metric, check_lengths
from .bleu import TOKENIZERS, distinct


def edit_statistics(hypotheses: Sequence[str], references: Sequence[str],
                    tokenize: str = "space") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Levenshtein distance, hypothesis length and reference length (in tokens or characters) per pair."""
    check_lengths(hypotheses, references)
    if tokenize not in TOKENIZERS:
        raise ValueError(f"tokenize must be one of {TOKENIZERS}, not {tokenize!r}")
    if tokenize == "space":
        ref_index, distinct_refs = distinct(references)
        split_refs = [r.split() for r in distinct_refs]
        hyps: list = list(map(str.split, hypotheses))
        refs: list = [split_refs[i] for i in ref_index.tolist()]
    else:
        hyps, refs = list(hypotheses), list(references)
    distance = np.fromiter(map(_rapidfuzz_levenshtein.distance, hyps, refs), dtype=np.float64, count=len(hyps))
    return (distance, np.fromiter(map(len, hyps), dtype=np.float64, count=len(hyps)),
            np.fromiter(map(len, refs), dtype=np.float64, count=len(refs)))


class _EditMetric(Metric):
    """Shared settings and column naming of the edit-distance metrics."""

    def __init__(self, tokenize: str = "space") -> None:
        if tokenize not in TOKENIZERS:
            raise ValueError(f"tokenize must be one of {TOKENIZERS}, not {tokenize!r}")
        self.tokenize = tokenize

    def settings(self) -> dict[str, object]:
        return {"tok": self.tokenize}

    @property
    def column(self) -> str:
        return f"{self.name}_{'tok' if self.tokenize == 'space' else 'char'}"


class Levenshtein(_EditMetric):
    """Levenshtein distance (number of token or character edits)."""

    name = "levenshtein"
    higher_is_better = False

    def sentence_scores(self, hypotheses: Sequence[str], references: Sequence[str]) -> np.ndarray:
        return edit_statistics(hypotheses, references, self.tokenize)[0]


class LevenshteinSimilarity(_EditMetric):
    """``1 - d / max(|hyp|, |ref|)`` (rapidfuzz's normalized similarity, RUBY's STS)."""

    name = "levenshtein_sim"

    def sentence_scores(self, hypotheses: Sequence[str], references: Sequence[str]) -> np.ndarray:
        distance, hyp_len, ref_len = edit_statistics(hypotheses, references, self.tokenize)
        longest = np.maximum(hyp_len, ref_len)
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

    def sentence_scores(self, hypotheses: Sequence[str], references: Sequence[str]) -> np.ndarray:
        distance, hyp_len, ref_len = edit_statistics(hypotheses, references, self.tokenize)
        scale = ref_len if self.normalize == "ref" else np.maximum(hyp_len, ref_len)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(distance == 0, 0.0, distance / scale)  # 0/0 = 0, d/0 = inf


__all__ = ["Levenshtein", "LevenshteinSimilarity", "SED", "edit_statistics"]
