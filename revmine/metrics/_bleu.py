"""BLEU's clipped n-gram matches of many (hypothesis, reference) string pairs, compiled with numba.

``clipped_matches(hyps, refs, orders)`` equals, per pair, the lengths of ``h.split()`` and ``r.split()``
and for n = 1..orders ``sum((Counter(h n-grams) & Counter(r n-grams)).values())``, exactly. Tokens are
numbered without making a token object, by :mod:`._levenshtein`'s tokeniser (``number_tokens`` for the
distinct references, its lookup for the hypotheses: a token in no reference gets a number that matches
nothing). Then, per pair, with no hashing of token text and no sorting:

* an n-gram is (the (n-1)-gram's slot, the token after it), one int64, exact: the reference's n-grams of
  each order go to a small open-addressing table (one per order) holding their counts, so a slot numbers
  a distinct n-gram; a hypothesis n-gram whose (n-1)-gram is not in the reference is not looked up;
* the clipping is counted as the hypothesis is read: an n-gram is a match while its running count is at
  most the reference's count (``min(hyp, ref)`` summed over n-grams).

A beam repeats each reference k times in a row: the reference's tables are built once for the run of
pairs that share it. Several references per hypothesis (``multi_reference_matches``) share one table per
order holding each n-gram's largest count in any one of them, as sacrebleu and nltk clip. Without numba,
``AVAILABLE`` is False and ``bleu.py`` counts with numpy (one reference) or Counters (several).

Why a kernel: profiled on the 1-encoder k=10 fixture (17,190 pairs, ~46 tokens each), numpy spent half its
time numbering tokens and the rest sorting and scanning packed n-gram keys (0.2-0.4 s, 4-9x sacrebleu);
this takes ~25 ms for the same pairs, ~35 ms for ``BLEU().sentence_scores`` in all: medians 35-41x
``sacrebleu.sentence_bleu`` in four runs of 7 interleaved rounds (benchmarks/bench_code_metrics.py).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from . import _levenshtein
from ._levenshtein import AVAILABLE, WHITESPACE, _code_points, _lookup, njit
from .base import distinct

_U64 = np.uint64
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True, nogil=True)
def _find(table_key, table_count, bits, key):
    """The slot of ``key`` in one order's table, or the empty slot (count 0) where it would go."""
    mask = table_key.shape[0] - 1
    slot = np.int64((_U64(key) * _GOLDEN) >> _U64(64 - bits))
    while table_count[slot] != 0 and table_key[slot] != key:
        slot = (slot + 1) & mask
    return slot


@njit(cache=True, nogil=True)
def _matches(cp, lengths, whitespace, table_key_, table_at, table_len, table_id, table_bits, pool, vocab,
             ref_ids, ref_first, set_of, set_first, set_refs, orders, out):
    """Rows ``[hyp_len, ref_len, matches_1..matches_orders]`` of a chunk of hypotheses (``cp``: joined
    by one separator each) into ``out``. Hypothesis s's references are the numbers (in ``ref_first``)
    ``set_refs[set_first[k]:set_first[k + 1]]`` with ``k = set_of[s]``."""
    hyp_ids, first = _lookup(cp, lengths, whitespace, table_key_, table_at, table_len, table_id, table_bits,
                             pool, vocab)
    longest = 1
    for s in range(lengths.shape[0]):
        total = 0
        for j in range(set_first[set_of[s]], set_first[set_of[s] + 1]):
            total += ref_first[set_refs[j] + 1] - ref_first[set_refs[j]]
        longest = max(longest, total, first[s + 1] - first[s])
    bits = 1
    while (1 << bits) < 2 * longest:
        bits += 1
    size = 1 << bits
    keys = np.zeros((orders, size), dtype=np.int64)
    ref_count = np.zeros((orders, size), dtype=np.int32)  # 0: empty slot
    count = np.zeros((orders, size), dtype=np.int32)  # one reference's count, then the hypothesis's
    used = np.empty((orders, size), dtype=np.int64)  # the slots in use, to clear them
    in_use = np.zeros(orders, dtype=np.int64)
    slots = np.empty((orders, longest), dtype=np.int64)  # slot of the n-gram at each start, -1 if none
    radix = np.int64(vocab) + 1
    current = -1
    for s in range(lengths.shape[0]):
        h0 = first[s]
        a = first[s + 1] - h0
        if set_of[s] != current:  # clear the tables, then count the new references' n-grams
            for n in range(orders):
                for u in range(in_use[n]):
                    ref_count[n, used[n, u]] = 0
                in_use[n] = 0
            current = set_of[s]
            for j in range(set_first[current], set_first[current + 1]):
                r0 = ref_first[set_refs[j]]
                b = ref_first[set_refs[j] + 1] - r0
                for n in range(orders):
                    for i in range(b - n):
                        key = np.int64(ref_ids[r0 + i + n])
                        if n > 0:
                            key += slots[n - 1, i] * radix
                        slot = _find(keys[n], ref_count[n], bits, key)
                        if ref_count[n, slot] == 0:
                            keys[n, slot] = key
                            used[n, in_use[n]] = slot
                            in_use[n] += 1
                        count[n, slot] += 1  # clipping takes an n-gram's largest count in one reference
                        ref_count[n, slot] = max(ref_count[n, slot], count[n, slot])
                        slots[n, i] = slot
                for n in range(orders):
                    for i in range(b - n):
                        count[n, slots[n, i]] = 0
        closest = -1  # the reference length closest to the hypothesis's, the shorter on a tie
        for j in range(set_first[current], set_first[current + 1]):
            b = ref_first[set_refs[j] + 1] - ref_first[set_refs[j]]
            if closest < 0 or abs(b - a) < abs(closest - a) or (abs(b - a) == abs(closest - a) and b < closest):
                closest = b
        out[s, 0] = a
        out[s, 1] = closest
        for n in range(orders):
            matched = 0
            for i in range(a - n):
                slot = -1
                if n == 0 or slots[n - 1, i] >= 0:
                    key = np.int64(hyp_ids[h0 + i + n])
                    if n > 0:
                        key += slots[n - 1, i] * radix
                    slot = _find(keys[n], ref_count[n], bits, key)
                    if ref_count[n, slot] == 0:
                        slot = -1
                    else:
                        count[n, slot] += 1
                        if count[n, slot] <= ref_count[n, slot]:
                            matched += 1
                slots[n, i] = slot
            out[s, 2 + n] = matched
            for i in range(a - n):
                if slots[n, i] >= 0:
                    count[n, slots[n, i]] = 0


def _run(hypotheses: Sequence[str], references: list[str], set_of: np.ndarray, set_first: np.ndarray,
         set_refs: np.ndarray, orders: int) -> np.ndarray:
    if not AVAILABLE:
        raise RuntimeError("numba is not installed")
    hypotheses = list(hypotheses)
    numbered = _levenshtein.number_tokens(references)
    hyp_lengths = np.fromiter(map(len, hypotheses), dtype=np.int64, count=len(hypotheses))
    out = np.empty((len(hypotheses), orders + 2), dtype=np.int64)
    for lo in range(0, len(hypotheses), _levenshtein._CHUNK):
        part = slice(lo, lo + _levenshtein._CHUNK)
        _matches(_code_points(hypotheses[part]), hyp_lengths[part], WHITESPACE, *numbered.table, numbered.ids,
                 numbered.first, set_of[part], set_first, set_refs, orders, out[part])
    return out


def clipped_matches(hypotheses: Sequence[str], references: Sequence[str], orders: int) -> np.ndarray:
    """Per pair ``[hyp_len, ref_len, matches_1, ..., matches_orders]`` (int64) of ``str.split()`` tokens."""
    ref_index, refs = distinct(references)
    everyone = np.arange(len(refs) + 1)
    return _run(hypotheses, refs, ref_index, everyone, everyone[:-1], orders)


def multi_reference_matches(hypotheses: Sequence[str], reference_sets: Sequence[Sequence[str]],
                            orders: int) -> np.ndarray:
    """``clipped_matches`` with several references per hypothesis: an n-gram's matches are clipped by its
    largest count in any one reference; the reference length is the closest (the shorter on a tie)."""
    set_of, sets = distinct([tuple(refs) for refs in reference_sets])  # a beam repeats its references
    ref_index, refs = distinct([r for refs in sets for r in refs])
    set_first = np.concatenate([[0], np.cumsum([len(refs) for refs in sets])]).astype(np.int64)
    return _run(hypotheses, refs, set_of, set_first, ref_index, orders)
