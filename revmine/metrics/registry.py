"""Metric names for the command line and the default metric sets.

A metric is named by its registry key, optionally with constructor settings in parentheses:
``bleu``, ``bleu(tokenize=char, smooth=nltk0)``, ``sed(normalize=max)``, ``rougeL(stemmer=true)``.
Settings are passed to the metric's class as keyword arguments, so every setting the class documents
is reachable without a new registry entry; the resulting signature records them.
"""

from __future__ import annotations

import re
from typing import Callable

from .base import Metric


def _bleu(**kw: object) -> Metric:
    from .bleu import BLEU
    return BLEU(**kw)


def _bleu_moses(**kw: object) -> Metric:
    from .bleu import BLEUMoses
    return BLEUMoses(**kw)


def _bleu_cc(**kw: object) -> Metric:
    from .bleu import BLEUCC
    return BLEUCC(**kw)


def _bleu_norm(**kw: object) -> Metric:
    from .bleu import BLEUNorm
    return BLEUNorm(**kw)


def _levenshtein(**kw: object) -> Metric:
    from .edit import Levenshtein
    return Levenshtein(**kw)


def _levenshtein_sim(**kw: object) -> Metric:
    from .edit import LevenshteinSimilarity
    return LevenshteinSimilarity(**kw)


def _sed(**kw: object) -> Metric:
    from .edit import SED
    return SED(**kw)


def _treed(**kw: object) -> Metric:
    from .tree import TreeEditDistance
    return TreeEditDistance(**kw)


def _treed_sim(**kw: object) -> Metric:
    from .tree import TreeEditSimilarity
    return TreeEditSimilarity(**kw)


def _rouge(variant: str) -> Callable[..., Metric]:
    def make(**kw: object) -> Metric:
        from .text import Rouge
        return Rouge(variant, **kw)  # type: ignore[arg-type]
    return make


def _chrf(**kw: object) -> Metric:
    from .text import Chrf
    return Chrf(**kw)


def _ter(**kw: object) -> Metric:
    from .text import Ter
    return Ter(**kw)


def _meteor(**kw: object) -> Metric:
    from .meteor import Meteor
    return Meteor(**kw)


def _meteor_next(**kw: object) -> Metric:
    from .meteor import MeteorNext
    return MeteorNext(**kw)


def _log_mnext(**kw: object) -> Metric:
    from .meteor import LogMnext
    return LogMnext(**kw)


#: Registry key -> factory taking the metric's keyword settings. Imports are lazy so that scoring code
#: does not load WordNet or javalang unless asked.
METRICS: dict[str, Callable[..., Metric]] = {
    "bleu": _bleu,
    "bleu_moses": _bleu_moses,
    "bleu_cc": _bleu_cc,
    "bleu_norm": _bleu_norm,
    "levenshtein": _levenshtein,
    "levenshtein_sim": _levenshtein_sim,
    "sed": _sed,
    "treed": _treed,
    "treed_sim": _treed_sim,
    "rouge1": _rouge("1"),
    "rouge2": _rouge("2"),
    "rougeL": _rouge("L"),
    "chrf": _chrf,
    "ter": _ter,
    "meteor": _meteor,
    "meteor_next": _meteor_next,
    "log_mnext": _log_mnext,
}

#: Defaults per kind of output. Code: BLEU-4 on tokens, edit distances and the AST distance.
DEFAULTS: dict[str, list[str]] = {
    "code": ["bleu", "levenshtein", "levenshtein_sim", "sed", "sed(normalize=max)", "treed"],
    "nl": ["bleu_moses", "bleu_norm", "bleu_cc", "rouge1", "rouge2", "rougeL", "meteor", "meteor_next",
           "log_mnext", "ter", "chrf"],
}

_SPEC = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\((.*)\))?\s*$")


def _value(text: str) -> object:
    lowered = text.lower()
    if lowered in ("true", "yes"):
        return True
    if lowered in ("false", "no"):
        return False
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def make_metric(spec: str) -> Metric:
    """Build one metric from ``name`` or ``name(key=value, ...)``; errors list the known names."""
    match = _SPEC.match(spec)
    if match is None or match.group(1) not in METRICS:
        raise ValueError(f"unknown metric {spec!r}; known: {', '.join(METRICS)}")
    kwargs: dict[str, object] = {}
    for item in filter(None, (part.strip() for part in (match.group(2) or "").split(","))):
        key, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"metric {spec!r}: setting {item!r} is not key=value")
        kwargs[key.strip()] = _value(value.strip())
    try:
        return METRICS[match.group(1)](**kwargs)
    except TypeError as exc:
        raise ValueError(f"metric {spec!r}: {exc}") from exc


def split_specs(text: str) -> list[str]:
    """Split a comma-separated list of metric specs, keeping commas inside parentheses."""
    specs, depth, current = [], 0, []
    for char in text:
        depth += char == "("
        depth -= char == ")"
        if char == "," and depth == 0:
            specs.append("".join(current))
            current = []
        else:
            current.append(char)
    specs.append("".join(current))
    return [s.strip() for s in specs if s.strip()]


def make_metrics(specs: list[str]) -> list[Metric]:
    return [make_metric(s) for s in specs]


def default_metrics(kind: str) -> list[Metric]:
    if kind not in DEFAULTS:
        raise ValueError(f"unknown kind {kind!r}; choose one of {', '.join(DEFAULTS)}")
    return make_metrics(DEFAULTS[kind])
