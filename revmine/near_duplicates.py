"""Exact and near-duplicate detection over token bags, at the scale of a mined dataset.

Duplicates inflate a model's scores when a test example has a near-copy in training data (Allamanis,
"The adverse effects of code duplication in machine learning models of code", Onward! 2019). The
criterion is the one of Project CodeNet (Puri et al., "CodeNet: A Large-Scale AI for Code Dataset for
Learning a Diversity of Coding Tasks", NeurIPS Datasets and Benchmarks 2021), itself derived from
Allamanis's tool: two documents are near-duplicates when the Jaccard index of their token *sets* is at
least 0.9 **and** that of their token *multisets* (bags, counts kept) is at least 0.8. Allamanis used
0.8 / 0.7; both thresholds are configurable (:class:`NearDuplicateConfig`).

The join is **exact**: every pair meeting both thresholds is found, which is what a leak-free split needs
(a missed pair can straddle two splits). It used to take its candidates from MinHash LSH (``datasketch``),
tuned for 99.5% recall at the threshold; on 3,000 pairs planted at Jaccard 0.905 it missed 10, each a
potential train/test leak. Candidates now come from the pigeonhole principle on token sets (the
partitioning idea of Arasu, Ganti and Kaushik, "Efficient Exact Set-Similarity Joins", VLDB 2006):

* Two sets of sizes ``a <= s`` with set Jaccard ``>= t`` differ in at most
  ``k(s) = floor(2 s (1 - t) / (1 + t))`` tokens (their symmetric difference), and ``a >= t s``.
* Split the token vocabulary into ``k + 1`` groups: sets that differ in at most ``k`` tokens agree
  exactly on at least one group. Each set is indexed by (group, its tokens in that group), so a lookup
  per group finds every possible partner; the exact indices are then checked on each candidate.
* Documents are processed by increasing set size; a set of size ``a`` is indexed for every ``k(s)`` of
  the sizes ``s`` in ``[a, a / t]`` a later partner can have (one or two values of ``k`` in practice).

How many false candidates a group lets through depends on how much it tells sets apart, so tokens are
dealt to groups by the entropy of their presence (a token in every document tells nothing), each to the
group with the least so far. Abstracted code has a small vocabulary (keywords, punctuation, ``VAR_1``),
where prefix filtering (PPJoin) degenerates, but presence *and absence* of its tokens still separate
methods well. On the benchmark (``benchmarks/bench_near_duplicates.py``, 2 cores) 100k methods take 7 s and
370 MiB (the LSH it replaces: 36 s, 950 MiB), x12 CPU time for x10 methods.

Documents with identical bags are collapsed first (abstracted code repeats a lot: getters, setters): only
the first is indexed. A candidate pair already in one cluster is not verified again, since it could not
change the clusters; :attr:`Clusters.pairs` therefore holds the verified edges that built the clusters
(a spanning set), each with its exact indices, not every near-duplicate pair. Verified pairs are merged
with union-find (transitive closure: a chain of near-duplicates is one cluster).

:class:`NearDuplicateIndex` is the same join between two sets of documents (queries against references, never
queries among themselves), for a contamination check of a new dataset against a benchmark: the references
alone are indexed (by the same groups), each query looks its partners up and is verified exactly.

The filter stage clusters with it, and the split runs it again over its input so that no pair can straddle
two splits whatever produced that input; so it lives beside the stages rather than in either.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Sequence

import numpy as np

__all__ = ["Clusters", "NearDuplicateConfig", "NearDuplicateIndex", "UnionFind", "jaccard", "max_difference",
           "near_duplicate_clusters"]


@dataclass(frozen=True)
class NearDuplicateConfig:
    """The two thresholds a pair must meet (CodeNet's by default)."""

    set_threshold: float = 0.9
    multiset_threshold: float = 0.8

    def __post_init__(self) -> None:
        for name in ("set_threshold", "multiset_threshold"):
            value = getattr(self, name)
            if not 0.0 < value <= 1.0:
                raise ValueError(f"{name} must be in (0, 1], got {value}")


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


def max_difference(size: int, threshold: float) -> int:
    """The most tokens in which a set of ``size`` tokens and a set no larger can differ (symmetric
    difference) with set Jaccard >= ``threshold``: ``|x & y| >= t (|x| + |y|) / (1 + t)`` and
    ``|x| + |y| <= 2 size``. Rounded up by a hair: over-estimating only costs candidates."""
    return math.floor(2 * size * (1 - threshold) / (1 + threshold) + 1e-9)


class _Groups:
    """The vocabulary dealt into ``k + 1`` groups for each ``k`` asked for, balanced by information."""

    def __init__(self, frequency: Counter[int], n_docs: int):
        def entropy(count: int) -> float:
            p = count / n_docs
            return 0.0 if p >= 1.0 else -(p * math.log2(p) + (1 - p) * math.log2(1 - p))
        self._size = max(frequency, default=-1) + 1
        self._tokens = sorted(((entropy(c), t) for t, c in frequency.items()), key=lambda e: (-e[0], e[1]))
        self._group_of: dict[int, list[int]] = {}

    def group_of(self, k: int) -> list[int]:
        """token -> group in 0..k: each token (most informative first) to the group with the least so far."""
        if k not in self._group_of:
            load = [0.0] * (k + 1)
            assignment = [0] * self._size
            for information, token in self._tokens:
                group = min(range(k + 1), key=load.__getitem__)
                assignment[token] = group
                load[group] += information
            self._group_of[k] = assignment
        return self._group_of[k]

    def keys(self, tokens: Sequence[int], k: int) -> list[tuple[int, int, tuple[int, ...]]]:
        """(k, group, the set's tokens in that group) for every group of the ``k + 1`` (tokens sorted)."""
        group_of = self.group_of(k)
        parts: list[list[int]] = [[] for _ in range(k + 1)]
        for token in tokens:
            parts[group_of[token]].append(token)
        return [(k, group, tuple(part)) for group, part in enumerate(parts)]


def near_duplicate_clusters(docs: Sequence[Sequence[str]], config: NearDuplicateConfig | None = None) -> Clusters:
    """Cluster documents (token sequences) whose bags meet both Jaccard thresholds, transitively; exact."""
    config = config or NearDuplicateConfig()
    t = config.set_threshold
    union = UnionFind(len(docs))
    pairs: list[tuple[int, int, float, float]] = []
    vocabulary: dict[str, int] = {}
    sets: dict[int, tuple[int, ...]] = {}  # representatives: sorted distinct token numbers (tuples: small)
    first_of: dict[bytes, int] = {}
    for i, doc in enumerate(docs):
        # Identical bags: only the first is indexed; the others join it (exact indices 1 and 1).
        j = first_of.setdefault(_bag_digest(doc), i)
        if j != i and Counter(docs[j]) == Counter(doc):
            union.union(j, i)
            pairs.append((j, i, 1.0, 1.0))
        else:
            sets[i] = tuple(sorted(vocabulary.setdefault(token, len(vocabulary)) for token in sorted(set(doc))))
    groups = _Groups(Counter(token for tokens in sets.values() for token in tokens), len(sets))
    index: dict[tuple[int, int, tuple[int, ...]], list[int]] = defaultdict(list)
    for i in sorted(sets, key=lambda i: (len(sets[i]), i)):
        tokens = sets[i]
        size = len(tokens)
        # i is indexed for every partner size in [size, size / t] (later documents are no smaller) ...
        keys = {k: groups.keys(tokens, k)
                for k in {max_difference(s, t) for s in range(size, math.floor(size / t + 1e-9) + 1)}}
        mine = frozenset(tokens)
        seen: set[int] = set()
        for key in keys[max_difference(size, t)]:  # ... and looks up its partners of size <= its own
            for j in index.get(key, ()):
                if j in seen or union.find(i) == union.find(j):
                    continue  # already checked, or already one cluster: the pair could not change it
                seen.add(j)
                common = len(mine.intersection(sets[j]))  # the set index first: cheap, rejects most candidates
                if common / (size + len(sets[j]) - common) < t:
                    continue
                set_j, multi_j = jaccard(Counter(docs[j]), Counter(docs[i]))
                if set_j >= t and multi_j >= config.multiset_threshold:
                    union.union(j, i)
                    pairs.append((min(i, j), max(i, j), set_j, multi_j))
        for k in sorted(keys):
            for key in keys[k]:
                index[key].append(i)
    pairs.sort()
    return Clusters(union.labels(), pairs)


class NearDuplicateIndex:
    """Reference documents indexed so that any query finds every reference it is a near-duplicate of; exact.

    A document is a sequence of fields, each a sequence of tokens; a token counts as (its field, itself), as
    :meth:`revmine.rows.CandidateRows.bags` tags it for the split, without building the tagged strings
    (a million queries would spend a third of their time on them).

    A reference of set size ``r`` is indexed for every ``k(s)``, ``s`` in ``[r, r / t]``, and a query of size
    ``q`` looks up its keys for every ``k(s)``, ``s`` in ``[q, q / t]``: whichever of the two is larger, the
    ``k`` of the larger size is in both, so the pair agrees on one of its groups. A query token no reference
    has is in the symmetric difference of every pair; such tokens count as group 0, which the query then
    does not look up (it cannot agree there), and the pigeonhole holds on the other groups.
    """

    def __init__(self, references: Sequence[Sequence[Sequence[str]]], config: NearDuplicateConfig | None = None):
        self.config = config or NearDuplicateConfig()
        self._vocabularies: list[dict[str, int]] = []
        self._next = 0
        self._sets: list[frozenset[int]] = []
        self._bags: list[Counter[int]] = []
        self._exact: dict[tuple[str, ...], int] = {}
        for i, fields in enumerate(references):
            bag = self._bag(fields, grow=True)
            self._sets.append(frozenset(bag))
            self._bags.append(bag)
            self._exact.setdefault(_joined(fields), i)
        self._groups = _Groups(Counter(token for tokens in self._sets for token in tokens), len(self._sets))
        self._index: dict[tuple[int, int, tuple[int, ...]], list[int]] = defaultdict(list)
        for i, tokens in enumerate(self._sets):
            ordered = sorted(tokens)
            for k in self._ks(len(ordered)):
                for key in self._groups.keys(ordered, k):
                    self._index[key].append(i)

    def __len__(self) -> int:
        return len(self._sets)

    def _bag(self, fields: Sequence[Sequence[str]], grow: bool = False) -> Counter[int]:
        """Token counts by number; a token no reference has gets a negative number of its own."""
        bag: Counter[int] = Counter()
        unknown = 0
        for f, tokens in enumerate(fields):
            if grow and f == len(self._vocabularies):
                self._vocabularies.append({})
            vocabulary = self._vocabularies[f] if f < len(self._vocabularies) else {}
            for token, count in Counter(tokens).items():
                number = vocabulary.get(token)
                if number is None:
                    if grow:
                        number = vocabulary[token] = self._next
                        self._next += 1
                    else:
                        unknown -= 1
                        number = unknown
                bag[number] = count
        return bag

    def _ks(self, size: int) -> set[int]:
        t = self.config.set_threshold
        return {max_difference(s, t) for s in range(size, math.floor(size / t + 1e-9) + 1)}

    def exact(self, fields: Sequence[Sequence[str]]) -> int | None:
        """The first reference with the same tokens in the same order in every field, if any."""
        return self._exact.get(_joined(fields))

    def matches(self, fields: Sequence[Sequence[str]]) -> list[tuple[int, float, float]]:
        """``(reference, set_jaccard, multiset_jaccard)`` for every reference meeting both thresholds."""
        t = self.config.set_threshold
        bag = self._bag(fields)
        known = sorted(number for number in bag if number >= 0)
        if not known:
            return []
        size = len(bag)
        unknown = size > len(known)
        mine = frozenset(known)
        seen: set[int] = set()
        found = []
        for k in self._ks(size):
            for key in self._groups.keys(known, k):
                if unknown and key[1] == 0:
                    continue
                for j in self._index.get(key, ()):
                    if j in seen:
                        continue
                    seen.add(j)
                    other = self._sets[j]
                    common = len(mine.intersection(other))
                    if common / (size + len(other) - common) < t:
                        continue
                    set_j, multi_j = jaccard(bag, self._bags[j])
                    if set_j >= t and multi_j >= self.config.multiset_threshold:
                        found.append((j, set_j, multi_j))
        return found


def _joined(fields: Sequence[Sequence[str]]) -> tuple[str, ...]:
    """Equal for documents with the same tokens in the same order in every field."""
    return tuple(" ".join(tokens) for tokens in fields)


def _bag_digest(doc: Sequence[str]) -> bytes:
    """A digest equal for equal bags (a hash: equality is then checked on the bags themselves)."""
    return hashlib.blake2b("\x1f".join(sorted(doc)).encode("utf-8"), digest_size=16).digest()
