"""One-call functions for Python users, in the shape sacrebleu's and nltk's users know.

``revmine.metrics`` re-exports these names; they are the documented contract (README, "Python API"):

- ``sentence_bleu(hyp, refs, **settings)`` — ``refs`` one string or a list of strings; a :class:`Score`.
- ``corpus_bleu(hyps, refs, **settings)`` — ``refs`` one string per hypothesis, or a list of reference
  streams (sacrebleu's convention: stream j holds every hypothesis's j-th reference, ``None`` where a
  hypothesis has fewer); a :class:`Score`.
- ``compute(spec, hyps, refs)`` — any metric spec the command line accepts (``"bleu(smooth=exp)"``,
  ``"meteor(syn=nltk)"``), one float per hypothesis; ``refs`` as for ``corpus_bleu``.
- ``names()`` — every metric name the command line accepts.

Settings are the metric classes' keyword arguments (``BLEU``: ``smooth``, ``tokenize``, ``max_n``,
``lowercase``, ``effective_order``, ``value``), and every value is on a 0..1 scale. The defaults are
revmine's: ``tokenize="space"`` (sacrebleu's ``none``; pass ``tokenize="13a"`` for sacrebleu's default).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from .bleu import BLEU
from .registry import METRICS, make_metric

References = Sequence[str] | Sequence[Sequence[str | None]]


@dataclass(frozen=True)
class Score:
    """A value in 0..1 and the signature saying how it was computed."""

    score: float
    signature: str

    def __float__(self) -> float:
        return self.score


def reference_sets(references: References, n: int) -> list[list[str]]:
    """Per hypothesis its list of references, from one string per hypothesis or from reference streams."""
    if isinstance(references, str):
        raise TypeError("references must be a list (one string per hypothesis, or a list of streams)")
    if len(references) and all(isinstance(r, str) for r in references):
        if len(references) != n:
            raise ValueError(f"{n} hypotheses but {len(references)} references")
        return [[r] for r in references]  # type: ignore[list-item]
    streams = [list(s) for s in references]
    if not streams:
        raise ValueError("no references")
    for j, stream in enumerate(streams):
        if len(stream) != n:
            raise ValueError(f"{n} hypotheses but reference stream {j} has {len(stream)} lines")
    sets = [[r for r in refs if r is not None] for refs in zip(*streams)]
    empty = next((i for i, refs in enumerate(sets) if not refs), None)
    if empty is not None:
        raise ValueError(f"hypothesis {empty} has no reference")
    return sets


def sentence_bleu(hypothesis: str, references: str | Sequence[str], **settings: object) -> Score:
    """Sentence BLEU of one hypothesis against one or several references (``BLEU``'s settings)."""
    metric = BLEU(**settings)  # type: ignore[arg-type]
    refs = [references] if isinstance(references, str) else list(references)
    return Score(float(metric.multi_reference_scores([hypothesis], [refs])[0]), metric.signature())


def corpus_bleu(hypotheses: Sequence[str], references: References, **settings: object) -> Score:
    """Corpus BLEU: n-gram statistics summed over the corpus, as sacrebleu's and nltk's ``corpus_bleu``."""
    metric = BLEU(**settings)  # type: ignore[arg-type]
    sets = reference_sets(references, len(hypotheses))
    return Score(metric.multi_reference_corpus_score(list(hypotheses), sets), metric.signature())


def compute(spec: str, hypotheses: Sequence[str], references: References) -> list[float]:
    """Any metric spec, one value per hypothesis (several references: the metric's multi-reference rule)."""
    metric = make_metric(spec)
    sets = reference_sets(references, len(hypotheses))
    return [float(v) for v in metric.multi_reference_scores(list(hypotheses), sets)]


def names() -> list[str]:
    """Every metric name ``revmine score --metrics`` accepts."""
    return list(METRICS)
