"""Token Levenshtein distances of many (hypothesis, reference) string pairs, compiled with numba.

``token_distances(hyps, refs)`` equals ``rapidfuzz.distance.Levenshtein.distance(h.split(), r.split())``
per pair, exactly. Why this module exists: rapidfuzz computes the distance of two token lists in C++, but
making the lists costs more than the distances (``str.split`` of 17,190 predictions of ~46 tokens makes
~800k ``str`` objects: 75-90 ms, against ~27 ms for all the distances). Here no token object is made:

1. the strings, ``_CHUNK`` at a time, are joined with ``"\\n"`` and encoded to UTF-32 code points
   (``str.join`` + ``str.encode``, C calls; ASCII text through bytes, much faster than the UTF-32 codec;
   the separator is whitespace, so no token spans two strings);
2. one scan finds the tokens exactly as ``str.split()`` does: maximal runs of characters that are not
   ``str.isspace`` (``WHITESPACE``; U+00A0, U+3000 etc. split, U+200B does not);
3. each token gets a 64-bit key: a token of at most 8 ASCII characters *is* its key (length and 7 bits
   per character), any other token's key is a mixed FNV-1a hash. The distinct reference tokens are
   numbered 0, 1, ... through an open-addressing table on the key; a hashed key matches only after its
   code points are compared, so two different tokens never share a number, whatever the hashes. Each
   hypothesis token is looked up the same way; one that occurs in no reference gets the number
   ``vocab``, which equals nothing (only hypothesis-reference equality matters to the distance);
4. per pair, the common prefix and suffix are dropped (a prediction is mostly its reference) and the
   distance of the rest is Myers' bit-parallel algorithm (Myers 1999, "A fast bit-vector algorithm for
   approximate string matching based on dynamic programming", J. ACM 46(3); Hyyrö's edit-distance form)
   with the shorter side as the pattern, one 64-bit word per 64 tokens (Myers' block version beyond).

Memory, not arithmetic, was the cost to avoid: fresh arrays of one entry per token (~1M here) cost a
page fault per 4 KB, which took longer than the whole computation. Chunks keep every temporary small and
reused; what remains per call is the int32 ids of the references' tokens and the three outputs.
Measured on the 1-encoder k=10 fixture (17,190 pairs, ~46 tokens each; benchmarks/bench_code_metrics.py):
0.6-0.95x the time rapidfuzz takes on already-split lists, one thread each (a shared, busy machine).

``threads`` > 1 scores chunks of hypotheses on a thread pool (the kernels release the GIL); chunks write
disjoint slices of the output, so the values do not depend on it. Without numba, ``AVAILABLE`` is False
(the functions stay plain Python) and ``edit.py`` uses rapidfuzz on ``str.split()`` lists (same values).
Steps 1-3 (``number_tokens``, ``_lookup``) also number BLEU's tokens (``_bleu.py``).
The compiled code is cached on disk (``cache=True``, in ``__pycache__``): the first use after an install
compiles it (several seconds), later processes load it (numba's own start-up, about a second, dominates).
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np

try:
    from numba import njit
    AVAILABLE = True
except ImportError:  # pragma: no cover - exercised only where numba is missing
    AVAILABLE = False

    def njit(*args, **kwargs):  # type: ignore[no-redef]
        """Without numba the kernels stay plain Python."""
        return lambda function: function

from .base import distinct
from .tokens import WHITESPACE  # WHITESPACE[min(c, 0x3001)]: c is a str.split() separator

_U64 = np.uint64


@njit(cache=True, nogil=True)
def _mix(h):
    """murmur3's 64-bit finaliser: every input bit reaches every output bit."""
    h ^= h >> _U64(33)
    h *= _U64(0xFF51AFD7ED558CCD)
    h ^= h >> _U64(33)
    h *= _U64(0xC4CEB9FE1A85EC53)
    h ^= h >> _U64(33)
    return h


_EXACT = np.uint64(1 << 63)
_SEED = np.uint64(0xCBF29CE484222325)  # FNV-1a
_PRIME = np.uint64(0x100000001B3)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True, nogil=True)
def _hash_key(cp, start, stop):
    """Key of a token that is not short ASCII: its mixed FNV-1a hash, top bit clear (must be confirmed)."""
    h = _SEED
    for i in range(start, stop):
        h = (h ^ _U64(cp[i])) * _PRIME
    return _mix(h ^ _U64(stop - start)) >> _U64(1)


@njit(cache=True, nogil=True)
def _probe(table_key, table_at, table_len, bits, key, cp, start, pool):
    """The slot of the table entry equal to token ``cp[start:start + len]`` with this key, or the empty
    slot where it would go (linear probing). An exact key (top bit set) is the token itself; a hashed
    key is confirmed on the code points, kept in ``pool`` from ``table_at``."""
    mask = table_key.shape[0] - 1
    slot = np.int64((key * _GOLDEN) >> _U64(64 - bits))
    while True:
        length = table_len[slot]
        if length < 0:
            return slot
        if table_key[slot] == key:
            if (key & _EXACT) != _U64(0):
                return slot
            at = table_at[slot]
            same = True
            for i in range(length):
                if pool[at + i] != cp[start + i]:
                    same = False
                    break
            if same:
                return slot
        slot = (slot + 1) & mask


@njit(cache=True, nogil=True)
def _scan(cp, lengths, whitespace):
    """The ``str.split()`` tokens of strings joined by one separator each (``cp``: their code points;
    ``lengths``: theirs): each token's key, start and end, and ``first[s]``, the number of string s's
    first token (``first[-1]``: the count).

    A token of at most 8 ASCII characters is its own key (top bit set, its length, 7 bits per
    character): equal keys are equal tokens. Any other token's key is a hash (top bit clear) that a
    match must confirm on the code points (:func:`_probe`).
    """
    capacity = cp.shape[0] // 2 + 1  # each token but the last is followed by a separator
    keys = np.empty(capacity, dtype=np.uint64)
    starts = np.empty(capacity, dtype=np.int64)
    ends = np.empty(capacity, dtype=np.int64)
    first = np.empty(lengths.shape[0] + 1, dtype=np.int64)
    top = whitespace.shape[0] - 1
    k = 0
    position = 0
    for s in range(lengths.shape[0]):
        first[s] = k
        stop = position + lengths[s]
        p = position
        while p < stop:
            c = cp[p]
            if whitespace[min(np.int64(c), top)]:
                p += 1
                continue
            start = p
            packed = _U64(0)
            wide = _U64(0)
            while True:  # c is the token's character at p
                packed = (packed << _U64(7)) | _U64(c)
                wide |= _U64(c)
                p += 1
                if p == stop:
                    break
                c = cp[p]
                if whitespace[min(np.int64(c), top)]:
                    break
            length = p - start
            if length <= 8 and wide < _U64(128):
                keys[k] = _EXACT | (_U64(length) << _U64(56)) | packed
            else:
                keys[k] = _hash_key(cp, start, p)
            starts[k] = start
            ends[k] = p
            k += 1
        position = stop + 1
    first[lengths.shape[0]] = k
    return keys, starts, ends, first


@njit(cache=True, nogil=True)
def _insert(keys, starts, ends, cp, t, stop, table_key, table_at, table_len, table_id, bits, pool, pool_used,
            vocab, ids, k):
    """Number reference tokens ``t .. stop - 1`` (from :func:`_scan`) into ``ids[k:]``: a token seen
    before gets its number, a new one the next (``vocab``) and a table slot (its code points go to
    ``pool`` if its key is a hash). Stops early, before a new token that would fill the table more than
    half or overflow the pool: the caller makes room (:func:`_grown`, a bigger pool) and calls again
    from the returned ``t``. (Growing here instead made numba take seconds more to compile this.)"""
    while t < stop:
        key = keys[t]
        start = starts[t]
        slot = _probe(table_key, table_at, table_len, bits, key, cp, start, pool)
        if table_len[slot] < 0:
            length = ends[t] - start
            hashed = (key & _EXACT) == _U64(0)
            if 2 * (vocab + 1) > table_key.shape[0] or (hashed and pool_used + length > pool.shape[0]):
                break
            at = 0
            if hashed:  # keep its code points to confirm later matches
                for i in range(length):
                    pool[pool_used + i] = cp[start + i]
                at = pool_used
                pool_used += length
            table_key[slot] = key
            table_at[slot] = at
            table_len[slot] = length
            table_id[slot] = vocab
            vocab += 1
        ids[k] = table_id[slot]
        k += 1
        t += 1
    return t, pool_used, vocab, k


@njit(cache=True, nogil=True)
def _grown(table_key, table_at, table_len, table_id, bits):
    """The table with twice the slots (entries are distinct: no comparison needed)."""
    bits += 1
    size = 1 << bits
    new_key = np.zeros(size, dtype=np.uint64)
    new_at = np.zeros(size, dtype=np.int64)
    new_len = np.full(size, -1, dtype=np.int64)
    new_id = np.zeros(size, dtype=np.int32)
    for o in range(table_key.shape[0]):
        if table_len[o] >= 0:
            slot = np.int64((table_key[o] * _GOLDEN) >> _U64(64 - bits))
            while new_len[slot] >= 0:
                slot = (slot + 1) & (size - 1)
            new_key[slot] = table_key[o]
            new_at[slot] = table_at[o]
            new_len[slot] = table_len[o]
            new_id[slot] = table_id[o]
    return new_key, new_at, new_len, new_id, bits


@njit(cache=True, nogil=True)
def _myers(pattern, text, peq, vp, vn):
    """Levenshtein distance of two id sequences, ``pattern`` the shorter (and non-empty).

    ``peq`` (vocab + 1 rows x enough 64-bit words) must be all zero on entry and is left so; ``vp`` and
    ``vn`` are scratch words. Myers' block algorithm: each block passes its horizontal delta at its last
    row (+1, 0, -1) to the block below; the top row grows by one per text token (hin = +1).
    """
    m = pattern.shape[0]
    words = (m + 63) // 64
    one = _U64(1)
    for i in range(m):
        peq[pattern[i], i // 64] |= one << _U64(i % 64)
    last = one << _U64((m - 1) % 64)
    score = m
    if words == 1:
        pv = ~_U64(0)
        mv = _U64(0)
        for j in range(text.shape[0]):
            eq = peq[text[j], 0]
            xv = eq | mv
            xh = (((eq & pv) + pv) ^ pv) | eq
            ph = mv | ~(xh | pv)
            mh = pv & xh
            if ph & last:
                score += 1
            elif mh & last:
                score -= 1
            ph = (ph << one) | one
            mh = mh << one
            pv = mh | ~(xv | ph)
            mv = ph & xv
    else:
        high = one << _U64(63)
        for w in range(words):
            vp[w] = ~_U64(0)
            vn[w] = _U64(0)
        for j in range(text.shape[0]):
            c = text[j]
            hin = 1
            for w in range(words):
                eq = peq[c, w]
                pv = vp[w]
                mv = vn[w]
                xv = eq | mv
                if hin < 0:
                    eq |= one
                xh = (((eq & pv) + pv) ^ pv) | eq
                ph = mv | ~(xh | pv)
                mh = pv & xh
                top = last if w == words - 1 else high
                hout = 0
                if ph & top:
                    hout = 1
                elif mh & top:
                    hout = -1
                ph = ph << one
                mh = mh << one
                if hin < 0:
                    mh |= one
                elif hin > 0:
                    ph |= one
                vp[w] = mh | ~(xv | ph)
                vn[w] = ph & xv
                hin = hout
            score += hin
    for i in range(m):
        peq[pattern[i], i // 64] = _U64(0)
    return score


@njit(cache=True, nogil=True)
def _lookup(cp, lengths, whitespace, table_key, table_at, table_len, table_id, bits, pool, vocab):
    """The ``str.split()`` tokens of strings joined by one separator each, as the numbers of the table
    (``vocab`` for a token not in it, equal to nothing numbered), and ``first`` as :func:`_scan`'s."""
    keys, starts, ends, first = _scan(cp, lengths, whitespace)
    ids = np.empty(keys.shape[0], dtype=np.int32)
    for t in range(first[lengths.shape[0]]):
        slot = _probe(table_key, table_at, table_len, bits, keys[t], cp, starts[t], pool)
        ids[t] = table_id[slot] if table_len[slot] >= 0 else vocab
    return ids, first


@njit(cache=True, nogil=True)
def _distances(cp, lengths, whitespace, table_key, table_at, table_len, table_id, bits, pool, vocab,
               ref_ids, ref_first, ref_of, distance, hyp_len, words):
    """Token Levenshtein distance of each hypothesis of a chunk (``cp``: them joined by one separator
    each) to its reference (``ref_of``: its number), into ``distance`` and ``hyp_len``. A hypothesis
    token equal to no reference token gets id ``vocab``, which matches nothing."""
    ids, first = _lookup(cp, lengths, whitespace, table_key, table_at, table_len, table_id, bits, pool, vocab)
    peq = np.zeros((vocab + 1, words), dtype=np.uint64)
    vp = np.empty(words, dtype=np.uint64)
    vn = np.empty(words, dtype=np.uint64)
    for s in range(lengths.shape[0]):
        a0 = first[s]
        a1 = first[s + 1]
        hyp_len[s] = a1 - a0
        b0 = ref_first[ref_of[s]]
        b1 = ref_first[ref_of[s] + 1]
        while a0 < a1 and b0 < b1 and ids[a0] == ref_ids[b0]:  # common prefix
            a0 += 1
            b0 += 1
        while a0 < a1 and b0 < b1 and ids[a1 - 1] == ref_ids[b1 - 1]:  # common suffix
            a1 -= 1
            b1 -= 1
        if a1 == a0:
            distance[s] = b1 - b0
        elif b1 == b0:
            distance[s] = a1 - a0
        elif a1 - a0 <= b1 - b0:
            distance[s] = _myers(ids[a0:a1], ref_ids[b0:b1], peq, vp, vn)
        else:
            distance[s] = _myers(ref_ids[b0:b1], ids[a0:a1], peq, vp, vn)


#: strings encoded and scored per kernel call: their code points (~200 KB here) stay in cache and the
#: same memory is reused from call to call (fresh memory costs a page fault per 4 KB).
_CHUNK = 256


def _code_points(strings: Sequence[str]) -> np.ndarray:
    """The strings joined by one separator each (whitespace, so that no token spans two), as UTF-32 code
    points (lone surrogates kept as themselves, as ``str`` does). ASCII text goes through bytes, which is
    ~20x faster than the UTF-32 codec; one array type keeps one compiled version of each kernel."""
    text = "\n".join(strings)
    if not text.isascii():
        return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    cp = np.frombuffer(text.encode("ascii"), dtype=np.uint8).astype(np.uint32)
    cp.flags.writeable = False  # as frombuffer's: numba compiles read-only and writable arrays apart
    return cp


class Numbered(NamedTuple):
    """Strings' tokens numbered by :func:`number_tokens`: ``ids[first[s]:first[s + 1]]`` are string s's;
    ``table`` is what :func:`_lookup` (and the kernels calling it) take to number other strings' tokens."""

    ids: np.ndarray
    first: np.ndarray
    table: tuple


def number_tokens(strings: Sequence[str]) -> Numbered:
    """The ``str.split()`` tokens of ``strings`` numbered 0, 1, ... in order of first occurrence."""
    bits = 10  # the table: key, pool offset, length (-1: empty slot), number
    table = (np.zeros(1 << bits, dtype=np.uint64), np.zeros(1 << bits, dtype=np.int64),
             np.full(1 << bits, -1, dtype=np.int64), np.zeros(1 << bits, dtype=np.int32))
    pool, pool_used, vocab, k = np.empty(1024, dtype=np.uint32), 0, 0, 0
    lengths = np.fromiter(map(len, strings), dtype=np.int64, count=len(strings))
    first = np.empty(len(strings) + 1, dtype=np.int64)
    ids = np.empty(int(lengths.sum()) // 2 + len(strings) + 1, dtype=np.int32)  # >= tokens
    for lo in range(0, len(strings), _CHUNK):
        cp = _code_points(strings[lo:lo + _CHUNK])
        keys, starts, ends, chunk_first = _scan(cp, lengths[lo:lo + _CHUNK], WHITESPACE)
        first[lo:lo + len(chunk_first) - 1] = k + chunk_first[:-1]
        t, stop = 0, int(chunk_first[-1])
        while True:
            t, pool_used, vocab, k = _insert(keys, starts, ends, cp, t, stop, *table, bits, pool, pool_used,
                                             vocab, ids, k)
            if t == stop:
                break
            if 2 * (vocab + 1) > len(table[0]):
                *table, bits = _grown(*table, bits)
            else:
                pool = np.concatenate([pool, np.empty(len(pool) + ends[t] - starts[t], dtype=np.uint32)])
    first[len(strings)] = k
    return Numbered(ids[:k], first, (*table, bits, pool, vocab))


def token_distances(hypotheses: Sequence[str], references: Sequence[str],
                    threads: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Levenshtein distance between ``h.split()`` and ``r.split()`` per pair, and both token counts.

    Exactly rapidfuzz's ``Levenshtein.distance(h.split(), r.split())``. ``threads`` > 1 scores chunks
    of hypotheses on that many threads (the kernels release the GIL); the values do not depend on it.
    """
    if not AVAILABLE:
        raise RuntimeError("numba is not installed")
    hypotheses = list(hypotheses)
    n = len(hypotheses)
    ref_index, refs = distinct(references)
    numbered = number_tokens(refs)
    ref_ids, ref_first = numbered.ids, numbered.first
    ref_counts = np.diff(ref_first)
    words = max(1, (int(ref_counts.max(initial=0)) + 63) // 64)  # the shorter side is at most the reference
    distance = np.empty(n, dtype=np.int64)
    hyp_len = np.empty(n, dtype=np.int64)
    hyp_lengths = np.fromiter(map(len, hypotheses), dtype=np.int64, count=n)

    def run(lo: int) -> None:
        part = slice(lo, lo + _CHUNK)
        _distances(_code_points(hypotheses[part]), hyp_lengths[part], WHITESPACE, *numbered.table, ref_ids,
                   ref_first, ref_index[part], distance[part], hyp_len[part], words)

    starts = range(0, n, _CHUNK)
    if threads > 1 and len(starts) > 1:
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(threads) as pool_:
            list(pool_.map(run, starts))
    else:
        for lo in starts:
            run(lo)
    return distance, hyp_len, ref_counts[ref_index]
