"""What Dey et al. 2022 actually computed, as named variants for the ``cmg2022`` profile.

"Evaluating Commit Message Generation: To BLEU Or Not To BLEU?" (ICSE NIER 2022) correlates metrics
with human scores. Its replication package (github.com/CMGeval/Evaluating-CMG, "Experimental results/
Effect of *.py" and "Experiments: RQ2/The Log-MNEXT metric.py") computes some of them differently from
their published definitions. These classes reproduce the scripts, not the definitions; the correct
metrics are in ``text.py`` and ``meteor.py``:

- ``Rouge101`` — the ``rouge`` 1.0.1 PyPI package (pltrdy), called as ``get_scores(reference,
  prediction)``: the script's helper takes ``(reference, hypothesis)`` but is called with the prediction
  first, so the package's hypothesis/reference roles are swapped. ROUGE-1/2 F1 are symmetric and do not
  change; ROUGE-L does, because that package computes a summary-level union LCS over "sentences" split on
  ``.`` and counts distinct words. Whitespace tokens, no case folding, no stemming.
- ``WordEditRate`` — stands in for TER: a word-level Levenshtein distance in an N×M table (no row or
  column for the empty prefix; row 0 and column 0 are set to their index), read at ``[N-1, M-1]``,
  divided by the number of reference words. The effect: the first word of each side is never compared,
  so the value is ``levenshtein(hyp[1:], ref[1:]) / len(ref)``. No shifts. Lower is better.
  The script raises on an empty side; we return NaN there.
- ``LogMnext(alignment="cmg2022")`` (in ``meteor.py``) — the script's Log-MNEXT.
- ``Meteor(alignment="cmg2022")`` — METEOR as the scripts' ``nltk.translate.meteor_score`` (called on
  strings, so nltk < 3.6.6, whose stem module left its words to the synonym module: the ``cmg2022``
  alignment). Spearman 0.748 on the 100 judged pairs, Table 1's figure; current nltk's lookup
  (``meteor(syn=nltk)``) gives 0.749.
- ``ScriptMeteorNext`` — Table 1's METEOR-NEXT (0.761): the scripts' ``meteorn_score`` ("Effect of
  lower-casing.py"): their METEOR-NEXT parameters (α=0.85, β=2.35, γ=0.45, weights 1/0.8/0.6),
  lower-cased, punctuation kept, the ``cmg2022`` alignment, and the fragmentation penalty always
  applied (Log-MNEXT is the same plus punctuation removal and no penalty for a complete alignment).
- Their post-processing — each score rounded to 2 decimals, divided by the maximum over the sample and
  rounded again, TER turned into ``1 - x``, human scores divided by each annotator's maximum, averaged and
  rounded — is ``agreement(..., **CMG2022_AGREEMENT)``.

Their BLEU variants (character-level nltk BLEU) belong to ``bleu.py``.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import Sequence

import numpy as np
from rapidfuzz.distance import Levenshtein

from .base import Metric, distinct_pairs, memo
from .meteor import LOG_MNEXT_PARAMETERS, LogMnext, Meteor
from .text import RougeVariant
from .tokens import normalise, words

#: ``agreement()`` options that reproduce the paper's post-processing.
CMG2022_AGREEMENT: dict[str, object] = {
    "rounding": 2,
    "normalise_by_max": True,
    "distances_as_similarity": True,
}


class Rouge101(Metric):
    """ROUGE-1/2/L F from the ``rouge`` 1.0.1 package, arguments swapped as in Dey et al.'s scripts.

    Needs ``pip install rouge==1.0.1`` (optional; only this profile uses it). Empty inputs (which the
    package rejects) score NaN.
    """

    name = "rouge_cmg2022"

    def __init__(self, variant: RougeVariant = "1", swapped: bool = True, lowercase: bool = False, punctuation: str = "none"):
        try:
            from rouge import Rouge
        except ImportError as exc:
            raise ImportError("the cmg2022 ROUGE variant needs the 'rouge' package: pip install rouge==1.0.1") from exc
        if variant not in ("1", "2", "L"):
            raise ValueError(f"ROUGE variant must be '1', '2' or 'L', not {variant!r}")
        self.variant, self.swapped, self.lowercase, self.punctuation = variant, swapped, lowercase, punctuation
        self._key = f"rouge-{variant.lower()}"
        self._rouge = Rouge(metrics=[self._key])

    @property
    def column(self) -> str:
        return f"rouge{self.variant}_f_cmg2022"

    def settings(self) -> dict[str, object]:
        try:
            impl = f"rouge-{version('rouge')}"
        except PackageNotFoundError:
            impl = "rouge-unknown"
        return {
            "n": self.variant,
            "stat": "f",
            "args": "swapped" if self.swapped else "hyp,ref",
            "case": "lc" if self.lowercase else "mixed",
            "punct": self.punctuation,
            "tok": "space",
            "impl": impl,
        }

    def sentence_scores(self, hypotheses: Sequence[str], references: Sequence[str]) -> np.ndarray:
        pairs, inverse = distinct_pairs(hypotheses, references)  # each distinct pair scored once
        norm = memo(lambda text: normalise(text, self.lowercase, self.punctuation))
        out = np.full(len(pairs), np.nan)
        for k, (h, r) in enumerate(pairs):
            h, r = norm(h), norm(r)
            first, second = (r, h) if self.swapped else (h, r)
            try:
                out[k] = self._rouge.get_scores(first, second)[0][self._key]["f"]
            except ValueError:  # "Hypothesis is empty." / "Reference is empty."
                pass
        return out[inverse]


class WordEditRate(Metric):
    """Dey et al.'s "TER": off-by-one word Levenshtein over the reference length (see module docstring)."""

    name = "ter_cmg2022"
    higher_is_better = False

    def __init__(self, lowercase: bool = False, punctuation: str = "none"):
        self.lowercase, self.punctuation = lowercase, punctuation

    def settings(self) -> dict[str, object]:
        return {
            "case": "lc" if self.lowercase else "mixed",
            "punct": self.punctuation,
            "tok": "space",
            "table": "NxM-offbyone",
            "shifts": False,
        }

    def sentence_scores(self, hypotheses: Sequence[str], references: Sequence[str]) -> np.ndarray:
        pairs, inverse = distinct_pairs(hypotheses, references)
        tokens = memo(lambda text: words(text, self.lowercase, self.punctuation))
        out = np.full(len(pairs), np.nan)
        for k, (h, r) in enumerate(pairs):
            hyp, ref = tokens(h), tokens(r)
            if hyp and ref:
                out[k] = Levenshtein.distance(hyp[1:], ref[1:]) / len(ref)
        return out[inverse]


class ScriptMeteorNext(Meteor):
    """Table 1's METEOR-NEXT of Dey et al. 2022 as their script computes it (see the module docstring)."""

    name = "meteor_next_cmg2022"

    def __init__(self, **switches: object):
        super().__init__(parameters=LOG_MNEXT_PARAMETERS, exemption="never", alignment="cmg2022", **switches)

    @property
    def column(self) -> str:
        return self.name


def profile_metrics() -> list[Metric]:
    """The natural-language metrics of the ``cmg2022`` profile owned here (BLEU variants are bleu.py's)."""
    return [
        Rouge101("1"),
        Rouge101("2"),
        Rouge101("L"),
        WordEditRate(),
        Meteor(alignment="cmg2022"),
        ScriptMeteorNext(),
        LogMnext(alignment="cmg2022"),
    ]
