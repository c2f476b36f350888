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

Zhang-Shasha decomposes both trees along leftmost paths; its work is the product of the two trees' sums of
keyroot subtree sizes. Mirroring both trees (every node's children in reverse order) keeps the distance,
since an edit script of the trees is one of their mirrors, and decomposes them along rightmost paths
instead: the cheaper of the two is run, as RTED (Pawlik & Augsten 2011) chooses between paths. Methods
keep their big subtrees last (a method's body, a call's arguments, a statement's block), so mirrored
trees take half the work on the Tufano et al. 2021 predictions.
"""

from __future__ import annotations

import functools
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Sequence

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
    #: Zhang-Shasha's work on this side: the sum of the keyroots' subtree sizes (0: not computed)
    work: int = 0
    #: the same tree mirrored, or None (built by :meth:`build`, not by hand)
    mirrored: "PostorderTree | None" = None

    @property
    def size(self) -> int:
        return int(self.labels.shape[0])

    @classmethod
    def build(cls, labels: Sequence[int], leftmost: Sequence[int]) -> "PostorderTree":
        """From postorder label ids and leftmost-leaf numbers; keyroots (the highest node per leftmost leaf)
        and the mirrored tree are derived."""
        labels, leftmost = np.asarray(labels, dtype=np.int64), np.asarray(leftmost, dtype=np.int64)
        keyroots, work, *mirror = kernel(decompose)(labels, leftmost)
        return cls(labels, leftmost, keyroots, int(work), cls(*mirror[:3], int(mirror[3])))


def decompose(labels: np.ndarray,
              leftmost: np.ndarray) -> tuple[np.ndarray, int, np.ndarray, np.ndarray, np.ndarray, int]:
    """Keyroots and work of a postorder tree, and its mirror's labels, leftmost leaves, keyroots and work (the
    mirror's postorder is the original's preorder reversed).

    A node k's descendants are the nodes leftmost[k]..k, so the nodes before it in preorder are its
    ancestors and the leftmost[k] nodes left of its subtree: preorder(k) = leftmost[k] + depth(k).
    Plain Python that numba compiles, as :func:`zhang_shasha`.
    """
    n = leftmost.shape[0]
    depth = np.zeros(n, dtype=np.int64)
    stack = np.zeros(n, dtype=np.int64)
    top = 0
    for node in range(n - 1, -1, -1):  # reverse postorder: every node after its ancestors
        while top and node < leftmost[stack[top - 1]]:
            top -= 1
        depth[node] = top
        stack[top] = node
        top += 1
    mirrored_labels = np.zeros(n, dtype=np.int64)
    mirrored_leftmost = np.zeros(n, dtype=np.int64)
    for node in range(n):
        position = n - 1 - (leftmost[node] + depth[node])
        mirrored_labels[position] = labels[node]
        mirrored_leftmost[position] = position - (node - leftmost[node])
    sides = np.stack((leftmost, mirrored_leftmost))
    keyroot = np.zeros((2, n), dtype=np.bool_)  # the highest node of each leftmost leaf, per side
    seen = np.zeros((2, n), dtype=np.bool_)
    work = np.zeros(2, dtype=np.int64)
    for side in range(2):
        for node in range(n - 1, -1, -1):
            leaf = sides[side, node]
            if not seen[side, leaf]:
                seen[side, leaf] = True
                keyroot[side, node] = True
                work[side] += node - leaf + 1
    return (np.flatnonzero(keyroot[0]), work[0], mirrored_labels, mirrored_leftmost, np.flatnonzero(keyroot[1]),
            work[1])


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
def kernel(function: Callable[..., object] = zhang_shasha) -> Callable[..., Any]:
    """The compiled :func:`zhang_shasha` (or another function of this module, :func:`decompose`), or the
    Python one (with a warning) when numba is missing."""
    try:
        from numba import njit
    except ImportError:
        warnings.warn("numba is not installed: tree edit distance runs in pure Python (same values, ~100x slower)",
                      RuntimeWarning, stacklevel=3)
        return function
    return njit(cache=True, nogil=True)(function)


def tree_edit_distance(t1: PostorderTree, t2: PostorderTree) -> int:
    """Unit-cost tree edit distance between two trees whose label ids come from one shared vocabulary,
    along the cheaper of their leftmost and rightmost paths (module docstring)."""
    m1, m2 = t1.mirrored, t2.mirrored
    if m1 is not None and m2 is not None and m1.work * m2.work < t1.work * t2.work:
        t1, t2 = m1, m2
    return kernel()(t1.leftmost, t1.keyroots, t1.labels, t2.leftmost, t2.keyroots, t2.labels)
