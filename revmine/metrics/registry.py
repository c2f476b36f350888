"""Metric names for the command line and the default metric sets.

A metric is named by its registry key, optionally with constructor settings in parentheses:
``bleu``, ``bleu(tokenize=char, smooth=nltk0)``, ``sed(normalize=max)``, ``rougeL(stemmer=true)``.
Settings are passed to the metric's class as keyword arguments, so every setting the class documents
is reachable without a new registry entry; the resulting signature records them.

``lang=auto`` (:class:`ByLanguage`) scores each example with its own language, for the metrics that take
``lang=`` (their class declares ``known_languages``: ``treed``, ``treed_sim``, ``codebleu`` and its components).
RUBY and GVED take no ``lang``: their graph level is javalang's Java PDG, so they are Java's only. Decisions:

* Rows are grouped by language and each group is scored by the metric built with ``lang=<language>``; the
  values go back in row order, so a row's value is exactly the one ``lang=<its language>`` gives it (a
  metric's value for a pair never depends on the other pairs of its batch: ``Metric.sentence_scores``).
* The languages are bound before scoring (:meth:`ByLanguage.bound`: the score stage reads them from the
  predictions file first), so that the signature, written at the head of ``scores.parquet``, can name the
  languages met: ``lang:auto``, then each setting once when every language has the same value, else as
  ``<lang>=<value>`` per language, comma-separated (``parser:go=tree-sitter-go-0.25.0,python=...``).
* Corpus value (CodeBLEU's, the only language-aware metric with a corpus form): the segment statistics of
  every row, each computed with its own language's grammar and keywords, are summed over the whole file and
  the formula is applied once, as the evaluator's ``calc_codebleu`` sums them over a corpus. This is allowed
  because the statistics are counts (n-gram matches and totals, subtrees and data-flow edges found and
  looked for) and the formula reads only the weights, which are one setting for all languages; on a file of
  one language it is that language's corpus value.
"""

from __future__ import annotations

import re
from importlib import import_module
from typing import TYPE_CHECKING, Callable, Iterable, Sequence

import numpy as np

from ..errors import InputError
from .base import Metric, _fmt, check_lengths
from .options import split_specs

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


class ByLanguage(Metric):
    """A language-aware metric with ``lang=auto``: each row scored by the metric of its language (module
    docstring). Built unbound (no language yet, what checking a spec needs); :meth:`bound` gives the metric
    of a set of languages, which scores rows of those languages given per row (:meth:`language_scores`)."""

    def __init__(self, spec: str, key: str, settings: dict[str, object], languages: Iterable[str] = ()) -> None:
        self.spec, self.key, self.kwargs = spec, key, dict(settings)
        #: the metric of the default language: checks the other settings, and gives column and direction
        self.template = METRICS[key](**self.kwargs)
        known = getattr(type(self.template), "known_languages", None)
        if known is None:
            raise ValueError("lang=auto is for the metrics that take lang= (treed, treed_sim, codebleu); "
                             f"{key} takes none")
        self.known_languages: tuple[str, ...] = tuple(known)
        self.name = self.template.name  # type: ignore[misc]
        self.higher_is_better = self.template.higher_is_better  # type: ignore[misc]
        self.parallel_safe = self.template.parallel_safe  # type: ignore[misc]
        self.members: dict[str, Metric] = {lang: METRICS[key](lang=lang, **self.kwargs)
                                           for lang in sorted(set(languages))}

    @property
    def column(self) -> str:
        return self.template.column

    def bound(self, languages: Iterable[str]) -> "ByLanguage":
        """The metric that scores rows of ``languages`` (each built with ``lang=<language>``); a setting the
        metric refuses for one of them (``parser=javalang`` for Python) is the error of :func:`make_metric`."""
        try:
            return ByLanguage(self.spec, self.key, self.kwargs, languages)
        except (TypeError, ValueError) as exc:
            raise InputError.setting("metrics", f"metric {self.spec!r}: {exc}") from exc

    def settings(self) -> dict[str, object]:
        """``lang:auto``, then the settings of the bound languages' metrics: once where they agree, else per
        language (module docstring)."""
        out: dict[str, object] = {"lang": "auto"}
        per = {lang: {k: _fmt(v) for k, v in metric.settings().items()} for lang, metric in self.members.items()}
        for key in dict.fromkeys(k for values in per.values() for k in values if k != "lang"):
            values = {lang: values.get(key, "none") for lang, values in per.items()}
            same = set(values.values())
            out[key] = same.pop() if len(same) == 1 else ",".join(f"{lang}={v}" for lang, v in values.items())
        return out

    def sentence_scores(self, hypotheses: Sequence[str], references: Sequence[str]) -> np.ndarray:
        raise ValueError(f"{self.spec} needs each example's language (the score stage's --lang-field; "
                         "language_scores in Python)")

    def language_scores(self, hypotheses: Sequence[str], references: Sequence[str], languages: Sequence[str],
                        reference_sets: Sequence[Sequence[str]] | None = None) -> np.ndarray:
        """One value per pair, each by the metric of its language (against all its references when
        ``reference_sets`` is given: ``multi_reference_scores``)."""
        check_lengths(hypotheses, references)

        def score(metric: Metric, rows: np.ndarray) -> np.ndarray:
            hyps = [hypotheses[i] for i in rows]
            if reference_sets is not None:
                return metric.multi_reference_scores(hyps, [reference_sets[i] for i in rows])
            return metric.sentence_scores(hyps, [references[i] for i in rows])
        return self._grouped(languages, len(hypotheses), score)

    def language_statistics(self, hypotheses: Sequence[str], reference_sets: Sequence[Sequence[str]],
                            languages: Sequence[str]) -> np.ndarray:
        """``segment_statistics`` rows, each by the metric of its language, in row order."""
        return self._grouped(languages, len(hypotheses), lambda metric, rows: metric.segment_statistics(
            [hypotheses[i] for i in rows], [reference_sets[i] for i in rows]))

    def corpus_from_statistics(self, statistics: np.ndarray) -> float:
        """The corpus formula over the rows of every language (module docstring: it reads no language)."""
        return self.template.corpus_from_statistics(statistics)

    def _grouped(self, languages: Sequence[str], n: int,
                 compute: Callable[[Metric, np.ndarray], np.ndarray]) -> np.ndarray:
        """``compute(metric of the language, its rows)`` for each language, put back in row order."""
        if len(languages) != n:
            raise ValueError(f"{self.spec}: {n} pairs but {len(languages)} languages" if len(languages) else
                             f"{self.spec} needs each pair's language (the score stage's --lang-field)")
        if not n:
            return np.asarray(compute(self.template, np.zeros(0, dtype=np.intp)), dtype=np.float64)
        langs = np.asarray(languages, dtype=object)
        out: np.ndarray | None = None
        for lang in sorted(set(languages)):
            if lang not in self.members:
                raise ValueError(f"{self.spec}: no metric for language {lang!r} (bound to "
                                 f"{', '.join(self.members) or 'none'})")
            rows = np.flatnonzero(langs == lang)
            values = np.asarray(compute(self.members[lang], rows), dtype=np.float64)
            if out is None:
                out = np.empty((n, *values.shape[1:]))
            out[rows] = values
        return out  # type: ignore[return-value]


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
        if kwargs.get("lang") == "auto":
            return ByLanguage(spec.strip(), match.group(1), {k: v for k, v in kwargs.items() if k != "lang"})
        return METRICS[match.group(1)](**kwargs)
    except (TypeError, ValueError) as exc:  # an unknown setting, or a value the metric refuses
        raise InputError.setting("metrics", f"metric {spec!r}: {exc}") from exc


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
