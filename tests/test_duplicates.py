"""Near-duplicate detection: exact Jaccard, the LSH recall guarantee, and agreement with brute force."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest

from revmine.filters.duplicates import NearDuplicateConfig, UnionFind, jaccard, lsh_params, near_duplicate_clusters


def test_jaccard_set_and_multiset():
    a, b = Counter("a a b c".split()), Counter("a b b d".split())
    set_j, multi_j = jaccard(a, b)
    assert set_j == pytest.approx(2 / 4)  # {a, b} / {a, b, c, d}
    assert multi_j == pytest.approx(2 / 6)  # min: a1 b1; max: a2 b2 c1 d1
    assert jaccard(Counter(), Counter()) == (1.0, 1.0)
    assert jaccard(a, Counter()) == (0.0, 0.0)


@pytest.mark.parametrize("threshold, recall", [(0.9, 0.995), (0.8, 0.99), (0.5, 0.9)])
def test_lsh_params_meet_the_recall_at_the_threshold(threshold, recall):
    bands, rows = lsh_params(threshold, 128, recall)
    assert bands * rows <= 128
    assert 1 - (1 - threshold ** rows) ** bands >= recall


def test_union_find_labels_are_smallest_members():
    union = UnionFind(5)
    union.union(4, 2)
    union.union(2, 3)
    assert not union.union(3, 4)
    assert union.labels().tolist() == [0, 1, 2, 2, 2]


def _corpus(n: int, seed: int) -> list[list[str]]:
    """Random 40-token documents; every fourth one a light edit of an earlier one (a planted near-duplicate)."""
    rng = random.Random(seed)
    vocab = [f"t{k}" for k in range(400)]
    docs: list[list[str]] = []
    for i in range(n):
        if i % 4 == 3:
            doc = list(docs[rng.randrange(i)])
            doc[rng.randrange(len(doc))] = rng.choice(vocab) if rng.random() < 0.5 else doc[0]
            docs.append(doc)
        else:
            docs.append(rng.sample(vocab, 40))
    return docs


def _brute_force(docs: list[list[str]], config: NearDuplicateConfig) -> list[int]:
    bags = [Counter(d) for d in docs]
    union = UnionFind(len(docs))
    for i, j in combinations(range(len(docs)), 2):
        set_j, multi_j = jaccard(bags[i], bags[j])
        if set_j >= config.set_threshold and multi_j >= config.multiset_threshold:
            union.union(i, j)
    return union.labels().tolist()


@pytest.mark.parametrize("config", [NearDuplicateConfig(), NearDuplicateConfig(set_threshold=0.8, multiset_threshold=0.7)])
def test_clusters_match_brute_force_and_every_pair_is_verified(config):
    docs = _corpus(300, seed=7)
    clusters = near_duplicate_clusters(docs, config)
    assert clusters.labels.tolist() == _brute_force(docs, config)
    assert clusters.count < len(docs)  # the planted near-duplicates were found
    bags = [Counter(d) for d in docs]
    for i, j, set_j, multi_j in clusters.pairs:
        assert i < j and (set_j, multi_j) == jaccard(bags[i], bags[j])
        assert set_j >= config.set_threshold and multi_j >= config.multiset_threshold


def test_thresholds_are_configurable_allamanis_vs_codenet():
    base = [f"t{k}" for k in range(20)]
    edited = base[:18] + ["x", "y"]  # set Jaccard 18/22 = 0.82, multiset the same
    assert near_duplicate_clusters([base, edited]).count == 2  # CodeNet: 0.9 / 0.8
    allamanis = NearDuplicateConfig(set_threshold=0.8, multiset_threshold=0.7)
    assert near_duplicate_clusters([base, edited], allamanis).count == 1


def test_multiset_threshold_separates_bags_with_the_same_set():
    short = ["a", "b", "c", "d"] * 2
    long = ["a", "b", "c", "d"] * 2 + ["a"] * 6  # same set, multiset Jaccard 8/14
    clusters = near_duplicate_clusters([short, long, list(short)])
    assert clusters.labels.tolist() == [0, 1, 0]


def test_config_is_validated():
    with pytest.raises(ValueError, match="set_threshold"):
        NearDuplicateConfig(set_threshold=1.5)
