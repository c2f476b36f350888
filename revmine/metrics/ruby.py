"""RUBY (Tran, Tran, Nguyen, Nguyen & Nguyen, "Does BLEU Score Work for Code Migration?", ICPC 2019): one
similarity per pair, from the most informative representation both sides have.

Definition followed: the paper's cascade. A pair is scored

1. on program dependence graphs when both sides have one: ``gved_sim``, 1 - GED / (|V_h| + |E_h| + |V_r| +
   |E_r|) (:mod:`revmine.metrics.graph`; our PDGs are built from javalang's parse, so "has a PDG" means
   "javalang reads it", Java 8);
2. else on ASTs when both sides parse: ``treed_sim``, 1 - TED / (|T_h| + |T_r|) (:mod:`revmine.metrics.tree`,
   tree-sitter-java by default, ``parser="javalang"`` for javalang's trees);
3. else on tokens: 1 - ``sed(normalize=max)``, one minus the whitespace-token edit distance over the
   longer side (RUBY's string similarity, :class:`revmine.metrics.edit.SED`).

All three lie in [0, 1], higher is better, 1 for identical code. Each level is the existing metric's value,
computed by its own class (a row scored at level 1 equals ``gved_sim``, at level 2 ``treed_sim``, at level 3
``1 - sed_max``). Which level scored a row is per row, so it is not in the signature (which names the three
levels and their settings): :meth:`Ruby.sentence_details` gives it. The levels differ in scale (a graph
distance over whole statements is coarser than a token distance), so a mean over rows scored at different
levels mixes them, as RUBY does; ``sentence_details(...).counts()`` says how many rows each level scored.

When does the tree level score a pair? Under the default tree-sitter parser, whenever a side has an AST but
no PDG: code tree-sitter reads and javalang does not, i.e. Java 9 and later (switch expressions, ``yield``,
``instanceof`` patterns, records, text blocks). With ``parser="javalang"`` an AST exists exactly when a
PDG does, so the tree level never scores a pair and RUBY is ``gved_sim(fallback=sed)``, which is what that
setting of GVED computed before this metric. Code neither parser reads (NMT output cut mid-method, about a
fifth of the distinct k=10 predictions of Tufano et al. 2021) goes to the string level.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib.metadata import version
from typing import ClassVar, Sequence

import numpy as np

from .base import Metric, check_lengths
from .graph import GraphEditSimilarity
from .tree import ParserName, TreeEditSimilarity

#: the cascade's levels, in order; ``RubyScores.level`` holds their indices
LEVELS = ("graph", "tree", "string")
GRAPH, TREE, STRING = range(len(LEVELS))


@dataclass(frozen=True)
class RubyScores:
    """Per row: the RUBY score and the level of the cascade that gave it (an index into ``LEVELS``)."""

    score: np.ndarray
    level: np.ndarray

    def counts(self) -> dict[str, int]:
        """How many rows each level scored."""
        return {name: int((self.level == i).sum()) for i, name in enumerate(LEVELS)}


class Ruby(Metric):
    """RUBY's cascade, graph -> tree -> string similarity (module docstring); column ``ruby``, or
    ``ruby_javalang`` with javalang's trees at the tree level."""

    name: ClassVar[str] = "ruby"

    def __init__(self, parser: ParserName = "tree-sitter", repair: bool = True, wrap: bool = True) -> None:
        self._graph = GraphEditSimilarity(fallback="nan", repair=repair, wrap=wrap)
        self._tree = TreeEditSimilarity(fallback="sed", repair=repair, wrap=wrap, parser=parser)
        self.parser, self.repair, self.wrap = parser, repair, wrap

    @property
    def column(self) -> str:
        return self.name if self.parser == "tree-sitter" else f"{self.name}_javalang"

    def settings(self) -> dict[str, object]:
        tree = self._tree.settings()  # the parser, repair and wrap as the tree level names them
        return {
            "levels": "pdg>ast>tokens",
            "graph": f"pdg-javalang-{version('javalang')}",
            "ged": "bipartite",
            "tree": tree["parser"],
            "string": "sed-max-space",
            "cost": "unit",
            "norm": "nodes+edges/nodes/max-len",
            "repair": tree["repair"],
            "wrap": tree["wrap"],
        }

    def sentence_details(self, hypotheses: Sequence[str], references: Sequence[str]) -> RubyScores:
        """Scores and the level that gave each: ``gved_sim`` where both sides have a PDG, on the other rows
        ``treed_sim(fallback=sed)``, whose own fallback rows are the string level."""
        check_lengths(hypotheses, references)
        graph = self._graph.sentence_details(hypotheses, references)
        score = graph.score.copy()
        level = np.where(graph.fallback, TREE, GRAPH).astype(np.int8)
        rows = np.flatnonzero(graph.fallback)
        if rows.size:
            tree = self._tree.sentence_details([hypotheses[i] for i in rows], [references[i] for i in rows])
            score[rows] = tree.score
            level[rows[tree.fallback]] = STRING
        return RubyScores(score, level)

    def sentence_scores(self, hypotheses: Sequence[str], references: Sequence[str]) -> np.ndarray:
        return self.sentence_details(hypotheses, references).score


__all__ = ["LEVELS", "Ruby", "RubyScores"]
