"""Ordered tree edit distance with unit costs: Zhang & Shasha (1989), compiled with numba when available.

Zhang, K. and Shasha, D. "Simple fast algorithms for the editing distance between trees and related
problems", SIAM J. Comput. 18(6), 1989. The distance is the least number of node deletions, insertions
and renamings (relabellings) that turn one ordered labelled tree into the other; every operation costs 1
and renaming a node to its own label costs 0.

Why this module exists: the pure-Python packages (``zss``, ``apted``) take 20-180 ms for a pair of
~40-node method ASTs, far too slow to score a 17,000-prediction beam. The algorithm below is the textbook
keyroot dynamic programme over flat integer arrays, written so that numba compiles it unchanged
(about 0.1 ms a pair). numba is BSD-licensed, has wheels for every platform numpy has, and is imported
only when a distance is first computed; without it the same function runs as plain Python (identical
values, ~100x slower) after a warning. ``edist`` (a Cython TED) was measured too and is as fast, but it
is GPL-3.0, which an MIT-licensed package should not import.
"""

from __future__ import annotations

import functools
import warnings
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np


@dataclass(frozen=True)
class PostorderTree:
    """A tree as Zhang-Shasha needs it: nodes numbered in postorder (root last).

    ``labels[k]`` is node k's label id (equal ids = equal labels), ``leftmost[k]`` the postorder number of
    the leftmost leaf under k, ``keyroots`` the nodes that have a left sibling, plus the root, ascending.
    """

    labels: np.ndarray
    leftmost: np.ndarray
    keyroots: np.ndarray

    @property
    def size(self) -> int:
        return int(self.labels.shape[0])

    @classmethod
    def build(cls, labels: Sequence[int], leftmost: Sequence[int]) -> "PostorderTree":
        """From postorder label ids and leftmost-leaf numbers; keyroots are derived (the highest node per leftmost leaf)."""
        last_with_leaf = {leaf: node for node, leaf in enumerate(leftmost)}
        return cls(np.asarray(labels, dtype=np.int64), np.asarray(leftmost, dtype=np.int64),
                   np.array(sorted(last_with_leaf.values()), dtype=np.int64))


def zhang_shasha(l1: np.ndarray, kr1: np.ndarray, lab1: np.ndarray,
                 l2: np.ndarray, kr2: np.ndarray, lab2: np.ndarray) -> int:
    """Unit-cost tree edit distance of two postorder trees (leftmost leaves, keyroots, label ids).

    Plain Python on purpose: numba compiles it as is (see :func:`kernel`). ``fd`` is indexed with
    absolute postorder numbers shifted by one, so the forest distances of every keyroot pair live in one
    preallocated matrix; ``td[x, y]`` is the distance between the subtrees rooted at x and y. Time grows
    as n1 * n2 * (keyroot nesting)^2 and memory as 8 * n1 * n2 bytes: trivial for methods, seconds for
    trees of thousands of nodes.
    """
    n1 = l1.shape[0]
    n2 = l2.shape[0]
    td = np.zeros((n1, n2), dtype=np.int32)  # distances are at most n1 + n2
    fd = np.zeros((n1 + 1, n2 + 1), dtype=np.int32)
    for i in kr1:
        li = l1[i]
        for j in kr2:
            lj = l2[j]
            fd[li, lj] = 0
            for x in range(li, i + 1):
                fd[x + 1, lj] = fd[x, lj] + 1
            for y in range(lj, j + 1):
                fd[li, y + 1] = fd[li, y] + 1
            for x in range(li, i + 1):
                lx = l1[x]
                for y in range(lj, j + 1):
                    best = min(fd[x, y + 1], fd[x + 1, y]) + 1  # delete x / insert y
                    if lx == li and l2[y] == lj:  # both forests are whole trees: rename x into y
                        best = min(best, fd[x, y] + (0 if lab1[x] == lab2[y] else 1))
                        td[x, y] = best
                    else:  # match the subtrees of x and y, computed for an earlier keyroot pair
                        best = min(best, fd[lx, l2[y]] + td[x, y])
                    fd[x + 1, y + 1] = best
    return int(td[n1 - 1, n2 - 1])


@functools.cache
def kernel() -> Callable[..., int]:
    """The compiled :func:`zhang_shasha`, or the Python one (with a warning) when numba is missing."""
    try:
        from numba import njit
    except ImportError:
        warnings.warn("numba is not installed: tree edit distance runs in pure Python (same values, ~100x slower)",
                      RuntimeWarning, stacklevel=3)
        return zhang_shasha
    return njit(cache=True, nogil=True)(zhang_shasha)


def tree_edit_distance(t1: PostorderTree, t2: PostorderTree) -> int:
    """Unit-cost tree edit distance between two trees whose label ids come from one shared vocabulary."""
    return kernel()(t1.leftmost, t1.keyroots, t1.labels, t2.leftmost, t2.keyroots, t2.labels)
