"""The metrics stage: score every (example, rank) prediction, then summarise per k.

Perfect prediction at k follows Tufano et al. (ICSE 2021): an example counts as perfect at k when one of
its first k predictions equals the reference token for token (whitespace-separated tokens, so spacing
differences do not count). Summaries give, per k, the perfect count and percentage and, for each metric,
mean/median/sd over all predictions of rank <= k and over the best of those k (max, or min for
distances). NaN scores (e.g. a tree metric on code that does not parse) are left out of the statistics
and counted in ``missing``; infinite ones (SED normalised by an empty reference) are counted in
``infinite`` and left out too, so every statistic is a finite number or null and the JSON is valid.
Metrics defined at corpus level (BLEU sums n-gram statistics over the corpus, multi-bleu.perl style;
chrF and TER sum sacrebleu's statistics) also get their corpus value over the rank-1 predictions, which
is what papers report as "BLEU", beside the mean of sentence scores. ``ci=N`` adds to every mean its
95% percentile-bootstrap interval over N resamples.

``workers=N`` (N > 1) scores in N worker processes (``spawn``, so it behaves the same on every platform):
the pairs are cut into contiguous chunks (whole beams, so a reference's k pairs stay together and its
cached statistics are reused), every chunk of every metric is a task, and each metric's chunks are
concatenated in order. Values are byte-identical to ``workers=1``, because a metric's value for a pair
does not depend on the other pairs of its batch (``Metric.sentence_scores``'s contract). Metrics with
``parallel_safe = False``, and metrics that cannot be pickled (a warning says which), are scored in the
calling process on the whole list. Each worker receives the pairs and the metrics once, when it starts;
starting costs the imports and, for the METEOR family, loading WordNet (about a second a worker).

Metrics computed from the same per-pair statistics (``SharedStatistics`` with equal keys: Levenshtein,
its similarity and both SED on one tokeniser) are scored as one group, in this process or as one task
per chunk: the stage computes the statistics once per batch and passes them to each metric.

On an engine (:mod:`revmine.engine`: ``engine="dask"``, or the job's cluster under ``revmine run``) the
pairs are cut the same way, into chunks of about :data:`ENGINE_CHUNK` pairs (whole beams), and each chunk is
one call that scores it with every metric sent there; the metrics travel to each worker once. The same
metrics as above stay in this process, and corpus-level values are computed here, on the whole rank-1
list, in :func:`summarize`: ``scores.parquet`` and ``summary.json`` are byte-identical on every engine.
"""

from __future__ import annotations

import json
import multiprocessing
import pickle
import textwrap
import warnings
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .. import __version__
from ..engine import ENGINES, Engine, open_engine
from ..options import check, option
from ..progress import progress_bar
from ..schema import scores_schema
from ..store import atomic_path, write_json, write_table, write_text, writing
from ..errors import InputError
from .base import Metric, SharedStatistics
from .predictions import FORMATS as PREDICTION_FORMATS
from .predictions import Predictions, read_predictions
from .profiles import PROFILES
from .registry import make_metrics, select_metrics, split_specs
from .significance import bootstrap_interval


@dataclass
class ScoreRun:
    """What one scoring run produced: the score rows and everything needed to summarise them."""

    table: pa.Table
    metrics: list[Metric]
    k: int
    source: str = ""
    profile: dict | None = None
    summary: dict = field(default_factory=dict)
    reference_sets: list[list[str]] | None = None  # per example all its references, when several
    ci: int = 0  # bootstrap resamples for the summary's 95% confidence intervals (0: none)

    @property
    def signatures(self) -> dict[str, str]:
        return {m.column: m.signature() for m in self.metrics}

    @property
    def examples(self) -> int:
        return self.table.num_rows // self.k if self.k else 0

    def values(self, column: str) -> np.ndarray:
        """A score column as float64, one value per (example, rank)."""
        return self.table.column(column).to_numpy(zero_copy_only=False).astype(np.float64)


def _flatten(preds: Predictions) -> tuple[list[str], list[str], np.ndarray, np.ndarray]:
    k = preds.k
    hyps, refs = preds.flat()
    example = np.repeat(np.arange(len(preds), dtype=np.int64), k)
    rank = np.tile(np.arange(1, k + 1, dtype=np.int32), len(preds))
    return hyps, refs, example, rank


def score_predictions(preds: Predictions, metrics: Sequence[Metric], profile: dict | None = None,
                      progress: bool = False, workers: int | None = None, ci: int = 0,
                      engine: Engine | None = None) -> ScoreRun:
    """Score every prediction with every metric; returns rows fitting :func:`revmine.schema.scores_schema`.

    ``workers``: processes to score in (None or 1: this process only); ``engine``: where to score instead
    (chunks of pairs, see the module docstring).
    Several references per example (``preds.reference_sets()``): every metric scores against all of them
    (``Metric.multi_reference_scores``), a prediction is exact when it equals one of them, and the
    ``reference`` column holds the first. ``ci``: bootstrap resamples for the summary's 95% intervals.
    """
    columns = [m.column for m in metrics]
    if len(set(columns)) != len(columns):
        raise InputError.setting("metrics", f"two metrics write the same column: {columns}")
    hyps, refs, example, rank = _flatten(preds)
    sets = preds.reference_sets()
    flat_sets = [s for s in sets for _ in range(preds.k)] if sets else None
    exact = np.fromiter((any(h.split() == r.split() for r in (flat_sets[i] if flat_sets else [refs[i]]))
                         for i, h in enumerate(hyps)), dtype=bool, count=len(hyps))
    perfect = np.maximum.accumulate(exact.reshape(len(preds), preds.k), axis=1).ravel() if len(preds) else exact
    data: dict[str, object] = {
        "example": example,
        "id": np.repeat(np.array(preds.ids, dtype=object), preds.k) if preds.ids else [None] * len(hyps),
        "k": rank,
        "prediction": hyps,
        "reference": refs,
        "exact_match": exact,
        "perfect_at_k": perfect,
    }
    columns_scored = score_columns(metrics, hyps, refs, workers, preds.k, progress, flat_sets, engine)
    for metric, values in zip(metrics, columns_scored):
        data[metric.column] = values
    schema = scores_schema(columns)
    table = pa.table({name: data[name] for name in schema.names}, schema=schema)
    run = ScoreRun(table, list(metrics), preds.k, preds.source, profile, reference_sets=sets, ci=ci)
    run.summary = summarize(run)
    return run


def score_columns(metrics: Sequence[Metric], hyps: Sequence[str], refs: Sequence[str], workers: int | None = None,
                  align: int = 1, progress: bool = False,
                  reference_sets: Sequence[Sequence[str]] | None = None,
                  engine: Engine | None = None) -> list[np.ndarray]:
    """Each metric's ``sentence_scores(hyps, refs)`` as float64, in ``workers`` processes when > 1, or on
    ``engine`` in chunks of :data:`ENGINE_CHUNK` pairs when given (with ``reference_sets``, per pair all its
    references: ``multi_reference_scores``).

    Metrics that share statistics (:class:`SharedStatistics` with equal keys) are scored together: the
    statistics are computed once per chunk and passed to each. Chunk boundaries fall on multiples of
    ``align`` (the beam size). The result equals, byte for byte, calling every metric on the whole lists
    in this process.
    """
    workers = 1 if workers is None else int(workers)
    if workers < 1:
        raise InputError.setting("workers", f"must be at least 1, not {workers}")
    n = len(hyps)
    groups = statistics_groups(metrics)
    pooled: dict[int, bytes] = {}  # group number -> its metrics, pickled
    if (workers > 1 or engine is not None) and n > 1:
        for g, members in enumerate(groups):
            if not all(metrics[i].parallel_safe for i in members):
                continue
            try:
                pooled[g] = pickle.dumps([metrics[i] for i in members])
            except Exception as exc:  # noqa: BLE001 - any pickling failure means: score it here
                names = ", ".join(repr(metrics[i]) for i in members)
                warnings.warn(f"{names} cannot be sent to worker processes ({exc}); scored in this process",
                              RuntimeWarning, stacklevel=3)
    results: list[np.ndarray | None] = [None] * len(metrics)
    bar = progress_bar(total=len(metrics), desc="score", unit="metric", enabled=progress)

    def done(members: list[int], values: list[np.ndarray]) -> None:
        for i, column in zip(members, values):
            results[i] = column
        bar.update(len(members))

    def run_local() -> None:
        for g, members in enumerate(groups):
            if g not in pooled:
                done(members, score_group([metrics[i] for i in members], hyps, refs, reference_sets))

    if not pooled:
        run_local()
    elif engine is not None:
        sent = {g: [metrics[i] for i in groups[g]] for g in pooled}
        bounds = chunk_bounds(n, -(-n // ENGINE_CHUNK), align, per_worker=1)
        items = ((hyps[lo:hi], refs[lo:hi], reference_sets[lo:hi] if reference_sets is not None else None)
                 for lo, hi in bounds)
        parts = list(engine.map(_score_rows, items, sent))
        run_local()
        for g in pooled:
            done(groups[g], [np.concatenate(columns) for columns in zip(*(part[g] for part in parts))])
    else:
        bounds = chunk_bounds(n, workers, align)
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=min(workers, len(bounds) * len(pooled)), mp_context=context,
                                 initializer=_init_worker,
                                 initargs=(pooled, list(hyps), list(refs), reference_sets)) as pool:
            futures = {pool.submit(_score_chunk, g, lo, hi): (g, c)
                       for g in pooled for c, (lo, hi) in enumerate(bounds)}
            run_local()  # meanwhile, in this process
            chunks: dict[int, list] = {g: [None] * len(bounds) for g in pooled}
            left = {g: len(bounds) for g in pooled}
            for future in as_completed(futures):
                g, c = futures[future]
                chunks[g][c] = future.result()
                left[g] -= 1
                if left[g] == 0:
                    done(groups[g], [np.concatenate(parts) for parts in zip(*chunks[g])])
    bar.close()
    return results  # type: ignore[return-value]


def statistics_groups(metrics: Sequence[Metric]) -> list[list[int]]:
    """Indices of ``metrics`` grouped by shared statistics (equal ``statistics_key``), in first-seen
    order; a metric that shares nothing is a group of its own."""
    groups: dict[tuple, list[int]] = {}
    for i, metric in enumerate(metrics):
        key = ("shared", metric.statistics_key) if isinstance(metric, SharedStatistics) else ("alone", i)
        groups.setdefault(key, []).append(i)
    return list(groups.values())


def score_group(metrics: Sequence[Metric], hyps: Sequence[str], refs: Sequence[str],
                reference_sets: Sequence[Sequence[str]] | None = None) -> list[np.ndarray]:
    """Each metric's float64 scores of the pairs; a group of ``SharedStatistics`` metrics (one
    :func:`statistics_groups` group) gets its statistics computed once, by the first."""
    if reference_sets is not None:
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


def _score_rows(rows: tuple[Sequence[str], Sequence[str], Sequence[Sequence[str]] | None],
                groups: dict[int, list[Metric]]) -> dict[int, list[np.ndarray]]:
    """One chunk of pairs scored with every metric group (by group number): the unit an engine maps."""
    hyps, refs, sets = rows
    return {g: score_group(members, hyps, refs, sets) for g, members in groups.items()}


#: A worker's metric groups (by group number in the caller's list) and pairs, set once by ``_init_worker``.
_WORKER: dict[str, object] = {}


def _init_worker(groups: dict[int, bytes], hyps: list[str], refs: list[str],
                 reference_sets: Sequence[Sequence[str]] | None = None) -> None:
    _WORKER["groups"] = {g: pickle.loads(blob) for g, blob in groups.items()}
    _WORKER["hyps"], _WORKER["refs"], _WORKER["sets"] = hyps, refs, reference_sets


def _score_chunk(group: int, lo: int, hi: int) -> list[np.ndarray]:
    sets = _WORKER["sets"]
    return score_group(_WORKER["groups"][group], _WORKER["hyps"][lo:hi], _WORKER["refs"][lo:hi],  # type: ignore[index]
                       sets[lo:hi] if sets is not None else None)  # type: ignore[index]


def score_file(path: str | Path, fmt: str | None = None,
               references: str | Path | Sequence[str | Path] | None = None, beam: int = 1,
               pred_field: str | None = None, ref_field: str | None = None, id_field: str | None = None,
               profile: str | None = None, metrics: str | list[str] | None = None, kind: str = "code",
               workers: int | None = None, progress: bool = False, ci: int = 0,
               engine: Engine | None = None) -> ScoreRun:
    """Read a predictions file and score it with a profile's metrics followed by the named ones, the named
    ones, or the kind's default metrics."""
    preds = read_predictions(path, fmt, references, beam, pred_field, ref_field, id_field)
    chosen, used = select_metrics(profile, metrics, kind)
    return score_predictions(preds, chosen, profile=used.describe() if used else None, progress=progress,
                             workers=workers, ci=ci, engine=engine)


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
    return type(metric).corpus_score is not Metric.corpus_score


def best_of_k(values: np.ndarray, n: int, k_max: int, k: int, higher_is_better: bool) -> np.ndarray:
    """Per example, the best score among its first ``k`` predictions (NaN only if all k are NaN)."""
    grid = values.reshape(n, k_max)[:, :k]
    all_nan = np.isnan(grid).all(axis=1)
    filled = np.where(np.isnan(grid), -np.inf if higher_is_better else np.inf, grid)
    best = filled.max(axis=1) if higher_is_better else filled.min(axis=1)
    return np.where(all_nan, np.nan, best)


def summarize(run: ScoreRun) -> dict:
    """Summary per k = 1..K: perfect predictions, and each metric over all predictions and best of k."""
    table, k_max, n = run.table, run.k, run.examples
    exact = table.column("exact_match").to_numpy(zero_copy_only=False).reshape(n, k_max) if n else np.zeros((0, 0))
    values = {m.column: run.values(m.column) for m in run.metrics}
    per_k = []
    for k in range(1, k_max + 1):
        perfect = int(exact[:, :k].any(axis=1).sum())
        entry: dict = {"k": k, "n": n, "perfect": perfect, "perfect_pct": round(100.0 * perfect / n, 2) if n else None,
                       "metrics": {}}
        for metric in run.metrics:
            column = values[metric.column]
            entry["metrics"][metric.column] = {
                "all": _stats(column.reshape(n, k_max)[:, :k].ravel(), run.ci),
                "best": _stats(best_of_k(column, n, k_max, k, metric.higher_is_better), run.ci),
            }
        per_k.append(entry)
    first = table.filter(pc.equal(table.column("k"), 1))
    hyps, refs = first.column("prediction").to_pylist(), first.column("reference").to_pylist()
    if run.reference_sets is not None:
        corpus = {m.column: m.multi_reference_corpus_score(hyps, run.reference_sets)
                  for m in run.metrics if _has_corpus_level(m) and n}
    else:
        corpus = {m.column: m.corpus_score(hyps, refs) for m in run.metrics if _has_corpus_level(m) and n}
    return {
        "revmine": __version__,
        "source": run.source,
        "examples": n,
        "k": k_max,
        "profile": run.profile,
        "signatures": run.signatures,
        "per_k": per_k,
        "corpus_rank1": {c: (v if np.isfinite(v) else None) for c, v in corpus.items()},
    }


def summary_markdown(summary: dict) -> str:
    """A human-readable summary: one table of perfect predictions, one per metric (best of k)."""
    lines = [f"# Scores of {summary['source']}", ""]
    if summary.get("profile"):
        prof = summary["profile"]
        lines += [f"**Profile `{prof['name']}` in use**: {prof['description']}", ""]
    lines += [f"{summary['examples']} examples, {summary['k']} prediction(s) each.", "",
              "| k | perfect | % |", "|---|---|---|"]
    lines += [f"| {e['k']} | {e['perfect']} | {e['perfect_pct']:.2f} |" for e in summary["per_k"]]
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
    for column, signature in summary["signatures"].items():
        lines += ["", f"## {column}", "", f"`{signature}`", "",
                  "| k | best: mean | median | sd | all: mean | median | sd | missing | infinite |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for e in summary["per_k"]:
            b, a = e["metrics"][column]["best"], e["metrics"][column]["all"]
            lines.append(f"| {e['k']} | {_f(b['mean'])} | {_f(b['median'])} | {_f(b['sd'])} | {_f(a['mean'])} | "
                         f"{_f(a['median'])} | {_f(a['sd'])} | {a['missing']} | {a['infinite']} |")
    return "\n".join(lines) + "\n"


def _f(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4f}"


def plot_boxes(run: ScoreRun, out_dir: Path) -> list[Path]:
    """One PNG per metric: box plots of the best-of-k score for each k, like the paper's figures."""
    try:
        import matplotlib
    except ImportError as exc:
        raise RuntimeError("plots need matplotlib: pip install 'revmine[plots]'") from exc

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with writing(out_dir):
        out_dir.mkdir(parents=True, exist_ok=True)
    n, k_max = run.examples, run.k
    written = []
    for metric in run.metrics:
        values = run.values(metric.column)
        data = []
        for k in range(1, k_max + 1):
            best = best_of_k(values, n, k_max, k, metric.higher_is_better)
            data.append(best[np.isfinite(best)])  # as the summary: NaN and infinity are counted, not drawn
        fig, ax = plt.subplots(figsize=(max(4.5, 1.2 + 0.8 * k_max), 4))
        ax.boxplot(data, showfliers=False)
        ax.set_xticks(range(1, k_max + 1), [f"k={k}" for k in range(1, k_max + 1)])
        ax.set_ylabel(f"{metric.column} (best of k)")
        ax.set_title(textwrap.fill(metric.signature(), 60), fontsize=7)
        fig.tight_layout()
        dest = out_dir / f"{metric.column}.png"
        with atomic_path(dest, suffix=".png") as tmp:
            fig.savefig(tmp, dpi=120, format="png")
        plt.close(fig)
        written.append(dest)
    return written


def write_run(run: ScoreRun, out_dir: str | Path, plot: bool = False) -> dict[str, Path]:
    """Write ``scores.parquet`` (signatures in its metadata), ``summary.json`` and ``summary.md``."""
    out = Path(out_dir)
    meta = {"revmine.signatures": json.dumps(run.signatures, sort_keys=True),
            "revmine.profile": json.dumps(run.profile)}
    paths = {
        "scores": write_table(run.table, out / "scores.parquet", scores_schema([m.column for m in run.metrics]),
                              metadata=meta),
        "summary_json": write_json(out / "summary.json", run.summary),
        "summary_md": write_text(out / "summary.md", summary_markdown(run.summary)),
    }
    if plot:
        for p in plot_boxes(run, out / "plots"):
            paths[f"plot:{p.stem}"] = p
    return paths


@dataclass(frozen=True)
class ScoreOptions:
    """The settings of ``revmine score`` and of a job file's ``[score]`` (scored only when predictions are given)."""

    predictions: Path | None = option(None, "predictions file (Tufano blocks, text, JSON Lines or Parquet)",
                                      type=Path, flag="", digest=True)
    format: str | None = option(None, "input format (default: detected)", type=str, choices=PREDICTION_FORMATS)
    references: tuple[Path, ...] | None = option(None, "references file, one line per example (format text); "
                                                 "one file per reference of an example", type=Path,
                                                 items=True, flag="--refs", append=True, digest=True,
                                                 stdin=".txt")
    beam: int = option(1, "predictions per example (format text)", min=1)
    pred_field: str | None = option(None, "prediction field (jsonl, parquet)", type=str)
    ref_field: str | None = option(None, "reference field (jsonl, parquet)", type=str)
    id_field: str | None = option(None, "example id field (jsonl, parquet)", type=str)
    kind: str = option("code", "default metric set: code (BLEU, edit distances, TREED) or nl (comments, messages)",
                       choices=("code", "nl"))
    metrics: tuple[str, ...] | None = option(None, "metric specs such as bleu(tokenize=char), overriding kind "
                                             "(with a profile: added to its metrics)", type=str, items=True,
                                             split=split_specs)
    profile: str | None = option(None, "reproduce a publication's pipeline exactly (see revmine profiles)", type=str,
                                 choices=tuple(sorted(PROFILES)))
    workers: int | None = option(None, "processes to score in (default 1; worth it for slow metrics such as TER on "
                                       "large files); with --engine dask, the worker processes of a local Dask cluster "
                                       "(default: the cores)", type=int, min=1)
    #: where to score (revmine run: the job's [engine], so not a key of [score])
    engine: str = option("local", "local (this process and its workers) or dask (pip install 'revmine[dask]'): "
                                  "chunks of predictions are scored there", choices=ENGINES, job=False)
    scheduler: str | None = option(None, "address of a running Dask scheduler, e.g. tcp://10.0.0.5:8786 "
                                         "(or REVMINE_DASK_SCHEDULER)", type=str, job=False)
    ci: int = option(0, "bootstrap resamples for 95% confidence intervals of the means in the summary (0: none)",
                     min=0)

    def __post_init__(self) -> None:
        check(self)
        if self.scheduler and self.engine != "dask":
            raise InputError.setting("scheduler", "a scheduler address needs engine 'dask'")
        if self.metrics:
            make_metrics(list(self.metrics))  # an unknown metric or parameter fails here, before any scoring


def score_with(options: ScoreOptions, progress: bool = False, engine: Engine | None = None) -> ScoreRun:
    """:func:`score_file` with the settings of ``options``, on ``engine`` if given (a job's cluster), else on
    the one ``options`` asks for (a Dask cluster opened for this call and closed after)."""
    if options.predictions is None:
        raise ValueError("no predictions file given")
    if engine is None and options.engine != "local":
        with open_engine(options.engine, workers=options.workers, address=options.scheduler) as opened:
            return score_with(options, progress, opened)
    return score_file(options.predictions, options.format, list(options.references or ()) or None, options.beam,
                      options.pred_field, options.ref_field, options.id_field, options.profile,
                      list(options.metrics) if options.metrics else None, options.kind,
                      None if engine is not None else options.workers, progress, options.ci, engine)
