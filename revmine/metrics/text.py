"""Natural-language metrics computed by their reference implementations: ROUGE, chrF and TER.

- ROUGE-1, ROUGE-2, ROUGE-L F-measure (Lin 2004, "ROUGE: A Package for Automatic Evaluation of
  Summaries"), by Google's ``rouge-score``, which reproduces the published ROUGE-1.5.5 definition: tokens
  are lower-cased runs of ``[a-z0-9]`` (anything else separates tokens, so non-ASCII text scores 0),
  optional Porter stemming (ROUGE-1.5.5's ``-m``), F1 of n-gram overlap, ROUGE-L from the sentence-level
  longest common subsequence (not the summary-level ``rougeLsum``).
- chrF (Popović 2015, "chrF: character n-gram F-score for automatic MT evaluation") and chrF++ (word
  n-grams added, Popović 2017), by sacrebleu's ``CHRF``, at sentence level.
- TER (Snover et al. 2006, "A Study of Translation Edit Rate with Targeted Human Annotation"), edits
  including block shifts divided by the reference length, by sacrebleu's ``TER`` (a port of tercom),
  at sentence level. TER is a rate of edits: lower is better and it may exceed 1.

Scores are in 0..1 (sacrebleu's percentages are divided by 100). METEOR and Log-MNEXT are in
``meteor.py``; the commit-message paper's variants (Dey et al. 2022) are in ``cmg2022.py``.

``normalise`` is the case folding and punctuation removal that Dey et al. study as factors; the
METEOR family and the cmg2022 variants use it, and record it in their signatures.
"""

from __future__ import annotations

import string
from importlib.metadata import version
from typing import Literal, Sequence

import numpy as np
from rouge_score import rouge_scorer
from sacrebleu.metrics import CHRF, TER

from .base import Metric, check_lengths

#: Character sets removed by ``normalise``: none, ASCII punctuation, or the set Dey et al.'s scripts
#: remove (ASCII punctuation without ``+ = ` |``).
PUNCTUATION: dict[str, str] = {
    "none": "",
    "ascii": string.punctuation,
    "cmg2022": "!()-[]{};:'\"\\,<>./?@#$%^&*_~",
}


def normalise(text: str, lowercase: bool, punctuation: str) -> str:
    """Lower-case and/or delete punctuation characters (``punctuation`` names a set in ``PUNCTUATION``).

    Characters are deleted, not replaced by spaces, as in Dey et al.: ``don't`` becomes ``dont``.
    """
    if lowercase:
        text = text.lower()
    chars = PUNCTUATION[punctuation]
    return text.translate(str.maketrans("", "", chars)) if chars else text


RougeVariant = Literal["1", "2", "L"]


class Rouge(Metric):
    """ROUGE-N / ROUGE-L F-measure of one hypothesis against one reference (rouge-score)."""

    name = "rouge"

    def __init__(self, variant: RougeVariant = "1", stemmer: bool = False):
        if variant not in ("1", "2", "L"):
            raise ValueError(f"ROUGE variant must be '1', '2' or 'L', not {variant!r}")
        self.variant = variant
        self.stemmer = stemmer
        self._key = f"rouge{variant}"
        self._scorer = rouge_scorer.RougeScorer([self._key], use_stemmer=stemmer)

    @property
    def column(self) -> str:
        return f"rouge{self.variant}_f" + ("_stem" if self.stemmer else "")

    def settings(self) -> dict[str, object]:
        return {
            "n": self.variant,
            "stat": "f",
            "tok": "lc-alnum",
            "stem": "porter" if self.stemmer else "no",
            "impl": f"rouge-score-{version('rouge-score')}",
        }

    def sentence_scores(self, hypotheses: Sequence[str], references: Sequence[str]) -> np.ndarray:
        check_lengths(hypotheses, references)
        # rouge-score's argument order is (target, prediction): reference first.
        return np.array(
            [self._scorer.score(ref, hyp)[self._key].fmeasure for hyp, ref in zip(hypotheses, references)],
            dtype=np.float64,
        )


class Chrf(Metric):
    """chrF (``word_order=0``) or chrF++ (``word_order=2``), sacrebleu's sentence-level score / 100."""

    name = "chrf"

    def __init__(
        self,
        char_order: int = 6,
        word_order: int = 0,
        beta: int = 2,
        lowercase: bool = False,
        whitespace: bool = False,
        eps_smoothing: bool = False,
    ):
        self._chrf = CHRF(char_order, word_order, beta, lowercase, whitespace, eps_smoothing)

    @property
    def column(self) -> str:
        c = self._chrf
        base = {0: "chrf", 2: "chrfpp"}.get(c.word_order, f"chrf_nw{c.word_order}")
        changed = [f"nc{c.char_order}" if c.char_order != 6 else "", f"b{c.beta}" if c.beta != 2 else "",
                   "lc" if c.lowercase else "", "ws" if c.whitespace else "", "eps" if c.eps_smoothing else ""]
        return "_".join([base, *filter(None, changed)])

    def settings(self) -> dict[str, object]:
        c = self._chrf
        return {
            "nc": c.char_order,
            "nw": c.word_order,
            "beta": c.beta,
            "case": "lc" if c.lowercase else "mixed",
            "space": c.whitespace,
            # sacrebleu's "eff": effective order (its default); eps smoothing is the chrF++.py alternative
            "smooth": "eps" if c.eps_smoothing else "eff",
            "impl": f"sacrebleu-{version('sacrebleu')}",
        }

    def sentence_scores(self, hypotheses: Sequence[str], references: Sequence[str]) -> np.ndarray:
        check_lengths(hypotheses, references)
        return np.array(
            [self._chrf.sentence_score(h, [r]).score / 100.0 for h, r in zip(hypotheses, references)],
            dtype=np.float64,
        )


class Ter(Metric):
    """TER with shifts (tercom semantics), sacrebleu's sentence-level score / 100: edits per reference word.

    An empty reference scores 1 when the hypothesis is not empty and 0 when it is (sacrebleu's rule).
    """

    name = "ter"
    higher_is_better = False

    def __init__(
        self,
        normalized: bool = False,
        no_punct: bool = False,
        asian_support: bool = False,
        case_sensitive: bool = False,
    ):
        self._ter = TER(normalized, no_punct, asian_support, case_sensitive)

    @property
    def column(self) -> str:
        t = self._ter
        changed = ["norm" if t.normalized else "", "nopunct" if t.no_punct else "",
                   "asian" if t.asian_support else "", "cased" if t.case_sensitive else ""]
        return "_".join([self.name, *filter(None, changed)])

    def settings(self) -> dict[str, object]:
        t = self._ter
        return {
            "case": "mixed" if t.case_sensitive else "lc",
            "tok": "tercom",
            "norm": t.normalized,
            "punct": not t.no_punct,
            "asian": t.asian_support,
            "impl": f"sacrebleu-{version('sacrebleu')}",
        }

    def sentence_scores(self, hypotheses: Sequence[str], references: Sequence[str]) -> np.ndarray:
        check_lengths(hypotheses, references)
        return np.array(
            [self._ter.sentence_score(h, [r]).score / 100.0 for h, r in zip(hypotheses, references)],
            dtype=np.float64,
        )
