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
pairs that share it. Without numba, ``AVAILABLE`` is False and ``bleu.py`` counts with numpy.

Why a kernel: profiled on the 1-encoder k=10 fixture (17,190 pairs, ~46 tokens each), numpy spent half its
time numbering tokens and the rest sorting and scanning packed n-gram keys (0.2-0.4 s, 4-9x sacrebleu);
this takes ~25 ms for the same pairs, ~35 ms for ``BLEU().sentence_scores`` in all, a median 37x
``sacrebleu.sentence_bleu`` over 7 interleaved rounds (benchmarks/bench_code_metrics.py).
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
             ref_ids, ref_first, ref_of, orders, out):
    """Rows ``[hyp_len, ref_len, matches_1..matches_orders]`` of a chunk of hypotheses (``cp``: joined
    by one separator each) against their references (``ref_of``: numbers in ``ref_first``) into ``out``."""
    hyp_ids, first = _lookup(cp, lengths, whitespace, table_key_, table_at, table_len, table_id, table_bits,
                             pool, vocab)
    longest = 1
    for s in range(lengths.shape[0]):
        longest = max(longest, ref_first[ref_of[s] + 1] - ref_first[ref_of[s]], first[s + 1] - first[s])
    bits = 1
    while (1 << bits) < 2 * longest:
        bits += 1
    size = 1 << bits
    keys = np.zeros((orders, size), dtype=np.int64)
    ref_count = np.zeros((orders, size), dtype=np.int32)
    hyp_count = np.zeros((orders, size), dtype=np.int32)
    ref_slot = np.empty((orders, longest), dtype=np.int64)  # slot of the reference's n-gram at each start
    hyp_slot = np.empty((orders, longest), dtype=np.int64)  # ... of the hypothesis's, -1 if none
    radix = np.int64(vocab) + 1
    current = -1
    b = 0
    for s in range(lengths.shape[0]):
        if ref_of[s] != current:  # clear the tables, then fill them with the new reference's n-grams
            for n in range(orders):
                for i in range(b - n):
                    ref_count[n, ref_slot[n, i]] = 0
            current = ref_of[s]
            r0 = ref_first[current]
            b = ref_first[current + 1] - r0
            for n in range(orders):
                for i in range(b - n):
                    key = np.int64(ref_ids[r0 + i + n])
                    if n > 0:
                        key += ref_slot[n - 1, i] * radix
                    slot = _find(keys[n], ref_count[n], bits, key)
                    keys[n, slot] = key
                    ref_count[n, slot] += 1
                    ref_slot[n, i] = slot
        h0 = first[s]
        a = first[s + 1] - h0
        out[s, 0] = a
        out[s, 1] = b
        for n in range(orders):
            matched = 0
            for i in range(a - n):
                slot = -1
                if n == 0 or hyp_slot[n - 1, i] >= 0:
                    key = np.int64(hyp_ids[h0 + i + n])
                    if n > 0:
                        key += hyp_slot[n - 1, i] * radix
                    slot = _find(keys[n], ref_count[n], bits, key)
                    if ref_count[n, slot] == 0:
                        slot = -1
                    else:
                        hyp_count[n, slot] += 1
                        if hyp_count[n, slot] <= ref_count[n, slot]:
                            matched += 1
                hyp_slot[n, i] = slot
            out[s, 2 + n] = matched
            for i in range(a - n):
                if hyp_slot[n, i] >= 0:
                    hyp_count[n, hyp_slot[n, i]] = 0


def clipped_matches(hypotheses: Sequence[str], references: Sequence[str], orders: int) -> np.ndarray:
    """Per pair ``[hyp_len, ref_len, matches_1, ..., matches_orders]`` (int64) of ``str.split()`` tokens."""
    if not AVAILABLE:
        raise RuntimeError("numba is not installed")
    hypotheses = list(hypotheses)
    ref_index, refs = distinct(references)
    numbered = _levenshtein.number_tokens(refs)
    hyp_lengths = np.fromiter(map(len, hypotheses), dtype=np.int64, count=len(hypotheses))
    out = np.empty((len(hypotheses), orders + 2), dtype=np.int64)
    for lo in range(0, len(hypotheses), _levenshtein._CHUNK):
        part = slice(lo, lo + _levenshtein._CHUNK)
        _matches(_code_points(hypotheses[part]), hyp_lengths[part], WHITESPACE, *numbered.table, numbered.ids,
                 numbered.first, ref_index[part], orders, out[part])
    return out
