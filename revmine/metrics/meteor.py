"""METEOR, METEOR-NEXT parameter sets, and Log-MNEXT: one aligner, three published parameterisations.

Definitions followed
--------------------
- ``Meteor`` — METEOR (Banerjee & Lavie 2005; Lavie & Agarwal 2007) exactly as ``nltk.translate.
  meteor_score`` computes it: words aligned by the exact, Porter-stem and WordNet-synonym modules in turn;
  Fmean = P·R / (α·P + (1-α)·R) with α=0.9; penalty = γ·(chunks/matches)^β with β=3, γ=0.5;
  score = Fmean·(1 - penalty). Identical strings score below 1 (the penalty never vanishes).
- ``MeteorNext`` — the METEOR-NEXT / METEOR 1.x weighting (Denkowski & Lavie 2010, 2014): matches are
  weighted per module (exact, stem, synonym) in P and R, with the English parameters METEOR 1.5 ships for
  its tasks (``edu.cmu.meteor.util.Constants``)::

      task   alpha  beta  gamma  delta   w_exact w_stem w_syn (w_para)
      rank   0.85   0.20  0.60   0.75    1.0     0.6    0.8   (0.6)   METEOR 1.5 default task
      adq    0.75   1.40  0.45   0.70    1.0     1.0    0.6   (0.8)
      hter   0.40   1.50  0.35   0.55    1.0     0.2    0.6   (0.8)

  and METEOR 1.5's rule that a complete alignment in one chunk (hypothesis = reference) has no penalty.
- ``LogMnext`` — Log-MNEXT (Dey, Vinayakarao, Gupta & Dechu 2022, "Evaluating Commit Message Generation:
  To BLEU Or Not To BLEU?", ICSE NIER), from its replication package (CMGeval/Evaluating-CMG,
  "The Log-MNEXT metric.py"): lower-casing, punctuation removal, α=0.85, β=2.35, γ=0.45, module weights
  exact 1.0 / stem 0.8 / synonym 0.6, and no fragmentation penalty whenever every hypothesis and every
  reference word is aligned (any order: a permutation of the reference scores 1).

What differs from METEOR 1.5 (all variants)
-------------------------------------------
- Alignment is nltk's greedy one: per module, hypothesis words from last to first each take the
  right-most unaligned reference word they match. METEOR 1.5 instead searches (beam 40) for the alignment
  with the most matches, then the fewest chunks, then the smallest distortion, so on sentences with
  repeated words it can find fewer chunks than we do.
- No paraphrase module (METEOR's paraphrase tables are not available offline), so its weight is unused.
- No function-word weighting: METEOR 1.5's δ splits words into content and function words using its
  own word lists; we treat every word as a content word, where δ cancels out of P and R.
- Tokens are whitespace-separated after optional case folding and punctuation removal (METEOR 1.5 uses
  its own tokeniser and normaliser; nltk expects tokens and we give it ``str.split``).
- Synonyms are looked up for the surface (case-folded) word. nltk >= 3.6.6 looks them up for the Porter
  stem of words left over by the stem module and compares them with the reference's stems (an artefact
  of how it passes lists between modules): hypothesis ``use <unk>`` against ``change position for
  functions`` scores 0.1316 there (``use`` is a synonym of the stem ``function``) and 0 here, ``always``
  against ``forever`` 0 there (the stem ``alway`` has no synset) and 0.5 here. ``syn="nltk"`` (signature
  ``synmatch:nltk``) does what nltk does, equal to ``nltk.translate.meteor_score`` pair by pair.
- Fragmentation divides chunks by the number of matches; METEOR 1.5 by the mean number of matched words
  in hypothesis and reference, the same thing for one-word matches.

Switches (Dey et al.'s factor study): case folding, punctuation removal (``none``, ``ascii`` or
``cmg2022`` characters) and synonyms on/off are constructor arguments and appear in the signature.
WordNet comes from ``wordnet.load_wordnet``; when it is missing the synonym module is skipped, a warning
is emitted once, and the signature says ``syn:none`` (``syn:off`` when switched off on purpose).

``alignment="cmg2022"`` reproduces what Dey et al.'s script computes rather than what their paper
defines: in their copy of an old nltk the stem module does not remove the words it aligned (a filter that
never matches), so the synonym module runs again over words already stem-matched. Synonym matches that
repeat a stem pair are not weighted again but are still counted in ``matches`` and split chunks, and
synonym matches that reuse a word count as extra matches. Used by the ``cmg2022`` profile only.

Speed: a batch aligns each distinct (hypothesis, reference) pair once and tokenises each distinct string
once; stems and synonym sets are cached per word for the process, shared by all variants. Variants whose alignment is
the same (equal ``statistics_key``: METEOR and METEOR-NEXT by default) are ``SharedStatistics``, so
``score_columns`` aligns a batch once for both. On the 45,000 distinct commit-message-like pairs of
``benchmarks/bench_nl_metrics.py --corpus messages``, a leaner matching loop (a word whose synonyms meet
no free reference word is skipped by a C-level ``isdisjoint``) took each variant's ``sentence_scores``
from 2.1-2.2 s to 1.4-1.5 s of CPU (median of 3, word caches warm) and, with the shared alignment, the
three default variants from about 6.4 s to about 3 s, values unchanged. Metrics pickle without
their WordNet reader and caches, and reload WordNet (once per process: ``load_wordnet`` caches it) when
unpickled in a worker, checking that it finds the same WordNet.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable, Hashable, Literal, Sequence

import warnings

import numpy as np
from nltk.stem.porter import PorterStemmer

from .base import SharedStatistics, distinct_pairs, memo
from .tokens import PUNCTUATION, words
from .wordnet import load_wordnet

Exemption = Literal["never", "identical", "complete"]
Alignment = Literal["greedy", "cmg2022"]
SynonymLookup = Literal["surface", "nltk"]


@dataclass(frozen=True)
class MeteorParameters:
    """α (precision/recall balance), β (penalty shape), γ (penalty weight), and module weights."""

    alpha: float
    beta: float
    gamma: float
    w_exact: float = 1.0
    w_stem: float = 1.0
    w_syn: float = 1.0


NLTK_PARAMETERS = MeteorParameters(0.9, 3.0, 0.5)
METEOR_NEXT_TASKS: dict[str, MeteorParameters] = {
    "rank": MeteorParameters(0.85, 0.20, 0.60, 1.0, 0.6, 0.8),
    "adq": MeteorParameters(0.75, 1.40, 0.45, 1.0, 1.0, 0.6),
    "hter": MeteorParameters(0.40, 1.50, 0.35, 1.0, 0.2, 0.6),
}
LOG_MNEXT_PARAMETERS = MeteorParameters(0.85, 2.35, 0.45, 1.0, 0.8, 0.6)


@dataclass(frozen=True)
class Aligned:
    """An alignment: (hyp index, ref index) pairs sorted by hypothesis index, and matches per module."""

    pairs: list[tuple[int, int]]
    exact: int
    stem: int
    syn: int


_Item = tuple[int, str]  # (position in the sentence, word or stem)


def _greedy(
    hyp: list[_Item], ref: list[_Item], synonyms: Callable[[str], frozenset[str]] | None = None
) -> tuple[list[tuple[int, int]], list[_Item], list[_Item]]:
    """One matching module: hypothesis words from last to first take the right-most free reference word
    equal to them or, with ``synonyms``, among their synonyms (nltk's order, so results equal nltk's).
    Returns pairs and what is left."""
    if not hyp or not ref:
        return [], hyp, ref
    free: dict[str, list[int]] = {}
    for k, (_, word) in enumerate(ref):
        free.setdefault(word, []).append(k)
    pairs, used_h, used_r = [], set(), set()
    for h in range(len(hyp) - 1, -1, -1):
        word = hyp[h][1]
        slots = free.get(word)
        candidates = synonyms(word) if synonyms is not None else None
        # the right-most free slot of the word or of a synonym (a slot belongs to one word: no ties)
        if candidates and not candidates.isdisjoint(free):
            best = slots[-1] if slots else -1
            for other, other_slots in (free.items() if len(free) < len(candidates)
                                       else ((w, free.get(w)) for w in candidates)):
                if other_slots and other_slots[-1] > best and other in candidates:
                    best, slots = other_slots[-1], other_slots
        if slots:
            r = slots.pop()
            used_h.add(h)
            used_r.add(r)
            pairs.append((hyp[h][0], ref[r][0]))
    if not pairs:
        return pairs, hyp, ref
    return (
        pairs,
        [x for k, x in enumerate(hyp) if k not in used_h],
        [x for k, x in enumerate(ref) if k not in used_r],
    )


def align(
    hyp: Sequence[str],
    ref: Sequence[str],
    stem: Callable[[str], str],
    synonyms: Callable[[str], frozenset[str]] | None,
    alignment: Alignment = "greedy",
    syn: SynonymLookup = "surface",
) -> Aligned:
    """Align tokens by exact, stem, then synonym matches (``synonyms=None`` skips the last module).

    ``syn="nltk"`` hands the synonym module the Porter stems the stem module left, as nltk >= 3.6.6
    does: the synonyms of a hypothesis *stem* are compared with the reference *stems*."""
    hyp_items, ref_items = list(enumerate(hyp)), list(enumerate(ref))
    exact, hyp_left, ref_left = _greedy(hyp_items, ref_items)
    stemmed, hyp_stem_left, ref_stem_left = _greedy(
        [(i, stem(w)) for i, w in hyp_left], [(j, stem(w)) for j, w in ref_left]
    )
    matched: list[tuple[int, int]] = []
    n_syn = 0
    if synonyms is not None:
        if alignment == "cmg2022":  # synonym module over everything the exact module left
            syn_hyp, syn_ref = hyp_left, ref_left
        elif syn == "nltk":
            syn_hyp, syn_ref = hyp_stem_left, ref_stem_left
        elif not stemmed:
            syn_hyp, syn_ref = hyp_left, ref_left
        else:
            kept_h, kept_r = {i for i, _ in hyp_stem_left}, {j for j, _ in ref_stem_left}
            syn_hyp = [x for x in hyp_left if x[0] in kept_h]
            syn_ref = [x for x in ref_left if x[0] in kept_r]
        matched, _, _ = _greedy(syn_hyp, syn_ref, synonyms)
        n_syn = len(set(matched) - set(stemmed)) if stemmed else len(matched)
    pairs = sorted(exact + stemmed + matched, key=lambda p: p[0])  # stable, as nltk's sort
    return Aligned(pairs, len(exact), len(stemmed), n_syn)


def count_chunks(pairs: Sequence[tuple[int, int]]) -> int:
    """Runs of pairs adjacent in both sentences, in hypothesis order (nltk's and METEOR's chunks)."""
    if not pairs:
        return 0
    return 1 + sum(
        1 for (h0, r0), (h1, r1) in zip(pairs, pairs[1:]) if not (h1 == h0 + 1 and r1 == r0 + 1)
    )


def meteor_from_alignment(
    aligned: Aligned, hyp_len: int, ref_len: int, params: MeteorParameters, exemption: Exemption
) -> float:
    """Weighted Fmean times (1 - fragmentation penalty); 0 when nothing (weighted) matches."""
    weighted = params.w_exact * aligned.exact + params.w_stem * aligned.stem + params.w_syn * aligned.syn
    if not aligned.pairs or weighted == 0:
        return 0.0
    precision, recall = weighted / hyp_len, weighted / ref_len
    fmean = precision * recall / (params.alpha * precision + (1 - params.alpha) * recall)
    chunks = count_chunks(aligned.pairs)
    matched = aligned.exact + aligned.stem + aligned.syn
    complete = matched == hyp_len and matched == ref_len
    if (exemption == "complete" and complete) or (exemption == "identical" and complete and chunks == 1):
        return fmean
    return fmean * (1 - params.gamma * (chunks / len(aligned.pairs)) ** params.beta)


@dataclass(frozen=True)
class MeteorStatistics:
    """A batch's alignments: (alignment, hypothesis length, reference length) per distinct pair, and the
    index of each input pair's distinct pair."""

    aligned: list[tuple[Aligned, int, int]]
    inverse: np.ndarray


#: Porter stems (nltk's default mode), cached per word for the process: shared by every METEOR variant.
_porter_stem = lru_cache(maxsize=None)(PorterStemmer().stem)


class Meteor(SharedStatistics):
    """METEOR with nltk's parameters and alignment (see the module docstring for the definition)."""

    name = "meteor"
    #: Class defaults of the switches; a column gets a suffix for each switch set otherwise.
    default_lowercase = True
    default_punctuation = "none"

    def __init__(
        self,
        *,
        lowercase: bool | None = None,
        punctuation: str | None = None,
        synonyms: bool = True,
        wordnet: str | Path | None = None,
        parameters: MeteorParameters = NLTK_PARAMETERS,
        exemption: Exemption = "never",
        alignment: Alignment = "greedy",
        syn: SynonymLookup = "surface",
    ):
        """``wordnet``: a WordNet dict directory, or ``"none"``; default: ``wordnet.load_wordnet``'s search.
        ``syn``: what the synonym module compares, ``surface`` words or, as nltk, ``nltk`` (stems)."""
        self.lowercase = self.default_lowercase if lowercase is None else lowercase
        self.punctuation = self.default_punctuation if punctuation is None else punctuation
        if self.punctuation not in PUNCTUATION:
            raise ValueError(f"punctuation must be one of {sorted(PUNCTUATION)}, not {self.punctuation!r}")
        if alignment not in ("greedy", "cmg2022"):
            raise ValueError(f"alignment must be 'greedy' or 'cmg2022', not {alignment!r}")
        if syn not in ("surface", "nltk"):
            raise ValueError(f"syn must be 'surface' or 'nltk', not {syn!r}")
        if syn == "nltk" and alignment == "cmg2022":
            raise ValueError("syn='nltk' is the alignment of nltk >= 3.6.6; alignment='cmg2022' is an older one")
        self.syn = syn
        self.parameters = parameters
        self.exemption = exemption
        self.alignment = alignment
        self._wordnet = wordnet
        self._stem = _porter_stem
        if synonyms:
            status = load_wordnet(wordnet)
            self._syn_signature = status.signature
            self._synonyms = _synonym_lookup(status.reader) if status.available else None
        else:
            self._syn_signature, self._synonyms = "off", None

    def __getstate__(self) -> dict:
        """Settings only: the stemmer cache and the WordNet lookup are rebuilt by ``__setstate__``."""
        state = self.__dict__.copy()
        state["_stem"] = state["_synonyms"] = None
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._stem = _porter_stem
        if self._syn_signature == "off":
            return
        with warnings.catch_warnings():  # the creating process has warned already if WordNet is missing
            warnings.simplefilter("ignore")
            status = load_wordnet(self._wordnet)
        if status.signature != self._syn_signature:
            raise RuntimeError(f"{type(self).__name__} was built with WordNet {self._syn_signature!r} but this "
                               f"process finds {status.signature!r} ({status.source or status.reason})")
        self._synonyms = _synonym_lookup(status.reader) if status.available else None

    @property
    def synonyms_used(self) -> bool:
        return self._synonyms is not None

    @property
    def column(self) -> str:
        suffix = ""
        if self.lowercase != self.default_lowercase:
            suffix += "_lc" if self.lowercase else "_cased"
        if self.punctuation != self.default_punctuation:
            suffix += f"_punct{self.punctuation}" if self.punctuation != "none" else "_keeppunct"
        if self._syn_signature == "off":
            suffix += "_nosyn"
        elif self.syn == "nltk":
            suffix += "_synnltk"
        if self.alignment == "cmg2022":
            suffix += "_cmg2022"
        return self.name + suffix

    def settings(self) -> dict[str, object]:
        p = self.parameters
        return {
            "case": "lc" if self.lowercase else "mixed",
            "punct": self.punctuation,
            "tok": "space",
            "alpha": p.alpha,
            "beta": p.beta,
            "gamma": p.gamma,
            "w": f"{p.w_exact:g}/{p.w_stem:g}/{p.w_syn:g}",
            "stem": "porter",
            "syn": self._syn_signature,
            **({"synmatch": "nltk"} if self.syn == "nltk" else {}),
            "align": self.alignment,
            "nopenalty": self.exemption,
        }

    def tokens(self, text: str) -> list[str]:
        return words(text, self.lowercase, self.punctuation)

    @property
    def statistics_key(self) -> Hashable:
        """What the alignment depends on: variants that differ only in parameters (METEOR and METEOR-NEXT
        by default) align each batch once in ``score_columns``."""
        return ("meteor-alignment", self.lowercase, self.punctuation, self.alignment, self.syn,
                self._syn_signature, str(self._wordnet))

    def statistics(self, hypotheses: Sequence[str], references: Sequence[str]) -> MeteorStatistics:
        """The alignment of each distinct pair, with both token counts."""
        pairs, inverse = distinct_pairs(hypotheses, references)
        tokens = memo(self.tokens)
        aligned = []
        for h, r in pairs:
            hyp, ref = tokens(h), tokens(r)
            aligned.append((align(hyp, ref, self._stem, self._synonyms, self.alignment, self.syn), len(hyp), len(ref)))
        return MeteorStatistics(aligned, inverse)

    def scores_from_statistics(self, statistics: MeteorStatistics) -> np.ndarray:
        out = np.array([meteor_from_alignment(a, h, r, self.parameters, self.exemption)
                        for a, h, r in statistics.aligned], dtype=np.float64)
        return out[statistics.inverse]


class MeteorNext(Meteor):
    """METEOR with METEOR 1.5's English parameters for ``task`` (rank, adq, hter) and its no-penalty rule."""

    name = "meteor_next"

    def __init__(self, task: str = "rank", **switches: object):
        if task not in METEOR_NEXT_TASKS:
            raise ValueError(f"METEOR-NEXT task must be one of {sorted(METEOR_NEXT_TASKS)}, not {task!r}")
        self.task = task
        super().__init__(parameters=METEOR_NEXT_TASKS[task], exemption="identical", **switches)

    @property
    def column(self) -> str:
        base = super().column
        return base if self.task == "rank" else base.replace(self.name, f"{self.name}_{self.task}", 1)

    def settings(self) -> dict[str, object]:
        return {"task": self.task, **super().settings()}


class LogMnext(Meteor):
    """Log-MNEXT (Dey et al. 2022); ``alignment="cmg2022"`` with ``punctuation="cmg2022"`` is their script."""

    name = "log_mnext"
    default_punctuation = "ascii"

    def __init__(self, *, alignment: Alignment = "greedy", **switches: object):
        if alignment == "cmg2022":  # their script removes its own character set
            self.default_punctuation = "cmg2022"
        super().__init__(parameters=LOG_MNEXT_PARAMETERS, exemption="complete", alignment=alignment, **switches)


@lru_cache(maxsize=None)
def _synonym_lookup(reader: object) -> Callable[[str], frozenset[str]]:
    """Single-word lemma names of every synset of a word (nltk's rule: multi-word lemmas are skipped),
    one cached lookup per reader, shared by every METEOR variant of the process."""

    @lru_cache(maxsize=None)
    def synonyms(word: str) -> frozenset[str]:
        return frozenset(
            lemma.name() for synset in reader.synsets(word) for lemma in synset.lemmas() if "_" not in lemma.name()
        )

    return synonyms
