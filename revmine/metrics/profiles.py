"""Profiles: named metric pipelines that reproduce a publication's numbers exactly.

The default metrics follow the published definitions. Several papers in this field computed something
else than what they describe; a profile reproduces what they actually computed, so that a user can
compare with a published table, and says what differs from the correct metric. ``revmine score``'s
summary names the profile in use.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:  # the profiles are named when settings are read; their metrics (numpy) load when used
    from .base import Metric


@dataclass(frozen=True)
class Profile:
    name: str
    publication: str
    description: str  # what the profile computes that the correct metric does not
    factories: tuple[Callable[[], list[Metric]], ...]
    agreement: Callable[[], dict[str, object]] | None = None  # post-processing before correlation

    def agreement_options(self) -> dict[str, object]:
        return self.agreement() if self.agreement else {}

    def metrics(self) -> list[Metric]:
        return [m for make in self.factories for m in make()]

    def describe(self) -> dict[str, str]:
        return {"name": self.name, "publication": self.publication, "description": self.description}


def _tufano2021() -> list[Metric]:
    from .bleu import BLEU

    return [BLEU(tokenize="char", smooth="nltk0")]


def _sacrebleu() -> list[Metric]:
    from .bleu import BLEU

    return [BLEU(tokenize="13a")]


def _cmg2022_bleu() -> list[Metric]:
    from .bleu import BLEU

    return [BLEU(tokenize="char", smooth=s) for s in ("nltk0", "nltk2", "nltk5")]


def _cmg2022_text() -> list[Metric]:
    from .cmg2022 import profile_metrics

    return profile_metrics()


def _cmg2022_agreement() -> dict[str, object]:
    from .cmg2022 import CMG2022_AGREEMENT

    return dict(CMG2022_AGREEMENT)


PROFILES: dict[str, Profile] = {
    p.name: p
    for p in (
        Profile(
            name="tufano2021",
            publication="Tufano et al., Towards Automating Code Review Activities, ICSE 2021",
            description=(
                "BLEU-4 as nltk's sentence_bleu applied to the raw prediction strings, which scores "
                "character n-grams (spaces included) instead of tokens, with no smoothing; this is what "
                "reproduces the paper's box plots (best-of-k medians 0.83/0.89/0.90/0.915). Token-level "
                "BLEU-4, the published definition, is the default `bleu` metric. Each published k comes from "
                "its own beam search, so each figure comes from its own file: k=1 (50 perfect, median 0.83) "
                "from 1-encoder_k1, k=3 (156, 0.89) from _k3, k=5 (200, 0.90) from _k5, k=10 (271, 0.915) from "
                "_k10. The top-1 of the k=10 file is another beam's first choice: 67 perfect and a best-of-1 "
                "median of 0.7055 there, not 50 and 0.83."
            ),
            factories=(_tufano2021,),
        ),
        Profile(
            name="sacrebleu",
            publication="Post, A Call for Clarity in Reporting BLEU Scores, WMT 2018 (sacreBLEU's defaults)",
            description=(
                "BLEU-4 as sacreBLEU computes it by default: its 13a tokeniser (punctuation split from words, as "
                "mteval-v13a), mixed case, exp smoothing; the corpus value of the rank-1 predictions is "
                "sacrebleu.corpus_bleu's and a sentence's is sacrebleu.sentence_bleu's. revmine's default `bleu` "
                "splits on whitespace only (sacreBLEU's tokenize='none'), which code that is already tokenised "
                "(the 2021 dataset's abstracted methods) needs; numbers published with sacreBLEU's defaults on raw "
                "text are compared with this profile."
            ),
            factories=(_sacrebleu,),
        ),
        Profile(
            name="cmg2022",
            publication="Dey et al., Evaluating Commit Message Generation: To BLEU Or Not To BLEU?, ICSE NIER 2022",
            description=(
                "What the paper's scripts computed: character-level nltk BLEU (BLEU4 no smoothing, BLEUNorm "
                "nltk method2, BLEUCC nltk method5), ROUGE from the `rouge` 1.0.1 package with arguments "
                "swapped (changes ROUGE-L), a word-level Levenshtein read from an off-by-one table standing "
                "in for TER (first words never compared), METEOR as nltk < 3.6.6 aligns (its stem module "
                "leaves its words to the synonym module), their METEOR-NEXT and Log-MNEXT with that aligner, "
                "and for agreement, scores rounded to 2 decimals and divided by their maximum before "
                "correlation. Reproduces the 10 Spearman correlations of their Table 1 (METEOR 0.748, "
                "METEOR-NEXT 0.761, Log-MNEXT 0.831, ...)."
            ),
            factories=(_cmg2022_bleu, _cmg2022_text),
            agreement=_cmg2022_agreement,
        ),
    )
}
