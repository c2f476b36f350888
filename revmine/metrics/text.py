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

Corpus chrF and TER (``multi_reference_corpus_score``, behind ``corpus_score``, the one-call
``revmine.metrics.corpus_score`` and the summary's corpus value) are sacrebleu's ``corpus_score``: segment
statistics summed over the corpus, then the score (not the mean of sentence scores, which the summary also
gives).
Several references: chrF takes the best reference (sacrebleu), TER the fewest edits over the mean
reference length (sacrebleu, tercom).

Scores are in 0..1 (sacrebleu's percentages are divided by 100). METEOR and Log-MNEXT are in
``meteor.py``; the commit-message paper's variants (Dey et al. 2022) are in ``cmg2022.py``.

Speed, with values identical to calling the library once per pair (tests compare to 1e-12, in fact
bit for bit): each batch scores every distinct (hypothesis, reference) pair once, and works out what
depends on one side only once per distinct string — for ROUGE the tokens (rouge-score's public
``DefaultTokenizer``, ``tokens.rouge_tokenizer``) and n-gram counts; the clipped overlap, precision and
recall over ``max(count, 1)`` as rouge-score's scorer computes them, then its public ``scoring.fmeasure``;
ROUGE-L's LCS length by rapidfuzz's ``LCSseq`` on token ids, an integer equal to rouge-score's table.
rouge-score's public API has no step between tokenising and scoring a pair (``RougeScorer.score``
rebuilds both n-gram tables, and ROUGE-L's LCS table, at every call), so the n-gram counting is our own
(a ``Counter`` of tuples, a few lines): on the 1-encoder k=10 fixture, ``RougeScorer(tokenizer=...)``
with a memoising tokenizer, called once per distinct pair, took 1.3-1.5x the CPU time for ROUGE-1/2 and
9x for ROUGE-L (same values; best of 3). Tests check every value, bit for bit, against
``RougeScorer.score``. For chrF sacrebleu's n-gram statistics by a compiled
kernel (see ``Chrf._match_statistics``), then its score formula, for TER the tercom tokenisation
(see ``Ter``: TER's time is its shift search, which only more processes help).

Tokenisers, and ``normalise`` (the case folding and punctuation removal that Dey et al. study as factors,
used by the METEOR family and the cmg2022 variants), are in ``tokens.py``.
"""

from __future__ import annotations

from collections import Counter
from importlib.metadata import version
from typing import Literal, Sequence

import numpy as np
from rapidfuzz.distance import LCSseq
from rouge_score import scoring
from sacrebleu.metrics import CHRF, TER
from sacrebleu.metrics import lib_ter

from . import _bleu, _ter
from .base import Metric, distinct_pairs, memo
from .edit import NUMBA_MIN_PAIRS
from .tokens import rouge_tokenizer

RougeVariant = Literal["1", "2", "L"]


class Rouge(Metric):
    """ROUGE-N / ROUGE-L F-measure of one hypothesis against one reference (rouge-score)."""

    name = "rouge"

    def __init__(self, variant: RougeVariant = "1", stemmer: bool = False):
        if variant not in ("1", "2", "L"):
            raise ValueError(f"ROUGE variant must be '1', '2' or 'L', not {variant!r}")
        self.variant = variant
        self.stemmer = stemmer
        self._tokenize = rouge_tokenizer(stemmer)

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
        """Equal to ``RougeScorer([key]).score(ref, hyp)[key].fmeasure`` per pair (rouge-score's argument
        order is (target, prediction)); tokens and n-grams are computed once per distinct string."""
        pairs, inverse = distinct_pairs(hypotheses, references)
        tokenize = memo(self._tokenize)
        out = np.empty(len(pairs), dtype=np.float64)
        if self.variant == "L":
            ids: dict[str, int] = {}  # tokens as dense ints: rapidfuzz compares them exactly (no hashing)
            encode = memo(lambda text: [ids.setdefault(t, len(ids)) for t in tokenize(text)])
            for k, (hyp, ref) in enumerate(pairs):
                target, prediction = encode(ref), encode(hyp)
                if not target or not prediction:  # rouge-score scores 0 when a side has no token
                    out[k] = 0.0
                    continue
                lcs = LCSseq.similarity(target, prediction)
                out[k] = scoring.fmeasure(lcs / len(prediction), lcs / len(target))
        else:
            ngrams = memo(lambda text: _ngram_counts(tokenize(text), int(self.variant)))
            for k, (hyp, ref) in enumerate(pairs):
                (target, target_total), (prediction, prediction_total) = ngrams(ref), ngrams(hyp)
                overlap = sum((target & prediction).values())  # clipped matches
                out[k] = scoring.fmeasure(overlap / max(prediction_total, 1), overlap / max(target_total, 1))
        return out[inverse]


def _ngram_counts(tokens: list[str], n: int) -> tuple[Counter, int]:
    """The n-grams of a token list with their counts, and how many there are (ROUGE-N's statistics)."""
    grams = Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))
    return grams, max(len(tokens) - n + 1, 0)


class _SacrebleuCorpus:
    """Corpus scores as sacrebleu's ``corpus_score`` computes them: its segment statistics
    (``segment_statistics``) summed over the corpus, then its score formula (``corpus_from_statistics``),
    which ``Metric.multi_reference_corpus_score`` chains. Several references: sacrebleu's streams, ``None``
    where a hypothesis has fewer references than another."""

    def _sacrebleu(self) -> CHRF | TER:
        """The sacrebleu metric object the subclass wraps."""
        raise NotImplementedError

    @staticmethod
    def _check_sets(hypotheses: Sequence[str], reference_sets: Sequence[Sequence[str]]) -> None:
        if len(hypotheses) != len(reference_sets):
            raise ValueError(f"{len(hypotheses)} hypotheses but {len(reference_sets)} reference sets")
        if any(len(refs) == 0 for refs in reference_sets):
            raise ValueError("a hypothesis has no reference")

    def segment_statistics(self, hypotheses: Sequence[str], reference_sets: Sequence[Sequence[str]]) -> np.ndarray:
        self._check_sets(hypotheses, reference_sets)
        if not len(hypotheses):
            return np.zeros((0, 1))
        width = max(map(len, reference_sets))
        streams = [[refs[j] if j < len(refs) else None for refs in reference_sets] for j in range(width)]
        return np.asarray(self._sacrebleu()._extract_corpus_statistics(list(hypotheses), streams),
                          dtype=np.float64)

    def corpus_from_statistics(self, statistics: np.ndarray) -> float:
        if not len(statistics):
            return float("nan")
        total = statistics.sum(axis=0)
        stats = [int(v) if float(v).is_integer() else float(v) for v in total]
        return self._sacrebleu()._compute_score_from_stats(stats).score / 100.0


class Chrf(_SacrebleuCorpus, Metric):
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

    def _sacrebleu(self) -> CHRF:
        return self._chrf

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
        """Equal to ``CHRF(...).sentence_score(h, [r]).score / 100`` per pair: sacrebleu's statistics of
        each distinct pair (``_match_statistics``), then its ``_compute_f_score`` (what ``CHRFScore.score``
        holds)."""
        pairs, inverse = distinct_pairs(hypotheses, references)
        f_score = self._chrf._compute_f_score
        stats = self._match_statistics(pairs).tolist()
        return np.array([f_score(row) / 100.0 for row in stats], dtype=np.float64)[inverse]

    def _match_statistics(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """sacrebleu's ``[hyp n-grams, ref n-grams, clipped matches]`` per order (characters, then words)
        of each pair, as ``_get_match_statistics`` counts them (the hypothesis count is 0 when the
        reference has no n-gram of that order).

        The character n-grams of ``''.join(text.split())`` are the word n-grams of its characters, and
        chrF++'s word n-grams those of sacrebleu's ``_remove_punctuation`` words (none holds a space), so
        both are BLEU's clipped matches of the space-joined symbols, which :mod:`._bleu`'s compiled kernel
        counts: on the 45,000 distinct commit-message-like pairs of ``benchmarks/bench_nl_metrics.py --corpus
        messages``, 0.46 s of CPU against 2.90 s when sacrebleu's Counters (extracted once per distinct
        string) were compared (median of 3, loaded machine). Below ``NUMBA_MIN_PAIRS`` distinct pairs (loading
        the kernel costs more), without numba, or with ``whitespace=True`` (spaces are characters then),
        sacrebleu's Counters are compared, extracted once per distinct string (the same steps on both sides)."""
        c = self._chrf
        if len(pairs) < NUMBA_MIN_PAIRS or not _bleu.AVAILABLE or c.whitespace:  # sacrebleu's n-grams
            grams = memo(lambda t: c._extract_reference_info([c._preprocess_segment(t)])["ref_ngrams"][0])
            match = c._get_match_statistics
            return np.array([[v for h, r in zip(grams(hyp), grams(ref)) for v in match(h, r)] for hyp, ref in pairs],
                            dtype=np.int64).reshape(len(pairs), -1)
        sides = [(lambda t: " ".join("".join(c._preprocess_segment(t).split())), c.char_order)]
        if c.word_order > 0:
            sides.append((lambda t: " ".join(c._remove_punctuation(c._preprocess_segment(t))), c.word_order))
        columns = []
        for symbols, orders in sides:
            form = memo(symbols)
            m = _bleu.clipped_matches([form(h) for h, _ in pairs], [form(r) for _, r in pairs], orders)
            for n in range(orders):
                hyp_total, ref_total = np.maximum(m[:, 0] - n, 0), np.maximum(m[:, 1] - n, 0)
                columns += [np.where(ref_total > 0, hyp_total, 0), ref_total, m[:, 2 + n]]
        return np.stack(columns, axis=1) if columns else np.zeros((len(pairs), 0), dtype=np.int64)

class Ter(_SacrebleuCorpus, Metric):
    """TER with shifts (tercom semantics), sacrebleu's sentence-level score / 100: edits per reference word.

    An empty reference scores 1 when the hypothesis is not empty and 0 when it is (sacrebleu's rule).

    The edits of each distinct (hypothesis, reference) pair come from :mod:`revmine.metrics._ter`, a
    compiled port of sacrebleu's shift search and beam edit distance that gives the same count on every
    pair (``tests/test_metrics_ter.py``) about 23 times faster; the words are sacrebleu's own (its tercom
    tokeniser), the score its formula. Without numba, sacrebleu's ``translation_edit_rate`` is called.
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

    def _sacrebleu(self) -> TER:
        return self._ter

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

    def multi_reference_scores(self, hypotheses: Sequence[str],
                               reference_sets: Sequence[Sequence[str]]) -> np.ndarray:
        """sacrebleu's rule: the fewest edits over the references divided by their *mean* length."""
        stats = self.segment_statistics(hypotheses, reference_sets)
        return np.array([self.corpus_from_statistics(row[None]) for row in stats], dtype=np.float64)

    def segment_statistics(self, hypotheses: Sequence[str], reference_sets: Sequence[Sequence[str]]) -> np.ndarray:
        """sacrebleu's ``[fewest edits, mean reference length]`` per hypothesis, edits from the compiled search."""
        self._check_sets(hypotheses, reference_sets)
        t = self._ter
        vocabulary: dict[str, int] = {}
        words = memo(lambda s: t._preprocess_segment(s).split())
        ids = memo(lambda s: [vocabulary.setdefault(w, len(vocabulary)) for w in words(s)])

        def edits(pair: tuple[str, str]) -> int:
            hyp, ref = pair
            count = _ter.translation_edit_rate(ids(hyp), ids(ref))[0] if _ter.AVAILABLE else -1
            return count if count >= 0 else lib_ter.translation_edit_rate(words(hyp), words(ref))[0]

        pair_edits = memo(edits)
        stats = np.empty((len(hypotheses), 2), dtype=np.float64)
        for row, (hyp, refs) in enumerate(zip(hypotheses, reference_sets)):
            stats[row] = (min(pair_edits((hyp, ref)) for ref in refs),
                          sum(len(words(ref)) for ref in refs) / len(refs))
        return stats

    def sentence_scores(self, hypotheses: Sequence[str], references: Sequence[str]) -> np.ndarray:
        """Equal to ``TER(...).sentence_score(h, [r]).score / 100`` per pair (see the class docstring)."""
        pairs, inverse = distinct_pairs(hypotheses, references)
        stats = self.segment_statistics([h for h, _ in pairs], [[r] for _, r in pairs])
        return np.array([self.corpus_from_statistics(row[None]) for row in stats], dtype=np.float64)[inverse]

