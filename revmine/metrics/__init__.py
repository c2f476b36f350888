"""Scoring predictions: one small class per metric, each with a signature string that records its settings.

The one-call Python API (``revmine.metrics.api``): ``sentence_bleu``, ``corpus_bleu``, ``corpus_score``,
``compute``, ``names``. The metric classes the README shows (``CodeBLEU().components(...)``) are importable from
here too. Both load on first use (PEP 562), so importing the package pays neither for numpy nor for tree-sitter's
grammars.
"""

from importlib import import_module
from typing import Any

#: What the package exports by name, and the module of this package that defines each: the one-call API and the
#: metric classes. Loaded on first use, so that reading a command's settings (:mod:`.options`) imports no numpy.
_EXPORTS = {**dict.fromkeys(("Score", "compute", "corpus_bleu", "corpus_score", "names", "sentence_bleu"), "api"),
            "BLEU": "bleu", "BLEUNorm": "bleu", "CodeBLEU": "codebleu", "CrystalBLEU": "crystalbleu",
            "Rouge": "text", "Ruby": "ruby", "StructureDistance": "tree", "WordEditRate": "cmg2022"}

__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
