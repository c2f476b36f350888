"""Exact and near-duplicate detection over token bags, at the scale of a mined dataset.

Duplicates inflate a model's scores when a test example has a near-copy in training data (Allamanis,
"The adverse effects of code duplication in machine learning models of code", Onward! 2019). The
criterion is the one of Project CodeNet (Puri et al., "CodeNet: A Large-Scale AI for Code Dataset for
Learning a Diversity of Coding Tasks", NeurIPS Datasets and Benchmarks 2021), itself derived from
Allamanis's tool: two documents are near-duplicates when the Jaccard index of their token *sets* is at
least 0.9 **and** that of their token *multisets* (bags, counts kept) is at least 0.8. Allamanis used
0.8 / 0.7; both thresholds are configurable (:class:`NearDuplicateConfig`).

Comparing all pairs is quadratic, so candidates come from MinHash locality-sensitive hashing
(``datasketch``): MinHash estimates the set Jaccard index, and the banding parameters are chosen so that a
pair exactly at the set threshold is a candidate with probability ``recall`` (0.995 by default; more
similar pairs are missed far less often). Every candidate pair is then checked with the *exact* set and
multiset Jaccard indices (the set index first, on integer sets, as it rejects most candidates cheaply), so
no pair is ever reported on an estimate. Verified pairs are merged with union-find into clusters
(transitive closure: a chain of near-duplicates is one cluster, which is what a leak-free split needs).

Two choices keep the cost linear on code. Documents with identical bags are collapsed before hashing
(abstracted code repeats a lot: getters, setters), which also keeps LSH buckets small. And 256
permutations (19 bands of 13 rows at 0.9) rather than the usual 128: abstracted methods share most of their
tokens (brackets, keywords, ``VAR_1``), and with 128 the false candidates among moderately similar methods
grew quadratically (x15 CPU time for x10 methods in ``benchmarks/bench_near_duplicates.py``, x8.6 with 256,
for about a quarter more memory).

A candidate pair whose documents are already in one cluster is not verified again: it could not change
the clusters. :attr:`Clusters.pairs` therefore holds the verified edges that built the clusters (a spanning
set), each with its exact indices, not every near-duplicate pair.
"""

from __future__ import annotations

import hashlib
import zlib
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

__all__ = ["Clusters", "NearDuplicateConfig", "UnionFind", "jaccard", "lsh_params", "near_duplicate_clusters"]


@dataclass(frozen=True)
class NearDuplicateConfig:
    """Thresholds (CodeNet's by default) and the MinHash LSH settings that find candidates for them."""

    set_threshold: float = 0.9
    multiset_threshold: float = 0.8
    num_perm: int = 256
    recall: float = 0.995  # probability that a pair exactly at set_threshold becomes a candidate
    seed: int = 1  # MinHash permutations: results are verified, so the seed only affects rare misses

    def __post_init__(self) -> None:
        for name in ("set_threshold", "multiset_threshold", "recall"):
            value = getattr(self, name)
            if not 0.0 < value <= 1.0:
                raise ValueError(f"{name} must be in (0, 1], got {value}")
        if self.num_perm < 2:
            raise ValueError(f"num_perm must be at least 2, got {self.num_perm}")


@dataclass(frozen=True)
class Clusters:
    """``labels[i]``: the smallest document index of document i's cluster; ``pairs``: verified edges
    ``(i, j, set_jaccard, multiset_jaccard)`` with i < j."""

    labels: np.ndarray
    pairs: list[tuple[int, int, float, float]]

    @property
    def count(self) -> int:
        return int(np.unique(self.labels).size)


class UnionFind:
    """Disjoint sets over 0..n-1 with path halving; the root of a set is always its smallest member,
    so labels do not depend on the order in which pairs were merged."""

    def __init__(self, n: int):
        self.parent = list(range(n))

    def find(self, i: int) -> int:
        parent = self.parent
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def union(self, i: int, j: int) -> bool:
        """Merge the sets of i and j; False when they were already one set."""
        ri, rj = self.find(i), self.find(j)
        if ri == rj:
            return False
        if rj < ri:
            ri, rj = rj, ri
        self.parent[rj] = ri
        return True

    def labels(self) -> np.ndarray:
        return np.fromiter((self.find(i) for i in range(len(self.parent))), dtype=np.int64,
                           count=len(self.parent))


def jaccard(a: Counter[str], b: Counter[str]) -> tuple[float, float]:
    """Exact (set Jaccard, multiset Jaccard) of two token bags; two empty bags are identical (1, 1)."""
    if not a and not b:
        return 1.0, 1.0
    keys_a, keys_b = a.keys(), b.keys()
    common = keys_a & keys_b
    union = len(keys_a) + len(keys_b) - len(common)
    inter_count = sum(min(a[k], b[k]) for k in common)
    union_count = sum(a.values()) + sum(b.values()) - inter_count  # sum of max = sum a + sum b - sum min
    return len(common) / union, inter_count / union_count


def lsh_params(threshold: float, num_perm: int, recall: float) -> tuple[int, int]:
    """(bands, rows) with the most rows per band (fewest false candidates) such that a pair of set
    Jaccard ``threshold`` collides in some band with probability at least ``recall``."""
    for rows in range(num_perm, 0, -1):
        bands = num_perm // rows
        if 1.0 - (1.0 - threshold ** rows) ** bands >= recall:
            return bands, rows
    return num_perm, 1


def near_duplicate_clusters(docs: Sequence[Sequence[str]], config: NearDuplicateConfig | None = None) -> Clusters:
    """Cluster documents (token sequences) whose bags meet both Jaccard thresholds, transitively."""
    from datasketch import MinHash, MinHashLSH  # imported here: only this stage needs it

    config = config or NearDuplicateConfig()
    union = UnionFind(len(docs))
    pairs: list[tuple[int, int, float, float]] = []
    bands, rows = lsh_params(config.set_threshold, config.num_perm, config.recall)
    lsh = MinHashLSH(num_perm=config.num_perm, params=(bands, rows))
    template = MinHash(num_perm=config.num_perm, seed=config.seed, hashfunc=_identity)
    vocabulary: dict[str, int] = {}
    token_hash: list[int] = []  # by token number: a 32-bit content hash, stable across runs
    sets: dict[int, tuple[int, ...]] = {}  # distinct token numbers of each representative (a tuple: 6x smaller)
    first_of: dict[bytes, int] = {}
    for i, doc in enumerate(docs):
        # Identical bags: only the first is hashed; the others join it (exact indices 1 and 1).
        j = first_of.setdefault(_bag_digest(doc), i)
        if j != i and Counter(docs[j]) == Counter(doc):
            union.union(j, i)
            pairs.append((j, i, 1.0, 1.0))
            continue
        numbers = frozenset(_numbers(doc, vocabulary, token_hash))
        minhash = MinHash(num_perm=config.num_perm, seed=config.seed, hashfunc=_identity,
                          permutations=template.permutations, scheme=template.scheme)
        minhash.update_batch([token_hash[t] for t in numbers])
        # Query before inserting: each candidate pair is seen once, as (earlier, later).
        for j in sorted(lsh.query(minhash)):
            if union.find(i) == union.find(j):
                continue  # already one cluster: the pair could not change it
            common = len(numbers.intersection(sets[j]))  # the set index first: cheap, rejects most candidates
            if common / (len(numbers) + len(sets[j]) - common) < config.set_threshold:
                continue
            set_j, multi_j = jaccard(Counter(docs[j]), Counter(doc))
            if set_j >= config.set_threshold and multi_j >= config.multiset_threshold:
                union.union(j, i)
                pairs.append((j, i, set_j, multi_j))
        sets[i] = tuple(numbers)
        lsh.insert(i, minhash, check_duplication=False)
    pairs.sort()
    return Clusters(union.labels(), pairs)


def _identity(value: int) -> int:
    return value


def _bag_digest(doc: Sequence[str]) -> bytes:
    """A digest equal for equal bags (a hash: equality is then checked on the bags themselves)."""
    return hashlib.blake2b("\x1f".join(sorted(doc)).encode("utf-8"), digest_size=16).digest()


def _numbers(doc: Iterable[str], vocabulary: dict[str, int], token_hash: list[int]) -> list[int]:
    """The documents' tokens as small integers, registering new tokens and their content hashes."""
    out = []
    for token in doc:
        number = vocabulary.get(token)
        if number is None:
            number = vocabulary[token] = len(token_hash)
            token_hash.append(zlib.crc32(token.encode("utf-8")))
        out.append(number)
    return out
