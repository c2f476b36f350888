"""Metric names for the command line and the default metric sets.

A metric is named by its registry key, optionally with constructor settings in parentheses:
``bleu``, ``bleu(tokenize=char, smooth=nltk0)``, ``sed(normalize=max)``, ``rougeL(stemmer=true)``.
Settings are passed to the metric's class as keyword arguments, so every setting the class documents
is reachable without a new registry entry; the resulting signature records them.
"""

from __future__ import annotations

import re
from importlib import import_module
from typing import TYPE_CHECKING, Callable

from ..errors import InputError
from .base import Metric

if TYPE_CHECKING:
    from .profiles import Profile


def _lazy(module: str, cls: str, *args: object) -> Callable[..., Metric]:
    """A factory that imports ``revmine.metrics.<module>`` only when the metric is built."""
    def make(**kw: object) -> Metric:
        return getattr(import_module(f"{__package__}.{module}"), cls)(*args, **kw)
    return make


#: Registry key -> factory taking the metric's keyword settings. Imports are lazy so that scoring code
#: does not load WordNet or javalang unless asked.
METRICS: dict[str, Callable[..., Metric]] = {
    "bleu": _lazy("bleu", "BLEU"),
    "bleu_moses": _lazy("bleu", "BLEUMoses"),
    "bleu_cc": _lazy("bleu", "BLEUCC"),
    "bleu_norm": _lazy("bleu", "BLEUNorm"),
    "levenshtein": _lazy("edit", "Levenshtein"),
    "levenshtein_sim": _lazy("edit", "LevenshteinSimilarity"),
    "sed": _lazy("edit", "SED"),
    "treed": _lazy("tree", "TreeEditDistance"),
    "treed_sim": _lazy("tree", "TreeEditSimilarity"),
    "gved": _lazy("graph", "GraphEditDistance"),
    "gved_sim": _lazy("graph", "GraphEditSimilarity"),
    "ruby": _lazy("ruby", "Ruby"),
    "crystalbleu": _lazy("crystalbleu", "CrystalBLEU"),
    "codebleu": _lazy("codebleu", "CodeBLEU"),
    "rouge1": _lazy("text", "Rouge", "1"),
    "rouge2": _lazy("text", "Rouge", "2"),
    "rougeL": _lazy("text", "Rouge", "L"),
    "chrf": _lazy("text", "Chrf"),
    "ter": _lazy("text", "Ter"),
    "meteor": _lazy("meteor", "Meteor"),
    "meteor_next": _lazy("meteor", "MeteorNext"),
    "log_mnext": _lazy("meteor", "LogMnext"),
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
        raise InputError.setting("metrics", f"unknown metric {spec!r}; known: {', '.join(METRICS)}")
    kwargs: dict[str, object] = {}
    for item in filter(None, (part.strip() for part in (match.group(2) or "").split(","))):
        key, sep, value = item.partition("=")
        if not sep:
            raise InputError.setting("metrics", f"metric {spec!r}: setting {item!r} is not key=value")
        kwargs[key.strip()] = _value(value.strip())
    try:
        return METRICS[match.group(1)](**kwargs)
    except (TypeError, ValueError) as exc:  # an unknown setting, or a value the metric refuses
        raise InputError.setting("metrics", f"metric {spec!r}: {exc}") from exc


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
        raise InputError.setting("kind", f"unknown kind {kind!r}; choose one of {', '.join(DEFAULTS)}")
    return make_metrics(DEFAULTS[kind])


def select_metrics(profile: str | None = None, metrics: str | list[str] | None = None,
                   kind: str = "code") -> tuple[list[Metric], Profile | None]:
    """The metrics a run uses: a profile's followed by the named ones (a spec string or list), else the
    named ones, else the kind's. A named metric whose column a profile metric already has is refused."""
    from .profiles import PROFILES

    named = (make_metrics(split_specs(metrics) if isinstance(metrics, str) else list(metrics))
             if metrics else [])
    if profile:
        if profile not in PROFILES:
            raise InputError.setting("profile", f"unknown profile {profile!r}; known: {', '.join(sorted(PROFILES))}")
        chosen = PROFILES[profile].metrics()
        taken = {m.column for m in chosen}
        clash = [m.column for m in named if m.column in taken]
        if clash:
            raise InputError.setting("metrics", f"{', '.join(clash)}: already computed by profile {profile}")
        return chosen + named, PROFILES[profile]
    return (named or default_metrics(kind)), None
