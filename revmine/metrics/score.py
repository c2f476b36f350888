"""The metrics stage: score every (example, rank) prediction, then summarise per k.

Perfect prediction at k follows Tufano et al. (ICSE 2021): an example counts as perfect at k when one of
its first k predictions equals the reference token for token (whitespace-separated tokens, so spacing
differences do not count). Beside it, perfect ignoring whitespace: equal once every whitespace character
is removed (``exact_ignoring_whitespace``), what a user of formatted output (a chat model writing
``foo(a, b)`` against the tokenised ``foo ( a , b )``) expects to count. Summaries give, per k, both counts
and percentages and, for each metric, mean/median/sd over all predictions of rank <= k and over the best
of those k (max, or min for distances). NaN scores (e.g. a tree metric on code that does not parse) are
left out of the statistics and counted in ``missing``; infinite ones (SED normalised by an empty
reference) are counted in ``infinite`` and left out too, so every statistic is a finite number or null
and the JSON is valid.
Metrics defined at corpus level (BLEU sums n-gram statistics over the corpus, multi-bleu.perl style;
chrF and TER sum sacrebleu's statistics) also get their corpus value over the rank-1 predictions, which
is what papers report as "BLEU", beside the mean of sentence scores. ``ci=N`` adds to every mean its
95% percentile-bootstrap interval over N resamples. ``normalize="code-fence"`` scores the code of a chat
model's Markdown answer instead of the answer (:mod:`.normalize`); ``scores.parquet``'s ``prediction`` is
then what was scored, and the summary counts the predictions normalised (``normalized``).

``scores.parquet`` keeps every reference: ``reference`` the first (as in version 1 of its schema),
``extra_references`` the others (None for an example with one).

The stage streams by parts (:func:`score_file`): the predictions are read :data:`STREAM_CHUNK` at a time
(whole examples, :func:`revmine.metrics.predictions.iter_predictions`), each chunk is scored and its rows
appended to ``scores.parquet`` (an atomic writer: the file appears only once every chunk is in), and what
the summary needs is all that is kept: each metric's scores and the exact-match flags (medians, quartiles,
best-of-k and bootstrap intervals need every value), and per corpus-level metric the segment statistics
of the rank-1 predictions (``Metric.segment_statistics``), from which ``corpus_from_statistics`` gives the
corpus value at the end. The texts are held one chunk at a time; the outputs are the same bytes whatever
the chunk size, because a metric's value for a pair does not depend on the other pairs of its batch
(``Metric.sentence_scores``'s contract). A metric with ``parallel_safe = False`` cannot promise that, so
with one the file is scored in one chunk.

``workers=N`` (N > 1) scores in N worker processes (``spawn``, so it behaves the same on every platform),
started once for the whole file (:class:`Scorer`): each chunk is cut into pieces of about
:data:`ENGINE_CHUNK` pairs (whole beams, so a reference's k pairs stay together and its cached statistics
are reused), each piece is a task scoring every metric sent there, and the pieces come back in order.
Metrics that cannot be pickled (a warning says which) and those not ``parallel_safe`` are scored in the
calling process, meanwhile. Each worker receives the metrics once, when it starts; starting costs the
imports and, for the METEOR family, loading WordNet (about a second a worker).

Metrics computed from the same per-pair statistics (``SharedStatistics`` with equal keys: Levenshtein,
its similarity and both SED on one tokeniser) are scored as one group, in this process or in one task
per piece: the stage computes the statistics once per batch and passes them to each metric.

Several languages in one file: ``lang_field`` (``--lang-field``) names the field holding each example's language,
and a metric given ``lang=auto`` (``treed(lang=auto)``, ``codebleu(lang=auto)``: :class:`.registry.ByLanguage`)
scores each pair with the metric of its language: the pairs of a batch (a chunk, or a worker's piece, which
carries its pairs' languages) are grouped by language, each group scored by the metric built with
``lang=<language>``, the values put back in row order; a row's value is the one ``lang=<its language>`` gives.
:func:`score_file` first reads the file's languages (a pass over the file that keeps only them; every value
checked against the languages all the ``lang=auto`` metrics know, an error naming the line or row), so that
the signatures, written at the head of ``scores.parquet``, name the languages met with their grammars'
versions. ``lang=auto`` without ``lang_field`` is a usage error. CodeBLEU's corpus value over a file of
several languages sums every row's statistics, each its own language's, as the evaluator sums a corpus's
(:mod:`.registry`'s docstring says why that is allowed).

On an engine (:mod:`revmine.runtime.engine`: ``engine="dask"``, or the job's cluster under ``revmine run``) the
pieces are the same and are mapped over the engine, the metrics travelling to each worker once for the
whole file, at most the engine's window of pieces in flight; the rank-1 statistics and the summary are
computed here: ``scores.parquet`` and ``summary.json`` are byte-identical on every engine.
"""

from __future__ import annotations

import json
import multiprocessing
import pickle
import warnings
from collections import deque
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, NamedTuple, Sequence, TypeVar

import numpy as np
import pyarrow as pa

from ..errors import InputError
from ..io.store import AtomicParquetWriter, atomic_path, write_json, write_table, write_text, writing
from ..package import __version__
from ..runtime.engine import Engine, open_engine
from ..runtime.progress import progress_bar
from ..schema import scores_schema
from .base import Metric, SharedStatistics
from .normalize import normalize as normalize_texts
from .predictions import Predictions, iter_predictions
from .options import ScoreOptions
from .registry import ByLanguage, select_metrics
from .significance import bootstrap_interval

if TYPE_CHECKING:
    from matplotlib.figure import Figure


@dataclass
class ScoreRun:
    """What one scoring run keeps to summarise it: each metric's scores and the exact-match flags, one per
    (example, rank), and the corpus values of the rank-1 predictions. The texts are not kept: a streamed
    run (:func:`score_file` with ``out``) wrote its rows to ``path`` chunk by chunk; ``table`` holds them
    only for :func:`score_predictions`, whose predictions are in memory anyway."""

    metrics: list[Metric]
    k: int
    exact: np.ndarray
    exact_ignoring_whitespace: np.ndarray
    scores: dict[str, np.ndarray]
    corpus: dict[str, float]
    source: str = ""
    profile: dict | None = None
    ci: int = 0  # bootstrap resamples for the summary's 95% confidence intervals (0: none)
    normalize: str | None = None  # the normalisation of the predictions (normalize.NORMALIZATIONS), if any
    normalized: int = 0  # predictions it applied to
    summary: dict = field(default_factory=dict)
    table: pa.Table | None = None
    path: Path | None = None

    @property
    def signatures(self) -> dict[str, str]:
        return {m.column: m.signature() for m in self.metrics}

    @property
    def examples(self) -> int:
        return len(self.exact) // self.k if self.k else 0

    def values(self, column: str) -> np.ndarray:
        """A score column as float64, one value per (example, rank)."""
        return self.scores[column]


#: Predictions read and scored at a time (whole examples) by :func:`score_file`: enough for the compiled
#: kernels and the workers' tasks to pay off, few enough that the texts of a large file are never held whole.
STREAM_CHUNK = 10_000


def score_chunks(chunks: Iterable[Predictions], metrics: Sequence[Metric],
                 rows: Callable[[pa.Table], None] | None = None, profile: dict | None = None, progress: bool = False,
                 workers: int | None = None, ci: int = 0, engine: Engine | None = None,
                 normalize: str | None = None) -> ScoreRun:
    """Score chunks of predictions (whole examples each, the same k) with every metric, handing each chunk's
    rows (fitting :func:`revmine.schema.scores_schema`) to ``rows`` as soon as they are scored, and keeping only
    what the summary needs (:class:`ScoreRun`).

    ``workers``: processes to score in (None or 1: this process only); ``engine``: where to score instead
    (pieces of pairs, see the module docstring). Several references per example
    (``Predictions.reference_sets()``): every metric scores against all of them
    (``Metric.multi_reference_scores``), a prediction is exact when it equals one of them, and the
    ``reference`` column holds the first, ``extra_references`` the others. ``ci``: bootstrap resamples for the
    summary's 95% intervals. ``normalize``: a normalisation of the predictions (:mod:`.normalize`), counted.
    """
    columns = [m.column for m in metrics]
    if len(set(columns)) != len(columns):
        raise InputError.setting("metrics", f"two metrics write the same column: {columns}")
    schema = scores_schema(columns)
    corpus_level = [m for m in metrics if _has_corpus_level(m)]
    flags = ["exact_match", "exact_match_ignoring_whitespace"]
    kept: dict[str, list[np.ndarray]] = {c: [] for c in [*flags, *columns]}
    statistics: dict[str, list[np.ndarray]] = {m.column: [] for m in corpus_level}
    k, source, examples, normalized = 0, "", 0, 0

    def prepared(preds: Predictions) -> tuple[Predictions, Pairs]:
        nonlocal normalized
        if normalize is not None:
            preds, applied = _normalized(preds, normalize)
            normalized += applied
        return preds, _pairs(preds)

    bar = progress_bar(desc="score", unit="prediction", enabled=progress)
    with Scorer(metrics, workers, engine) as scorer:
        for preds, pairs, values in scorer.stream(map(prepared, chunks)):
            k, source = preds.k, source or preds.source
            table = _rows(preds, examples, pairs, dict(zip(columns, values)), schema)
            if rows is not None:
                rows(table)
            for flag in flags:
                kept[flag].append(table.column(flag).to_numpy(zero_copy_only=False))
            for column, column_values in zip(columns, values):
                kept[column].append(column_values)
            sets = preds.reference_sets() or [[r] for r in preds.references]
            for metric in corpus_level if len(preds) else ():
                statistics[metric.column].append(
                    metric.language_statistics(pairs.hyps[::k], sets, preds.languages or ())
                    if isinstance(metric, ByLanguage) else metric.segment_statistics(pairs.hyps[::k], sets))
            examples += len(preds)
            bar.update(len(pairs.hyps))
            del preds, pairs, values, table, sets  # this chunk's texts go before the next chunk is read and scored
    bar.close()
    whole = {c: np.concatenate(parts) if parts else np.zeros(0) for c, parts in kept.items()}
    corpus = {m.column: m.corpus_from_statistics(np.concatenate(statistics[m.column])) for m in corpus_level
              if examples}
    exact, loose = (whole.pop(flag).astype(bool) for flag in flags)
    run = ScoreRun(list(metrics), k, exact, loose, whole, corpus, source, profile, ci, normalize, normalized)
    run.summary = summarize(run)
    return run


def _normalized(preds: Predictions, how: str) -> tuple[Predictions, int]:
    """A chunk with its predictions normalised, and how many the normalisation applied to."""
    k = preds.k
    flat, applied = normalize_texts([h for beam in preds.predictions for h in beam], how)
    return replace(preds, predictions=[flat[i * k:(i + 1) * k] for i in range(len(preds))]), applied


def exact_ignoring_whitespace(prediction: str, reference: str) -> bool:
    """Equal once every whitespace character is removed: perfect prediction for formatted output. Tufano et
    al.'s token-for-token comparison suits tokenised model outputs (``foo ( a , b )``) but misses the right
    answers of a model writing formatted code (``foo(a, b)``). The price is that tokens may merge (``int x``
    equals ``intx``), which two versions of one valid method hardly ever differ by; so it is reported beside
    perfect predictions, never instead."""
    return "".join(prediction.split()) == "".join(reference.split())


def _exact(pairs: Pairs, equal: Callable[[str, str], bool]) -> np.ndarray:
    """Per pair, whether the prediction equals one of its references by ``equal``."""
    return np.fromiter((any(equal(h, r) for r in (pairs.sets[i] if pairs.sets else [pairs.refs[i]]))
                        for i, h in enumerate(pairs.hyps)), dtype=bool, count=len(pairs.hyps))


def _same_tokens(prediction: str, reference: str) -> bool:
    """Tufano et al.'s perfect prediction: the same whitespace-separated tokens."""
    return prediction.split() == reference.split()


def _pairs(preds: Predictions) -> Pairs:
    """A chunk's (prediction, reference) pairs, example by example, rank by rank, with their languages if known."""
    hyps, refs = preds.flat()
    sets = preds.reference_sets()
    k = preds.k
    return Pairs(hyps, refs, [s for s in sets for _ in range(k)] if sets else None, k,
                 [lang for lang in preds.languages for _ in range(k)] if preds.languages else None)


def _rows(preds: Predictions, first: int, pairs: Pairs, values: dict[str, np.ndarray], schema: pa.Schema) -> pa.Table:
    """A chunk's score rows; its examples are numbered from ``first``."""
    n, k = len(preds), preds.k
    exact = _exact(pairs, _same_tokens)
    data: dict[str, object] = {
        "example": np.repeat(np.arange(first, first + n, dtype=np.int64), k),
        "id": np.repeat(np.array(preds.ids, dtype=object), k) if preds.ids else [None] * len(pairs.hyps),
        "k": np.tile(np.arange(1, k + 1, dtype=np.int32), n),
        "prediction": pairs.hyps,
        "reference": pairs.refs,
        "exact_match": exact,
        "perfect_at_k": np.maximum.accumulate(exact.reshape(n, k), axis=1).ravel() if n else exact,
        "extra_references": [refs[1:] or None for refs in pairs.sets] if pairs.sets else [None] * len(pairs.hyps),
        "exact_match_ignoring_whitespace": _exact(pairs, exact_ignoring_whitespace),
        **values,
    }
    return pa.table({name: data[name] for name in schema.names}, schema=schema)


def score_predictions(preds: Predictions, metrics: Sequence[Metric], profile: dict | None = None,
                      progress: bool = False, workers: int | None = None, ci: int = 0,
                      engine: Engine | None = None, normalize: str | None = None) -> ScoreRun:
    """Score predictions held in memory (:func:`score_chunks` on one chunk); the run keeps its rows
    (``table``) for :func:`write_run`."""
    tables: list[pa.Table] = []
    metrics = bind_languages(metrics, preds.languages or ())
    run = score_chunks([preds], metrics, tables.append, profile, progress, workers, ci, engine, normalize)
    run.table = tables[0]
    return run


def score_columns(metrics: Sequence[Metric], hyps: Sequence[str], refs: Sequence[str], workers: int | None = None,
                  align: int = 1, reference_sets: Sequence[Sequence[str]] | None = None,
                  engine: Engine | None = None, languages: Sequence[str] | None = None) -> list[np.ndarray]:
    """Each metric's ``sentence_scores(hyps, refs)`` as float64, in ``workers`` processes when > 1, or on
    ``engine`` (with ``reference_sets``, per pair all its references: ``multi_reference_scores``; with
    ``languages``, per pair its language, which ``lang=auto`` metrics, bound to them here, score it in): one
    batch through a :class:`Scorer`. Piece boundaries fall on multiples of ``align`` (the beam size). The
    result equals, byte for byte, calling every metric on the whole lists in this process.
    """
    several = len(hyps) > 1  # one pair is not worth a worker
    metrics = bind_languages(metrics, languages or ())
    with Scorer(metrics, workers if several else 1, engine if several else None) as scorer:
        ((_, _, columns),) = scorer.stream([(None, Pairs(hyps, refs, reference_sets, align, languages))])
    return columns


class Pairs(NamedTuple):
    """A batch of (prediction, reference) pairs to score."""

    hyps: Sequence[str]
    refs: Sequence[str]
    sets: Sequence[Sequence[str]] | None = None  # per pair all its references, when several
    align: int = 1  # pieces sent to workers end on multiples of it (the beam size)
    langs: Sequence[str] | None = None  # per pair its language, when known (lang=auto metrics need it)


#: A piece of a batch sent to a worker: its predictions, references, reference sets and languages (or None).
Piece = tuple[Sequence[str], Sequence[str], Sequence[Sequence[str]] | None, Sequence[str] | None]


T = TypeVar("T")


class Scorer:
    """Scores batches of pairs with fixed metrics: in this process, in ``workers`` processes kept for all the
    batches, or on ``engine``. A context manager: the processes stop when it closes.

    Metrics that share statistics (:class:`SharedStatistics` with equal keys) are scored together: the
    statistics are computed once per piece and passed to each. Metrics with ``parallel_safe = False``, and
    metrics that cannot be pickled (a warning says which), are scored in this process, a batch at a time.
    """

    def __init__(self, metrics: Sequence[Metric], workers: int | None = None, engine: Engine | None = None):
        workers = 1 if workers is None else int(workers)
        if workers < 1:
            raise InputError.setting("workers", f"must be at least 1, not {workers}")
        self.metrics, self.workers, self.engine = list(metrics), workers, engine
        self.groups = statistics_groups(metrics)
        self.pooled: dict[int, bytes] = {}  # group number -> its metrics, pickled
        if workers > 1 or engine is not None:
            for g, members in enumerate(self.groups):
                if not all(metrics[i].parallel_safe for i in members):
                    continue
                try:
                    self.pooled[g] = pickle.dumps([metrics[i] for i in members])
                except Exception as exc:  # noqa: BLE001 - any pickling failure means: score it here
                    names = ", ".join(repr(metrics[i]) for i in members)
                    warnings.warn(f"{names} cannot be sent to worker processes ({exc}); scored in this process",
                                  RuntimeWarning, stacklevel=3)
        self._pool: ProcessPoolExecutor | None = None

    def __enter__(self) -> "Scorer":
        if self.pooled and self.engine is None:
            self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=multiprocessing.get_context("spawn"),
                                             initializer=_init_worker, initargs=(self.pooled,))
        return self

    def __exit__(self, *exc: object) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None

    def stream(self, batches: Iterable[tuple[T, Pairs]]) -> Iterator[tuple[T, Pairs, list[np.ndarray]]]:
        """Each batch, with its tag (whatever the caller paired it with), and its metrics' columns, in order.

        Batches are pulled lazily. On workers they go in pieces of about :data:`ENGINE_CHUNK` pairs, at most
        twice the workers' count in flight (the engine's window), so the next batches' pieces are scored while
        this process scores the current batch's other metrics."""
        if not self.pooled:
            for tag, pairs in batches:
                yield tag, pairs, self._ordered(self._local(pairs))
            return
        waiting: deque[list] = deque()  # [tag, pairs, pieces, local columns] of the batches whose pieces went out

        def pieces() -> Iterator[Piece]:
            for tag, pairs in batches:
                n = len(pairs.hyps)
                bounds = chunk_bounds(n, -(-n // ENGINE_CHUNK), pairs.align, per_worker=1) or [(0, 0)]
                entry = [tag, pairs, len(bounds), None]
                waiting.append(entry)
                for lo, hi in bounds:
                    yield (pairs.hyps[lo:hi], pairs.refs[lo:hi], pairs.sets[lo:hi] if pairs.sets is not None else None,
                           pairs.langs[lo:hi] if pairs.langs is not None else None)
                entry[3] = self._local(pairs)  # here, while the workers score the pieces (asked for the next one)

        if self._pool is not None:
            scored = _ordered_map(self._pool, pieces(), 2 * self.workers)
        else:
            sent = {g: [self.metrics[i] for i in self.groups[g]] for g in self.pooled}
            scored = self.engine.map(_score_rows, pieces(), sent)  # type: ignore[union-attr]
        parts: list[dict[int, list[np.ndarray]]] = []
        for part in scored:
            parts.append(part)
            if len(parts) == waiting[0][2]:
                tag, pairs, _, columns = waiting.popleft()
                if columns is None:  # not asked for another piece since this batch's last
                    columns = self._local(pairs)
                for g in self.pooled:
                    columns[g] = [np.concatenate(values) for values in zip(*(p[g] for p in parts))]
                parts = []
                yield tag, pairs, self._ordered(columns)
                del tag, pairs, columns  # the batch goes before the next one's pieces come back

    def _local(self, pairs: Pairs) -> dict[int, list[np.ndarray]]:
        """The columns of the groups scored in this process, by group number."""
        return {g: score_group([self.metrics[i] for i in members], pairs.hyps, pairs.refs, pairs.sets, pairs.langs)
                for g, members in enumerate(self.groups) if g not in self.pooled}

    def _ordered(self, columns: dict[int, list[np.ndarray]]) -> list[np.ndarray]:
        """Columns by group number, as a list in the order of the metrics."""
        results: list[np.ndarray] = [np.zeros(0)] * len(self.metrics)
        for g, members in enumerate(self.groups):
            for i, values in zip(members, columns[g]):
                results[i] = values
        return results


def _ordered_map(pool: ProcessPoolExecutor, pieces: Iterable[Piece],
                 window: int) -> Iterator[dict[int, list[np.ndarray]]]:
    """Each piece scored by the pool's workers (:func:`_score_pooled`), in order, at most ``window`` in flight."""
    pending: deque = deque()
    for piece in pieces:
        pending.append(pool.submit(_score_pooled, piece))
        if len(pending) >= window:
            yield pending.popleft().result()
    while pending:
        yield pending.popleft().result()


def statistics_groups(metrics: Sequence[Metric]) -> list[list[int]]:
    """Indices of ``metrics`` grouped by shared statistics (equal ``statistics_key``), in first-seen
    order; a metric that shares nothing is a group of its own."""
    groups: dict[tuple, list[int]] = {}
    for i, metric in enumerate(metrics):
        key = ("shared", metric.statistics_key) if isinstance(metric, SharedStatistics) else ("alone", i)
        groups.setdefault(key, []).append(i)
    return list(groups.values())


def score_group(metrics: Sequence[Metric], hyps: Sequence[str], refs: Sequence[str],
                reference_sets: Sequence[Sequence[str]] | None = None,
                languages: Sequence[str] | None = None) -> list[np.ndarray]:
    """Each metric's float64 scores of the pairs; a group of ``SharedStatistics`` metrics (one
    :func:`statistics_groups` group) gets its statistics computed once, by the first. A ``lang=auto`` metric
    (a group of its own) scores each pair in its language, from ``languages``."""
    if isinstance(metrics[0], ByLanguage):
        values = [metrics[0].language_scores(hyps, refs, languages or (), reference_sets)]
    elif reference_sets is not None:
        values = [metric.multi_reference_scores(hyps, reference_sets) for metric in metrics]
    elif len(metrics) == 1:
        values = [metrics[0].sentence_scores(hyps, refs)]
    else:
        shared = metrics[0].statistics(hyps, refs)  # type: ignore[attr-defined]
        values = [metric.scores_from_statistics(shared) for metric in metrics]  # type: ignore[attr-defined]
    out = [np.asarray(v, dtype=np.float64) for v in values]
    for metric, column in zip(metrics, out):
        if column.shape != (len(hyps),):
            raise RuntimeError(f"{metric!r} returned {column.shape} scores for {len(hyps)} predictions")
    return out


def chunk_bounds(n: int, workers: int, align: int = 1, per_worker: int = 4) -> list[tuple[int, int]]:
    """Contiguous ``[lo, hi)`` ranges covering ``0..n``, about ``per_worker`` per worker (so that a slow
    chunk does not leave a worker idle), with inner boundaries on multiples of ``align``."""
    align = max(1, align)
    units = -(-n // align)
    parts = max(1, min(units, workers * per_worker))
    cuts = [min(n, (units * j // parts) * align) for j in range(parts + 1)]
    return [(lo, hi) for lo, hi in zip(cuts, cuts[1:]) if hi > lo]


#: Pairs per call on an engine: enough to outweigh a call's round trip and pickles, few enough to spread a
#: file of thousands of predictions over the workers.
ENGINE_CHUNK = 1000


def _score_rows(rows: Piece, groups: dict[int, list[Metric]]) -> dict[int, list[np.ndarray]]:
    """One chunk of pairs scored with every metric group (by group number): the unit an engine maps."""
    hyps, refs, sets, langs = rows
    return {g: score_group(members, hyps, refs, sets, langs) for g, members in groups.items()}


#: A worker's metric groups (by group number in the caller's list), set once by ``_init_worker``.
_WORKER: dict[int, list[Metric]] = {}


def _init_worker(groups: dict[int, bytes]) -> None:
    _WORKER.update({g: pickle.loads(blob) for g, blob in groups.items()})


def _score_pooled(rows: Piece) -> dict[int, list[np.ndarray]]:
    """One piece scored with the worker's metric groups: the unit of a :class:`Scorer`'s own processes."""
    return _score_rows(rows, _WORKER)


def score_file(path: str | Path, fmt: str | None = None,
               references: str | Path | Sequence[str | Path] | None = None, beam: int = 1,
               pred_field: str | None = None, ref_field: str | None = None, id_field: str | None = None,
               profile: str | None = None, metrics: str | list[str] | None = None, kind: str = "code",
               workers: int | None = None, progress: bool = False, ci: int = 0,
               engine: Engine | None = None, out: str | Path | None = None, normalize: str | None = None,
               lang_field: str | None = None) -> ScoreRun:
    """Score a predictions file with a profile's metrics followed by the named ones, the named ones, or the
    kind's default metrics, reading and scoring it :data:`STREAM_CHUNK` predictions at a time.

    With ``out``, the rows go to ``out/scores.parquet`` chunk by chunk, a file that appears only once all are
    scored (:func:`write_run` then adds the summaries); without, they are dropped. A metric that is not
    ``parallel_safe`` may depend on its whole batch, so with one the file is read and scored in one chunk.
    ``normalize``: a normalisation of the predictions (:mod:`.normalize`). ``lang_field``: the field holding
    each example's language; ``lang=auto`` metrics need it, and are bound to the languages of the file, read
    in a first pass (module docstring).
    """
    chosen, used = select_metrics(profile, metrics, kind)
    check_lang_field(chosen, lang_field)
    size = STREAM_CHUNK if all(m.parallel_safe for m in chosen) else None
    known = known_languages(chosen)

    def read(size: int | None) -> Iterator[Predictions]:
        return iter_predictions(path, fmt, references, beam, pred_field, ref_field, id_field, size,
                                lang_field=lang_field, languages=known)

    if known is not None:
        chosen = bind_languages(chosen, {lang for chunk in read(STREAM_CHUNK) for lang in chunk.languages or ()})
    chunks = read(size)
    described = used.describe() if used else None
    if out is None:
        return score_chunks(chunks, chosen, None, described, progress, workers, ci, engine, normalize)
    dest = Path(out) / "scores.parquet"
    schema = scores_schema([m.column for m in chosen])
    with AtomicParquetWriter(dest, schema.with_metadata({**schema.metadata, **_metadata(chosen, described)})) as writer:
        run = score_chunks(chunks, chosen, writer.write, described, progress, workers, ci, engine, normalize)
    run.path = dest
    return run


def check_lang_field(metrics: Sequence[Metric], lang_field: str | None) -> None:
    """``lang=auto`` needs each example's language: a usage error naming the setting without ``lang_field``."""
    auto = [m.spec for m in metrics if isinstance(m, ByLanguage)]
    if auto and lang_field is None:
        raise InputError.setting("lang_field", f"{', '.join(auto)} scores each example in its own language: name "
                                               "the field (JSON Lines) or column (Parquet) holding it with "
                                               "--lang-field (job key lang_field)")


def known_languages(metrics: Sequence[Metric]) -> tuple[str, ...] | None:
    """The languages every ``lang=auto`` metric knows (None without one): the values an example may have."""
    auto = [m for m in metrics if isinstance(m, ByLanguage)]
    if not auto:
        return None
    return tuple(lang for lang in auto[0].known_languages if all(lang in m.known_languages for m in auto))


def bind_languages(metrics: Sequence[Metric], languages: Iterable[str]) -> list[Metric]:
    """The metrics, each ``lang=auto`` one bound to ``languages`` (:meth:`.registry.ByLanguage.bound`)."""
    languages = set(languages)
    return [m.bound(languages) if isinstance(m, ByLanguage) else m for m in metrics]


def _metadata(metrics: Sequence[Metric], profile: dict | None) -> dict[str, str]:
    """What ``scores.parquet`` says beside its rows: the metrics' signatures and the profile."""
    return {"revmine.signatures": json.dumps({m.column: m.signature() for m in metrics}, sort_keys=True),
            "revmine.profile": json.dumps(profile)}


def _stats(values: np.ndarray, ci: int = 0) -> dict[str, float | int | None]:
    """mean, median, sd, quartiles of the finite values; with ``ci`` resamples, the percentile bootstrap
    95% interval of the mean (``ci_lo``, ``ci_hi``; seed 12345, as sacrebleu's)."""
    counts = {"missing": int(np.isnan(values).sum()), "infinite": int(np.isinf(values).sum())}
    ok = values[np.isfinite(values)]
    interval = {}
    if ci:
        lo, hi = bootstrap_interval(ok, ci)
        interval = {"ci_lo": lo if np.isfinite(lo) else None, "ci_hi": hi if np.isfinite(hi) else None}
    if ok.size == 0:
        return {"mean": None, "median": None, "sd": None, "q1": None, "q3": None, **counts, **interval}
    q1, median, q3 = np.percentile(ok, [25, 50, 75])
    return {"mean": float(ok.mean()), "median": float(median), "sd": float(ok.std(ddof=1)) if ok.size > 1 else 0.0,
            "q1": float(q1), "q3": float(q3), **counts, **interval}


def _has_corpus_level(metric: Metric) -> bool:
    """A corpus form computed from segment statistics, which the stage keeps chunk by chunk (a metric whose
    corpus form needs the whole corpus at once is left out of ``corpus_rank1``); a ``lang=auto`` metric's is
    its languages' metric's."""
    if isinstance(metric, ByLanguage):
        metric = metric.template
    return type(metric).corpus_from_statistics is not Metric.corpus_from_statistics


def best_of_k(values: np.ndarray, n: int, k_max: int, k: int, higher_is_better: bool) -> np.ndarray:
    """Per example, the best score among its first ``k`` predictions (NaN only if all k are NaN)."""
    grid = values.reshape(n, k_max)[:, :k]
    all_nan = np.isnan(grid).all(axis=1)
    filled = np.where(np.isnan(grid), -np.inf if higher_is_better else np.inf, grid)
    best = filled.max(axis=1) if higher_is_better else filled.min(axis=1)
    return np.where(all_nan, np.nan, best)


def summarize(run: ScoreRun) -> dict:
    """Summary per k = 1..K: perfect predictions, and each metric over all predictions and best of k."""
    k_max, n = run.k, run.examples
    exact = run.exact.reshape(n, k_max) if n else np.zeros((0, 0))
    loose = run.exact_ignoring_whitespace.reshape(n, k_max) if n else np.zeros((0, 0))
    per_k = []
    for k in range(1, k_max + 1):
        perfect = int(exact[:, :k].any(axis=1).sum())
        perfect_ws = int(loose[:, :k].any(axis=1).sum())
        entry: dict = {"k": k, "n": n, "perfect": perfect, "perfect_pct": round(100.0 * perfect / n, 2) if n else None,
                       "perfect_ignoring_whitespace": perfect_ws,
                       "perfect_ignoring_whitespace_pct": round(100.0 * perfect_ws / n, 2) if n else None,
                       "metrics": {}}
        for metric in run.metrics:
            column = run.values(metric.column)
            entry["metrics"][metric.column] = {
                "all": _stats(column.reshape(n, k_max)[:, :k].ravel(), run.ci),
                "best": _stats(best_of_k(column, n, k_max, k, metric.higher_is_better), run.ci),
            }
        per_k.append(entry)
    return {
        "revmine": __version__,
        "source": run.source,
        "examples": n,
        "k": k_max,
        "profile": run.profile,
        "normalize": run.normalize,
        "normalized": run.normalized if run.normalize else None,
        "signatures": run.signatures,
        "better": {m.column: "higher" if m.higher_is_better else "lower" for m in run.metrics},
        "versions": _versions(),
        "per_k": per_k,
        "corpus_rank1": {c: (v if np.isfinite(v) else None) for c, v in run.corpus.items()},
    }


#: the packages whose versions can change a score (tokenisers, parsers, WordNet's reader, kernels)
SCORING_PACKAGES = ("sacrebleu", "nltk", "tree-sitter", "rouge-score", "numpy", "numba")


def _versions() -> dict[str, str]:
    """The version of each package of :data:`SCORING_PACKAGES` that is installed: numbers compared with published
    ones need them (sacrebleu's tokenisers and nltk's smoothing have changed values between versions)."""
    found = {}
    for package in SCORING_PACKAGES:
        try:
            found[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            continue
    return found


def summary_markdown(summary: dict) -> str:
    """A human-readable summary: one table of perfect predictions, one per metric (best of k)."""
    lines = [f"# Scores of {summary['source']}", ""]
    if summary.get("profile"):
        prof = summary["profile"]
        lines += [f"**Profile `{prof['name']}` in use**: {prof['description']}", ""]
    lines += [f"{summary['examples']} examples, {summary['k']} prediction(s) each.", ""]
    if summary.get("normalize"):
        lines += [f"Predictions normalised ({summary['normalize']}): {summary['normalized']}.", ""]
    lines += ["| k | perfect | % | perfect ignoring whitespace | % |", "|---|---|---|---|---|"]
    lines += [f"| {e['k']} | {e['perfect']} | {_f(e['perfect_pct'], 2)} | {e['perfect_ignoring_whitespace']} | "
              f"{_f(e['perfect_ignoring_whitespace_pct'], 2)} |" for e in summary["per_k"]]
    if summary.get("corpus_rank1"):
        lines += ["", "Corpus-level scores of the rank-1 predictions:", "", "| metric | corpus |", "|---|---|"]
        lines += [f"| {c} | {_f(v)} |" for c, v in summary["corpus_rank1"].items()]
    with_ci = any("ci_lo" in e["metrics"][c]["best"] for e in summary["per_k"] for c in e["metrics"])
    if with_ci:
        lines += ["", "95% bootstrap confidence intervals of the means:", "",
                  "| metric | k | best: mean [95% CI] | all: mean [95% CI] |", "|---|---|---|---|"]
        lines += [f"| {c} | {e['k']} | {_f(m['best']['mean'])} [{_f(m['best']['ci_lo'])}, {_f(m['best']['ci_hi'])}] | "
                  f"{_f(m['all']['mean'])} [{_f(m['all']['ci_lo'])}, {_f(m['all']['ci_hi'])}] |"
                  for c in summary["signatures"] for e in summary["per_k"] for m in [e["metrics"][c]]]
    if any(sig.startswith("bleu|tok:space|") for sig in summary["signatures"].values()):
        lines += ["", "BLEU here splits on whitespace only (`tok:space`, sacreBLEU's `tokenize='none'`), not "
                  "sacreBLEU's default `13a`: to compare with numbers published with sacreBLEU's defaults, score "
                  "with `--profile sacrebleu` (or `--metrics \"bleu(tokenize=13a)\"`)."]
    for column, signature in summary["signatures"].items():
        lines += ["", f"## {column}", "", f"`{signature}`", "",
                  "| k | best: mean | median | sd | all: mean | median | sd | missing | infinite |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for e in summary["per_k"]:
            b, a = e["metrics"][column]["best"], e["metrics"][column]["all"]
            lines.append(f"| {e['k']} | {_f(b['mean'])} | {_f(b['median'])} | {_f(b['sd'])} | {_f(a['mean'])} | "
                         f"{_f(a['median'])} | {_f(a['sd'])} | {a['missing']} | {a['infinite']} |")
    return "\n".join(lines) + "\n"


def _f(value: float | None, digits: int = 4) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def plot_boxes(run: ScoreRun, out_dir: Path) -> list[Path]:
    """One PNG per metric: box plots of the best-of-k score for each k, like the paper's figures."""
    plt = _pyplot()
    with writing(out_dir):
        out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for metric in run.metrics:
        fig = box_figure(run, metric)
        dest = out_dir / f"{metric.column}.png"
        with atomic_path(dest, suffix=".png") as tmp:
            fig.savefig(tmp, dpi=120, format="png")
        plt.close(fig)
        written.append(dest)
    return written


def _pyplot() -> Any:
    """matplotlib's pyplot on the Agg backend (no display needed), or the error saying how to install it."""
    try:
        import matplotlib
    except ImportError as exc:
        raise RuntimeError("plots need matplotlib: pip install 'revmine[plots]'") from exc

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def box_figure(run: ScoreRun, metric: Metric) -> Figure:
    """The box plot of one metric (a matplotlib Figure): titled with the metric's column name, readable; the
    x axis says what k is and how many examples each box holds; the signature, which says how the value was
    computed, is a smaller caption broken only between its ``|`` fields so no setting is cut in two."""
    plt = _pyplot()
    n, k_max = run.examples, run.k
    values = run.values(metric.column)
    data = []
    for k in range(1, k_max + 1):
        best = best_of_k(values, n, k_max, k, metric.higher_is_better)
        data.append(best[np.isfinite(best)])  # as the summary: NaN and infinity are counted, not drawn
    caption = signature_lines(metric.signature())
    fig, ax = plt.subplots(figsize=(max(5.0, 1.2 + 0.8 * k_max), 4.2 + 0.15 * len(caption)))
    ax.boxplot(data, showfliers=False)
    ax.set_xticks(range(1, k_max + 1), [f"k={k}" for k in range(1, k_max + 1)])
    not_drawn = [f"k={k}: {n - len(d)}" for k, d in enumerate(data, 1) if len(d) < n]
    ax.set_xlabel(f"best of the first k predictions (n = {n} examples"
                  + (f"; NaN or infinite, not drawn: {', '.join(not_drawn)})" if not_drawn else ")"))
    ax.set_ylabel(f"{metric.column} (best of k)")
    ax.set_title(metric.column, fontsize=12)
    fig.text(0.01, 0.01, "\n".join(caption), fontsize=7, ha="left", va="bottom", family="monospace")
    fig.tight_layout(rect=(0, 0.03 + 0.035 * len(caption), 1, 1))
    return fig


def signature_lines(signature: str, width: int = 70) -> list[str]:
    """``signature`` in lines of about ``width`` characters, each broken after a ``|`` (joined back without a
    separator they give the signature); a field longer than ``width`` keeps a line of its own, whole."""
    first, *fields = signature.split("|")
    lines = [first]
    for part in fields:
        if len(lines[-1]) + 1 + len(part) > width:
            lines[-1] += "|"
            lines.append(part)
        else:
            lines[-1] += "|" + part
    return lines


def write_run(run: ScoreRun, out_dir: str | Path, plot: bool = False) -> dict[str, Path]:
    """Write ``scores.parquet`` (signatures in its metadata) if the run holds its rows, else check the run
    streamed them there; then ``summary.json``, ``summary.md`` and, with ``plot``, the box plots."""
    out = Path(out_dir)
    scores = out / "scores.parquet"
    if run.table is not None:
        write_table(run.table, scores, scores_schema([m.column for m in run.metrics]),
                    metadata=_metadata(run.metrics, run.profile))
    elif run.path != scores:
        raise ValueError(f"the run's scores are not in {out}: score with out={str(out)!r} to write them there")
    paths = {
        "scores": scores,
        "summary_json": write_json(out / "summary.json", run.summary),
        "summary_md": write_text(out / "summary.md", summary_markdown(run.summary)),
    }
    if plot:
        for p in plot_boxes(run, out / "plots"):
            paths[f"plot:{p.stem}"] = p
    return paths


def score_with(options: ScoreOptions, progress: bool = False, engine: Engine | None = None,
               out: str | Path | None = None) -> ScoreRun:
    """:func:`score_file` with the settings of ``options``, on ``engine`` if given (a job's cluster), else on
    the one ``options`` asks for (a Dask cluster opened for this call and closed after); with ``out``, the
    rows are streamed to ``out/scores.parquet``."""
    if options.predictions is None:
        raise ValueError("no predictions file given")
    if engine is None and options.engine != "local":
        with open_engine(options.engine, workers=options.workers, address=options.scheduler) as opened:
            return score_with(options, progress, opened, out)
    return score_file(options.predictions, options.format, list(options.references or ()) or None, options.beam,
                      options.pred_field, options.ref_field, options.id_field, options.profile,
                      list(options.metrics) if options.metrics else None, options.kind,
                      None if engine is not None else options.workers, progress, options.ci, engine, out,
                      options.normalize, options.lang_field)
