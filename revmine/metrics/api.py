"""One-call functions for Python users, in the shape sacrebleu's and nltk's users know.

``revmine.metrics`` re-exports these names; they are the documented contract (README, "Python API"):

- ``sentence_bleu(hyp, refs, **settings)`` — ``refs`` one string or a list of strings; a :class:`Score`.
- ``corpus_bleu(hyps, refs, **settings)`` — corpus BLEU; a :class:`Score`.
- ``corpus_score(spec, hyps, refs)`` — the corpus value of any metric spec that has a corpus form (BLEU,
  chrF, TER: statistics summed over the corpus, as sacrebleu's ``corpus_score``); a :class:`Score`. A metric
  without one (its corpus value would be the mean of its sentence scores) is an error naming it.
- ``compute(spec, hyps, refs)`` — any metric spec the command line accepts (``"bleu(smooth=exp)"``,
  ``"meteor(syn=nltk)"``), one float per hypothesis.
- ``names()`` — every metric name the command line accepts.

References come in one of two conventions, named by the argument so that one is never taken for the other:

- ``refs`` (positional): one string per hypothesis, or sacrebleu's reference streams (stream j holds every
  hypothesis's j-th reference, ``None`` where a hypothesis has fewer);
- ``references_per_hypothesis=`` (keyword): Hugging Face ``evaluate``'s convention, per hypothesis the list
  of its references (``[[r1, r2], [r1], ...]``; a string stands for a list of one).

The two shapes cannot be told apart by looking: two hypotheses with two references each are a valid list
of two streams either way, with different pairs. So a list of lists given positionally is always streams;
when the stream lengths do not fit, the error names the keyword.

Single references, whichever way they come, take the metric's single-reference path (``sentence_scores``,
for BLEU the compiled kernel), so that the one-call API runs at the speed of the metric classes
(``benchmarks/bench_metrics_api.py``); several take its multi-reference rule (``multi_reference_scores``).

``languages=`` (``compute`` and ``corpus_score``): per hypothesis its language, for a spec with ``lang=auto``
(``compute("treed(lang=auto)", hyps, refs, languages=["python", "go", ...])``): each pair is scored by the metric
of its language (:class:`.registry.ByLanguage`); a spec without ``lang=auto`` refuses it.

``normalize="code-fence"`` scores the code of a chat model's Markdown answer (:mod:`.normalize`); the
references are left as they are.

Settings are the metric classes' keyword arguments (``BLEU``: ``smooth``, ``tokenize``, ``max_n``,
``lowercase``, ``effective_order``, ``value``), and every value is on a 0..1 scale. The defaults are
revmine's: ``tokenize="space"`` (sacrebleu's ``none``; pass ``tokenize="13a"`` for sacrebleu's default).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .base import Metric, has_corpus_form
from .bleu import BLEU
from .normalize import normalize as normalize_texts
from .registry import METRICS, ByLanguage, make_metric

References = Sequence[str] | Sequence[Sequence[str | None]]
ReferencesPerHypothesis = Sequence[str | Sequence[str]]


@dataclass(frozen=True)
class Score:
    """A value in 0..1 and the signature saying how it was computed."""

    score: float
    signature: str

    def __float__(self) -> float:
        return self.score


def gather_references(n: int, references: References | None = None,
                      references_per_hypothesis: ReferencesPerHypothesis | None = None) -> list[str] | list[list[str]]:
    """The references of ``n`` hypotheses, from either convention (module docstring): one string per
    hypothesis when every hypothesis has one, else per hypothesis its list of references."""
    if (references is None) == (references_per_hypothesis is None):
        raise TypeError("give the references either positionally (one string per hypothesis, or reference "
                        "streams) or as references_per_hypothesis=, not both or neither")
    if references_per_hypothesis is not None:
        if isinstance(references_per_hypothesis, str):
            raise TypeError("references_per_hypothesis must be a list: per hypothesis its list of references")
        sets = [[refs] if isinstance(refs, str) else refs for refs in references_per_hypothesis]
        if len(sets) != n:
            raise ValueError(f"{n} hypotheses but references_per_hypothesis has {len(sets)} lists")
    elif isinstance(references, str):
        raise TypeError("references must be a list (one string per hypothesis, or a list of streams)")
    elif len(references) and all(isinstance(r, str) for r in references):
        if len(references) != n:
            raise ValueError(f"{n} hypotheses but {len(references)} references")
        return list(references)  # type: ignore[arg-type]
    else:
        sets = _from_streams(references, n)  # type: ignore[arg-type]
    sizes = list(map(len, sets))
    if 0 in sizes:
        raise ValueError(f"hypothesis {sizes.index(0)} has no reference")
    return [refs[0] for refs in sets] if sizes.count(1) == n else [list(refs) for refs in sets]


def _from_streams(references: Sequence[Sequence[str | None]], n: int) -> list[list[str]]:
    """Per hypothesis its references, from sacrebleu's reference streams."""
    streams = [list(s) for s in references]
    if not streams:
        raise ValueError("no references")
    for j, stream in enumerate(streams):
        if len(stream) != n:
            raise ValueError(f"{n} hypotheses but reference stream {j} has {len(stream)} lines (a list of lists "
                             "is read as sacrebleu's reference streams; for a list of each hypothesis's references, "
                             "Hugging Face evaluate's convention, pass references_per_hypothesis=)")
    return [[r for r in refs if r is not None] for refs in zip(*streams)]


def _hypotheses(hypotheses: Sequence[str], normalize: str | None) -> list[str]:
    return list(hypotheses) if normalize is None else normalize_texts(hypotheses, normalize)[0]


def _one_each(references: list[str] | list[list[str]]) -> bool:
    """True when ``gather_references`` gave one reference per hypothesis (strings, not lists)."""
    return not references or isinstance(references[0], str)


def _metric(spec: str, languages: Sequence[str] | None) -> Metric:
    """The metric of ``spec``; a ``lang=auto`` one bound to ``languages``, which it needs."""
    metric = make_metric(spec)
    if isinstance(metric, ByLanguage) != (languages is not None):
        raise TypeError(f"metric {spec!r}: languages= (per hypothesis its language) goes with lang=auto, and "
                        "lang=auto needs it")
    return metric.bound(languages) if isinstance(metric, ByLanguage) else metric  # type: ignore[arg-type]


def _values(metric: Metric, hypotheses: list[str], references: list[str] | list[list[str]],
            languages: Sequence[str] | None = None) -> np.ndarray:
    """Sentence values: the metric's single-reference path when each hypothesis has one reference."""
    if isinstance(metric, ByLanguage):
        sets = None if _one_each(references) else references
        firsts = [refs[0] for refs in sets] if sets else references
        return metric.language_scores(hypotheses, firsts, languages or (), sets)  # type: ignore[arg-type]
    if _one_each(references):
        return metric.sentence_scores(hypotheses, references)  # type: ignore[arg-type]
    return metric.multi_reference_scores(hypotheses, references)  # type: ignore[arg-type]


def _corpus(metric: Metric, hypotheses: Sequence[str], references: References | None,
            references_per_hypothesis: ReferencesPerHypothesis | None, normalize: str | None,
            languages: Sequence[str] | None = None) -> Score:
    hyps = _hypotheses(hypotheses, normalize)
    refs = gather_references(len(hyps), references, references_per_hypothesis)
    sets = [[r] for r in refs] if _one_each(refs) else refs
    if isinstance(metric, ByLanguage):  # every row's statistics in its language, summed (registry's docstring)
        value = metric.corpus_from_statistics(metric.language_statistics(hyps, sets, languages or ()))  # type: ignore
        return Score(value, metric.signature())
    return Score(metric.multi_reference_corpus_score(hyps, sets), metric.signature())  # type: ignore[arg-type]


def sentence_bleu(hypothesis: str, references: str | Sequence[str], *, normalize: str | None = None,
                  **settings: object) -> Score:
    """Sentence BLEU of one hypothesis against one or several references (``BLEU``'s settings)."""
    metric = BLEU(**settings)  # type: ignore[arg-type]
    value = _values(metric, _hypotheses([hypothesis], normalize), gather_references(1, None, [references]))
    return Score(float(value[0]), metric.signature())


def corpus_bleu(hypotheses: Sequence[str], references: References | None = None, *,
                references_per_hypothesis: ReferencesPerHypothesis | None = None, normalize: str | None = None,
                **settings: object) -> Score:
    """Corpus BLEU: n-gram statistics summed over the corpus, as sacrebleu's and nltk's ``corpus_bleu``."""
    metric = BLEU(**settings)  # type: ignore[arg-type]
    return _corpus(metric, hypotheses, references, references_per_hypothesis, normalize)


def corpus_score(spec: str, hypotheses: Sequence[str], references: References | None = None, *,
                 references_per_hypothesis: ReferencesPerHypothesis | None = None,
                 normalize: str | None = None, languages: Sequence[str] | None = None) -> Score:
    """The corpus value of a metric spec with a corpus form (``base.has_corpus_form``: the metric implements
    ``multi_reference_corpus_score``), e.g. ``corpus_score("chrf", hyps, refs)`` equals
    ``sacrebleu.corpus_chrf(hyps, [refs]).score / 100``."""
    metric = _metric(spec, languages)
    if not has_corpus_form(metric.template if isinstance(metric, ByLanguage) else metric):
        raise ValueError(f"metric {spec!r} ({type(metric).__name__}) has no corpus-level form: it does not implement "
                         f"multi_reference_corpus_score, and the mean of compute({spec!r}, ...) is its only corpus "
                         "value")
    return _corpus(metric, hypotheses, references, references_per_hypothesis, normalize, languages)


def compute(spec: str, hypotheses: Sequence[str], references: References | None = None, *,
            references_per_hypothesis: ReferencesPerHypothesis | None = None,
            normalize: str | None = None, languages: Sequence[str] | None = None) -> list[float]:
    """Any metric spec, one value per hypothesis: one reference each takes the metric's single-reference
    path (``sentence_scores``), several its multi-reference rule (``multi_reference_scores``)."""
    metric = _metric(spec, languages)
    hyps = _hypotheses(hypotheses, normalize)
    refs = gather_references(len(hyps), references, references_per_hypothesis)
    return np.asarray(_values(metric, hyps, refs, languages), dtype=np.float64).tolist()


def names() -> list[str]:
    """Every metric name ``revmine score --metrics`` accepts."""
    return list(METRICS)
