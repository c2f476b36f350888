"""CrystalBLEU (Eghbali & Pradel, "CrystalBLEU: Precisely and Efficiently Measuring the Similarity of Code",
ASE 2022): BLEU that leaves out the *trivially shared* n-grams, the ``ignore`` most frequent n-grams of
orders 1-4 of a corpus of code (``}``, ``( )``, ``; }``...), which any two pieces of code of one language
share and which inflate BLEU without telling good predictions from bad ones.

Definition followed: the authors' package (PyPI ``crystalbleu`` 0.2, nltk's BLEU with an ``ignoring``
argument), exactly. Every n-gram in the ignored set is dropped from the hypothesis's and the references'
counts before clipping, so it is neither a match nor in the precision's denominator (nltk's ``max(1,
count)`` of what is left); the lengths, hence the brevity penalty, are the whole token counts. No smoothing
by default (``smooth="nltk0"``, the package's default: a precision with no match becomes
``sys.float_info.min``, so a sentence missing every 4-gram scores about 1e-77), or nltk's methods 1-4,
which the package takes as ``smoothing_function`` (its methods 5-7 look at n-grams without ignoring any, a
quirk not reproduced: they are refused). Values: ``multi_reference_corpus_score`` is the package's
``corpus_bleu(refs, hyps, ignoring=...)`` and a sentence score its ``sentence_bleu`` (``corpus_bleu`` of
that one pair) with the same ``ignoring``, to 1e-12 (``tests/test_metrics_crystalbleu.py``); the scoring
formula is :class:`revmine.metrics.bleu.BLEU`'s for nltk.

The trivially shared n-grams (``ignore=K``, default 500: the value of the package's usage example and the
paper's experiments) are the K most common n-grams of orders 1-4, counted order by order (all unigrams,
then all bigrams, ...) over the sentences one after another, n-grams never spanning two sentences, and
picked as ``collections.Counter.most_common(K)`` picks them (ties: the n-gram seen first). The sentences
are:

* ``corpus=None`` (default, ``ngrams:refs``): the references of the call. Each sentence's value then
  depends on its whole batch (``parallel_safe`` is False, so the score stage scores a file in one
  piece). A reference repeated k times in a beam multiplies every count by k, which picks the same
  n-grams, so sentence values and corpus values of one file agree.
* ``corpus=PATH`` (``ngrams:<file name>@sha256:<first 12 hex digits>``): a text file, one sentence per
  line, tokenised as the metric tokenises (the paper counts a large corpus of the language, not the
  test set). Read once when the metric is built.

``ignore=0`` ignores nothing: nltk's BLEU, ``BLEU(smooth="nltk0")``.

Counting: the n-grams are counted with Counters (:func:`revmine.metrics.bleu.counted_statistics`, BLEU's
own counting for vocabularies too large for its packed keys and for several references without numba):
the compiled BLEU kernel keys each n-gram by a per-pair slot, so it cannot tell an n-gram of the ignored
set, and BLEU's numpy path sorts one key per position for all orders at once, so it cannot drop an
n-gram of one order and keep its prefix. No speed is claimed: on the 17,190 k=10 pairs it took 3.2 s,
as long as the package (3.4 s; one run each on the shared 2-core machine).
"""

from __future__ import annotations

import hashlib
import warnings
from collections import Counter
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from .base import Metric, check_lengths, check_reference_sets
from .bleu import NLTK_SMOOTHING, _nltk_formula, counted_statistics, ngram_counts
from .tokens import check_tokenizer, token_sequence

#: nltk's smoothing methods the crystalbleu package applies to the ignoring counts unchanged
SMOOTHING = ("nltk0", "nltk1", "nltk2", "nltk3", "nltk4")
ORDERS = 4
DEFAULT_IGNORE = 500

Ngram = tuple[str, ...]


def trivially_shared(sentences: Iterable[Sequence[str]], k: int, orders: int = ORDERS) -> frozenset[Ngram]:
    """The ``k`` most common n-grams of orders 1..``orders`` of the token lists ``sentences`` (module
    docstring: order by order, sentence by sentence, ``Counter.most_common(k)``)."""
    sentences = list(sentences)
    counts: Counter = Counter()
    for n in range(1, orders + 1):
        for tokens in sentences:
            counts.update(ngram_counts(tokens, n))
    return frozenset(gram for gram, _ in counts.most_common(k))


class CrystalBLEUWarning(UserWarning):
    """The ignored n-grams leave most examples nothing to score (see :meth:`CrystalBLEU._warn_if_covered`)."""


class CrystalBLEU(Metric):
    """BLEU-4 without the ``ignore`` most common n-grams (module docstring), on a 0..1 scale.

    Column ``crystalbleu``, with a suffix per setting changed: ``crystalbleu_k100``,
    ``crystalbleu_corpus_<file stem>``, ``crystalbleu_nltk3``, ``crystalbleu_char``.
    """

    name = "crystalbleu"

    def __init__(self, ignore: int = DEFAULT_IGNORE, corpus: str | Path | None = None, smooth: str = "nltk0",
                 tokenize: str = "space") -> None:
        if isinstance(ignore, bool) or not isinstance(ignore, int) or ignore < 0:
            raise ValueError(f"ignore must be a count of n-grams (an integer >= 0), not {ignore!r}")
        if smooth not in SMOOTHING:
            raise ValueError(f"smooth must be one of {SMOOTHING}, not {smooth!r}")
        check_tokenizer(tokenize)
        self.ignore, self.smooth, self.tokenize = ignore, smooth, tokenize
        self.corpus = None if corpus is None else Path(corpus)
        self._fixed: frozenset[Ngram] | None = None  # the corpus file's n-grams
        self._source = "refs"
        if self.corpus is not None:
            data = self.corpus.read_bytes()
            lines = data.decode("utf-8").splitlines()
            self._fixed = trivially_shared((token_sequence(line, tokenize) for line in lines), ignore)
            self._source = f"{self.corpus.name}@sha256:{hashlib.sha256(data).hexdigest()[:12]}"

    @property
    def parallel_safe(self) -> bool:  # type: ignore[override]
        """Only with a corpus file: n-grams taken from the references depend on the whole batch."""
        return self._fixed is not None

    def settings(self) -> dict[str, object]:
        return {"tok": self.tokenize, "smooth": self.smooth, "n": ORDERS, "ignore": self.ignore,
                "ngrams": self._source}

    @property
    def column(self) -> str:
        parts = [self.name]
        if self.ignore != DEFAULT_IGNORE:
            parts.append(f"k{self.ignore}")
        if self.corpus is not None:
            parts.append(f"corpus_{self.corpus.stem}")
        if self.smooth != "nltk0":
            parts.append(self.smooth)
        if self.tokenize != "space":
            parts.append(self.tokenize)
        return "_".join(parts)

    def ignored(self, reference_sets: Sequence[Sequence[str]]) -> frozenset[Ngram]:
        """The trivially shared n-grams a call with these references ignores."""
        return self._ignoring([[token_sequence(r, self.tokenize) for r in refs] for refs in reference_sets])

    def _ignoring(self, token_sets: Sequence[Sequence[Sequence[str]]]) -> frozenset[Ngram]:
        """:meth:`ignored` of references already tokenised, with :meth:`_warn_if_covered`."""
        ignoring = self._fixed
        if ignoring is None:
            ignoring = trivially_shared((tokens for refs in token_sets for tokens in refs), self.ignore)
        self._warn_if_covered(token_sets, ignoring)
        return ignoring

    def _warn_if_covered(self, token_sets: Sequence[Sequence[Sequence[str]]], ignoring: frozenset[Ngram]) -> None:
        """Warn when most examples have every 4-gram of their references ignored: a hypothesis can then match no
        4-gram, so without smoothing it scores 0 whatever it says (a small file's n-grams are all among the 500
        most common of its own references, and every score of the file was 0.0000 without a word)."""
        fours = [set().union(*(ngram_counts(tokens, ORDERS) for tokens in refs)) for refs in token_sets]
        fours = [grams for grams in fours if grams]  # a reference of fewer than 4 tokens scores 0 anyway
        covered = sum(grams <= ignoring for grams in fours)
        if not fours or covered * 2 <= len(fours):
            return
        which = "every example has every 4-gram of its references" if covered == len(fours) else \
            f"{covered:,} of {len(fours):,} examples ({covered / len(fours):.0%}) have every 4-gram of their " \
            "references"
        advice = f"the n-grams come from {self._source}; give" if self._fixed is not None else \
            "the n-grams were counted on the references of this one file; give corpus=FILE (a large corpus of the " \
            "language, as the paper) or"
        warnings.warn(f"crystalbleu: {which} among the {self.ignore:,} trivially shared n-grams it ignores, so "
                      f"{'their predictions can match no' if covered < len(fours) else 'no prediction can match a'} "
                      f"4-gram (a score of 0 without smoothing): {advice} a smaller ignore, e.g. "
                      "crystalbleu(ignore=50)",
                      CrystalBLEUWarning, stacklevel=3)

    def segment_statistics(self, hypotheses: Sequence[str], reference_sets: Sequence[Sequence[str]]) -> np.ndarray:
        """Per hypothesis ``[hyp_len, ref_len, matches_1..4, totals_1..4]`` without the ignored n-grams."""
        check_reference_sets(hypotheses, reference_sets)
        token_sets = [[token_sequence(r, self.tokenize) for r in refs] for refs in reference_sets]
        ignoring = self._ignoring(token_sets)
        rows = [counted_statistics(token_sequence(h, self.tokenize), refs, ORDERS, ignoring)
                for h, refs in zip(hypotheses, token_sets)]
        return np.array(rows, dtype=np.int64).reshape(len(hypotheses), 2 + 2 * ORDERS)

    def _score(self, stats: np.ndarray, denominators: np.ndarray) -> np.ndarray:
        """BLEU's nltk formula; the 5-gram precision and last length it takes are for methods 5-7, refused."""
        matches = stats[:, 2:2 + ORDERS]
        return _nltk_formula(matches, denominators, stats[:, 0], stats[:, 1], np.zeros(len(stats)), stats[:, 0],
                             self.smooth, NLTK_SMOOTHING[self.smooth], ORDERS)

    def _sentences(self, stats: np.ndarray) -> np.ndarray:
        return self._score(stats, np.maximum(stats[:, 2 + ORDERS:], 1))

    def sentence_scores(self, hypotheses: Sequence[str], references: Sequence[str]) -> np.ndarray:
        check_lengths(hypotheses, references)
        return self._sentences(self.segment_statistics(hypotheses, [[r] for r in references]))

    def multi_reference_scores(self, hypotheses: Sequence[str],
                               reference_sets: Sequence[Sequence[str]]) -> np.ndarray:
        """The package's ``sentence_bleu`` against each hypothesis's references (clipped by the largest count)."""
        return self._sentences(self.segment_statistics(hypotheses, reference_sets))

    def corpus_from_statistics(self, stats: np.ndarray) -> float:
        """The package's ``corpus_bleu`` of statistics rows: matches, nltk's per-sentence denominators
        ``max(1, totals)`` and lengths summed over the rows."""
        if not len(stats):
            return float("nan")
        summed = stats.sum(axis=0, keepdims=True)
        return float(self._score(summed, np.maximum(stats[:, 2 + ORDERS:], 1).sum(axis=0, keepdims=True))[0])


__all__ = ["CrystalBLEU", "CrystalBLEUWarning", "trivially_shared"]
