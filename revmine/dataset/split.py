"""``revmine split``: filtered candidates -> ``train.parquet``, ``eval.parquet``, ``test.parquet``.

Three strategies, all seeded and deterministic (the same input and seed give byte-identical files; rows are
written sorted by kind and id, so even the input's row order does not matter):

* ``random`` (default, 80/10/10): whole near-duplicate *clusters* are shuffled and dealt to the splits, so
  near-duplicates can never straddle two splits.
* ``project``: whole projects are shuffled and dealt, so the test split measures generalisation to
  unseen projects.
* ``time``: review rounds in order of their ``created`` time, read from the ``rounds.parquet`` given
  (candidates carry no time), train before eval before test.

Units (clusters, projects or rounds) are dealt in order; a unit goes to the split where the middle of its
rows falls on the cumulative 80/10/10 scale, which keeps split sizes close to the fractions for units of
any size. With ``project`` and ``time`` a cluster may still span splits: it is kept where its earliest
member is (train before eval before test) and its members elsewhere are dropped as
``cross_split_near_duplicate``. Within a split, one row per duplicate group is kept (the smallest id; a
group is the pairs of a cluster, or the triplets of a cluster with an identical cleaned comment:
:func:`revmine.io.rows.duplicate_key`): the others are dropped as ``near_duplicate`` (nothing, when the filter step
already did it). Triplets with near-identical code but different comments are all kept, in one split.
Dropped rows go to ``dropped.parquet`` with the reason, a summary to ``split.json``.

The input is normally the filter step's ``kept.parquet`` (with ``id`` and ``cluster_id``); raw candidates
work too (ids are then computed here). Either way the split does not take the clusters on trust: it runs
the exact near-duplicate join (:mod:`revmine.algorithms.near_duplicates`) over its rows and merges what it finds
with the given clusters, so no near-duplicate pair can straddle two splits whatever produced the input (an
older revmine clustered with MinHash LSH, which missed a few pairs). Merged clusters keep the smallest given
cluster id.

Hunk-level rows (``hunks``: the preprocess stage's ``hunks.parquet``, CodeReviewer's unit) are split in the same
run into ``hunks.parquet`` (:data:`~revmine.schema.HUNK_DATASET_SCHEMA`): whole changes, projects or rounds in time
order are dealt with the same seed and fractions (:func:`_split_hunks`); the two levels are dealt apart.

The five files (six with hunks) are written into a staged directory that replaces ``out_dir`` whole
(:mod:`revmine.io.staging`): a failed re-run leaves the previous split untouched, never a mix of two seeds.
"""

from __future__ import annotations

import contextlib
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Hashable, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..algorithms.near_duplicates import UnionFind, near_duplicate_clusters
from ..algorithms.reorder import Reorder
from ..errors import InputError
from ..io.rows import (
    CANDIDATES_TAG, SPLIT_NAMES, SPLITS, CandidateFile, CandidateRows, cluster_names, dropped_rows,
    keep_one_per_cluster,
)
from ..io.staging import staged_directory
from ..io.store import ROW_GROUP_ROWS, RowGroupWriter, read_table, write_json, write_table
from ..schema import (DATASET_SCHEMA, FILTER_DROPPED_SCHEMA, FILTERED_NAME, FILTERED_VERSION, HUNK_DATASET_SCHEMA,
                      HUNKS_SCHEMA, ROUNDS_SCHEMA)
from .options import STRATEGIES, SplitOptions

__all__ = ["SPLITS", "STRATEGIES", "SplitOptions", "split_dataset"]

DROPPED_FILE = "dropped.parquet"
SUMMARY_FILE = "split.json"
HUNKS_FILE = "hunks.parquet"
DROPPED = len(SPLITS)  # the sink after the splits'


def split_dataset(dataset: str | Path | pa.Table, out_dir: str | Path,
                  options: SplitOptions | None = None) -> dict[str, Any]:
    """Split ``dataset`` into ``OUT/{train,eval,test}.parquet`` (+ ``dropped.parquet``, ``split.json``).

    Two passes over the input (:class:`revmine.io.rows.CandidateFile`): the decisions are taken on the rows'
    light columns, then whole rows stream to their files through :class:`revmine.algorithms.reorder.Reorder`, so the
    code and maps are never held whole."""
    options = options or SplitOptions()
    source = CandidateFile(dataset, accept=(f"{FILTERED_NAME}/{FILTERED_VERSION}", CANDIDATES_TAG))
    rows = CandidateRows(source.working())
    cluster = _clusters(rows, options, source.path)
    natural = _natural_splits(rows, cluster, options, source.path)

    # A cluster lives in the first split one of its members falls in; the others are dropped there.
    home: dict[str, int] = {}
    for c, s in zip(cluster, natural):
        home[c] = min(home.get(c, s), s)
    ids, kinds = rows.col("id"), rows.col("kind")
    order = sorted(range(len(rows)), key=lambda i: (kinds[i], ids[i]))  # output order: input order is irrelevant
    at_home = [i for i in order if natural[i] == home[cluster[i]]]
    keeper = keep_one_per_cluster(at_home, cluster, kinds, ids, rows.tokens("comment_abstract"))
    drops: dict[str, tuple[list[int], list[str]]] = defaultdict(lambda: ([], []))
    members: list[list[int]] = [[] for _ in SPLITS]
    for i in order:
        c = cluster[i]
        if i not in keeper:
            _note(drops, "cross_split_near_duplicate", i, f"its cluster {c} is in {SPLITS[home[c]]}")
        elif keeper[i] != i:
            _note(drops, "near_duplicate", i, f"near-duplicate of {ids[keeper[i]]}")
        else:
            members[natural[i]].append(i)

    # every row's file (a split, or DROPPED: dropped.parquet, by reason then output order) and row there
    sink, at = np.full(len(rows), -1, np.int64), np.zeros(len(rows), np.int64)
    detail: dict[int, tuple[str, str]] = {}
    for s, rows_ in enumerate(members):
        sink[rows_], at[rows_] = s, np.arange(len(rows_))
    dropped_order = [(i, name, text) for name, (rows_, details) in sorted(drops.items())
                     for i, text in zip(rows_, details)]
    for position, (i, name, text) in enumerate(dropped_order):
        sink[i], at[i], detail[i] = DROPPED, position, (name, text)
    sizes = {name: dict(sorted(Counter(kinds[i] for i in members[s]).items())) for s, name in enumerate(SPLITS)}
    summary = {
        "strategy": options.strategy, "seed": options.seed, "fractions": list(options.fractions),
        "rows": len(rows), "clusters": len(home), "sizes": sizes, "split_names": SPLIT_NAMES,
        "dropped": {name: len(rows_) for name, (rows_, _) in sorted(drops.items())},
    }
    del rows, keeper, order, at_home

    hunks = None if options.hunks is None else _split_hunks(options)
    if hunks is not None:
        summary["hunks"] = {name: int(pc.sum(pc.equal(hunks.column("split"), name)).as_py() or 0) for name in SPLITS}

    out_dir = Path(out_dir)
    outputs = (*(f"{name}.parquet" for name in SPLITS), DROPPED_FILE, SUMMARY_FILE, *([HUNKS_FILE] if hunks else []))
    with staged_directory(out_dir, outputs) as staging:
        if hunks is not None:
            write_table(hunks, staging / HUNKS_FILE, HUNK_DATASET_SCHEMA)
        with contextlib.ExitStack() as stack:
            sinks = [stack.enter_context(RowGroupWriter(staging / f"{name}.parquet", DATASET_SCHEMA, ROW_GROUP_ROWS))
                     for name in SPLITS]
            sinks.append(stack.enter_context(RowGroupWriter(staging / DROPPED_FILE, FILTER_DROPPED_SCHEMA, ROW_GROUP_ROWS)))
            reorder = stack.enter_context(Reorder(sinks, spill_dir=staging))
            for start, batch in source.batches():
                end = start + batch.num_rows
                batch = batch.drop_columns([n for n in ("cluster_id",) if n in batch.column_names]).append_column(
                    "cluster_id", pa.array(cluster[start:end], pa.string()))
                for s, name in enumerate(SPLITS):
                    here = np.flatnonzero(sink[start:end] == s)
                    if here.size:
                        part = batch.take(pa.array(here))
                        reorder.add(s, part.append_column("split", pa.array([name] * here.size, pa.string())),
                                    at[start + here])
                here = np.flatnonzero(sink[start:end] == DROPPED).tolist()
                if here:
                    names, texts = zip(*(detail[start + i] for i in here))
                    reorder.add(DROPPED, dropped_rows(batch, here, list(names), list(texts),
                                                      [cluster[start + i] for i in here]), at[start + np.array(here)])
        write_json(staging / SUMMARY_FILE, summary)
    return {**summary, "paths": {name: str(out_dir / f"{name}.parquet") for name in SPLITS},
            "dropped_path": str(out_dir / DROPPED_FILE), "summary_path": str(out_dir / SUMMARY_FILE),
            **({"hunks_path": str(out_dir / HUNKS_FILE)} if hunks is not None else {})}


def _split_hunks(options: SplitOptions) -> pa.Table:
    """The hunk rows with a ``split`` column, in split order then input order. The strategy's units are whole
    changes (``random``: every hunk of every patch set of a change in one split, so a hunk and its near-copy on
    the next patch set never straddle two splits), projects (``project``), or rounds in time order (``time``),
    dealt with the method rows' seed and fractions; the two levels are dealt apart (each is its own dataset)."""
    table = read_table(options.hunks, expect=HUNKS_SCHEMA)
    if options.strategy == "random":
        units = list(zip(*(table.column(n).to_pylist() for n in ("source", "project", "change"))))
    else:
        units = table.column("project" if options.strategy == "project" else "round_id").to_pylist()
    splits = np.array(_deal_units(units, options, options.hunks))
    rows = np.concatenate([np.flatnonzero(splits == s) for s in range(len(SPLITS))]).astype(np.int64)
    names = pa.array([SPLITS[s] for s in splits[rows].tolist()], pa.string())
    table = table.take(pa.array(rows)).add_column(0, "split", names)
    for name in ("task", "record"):  # mined rows: no CodeReviewer record of their own
        table = table.append_column(name, pa.nulls(table.num_rows, HUNK_DATASET_SCHEMA.field(name).type))
    return table.cast(HUNK_DATASET_SCHEMA)


def _clusters(rows: CandidateRows, options: SplitOptions, path: Path | None) -> list[str]:
    """Each row's cluster: the given clusters (or each row alone) merged with the near-duplicate pairs the
    exact join finds among the rows; a merged cluster is named by its smallest given cluster id."""
    given = rows.col("cluster_id") if "cluster_id" in rows.table.column_names else rows.col("id")
    if None in given:
        row = given.index(None) + 1
        raise InputError(path, f"row {row}: no cluster id", line=row, field="cluster_id")
    union = UnionFind(len(rows))
    first: dict[str, int] = {}
    for i, c in enumerate(given):
        union.union(first.setdefault(c, i), i)
    everything = range(len(rows))
    labels = near_duplicate_clusters(rows.bags(everything, options.duplicate_fields), options.near_duplicates,
                                     options.engine).labels
    for i, label in enumerate(labels.tolist()):
        union.union(label, i)
    return cluster_names(union.labels().tolist(), given)


def _note(drops: dict[str, tuple[list[int], list[str]]], name: str, row: int, detail: str) -> None:
    drops[name][0].append(row)
    drops[name][1].append(detail)


def _natural_splits(rows: CandidateRows, cluster: Sequence[str], options: SplitOptions,
                    path: Path | None) -> list[int]:
    """Each row's split index under the strategy, before clusters are reconciled."""
    units = (list(cluster) if options.strategy == "random" else rows.col("project") if options.strategy == "project"
             else rows.col("round_id"))
    return _deal_units(units, options, path)


def _deal_units(units: Sequence[Hashable], options: SplitOptions, path: Path | None) -> list[int]:
    """Each row's split index, given its unit under the strategy (round ids for ``time``): units shuffled with
    the seed, or rounds in time order, dealt by the fractions."""
    if options.strategy == "time":
        times = _round_times(units, options, path)
        order = sorted(set(units), key=lambda r: (times[r], r))
    else:
        order = _shuffled(sorted(set(units)), np.random.default_rng(options.seed))
    return _deal(units, order, options.fractions)


def _shuffled(units: list[Hashable], rng: np.random.Generator) -> list[Hashable]:
    return [units[k] for k in rng.permutation(len(units))]


def _deal(units: Sequence[Hashable], order: Sequence[Hashable], fractions: Sequence[float]) -> list[int]:
    """Give each unit, in ``order``, the split where the middle of its rows falls on the cumulative scale."""
    size = Counter(units)
    bounds = np.cumsum(fractions) * len(units)
    split_of: dict[Hashable, int] = {}
    done = 0
    for unit in order:
        middle = done + size[unit] / 2
        split_of[unit] = min(int(np.searchsorted(bounds, middle, side="right")), len(SPLITS) - 1)
        done += size[unit]
    return [split_of[u] for u in units]


def _round_times(round_ids: Sequence[str], options: SplitOptions, path: Path | None) -> dict[str, Any]:
    """round_id -> the round's ``created`` time in the rounds file (earliest of its rows)."""
    if options.rounds is None:
        raise InputError(path, "the time split needs the rounds' times: give the rounds.parquet file (rounds=...)")
    rounds = read_table(options.rounds, expect=ROUNDS_SCHEMA, columns=["round_id", "created"])
    rounds = rounds.filter(pc.is_valid(rounds.column("created")))
    times: dict[str, Any] = {}
    for round_id, created in zip(rounds.column("round_id").to_pylist(), rounds.column("created").to_pylist()):
        if round_id not in times or created < times[round_id]:
            times[round_id] = created
    missing = next((r for r in round_ids if r not in times), None)
    if missing is not None:
        raise InputError(options.rounds, f"no created time for round {missing!r} of {path or 'the dataset'}",
                         field="created")
    return times
