"""BLEU (Papineni et al., ACL 2002) at sentence and corpus level, with every smoothing in use in the field.

All values are on a 0..1 scale (sacrebleu reports 0..100; we divide by 100 so that every metric in the
package shares one scale); a perfect match is exactly 1.0. The one exception is nltk's own: ``nltk5`` and
``nltk7`` (and ``BLEUCC``) average each precision with its neighbours and the 5-gram one, which can exceed 1
(a perfect match of 7 tokens: 1.1167), and are kept equal to nltk.

``BLEU(smooth=...)`` offers two families of sentence-level smoothing, both from Chen & Cherry, "A
Systematic Comparison of Smoothing Techniques for Sentence-Level BLEU" (WMT 2014):

* sacrebleu's (2.x, ``sacrebleu.metrics.BLEU.compute_bleu``), matched to 1e-9:
  ``none``; ``floor`` (Chen-Cherry method 1: a zero match count becomes ``value``, default 0.1);
  ``add-k`` (method 2 generalised: ``value`` (default 1) added to matches and totals for n > 1);
  ``exp`` (method 3, NIST/mteval-v13a geometric smoothing: the i-th order with no match counts
  1/2^i), the default. Sentence scores use sacrebleu's *effective order* (orders the hypothesis is too
  short to have are left out of the geometric mean) as ``sacrebleu.sentence_bleu`` does;
  ``effective_order=False`` turns it off.
* nltk's ``SmoothingFunction().method0..method7`` (``nltk.translate.bleu_score.sentence_bleu``, as in the
  installed nltk 3.9/3.10), matched to 1e-9 with all of nltk's quirks: the n-gram total is
  ``max(1, count)``; with ``nltk0`` (no smoothing) a zero precision becomes ``sys.float_info.min``, so
  the score is about 1e-77 rather than 0; a hypothesis with no unigram match scores 0 before any
  smoothing; ``nltk5`` (and ``nltk7``) always looks at the 5-gram precision for the last order, whatever
  ``max_n``; ``nltk6`` is undefined (nltk raises an AssertionError) when no trigram matches, and we
  return NaN there. Parameters as nltk's defaults: epsilon 0.1 (``nltk1``), k 5 (``nltk4``, ``nltk7``),
  alpha 5 (``nltk6``), changed with ``value``. nltk changed method 2 in release 3.6 (nltk issue #2571):
  before, it added 1 to the numerator and denominator of *every* order including unigrams; ``nltk2``
  is the current behaviour, ``nltk2-legacy`` the old one (what papers computed with nltk <= 3.5).

Tokenisation (``tokens.py``): ``tokenize="space"`` splits on whitespace exactly as ``str.split()`` (sacrebleu's
``tokenize='none'``); ``tokenize="char"`` takes the raw string as a sequence of characters, spaces
included, which is what ``nltk.sentence_bleu`` computes when handed strings instead of token lists;
``13a``, ``intl`` and ``sacrebleu-char`` are sacrebleu's tokenisers of those names (its ``char`` drops
the spaces, unlike ``char``), for natural language.

Several references per hypothesis (``multi_reference_scores``, ``multi_reference_corpus_score``): clipped
by an n-gram's largest count in any one reference and the closest reference length (shorter on a tie),
as sacrebleu and nltk do (large batches: the compiled kernel of ``_bleu.py``, as for one reference).
Tufano et al. (ICSE 2021) did exactly that: their published BLEU-4 box plots are ``BLEU(tokenize="char",
smooth="nltk0")`` (best-of-k medians 0.8315/0.8860/0.8980/0.9145 on their 1-encoder predictions,
k = 1/3/5/10), not token-level BLEU (0.728/0.801/0.817/0.841).

Corpus BLEU (``corpus_score``) sums the statistics over the corpus, as ``sacrebleu.corpus_bleu`` (no
effective order) for the sacrebleu family and ``nltk.corpus_bleu`` for the nltk family (including its use
of the *last* sentence for the 5-gram precision of method 5 and the n-gram count of method 6).

Natural-language variants used in commit-message and code-comment generation:

* ``BLEUMoses`` — multi-bleu.perl (Moses): corpus-level, no smoothing, case as given, whitespace tokens;
  a sentence score is multi-bleu.perl run on that one sentence (0 unless all four orders match).
* ``BLEUCC`` — Chen-Cherry smoothing method 5 as nltk defines it (``nltk5``).
* ``BLEUNorm`` — the smoothed sentence BLEU of CodeNN (Iyer et al. 2016) that CodeXGLUE ships as
  ``smooth_bleu.py``/``evaluator.py`` (code-to-text): see its docstring for exactly what it does. It is
  *not* nltk's method 2, legacy or not (different brevity penalty, tokenisation and short-sentence rule).

Speed (issue 12: sentence BLEU-4 at least 20x ``sacrebleu.sentence_bleu(tokenize='none')`` on the
1-encoder k=10 file, 17,190 pairs of ~46 tokens; ``benchmarks/bench_code_metrics.py``). Profiled, the
numpy counting below took 0.2-0.4 s there, half of it numbering the tokens (``intern_tokens``), the rest
sorting and scanning packed n-gram keys: 4-9x sacrebleu. So batches of at least ``NUMBA_MIN_PAIRS``
whitespace-tokenised pairs are counted by the compiled kernel of ``_bleu.py`` (tokens numbered straight
from the code points, each distinct reference's n-gram tables built once per beam, clipping counted while
reading the hypothesis): ~35 ms, of which ~25 ms in the kernel; medians 35-41x sacrebleu in four
benchmark runs of 7 interleaved rounds on the busy 2-core machine (rounds 22-58x), 43-52x nltk.
Smaller batches, other tokenisations and installs without numba use the numpy counting: tokens mapped to
dense integer ids (``tokens.intern_tokens``: hash of the code points, verified against the token text, so
ids are exact); each position's padded n-gram of the highest order packed with its pair index into one
int64 key; one sort per batch puts every n-gram of every order next to its equals (an order-n group is a
run of keys sharing their top bits), and clipped matches are ``(hyp + ref - sum |hyp - ref|) / 2`` over
the groups, read off a running count.
"""

from __future__ import annotations

import sys
from collections import Counter
from typing import Container, Sequence

import numpy as np

from .base import Metric, check_lengths, distinct, memo
from .edit import NUMBA_MIN_PAIRS
from .tokens import (SACREBLEU_TOKENIZERS, check_tokenizer, codexglue_tokens, intern_tokens,
                     sacrebleu_tokenizer, token_sequence)

SACREBLEU_SMOOTHING: dict[str, float | None] = {"none": None, "floor": 0.1, "add-k": 1.0, "exp": None}
NLTK_SMOOTHING: dict[str, float | None] = {
    "nltk0": None, "nltk1": 0.1, "nltk2": None, "nltk2-legacy": None, "nltk3": None,
    "nltk4": 5.0, "nltk5": None, "nltk6": 5.0, "nltk7": 5.0,
}
SMOOTHING_METHODS = (*SACREBLEU_SMOOTHING, *NLTK_SMOOTHING)
#: each smoothing method's default ``value`` (None: it takes none)
_DEFAULT_VALUES: dict[str, float | None] = {**SACREBLEU_SMOOTHING, **NLTK_SMOOTHING}

#: pairs scored together: small enough that every temporary array stays in cache, large enough that
#: numpy's per-call overhead is negligible.
_CHUNK = 1024


# ---------------------------------------------------------------------------------------------------
# Clipped n-gram matches
# ---------------------------------------------------------------------------------------------------

def _ngram_codes(ids: np.ndarray, counts: np.ndarray, orders: int, bits: int, pad: int) -> np.ndarray:
    """Each position's n-gram of the highest order packed into an int (tokens as id + 2, ``pad`` past
    the end of its string), most significant first, so that sorting groups every lower order too."""
    tokens = ids + 2
    remaining = np.repeat(np.cumsum(counts), counts) - np.arange(len(ids))
    padded = np.concatenate([tokens, np.zeros(orders, dtype=np.int64)])
    code = tokens.copy()
    for j in range(1, orders):
        code <<= bits
        code |= np.where(remaining > j, padded[j:j + len(tokens)], pad)
    return code


def _rows(index: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions (in the flat token array of distinct strings) of each pair's tokens, and their counts."""
    offsets = np.cumsum(counts) - counts
    n = counts[index]
    return np.repeat(offsets[index] - (np.cumsum(n) - n), n) + np.arange(int(n.sum())), n


def ngram_counts(tokens: Sequence[str], n: int, ignoring: Container[tuple[str, ...]] = frozenset()) -> Counter:
    """The n-grams of ``tokens`` (tuples, as nltk's ``ngrams``) and their counts, leaving out those in
    ``ignoring`` (CrystalBLEU's trivially shared n-grams, as the crystalbleu package's ``ngrams_ignoring``)."""
    grams = (tuple(tokens[j:j + n]) for j in range(len(tokens) - n + 1))
    return Counter(g for g in grams if g not in ignoring) if ignoring else Counter(grams)


def counted_statistics(hyp: Sequence[str], refs: Sequence[Sequence[str]], orders: int,
                       ignoring: Container[tuple[str, ...]] = frozenset()) -> list[int]:
    """``[hyp_len, ref_len, matches_1..matches_orders, totals_1..totals_orders]`` of one hypothesis, counted
    with Counters as nltk does: an n-gram's matches clipped by its largest count in any one reference, the
    reference length the closest (the shorter on a tie), ``totals_n`` the hypothesis's n-grams. N-grams in
    ``ignoring`` are left out of matches and totals, not of the lengths (CrystalBLEU)."""
    row = [len(hyp), min((abs(len(r) - len(hyp)), len(r)) for r in refs)[1]]
    totals = []
    for n in range(1, orders + 1):
        most: Counter = Counter()
        for r in refs:
            most |= ngram_counts(r, n, ignoring)
        counts = ngram_counts(hyp, n, ignoring)
        row.append(sum((counts & most).values()))
        totals.append(sum(counts.values()))
    return row + totals


def _chunk_stats(hyps: Sequence[str], refs: Sequence[str], orders: int, tokenize: str) -> np.ndarray:
    """Rows ``[hyp_len, ref_len, matches_1..matches_orders]`` for a chunk of pairs."""
    pairs = len(hyps)
    hyp_index, hyp_strings = distinct(hyps)
    ref_index, ref_strings = distinct(refs)
    ids, counts = intern_tokens(hyp_strings + ref_strings, tokenize)
    hyp_counts, ref_counts = counts[:len(hyp_strings)], counts[len(hyp_strings):]
    split = int(hyp_counts.sum())
    out = np.zeros((pairs, orders + 2), dtype=np.int64)
    out[:, 0], out[:, 1] = hyp_counts[hyp_index], ref_counts[ref_index]
    if not len(ids):
        return out
    bits = int(ids.max() + 2).bit_length()  # pads 0 (hypothesis) and 1 (reference), tokens from 2
    pair_shift = orders * bits + 1
    if pair_shift + (pairs - 1).bit_length() > 63:
        if pairs > 1:
            half = pairs // 2
            return np.concatenate([_chunk_stats(hyps[:half], refs[:half], orders, tokenize),
                                   _chunk_stats(hyps[half:], refs[half:], orders, tokenize)])
        out[0] = counted_statistics(token_sequence(hyps[0], tokenize), [token_sequence(refs[0], tokenize)],
                                    orders)[:orders + 2]
        return out
    hyp_code = _ngram_codes(ids[:split], hyp_counts, orders, bits, pad=0)
    ref_code = _ngram_codes(ids[split:], ref_counts, orders, bits, pad=1)
    # Distinct pads for the two sides: an n-gram running past the end never matches the other side.
    hyp_pos, hyp_n = _rows(hyp_index, hyp_counts)
    ref_pos, ref_n = _rows(ref_index, ref_counts)
    pair_ids = np.arange(pairs, dtype=np.int64)
    keys = np.concatenate([
        (np.repeat(pair_ids, hyp_n) << pair_shift) | (hyp_code[hyp_pos] << 1) | 1,
        (np.repeat(pair_ids, ref_n) << pair_shift) | (ref_code[ref_pos] << 1),
    ])
    keys.sort()
    total = len(keys)
    # running (hypothesis - reference) count: a group's |hyp - ref| is the difference at its ends
    balance = np.zeros(total + 1, dtype=np.int64)
    np.cumsum((keys & 1) * 2 - 1, out=balance[1:])
    changed = keys[1:] ^ keys[:-1]
    pair_bounds = np.concatenate([[0], np.cumsum(hyp_n + ref_n)])
    for n in range(1, orders + 1):
        bounds = np.concatenate([[0], np.flatnonzero(changed >> (1 + bits * (orders - n))) + 1, [total]])
        gap = np.concatenate([[0], np.cumsum(np.abs(np.diff(balance[bounds])))])
        at = np.searchsorted(bounds, pair_bounds)
        out[:, n + 1] = (hyp_n + ref_n - (gap[at[1:]] - gap[at[:-1]])) // 2
    return out


def _compiled(tokenize: str, pairs: int):
    """The compiled counting (``_bleu``) if it applies: whitespace tokens, numba installed, and a batch large
    enough to repay numba's start-up (loading the kernel takes about a second in a fresh process)."""
    if tokenize != "space" or pairs < NUMBA_MIN_PAIRS:
        return None
    from . import _bleu
    return _bleu if _bleu.AVAILABLE else None


def bleu_statistics(hypotheses: Sequence[str], references: Sequence[str], orders: int = 4,
                    tokenize: str = "space") -> np.ndarray:
    """Per pair ``[hyp_len, ref_len, matches_1, ..., matches_orders]`` (int64), the sufficient statistics
    of BLEU with one reference; the n-gram totals follow from the lengths."""
    check_lengths(hypotheses, references)
    check_tokenizer(tokenize)
    if not len(hypotheses):
        return np.zeros((0, orders + 2), dtype=np.int64)
    kernel = _compiled(tokenize, len(hypotheses))
    if kernel:
        return kernel.clipped_matches(hypotheses, references, orders)
    return np.concatenate([
        _chunk_stats(hypotheses[i:i + _CHUNK], references[i:i + _CHUNK], orders, tokenize)
        for i in range(0, len(hypotheses), _CHUNK)])


def multi_reference_statistics(hypotheses: Sequence[str], reference_sets: Sequence[Sequence[str]], orders: int = 4,
                               tokenize: str = "space") -> np.ndarray:
    """``bleu_statistics`` with several references per hypothesis, as sacrebleu and nltk count them: an
    n-gram's matches are clipped by its largest count in any one reference, and the reference length is
    the one closest to the hypothesis length (the shorter on a tie)."""
    if len(hypotheses) != len(reference_sets):
        raise ValueError(f"{len(hypotheses)} hypotheses but {len(reference_sets)} reference sets")
    if all(len(refs) == 1 for refs in reference_sets):
        return bleu_statistics(hypotheses, [refs[0] for refs in reference_sets], orders, tokenize)
    check_tokenizer(tokenize)
    for i, refs in enumerate(reference_sets):
        if not refs:
            raise ValueError(f"hypothesis {i} has no reference")
    kernel = _compiled(tokenize, len(hypotheses))
    if kernel:
        return kernel.multi_reference_matches(hypotheses, reference_sets, orders)
    return np.array([counted_statistics(token_sequence(hyp, tokenize), [token_sequence(r, tokenize) for r in refs],
                                        orders)[:orders + 2] for hyp, refs in zip(hypotheses, reference_sets)],
                    dtype=np.int64).reshape(len(hypotheses), orders + 2)


def _totals(hyp_len: np.ndarray, orders: int) -> np.ndarray:
    return np.maximum(hyp_len[:, None] - np.arange(orders)[None, :], 0)


# ---------------------------------------------------------------------------------------------------
# Scores from statistics
# ---------------------------------------------------------------------------------------------------

def _sacrebleu_formula(correct: np.ndarray, total: np.ndarray, sys_len: np.ndarray, ref_len: np.ndarray,
                       method: str, value: float | None, effective_order: bool) -> np.ndarray:
    """``sacrebleu.metrics.BLEU.compute_bleu`` row by row (0..1 instead of 0..100)."""
    rows, orders = correct.shape
    correct, total = correct.astype(np.float64), total.astype(np.float64)
    any_match = correct.any(axis=1)
    if method == "add-k":
        correct[:, 1:] += value
        total[:, 1:] += value
    alive = np.cumprod(total > 0, axis=1).astype(bool)  # sacrebleu stops at the first order with no n-gram
    zero = (correct == 0) & alive
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(alive, 100.0 * correct / total, 0.0)
        if method == "exp":
            precision = np.where(zero, 100.0 / (2.0 ** np.cumsum(zero, axis=1) * total), precision)
        elif method == "floor":
            precision = np.where(zero, 100.0 * value / total, precision)
        log_p = np.where(precision > 0, np.log(np.where(precision > 0, precision, 1.0)), -9999999999.0)
        bp = np.where(sys_len < ref_len, np.where(sys_len > 0, np.exp(1 - ref_len / np.maximum(sys_len, 1)), 0.0),
                      1.0)
    eff = alive.sum(axis=1) if effective_order else np.full(rows, orders)
    used = np.arange(orders)[None, :] < eff[:, None]
    mean_log = np.where(used, log_p, 0.0).sum(axis=1) / np.maximum(eff, 1)
    # precisions and the brevity penalty are at most 1, so anything above is exp(log(100)) / 100's rounding:
    # a perfect match is exactly 1.0, not 1.0000000000000004
    return np.where(any_match, np.minimum(bp * np.exp(mean_log) / 100.0, 1.0), 0.0)


def _nltk_formula(matches: np.ndarray, denominators: np.ndarray, hyp_len: np.ndarray, ref_len: np.ndarray,
                  fifth: np.ndarray, last_hyp_len: np.ndarray, method: str, value: float | None,
                  max_n: int) -> np.ndarray:
    """``nltk.translate.bleu_score.corpus_bleu`` row by row, for one smoothing method.

    ``matches``/``denominators`` have ``max_n`` columns (denominators are nltk's ``max(1, count)``);
    ``fifth`` is the 5-gram precision method 5 reads and ``last_hyp_len`` the hypothesis length method 6
    reads (for a sentence, its own; for a corpus, the last sentence's, as nltk does).
    """
    m = matches[:, :max_n].astype(np.float64)
    den = denominators[:, :max_n].astype(np.float64)
    hyp_len, ref_len = hyp_len.astype(np.float64), ref_len.astype(np.float64)
    zero = m == 0
    p = m / den
    with np.errstate(divide="ignore", invalid="ignore"):
        if method == "nltk0":
            p = np.where(zero, sys.float_info.min, p)
        elif method == "nltk1":
            p = np.where(zero, value / den, p)
        elif method in ("nltk2", "nltk2-legacy"):
            first = 0 if method == "nltk2-legacy" else 1
            p[:, first:] = (m[:, first:] + 1) / (den[:, first:] + 1)
        elif method == "nltk3":
            p = np.where(zero, 1 / (2.0 ** np.cumsum(zero, axis=1) * den), p)
        if method in ("nltk4", "nltk7"):
            smoothed = zero & (hyp_len > 1)[:, None]
            numerator = 1 / (2.0 ** np.cumsum(smoothed, axis=1) * value / np.log(hyp_len)[:, None])
            p = np.where(smoothed, numerator / den, p)
        if method in ("nltk5", "nltk7"):
            original = np.concatenate([p, fifth[:, None]], axis=1)
            previous = p[:, 0] + 1
            for i in range(max_n):
                previous = p[:, i] = (previous + original[:, i] + original[:, i + 1]) / 3
        if method == "nltk6":
            undefined = m[:, 2] == 0
            for i in range(2, max_n):
                prior = np.where(p[:, i - 2] == 0, 0.0, p[:, i - 1] ** 2 / p[:, i - 2])
                count = np.maximum(last_hyp_len - i, 0)
                p[:, i] = (m[:, i] + value * prior) / (count + value)
        log_p = np.where(p > 0, np.log(np.where(p > 0, p, 1.0)), 0.0)  # nltk skips p == 0
        bp = np.where(hyp_len > ref_len, 1.0, np.where(hyp_len == 0, 0.0, np.exp(1 - ref_len / hyp_len)))
    score = bp * np.exp((log_p * (1 / max_n)).sum(axis=1))  # nltk's weights are 1/max_n
    score = np.where(m[:, 0] == 0, 0.0, score)
    if method == "nltk6":
        score = np.where(undefined & (m[:, 0] > 0), np.nan, score)
    return score


class BLEU(Metric):
    """Sentence BLEU over ``max_n`` orders (uniform weights) with one smoothing method; see the module doc.

    Columns: ``bleu4`` for the defaults (space tokens, ``exp`` smoothing, effective order), and one
    suffix per setting changed: ``bleu4_char_none``, ``bleu4_nltk2_legacy``, ``bleu4_floor0.2``,
    ``bleu4_none_noeff``, ``bleu4_lc``.
    """

    name = "bleu"

    def __init__(self, max_n: int = 4, smooth: str = "exp", value: float | None = None,
                 tokenize: str = "space", lowercase: bool = False, effective_order: bool = True) -> None:
        if smooth not in SMOOTHING_METHODS:
            raise ValueError(f"smooth must be one of {SMOOTHING_METHODS}, not {smooth!r}")
        if tokenize not in SACREBLEU_TOKENIZERS:
            check_tokenizer(tokenize)
        if max_n < 1 or (smooth == "nltk6" and max_n < 3):
            raise ValueError(f"max_n={max_n} is too small for smoothing {smooth!r}")
        default = _DEFAULT_VALUES[smooth]
        if value is not None and default is None:
            raise ValueError(f"smoothing {smooth!r} takes no value")
        self.max_n, self.smooth, self.tokenize, self.lowercase = max_n, smooth, tokenize, lowercase
        self.value = float(default) if value is None and default is not None else value
        self.effective_order = effective_order
        self._nltk = smooth in NLTK_SMOOTHING
        if self._nltk and not effective_order:
            raise ValueError("effective_order applies to sacrebleu's smoothing methods only")

    def settings(self) -> dict[str, object]:
        smooth = self.smooth if self.value is None else f"{self.smooth}[{self.value:g}]"
        out: dict[str, object] = {"tok": self.tokenize, "case": "lc" if self.lowercase else "mixed",
                                  "smooth": smooth}
        if not self._nltk:
            out["eff"] = self.effective_order
        out["n"] = self.max_n
        return out

    def _variant(self) -> list[str]:
        """Column suffixes for the tokenisation and case settings that differ from the defaults."""
        tok = {"space": [], "sacrebleu-char": ["sbchar"]}.get(self.tokenize, [self.tokenize])
        return tok + (["lc"] if self.lowercase else [])

    @property
    def column(self) -> str:
        parts = [f"bleu{self.max_n}", *self._variant()]
        if self.smooth != "exp":
            parts.append(self.smooth.replace("-", "_"))
        if self.value is not None and self.value != _DEFAULT_VALUES[self.smooth]:
            parts[-1] += f"{self.value:g}"
        if not self.effective_order:
            parts.append("noeff")
        return "_".join(parts)

    def _prepare(self, texts: Sequence[str]) -> Sequence[str]:
        """Case folding, then sacrebleu's tokeniser when one is named (as sacrebleu: lower-case first)."""
        if self.lowercase:
            texts = [t.lower() for t in texts]
        if self.tokenize in SACREBLEU_TOKENIZERS:
            tokens = memo(sacrebleu_tokenizer(self.tokenize))
            texts = [tokens(t) for t in texts]
        return texts

    def _orders(self) -> int:
        return max(self.max_n, 5) if self.smooth in ("nltk5", "nltk7") else self.max_n

    def _statistics(self, hypotheses: Sequence[str], references: Sequence[str]) -> np.ndarray:
        tokenize = "space" if self.tokenize in SACREBLEU_TOKENIZERS else self.tokenize
        return bleu_statistics(self._prepare(hypotheses), self._prepare(references), self._orders(), tokenize)

    def _multi_statistics(self, hypotheses: Sequence[str], reference_sets: Sequence[Sequence[str]]) -> np.ndarray:
        orders = self._orders()
        tokenize = "space" if self.tokenize in SACREBLEU_TOKENIZERS else self.tokenize
        flat = self._prepare([r for refs in reference_sets for r in refs])
        sets, start = [], 0
        for refs in reference_sets:
            sets.append(flat[start:start + len(refs)])
            start += len(refs)
        return multi_reference_statistics(self._prepare(hypotheses), sets, orders, tokenize)

    def _score(self, stats: np.ndarray, totals: np.ndarray, denominators: np.ndarray, last: np.ndarray,
               corpus: bool) -> np.ndarray:
        hyp_len, ref_len, matches = stats[:, 0], stats[:, 1], stats[:, 2:]
        if not self._nltk:
            return _sacrebleu_formula(matches, totals, hyp_len, ref_len, self.smooth, self.value,
                                      self.effective_order and not corpus)
        fifth = last[:, 6] / np.maximum(last[:, 0] - 4, 1) if matches.shape[1] >= 5 else np.zeros(len(stats))
        return _nltk_formula(matches, denominators, hyp_len, ref_len, fifth, last[:, 0], self.smooth,
                             self.value, self.max_n)

    def sentence_scores(self, hypotheses: Sequence[str], references: Sequence[str]) -> np.ndarray:
        return self._sentences(self._statistics(hypotheses, references))

    def multi_reference_scores(self, hypotheses: Sequence[str],
                               reference_sets: Sequence[Sequence[str]]) -> np.ndarray:
        """Sentence BLEU against several references each (``multi_reference_statistics``)."""
        return self._sentences(self._multi_statistics(hypotheses, reference_sets))

    def _sentences(self, stats: np.ndarray) -> np.ndarray:
        totals = _totals(stats[:, 0], stats.shape[1] - 2)
        return self._score(stats, totals, np.maximum(totals, 1), stats, corpus=False)

    def segment_statistics(self, hypotheses: Sequence[str], reference_sets: Sequence[Sequence[str]]) -> np.ndarray:
        return self._multi_statistics(hypotheses, reference_sets)

    def corpus_from_statistics(self, stats: np.ndarray) -> float:
        """Corpus BLEU of per-sentence statistics rows (what significance tests resample)."""
        if not len(stats):
            return float("nan")
        totals = _totals(stats[:, 0], stats.shape[1] - 2)
        summed = stats.sum(axis=0, keepdims=True)
        return float(self._score(summed, totals.sum(axis=0, keepdims=True),
                                 np.maximum(totals, 1).sum(axis=0, keepdims=True), stats[-1:], corpus=True)[0])


class BLEUMoses(BLEU):
    """multi-bleu.perl (Moses): no smoothing, no effective order, case as given (``-lc`` is ``lowercase``)."""

    name = "bleu_moses"

    def __init__(self, tokenize: str = "space", lowercase: bool = False) -> None:
        super().__init__(max_n=4, smooth="none", tokenize=tokenize, lowercase=lowercase, effective_order=False)

    @property
    def column(self) -> str:
        return "_".join([self.name, *self._variant()])


class BLEUCC(BLEU):
    """BLEU-CC: Chen & Cherry (2014) smoothing method 5 as nltk implements it (``BLEU(smooth="nltk5")``)."""

    name = "bleu_cc"

    def __init__(self, tokenize: str = "space", lowercase: bool = False) -> None:
        super().__init__(max_n=4, smooth="nltk5", tokenize=tokenize, lowercase=lowercase)

    @property
    def column(self) -> str:
        return "_".join([self.name, *self._variant()])


class BLEUNorm(Metric):
    """BLEU-Norm: the smoothed sentence BLEU of CodeNN (Iyer et al., ACL 2016) as CodeXGLUE's code-to-text
    evaluator computes it (``bleu(refs, candidate)``; reported figure = mean over sentences x 100).

    Exactly: tokens from :func:`codexglue_tokens` on both sides; up to 4-grams, clipped matches
    ``c_n`` and hypothesis n-gram counts ``g_n = max(len - n + 1, 0)``;
    ``log BLEU = 1/4 * sum_n [log(c_n + a_n + tiny) - log(g_n + a_n + tiny)] + min(0, 1 - (r + 1) / (h + 1))``
    with ``a_1 = 0``, ``a_n = 1`` for n > 1 (Lin & Och 2004's add-one, unigrams excluded), ``tiny =
    sys.float_info.min``, ``h``/``r`` the hypothesis/reference lengths (the reference length is the shortest
    reference's; we take one reference). Note the +1 in the brevity penalty, and that orders longer than
    the hypothesis count as precision 1 (0+1)/(0+1). ``corpus_score`` is the mean sentence score, as
    CodeXGLUE reports it.
    """

    name = "bleu_norm"
    column = "bleu_norm"

    def settings(self) -> dict[str, object]:
        return {"tok": "codexglue", "case": "lc", "smooth": "add1-n>1", "bp": "+1", "n": 4}

    def sentence_scores(self, hypotheses: Sequence[str], references: Sequence[str]) -> np.ndarray:
        check_lengths(hypotheses, references)
        tokens = memo(codexglue_tokens)  # a beam repeats each reference k times
        stats = bleu_statistics([tokens(h) for h in hypotheses], [tokens(r) for r in references], 4, "space")
        hyp_len, ref_len = stats[:, 0].astype(np.float64), stats[:, 1].astype(np.float64)
        add = np.array([0.0, 1.0, 1.0, 1.0])
        tiny = sys.float_info.min
        log_bleu = (np.log(stats[:, 2:] + add + tiny) - np.log(_totals(stats[:, 0], 4) + add + tiny)).sum(1) / 4
        return np.exp(log_bleu + np.minimum(0.0, 1 - (ref_len + 1) / (hyp_len + 1)))


__all__ = ["BLEU", "BLEUMoses", "BLEUCC", "BLEUNorm", "bleu_statistics", "multi_reference_statistics",
           "SMOOTHING_METHODS"]
