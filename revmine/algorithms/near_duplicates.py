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
methods well. On the benchmark (``benchmarks/bench_near_duplicates.py``, 2 cores, median of 3) 100k methods
take 5.7 s of CPU and 374 MiB (the LSH it replaces: 36 s, 950 MiB); 1M take 125 s and 2,902 MiB, x22 the CPU
for x10 methods: on the benchmark's fixed vocabulary of about 100 tokens more methods share each key (3.4
look-ups a method at 100k, 30 at 1M), while the candidates passing the first check grow linearly.

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

import bisect
import hashlib
import math
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..runtime.engine import Engine, chunks
from .near_duplicate_config import NearDuplicateConfig

__all__ = ["Clusters", "NearDuplicateConfig", "NearDuplicateIndex", "UnionFind", "jaccard", "max_difference",
           "near_duplicate_clusters"]


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


def near_duplicate_clusters(docs: Sequence[Sequence[str]], config: NearDuplicateConfig | None = None,
                            engine: Engine | None = None) -> Clusters:
    """Cluster documents (token sequences) whose bags meet both Jaccard thresholds, transitively; exact.

    ``engine``: a Dask engine (:mod:`revmine.runtime.engine`) runs the join partitioned (:func:`_partitioned_pairs`);
    the clusters, hence ``labels``, are the same as in-process, ``pairs`` another spanning set of them.
    """
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
    order = sorted(sets, key=lambda i: (len(sets[i]), i))
    if engine is not None and engine.name != "local":
        for i, j, set_j, multi_j in _partitioned_pairs(order, sets, docs, vocabulary, groups, config, engine):
            if union.union(i, j):
                pairs.append((i, j, set_j, multi_j))
        pairs.sort()
        return Clusters(union.labels(), pairs)
    index: dict[tuple[int, int, tuple[int, ...]], list[int]] = defaultdict(list)
    for i in order:
        tokens = sets[i]
        size = len(tokens)
        keys = {k: groups.keys(tokens, k) for k in _partner_ks(size, t)}
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


def _partner_ks(size: int, t: float) -> set[int]:
    """The ``k`` a set of ``size`` tokens is indexed under: one per partner size in ``[size, size / t]``
    (partners come later, so are no smaller); it looks its own partners up under ``k(size)``."""
    return {max_difference(s, t) for s in range(size, math.floor(size / t + 1e-9) + 1)}


def _partitioned_pairs(order: list[int], sets: dict[int, tuple[int, ...]], docs: Sequence[Sequence[str]],
                       vocabulary: dict[str, int], groups: _Groups, config: NearDuplicateConfig,
                       engine: Engine) -> list[tuple[int, int, float, float]]:
    """The join on an engine's workers: verified pairs ``(i, j, set, multiset)``, i < j, enough to build
    the same clusters as the in-process loop.

    The representatives are numbered by rank (the in-process order: size, then index). Workers compute
    each one's pigeonhole keys (the same as in-process, hashed to an int: a collision only adds a candidate,
    which is then rejected by the exact check) over chunks of ranks; the client deals the keys to
    partitions by hash; each partition is joined on a worker: rank b is a candidate of rank a < b when b
    looks up a key a is indexed under (exactly the in-process candidates), and is verified exactly, unless
    the pairs that partition verified already connect them (they are returned, so the clusters are
    unchanged). The client merges the pairs with union-find.
    """
    t = config.set_threshold
    bags = []
    for i in order:
        counts = Counter(vocabulary[token] for token in docs[i])
        bags.append((sets[i], tuple(counts[token] for token in sets[i])))
    needed = set().union(*(_partner_ks(len(tokens), t) for tokens in sets.values())) if sets else set()
    assignment = {k: groups.group_of(k) for k in sorted(needed)}
    n_parts = 2 * getattr(engine, "window", 2)
    parts: list[dict[int, tuple[list[int], list[int]]]] = [{} for _ in range(n_parts)]
    ranks = range(len(order))
    per_task = -(-len(ranks) // n_parts) or 1
    for keyed in engine.map(_rank_keys, chunks(ranks, per_task), [tokens for tokens, _ in bags], assignment, t,
                            n_parts):
        for part, entries in zip(parts, keyed):
            for key, rank, looks in entries:  # ranks come in order: each list stays sorted
                indexed, lookups = part.setdefault(key, ([], []))
                (lookups if looks else indexed).append(rank)
    found = []
    for verified in engine.map(_join_partition, parts, bags, t, config.multiset_threshold):
        found.extend((order[a], order[b], set_j, multi_j) for a, b, set_j, multi_j in verified)
    return found


def _rank_keys(ranks: range, sets: list[tuple[int, ...]], assignment: dict[int, list[int]], t: float,
               n_parts: int) -> list[list[tuple[int, int, bool]]]:
    """Per partition, ``(key hash, rank, looks up)`` of every pigeonhole key of the given ranks: looked up
    under ``k(size)``, indexed under every partner ``k`` (both, when they coincide)."""
    out: list[list[tuple[int, int, bool]]] = [[] for _ in range(n_parts)]
    for rank in ranks:
        tokens = sets[rank]
        own = max_difference(len(tokens), t)
        for k in sorted(_partner_ks(len(tokens), t)):
            group_of = assignment[k]
            split: list[list[int]] = [[] for _ in range(k + 1)]
            for token in tokens:
                split[group_of[token]].append(token)
            for group, part in enumerate(split):
                key = hash((k, group, tuple(part)))
                if k == own:
                    out[key % n_parts].append((key, rank, True))
                out[key % n_parts].append((key, rank, False))
    return out


def _join_partition(part: dict[int, tuple[list[int], list[int]]], bags: list[tuple[tuple[int, ...], tuple[int, ...]]],
                    t: float, multiset_threshold: float) -> list[tuple[int, int, float, float]]:
    """The verified pairs ``(a, b, set, multiset)`` of ranks a < b among one partition's candidates."""
    candidates: dict[int, set[int]] = defaultdict(set)
    for indexed, lookups in part.values():
        if indexed and lookups:
            for b in lookups:
                candidates[b].update(indexed[:bisect.bisect_left(indexed, b)])
    local = UnionFind(len(bags))
    verified = []
    for b in sorted(candidates):
        tokens_b, counts_b = bags[b]
        mine, count_of = frozenset(tokens_b), dict(zip(tokens_b, counts_b))
        for a in sorted(candidates[b]):
            if local.find(a) == local.find(b):
                continue
            tokens_a, counts_a = bags[a]
            common = mine.intersection(tokens_a)
            union_size = len(tokens_a) + len(tokens_b) - len(common)
            if len(common) / union_size < t:
                continue
            theirs = dict(zip(tokens_a, counts_a))
            inter = sum(min(count_of[token], theirs[token]) for token in common)
            multi = inter / (sum(counts_a) + sum(counts_b) - inter)  # as :func:`jaccard` computes them
            if multi >= multiset_threshold:
                local.union(a, b)
                verified.append((a, b, len(common) / union_size, multi))
    return verified
class NearDuplicateIndex:
    """Reference documents indexed so that any query finds every reference it is a near-duplicate of; exact.

    A document is a sequence of fields, each a sequence of tokens; a token counts as (its field, itself), as
    :meth:`revmine.io.rows.CandidateRows.bags` tags it for the split, without building the tagged strings
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
        return _partner_ks(size, self.config.set_threshold)

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
