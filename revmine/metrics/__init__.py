"""Scoring predictions: one small class per metric, each with a signature string that records its settings.

The one-call Python API (``revmine.metrics.api``): ``sentence_bleu``, ``corpus_bleu``, ``corpus_score``,
``compute``, ``names``. The metric classes the README shows (``CodeBLEU().components(...)``) are importable from
here too; they load on first use (PEP 562), so importing the package does not pay for tree-sitter's grammars.
"""

from importlib import import_module
from typing import Any

from .api import Score, compute, corpus_bleu, corpus_score, names, sentence_bleu

#: Metric classes by name, and the module of this package that defines each.
_CLASSES = {"BLEU": "bleu", "BLEUNorm": "bleu", "CodeBLEU": "codebleu", "CrystalBLEU": "crystalbleu",
            "Rouge": "text", "Ruby": "ruby", "StructureDistance": "tree", "WordEditRate": "cmg2022"}

__all__ = ["Score", "compute", "corpus_bleu", "corpus_score", "names", "sentence_bleu", *_CLASSES]


def __getattr__(name: str) -> Any:
    if name not in _CLASSES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f".{_CLASSES[name]}", __name__), name)
