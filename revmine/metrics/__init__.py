"""Scoring predictions: one small class per metric, each with a signature string that records its settings.

The one-call Python API (``revmine.metrics.api``): ``sentence_bleu``, ``corpus_bleu``, ``corpus_score``,
``compute``, ``names``.
"""

from .api import Score, compute, corpus_bleu, corpus_score, names, sentence_bleu

__all__ = ["Score", "compute", "corpus_bleu", "corpus_score", "names", "sentence_bleu"]
