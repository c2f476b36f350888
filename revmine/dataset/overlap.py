"""``revmine overlap NEW --against BENCHMARK``: which rows of a new dataset a benchmark already has.

A training set mined today may hold a benchmark's test examples (the same review, mined again, or a
near-copy of the code), which inflates every score measured on that benchmark. The check compares each row
of NEW, split by split, with every row of BENCHMARK on what the split compares (the tokens of
``m_s_abstract`` and ``m_r_abstract``, :data:`revmine.io.rows.DUPLICATE_FIELDS`) with the split's criterion
(:class:`revmine.algorithms.near_duplicates.NearDuplicateConfig`: set Jaccard >= 0.9 and multiset Jaccard >= 0.8):

* **exact**: the same tokens in the same order in every field as some benchmark row;
* **near**: not exact, but both thresholds met with some benchmark row (the best one is reported).

Only the benchmark is indexed (:class:`revmine.algorithms.near_duplicates.NearDuplicateIndex`); NEW is streamed in
batches and never compared with itself: 1,000,000 new rows against 20,000 take 123 s (73 s CPU, peak 499 MiB;
``benchmarks/bench_overlap.py``, median of 3 on a shared 2-core machine). The batches are matched on an engine
(:mod:`revmine.runtime.engine`: in this process, or on Dask workers that each receive the index once); the
result is the same. NEW and BENCHMARK are each a splits folder
(``train``/``eval``/``test.parquet``, e.g. the split's or an import's output) or one Parquet file with those
columns. The comment is not compared: like the split, the unit of leakage is the code (the same code
under another comment teaches the model the refinement all the same).

Outputs: ``overlap.json`` (the counts per split, the benchmark, the criterion) and ``overlap.parquet``
(``overlap/1``: every overlapping row, its match and the benchmark row it matches). With ``drop``, NEW is
written again without those rows (same file names and schemas; a splits folder's ``split.json`` and
``dropped.parquet`` are copied), beside the two report files, into a folder replaced whole; ``revmine
export`` then records the check in the dataset card (it reads ``overlap.json`` beside the splits).
"""

from __future__ import annotations

import shutil
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Sequence

import pyarrow as pa

from ..algorithms.near_duplicates import NearDuplicateConfig, NearDuplicateIndex
from ..errors import InputError
from ..io.rows import DUPLICATE_FIELDS, SPLITS
from ..io.staging import staged_directory
from ..io.store import AtomicParquetWriter, Parts, write_json, write_table
from ..runtime.engine import open_engine
from ..schema import OVERLAP_SCHEMA
from .split import DROPPED_FILE, SUMMARY_FILE

__all__ = ["OVERLAP_FILE", "OVERLAP_ROWS_FILE", "OverlapOptions", "check_overlap", "drop_overlap", "overlap_markdown"]

OVERLAP_FILE = "overlap.json"
OVERLAP_ROWS_FILE = "overlap.parquet"


@dataclass(frozen=True)
class OverlapOptions:
    """What is compared: the benchmark's splits (None: all), the criterion and the fields, as the split does."""

    benchmark_splits: tuple[str, ...] | None = None
    near_duplicates: NearDuplicateConfig = field(default_factory=NearDuplicateConfig)
    fields: tuple[str, ...] = DUPLICATE_FIELDS
    batch_size: int = 5_000  # rows of NEW tokenised at a time (their token lists dominate memory)


def dataset_parts(path: str | Path) -> dict[str, Path]:
    """name -> Parquet file: a splits folder's ``train``/``eval``/``test`` that exist, else the path itself."""
    path = Path(path)
    if not path.exists():
        raise InputError(path, "no such file or directory")
    if path.is_dir():
        found = {name: path / f"{name}.parquet" for name in SPLITS if (path / f"{name}.parquet").is_file()}
        if found:
            return found
    return {path.stem: path}


def _columns(parts: Parts, path: Path, fields: Sequence[str]) -> list[str]:
    names = parts.schema.names
    missing = next((name for name in fields if name not in names), None)
    if missing is not None:
        raise InputError(path, "missing column the overlap check compares", field=missing)
    return [*fields, *(["id"] if "id" in names else [])]


def _batches(path: Path, options: OverlapOptions) -> Iterator[tuple[int, list[list[str | None]], list[str | None]]]:
    """The file's rows in batches, as (first row number, each field's texts, the rows' ids)."""
    parts = Parts(path)
    columns = _columns(parts, path, options.fields)
    start = 0
    for batch in parts.iter_batches(options.batch_size, columns=columns):
        ids = batch.column("id").to_pylist() if "id" in columns else [None] * batch.num_rows
        yield start, [batch.column(name).to_pylist() for name in options.fields], ids
        start += batch.num_rows


def _documents(texts: list[list[str | None]]) -> list[tuple[list[str], ...]]:
    """Each row's fields as token lists (whitespace tokens, as the split reads them)."""
    return list(zip(*([(text or "").split() for text in column] for column in texts)))


def match_batch(batch: tuple[int, list[list[str | None]], list[str | None]], index: NearDuplicateIndex
                ) -> tuple[int, list[tuple[int, str | None, str, int, float, float]]]:
    """The batch's row count, and ``(row, id, match, benchmark row, set_jaccard, multiset_jaccard)`` for each
    of its overlapping rows: the unit an engine maps (:mod:`revmine.runtime.engine`)."""
    start, texts, ids = batch
    found = []
    for i, doc in enumerate(_documents(texts)):
        hit = _best_match(index, doc)
        if hit is not None:
            found.append((start + i, ids[i], *hit))
    return len(ids), found


def check_overlap(new: str | Path, against: str | Path, options: OverlapOptions | None = None,
                  engine: str = "local", workers: int | None = None,
                  address: str | None = None) -> tuple[dict[str, Any], pa.Table]:
    """The overlap summary (per split of ``new``) and the table of overlapping rows (``overlap/1``).

    ``engine``/``workers``/``address``: where the batches of ``new`` are matched (:mod:`revmine.runtime.engine`; the
    index is sent once to each worker); the result does not depend on it."""
    options = options or OverlapOptions()
    benchmark = dataset_parts(against)
    if options.benchmark_splits is not None:
        unknown = [name for name in options.benchmark_splits if name not in benchmark]
        if unknown:
            raise InputError(against, f"no split {unknown[0]!r} here (it has {', '.join(benchmark)})")
        benchmark = {name: benchmark[name] for name in options.benchmark_splits}
    docs: list[tuple[list[str], ...]] = []
    where: list[tuple[str, int, str | None]] = []
    for name, path in benchmark.items():
        for start, texts, ids in _batches(path, options):
            docs += _documents(texts)
            where += [(name, start + i, ids[i]) for i in range(len(ids))]
    index = NearDuplicateIndex(docs, options.near_duplicates)
    benchmark_rows = len(docs)
    del docs  # the index keeps what it needs; the token lists are the bulk of the memory
    found: dict[str, list[Any]] = defaultdict(list)
    splits: dict[str, dict[str, int]] = {}
    with open_engine(engine, workers=workers, address=address) as runner:
        for name, path in dataset_parts(new).items():
            counts = {"rows": 0, "exact": 0, "near": 0}
            for rows, hits in runner.map(match_batch, _batches(path, options), index):
                counts["rows"] += rows
                for row, row_id, match, j, set_j, multi_j in hits:
                    counts[match] += 1
                    values = (name, row, row_id, match, *where[j], set_j, multi_j)
                    for column, value in zip(OVERLAP_SCHEMA.names, values):
                        found[column].append(value)
            splits[name] = counts
    config = options.near_duplicates
    summary = {"new": str(new), "benchmark": str(against), "benchmark_splits": list(benchmark),
               "benchmark_rows": benchmark_rows, "fields": list(options.fields),
               "set_threshold": config.set_threshold, "multiset_threshold": config.multiset_threshold,
               "splits": splits, "dropped": False}
    table = pa.table({name: found[name] for name in OVERLAP_SCHEMA.names}, schema=OVERLAP_SCHEMA)
    return summary, table


def _best_match(index: NearDuplicateIndex, doc: Sequence[Sequence[str]]) -> tuple[str, int, float, float] | None:
    """("exact", reference, 1, 1), or ("near", the reference with the highest indices), or None."""
    exact = index.exact(doc)
    if exact is not None:
        return "exact", exact, 1.0, 1.0
    matches = index.matches(doc)
    if not matches:
        return None
    j, set_j, multi_j = max(matches, key=lambda m: (m[1], m[2], -m[0]))
    return "near", j, set_j, multi_j


def write_report(out_dir: str | Path, summary: dict[str, Any], table: pa.Table) -> dict[str, str]:
    """``overlap.json`` and ``overlap.parquet`` in ``out_dir`` (e.g. beside the splits, for the card)."""
    out_dir = Path(out_dir)
    write_json(out_dir / OVERLAP_FILE, summary)
    write_table(table, out_dir / OVERLAP_ROWS_FILE, OVERLAP_SCHEMA)
    return {"summary": str(out_dir / OVERLAP_FILE), "rows": str(out_dir / OVERLAP_ROWS_FILE)}


def drop_overlap(new: str | Path, out_dir: str | Path, summary: dict[str, Any], table: pa.Table,
                 batch_size: int = 20_000) -> dict[str, Any]:
    """Write ``new`` without the rows of ``table`` into ``out_dir`` (replaced whole), with the report."""
    parts = dataset_parts(new)
    drop: dict[str, set[int]] = defaultdict(set)
    for name, row in zip(table.column("split").to_pylist(), table.column("row").to_pylist()):
        drop[name].add(row)
    summary = {**summary, "dropped": True}
    kept: dict[str, int] = {}
    source_dir = Path(new) if Path(new).is_dir() else None
    copies = [source_dir / f for f in (SUMMARY_FILE, DROPPED_FILE) if source_dir and (source_dir / f).is_file()]
    entries = (*(path.name for path in parts.values()), *(c.name for c in copies), OVERLAP_FILE, OVERLAP_ROWS_FILE)
    with staged_directory(out_dir, entries) as staging:
        for name, path in parts.items():
            removed = drop.get(name, set())
            source = Parts(path)
            with AtomicParquetWriter(staging / path.name, source.schema) as writer:
                start = 0
                for batch in source.iter_batches(batch_size):
                    keep = [i for i in range(batch.num_rows) if start + i not in removed]
                    writer.write(batch.take(pa.array(keep, pa.int64())))
                    start += batch.num_rows
                if writer.rows == 0:  # a file with no row group still carries its schema
                    writer.write(source.schema.empty_table())
            kept[name] = writer.rows
        for copy in copies:
            shutil.copyfile(copy, staging / copy.name)
        summary["kept"] = kept
        write_report(staging, summary, table)
    return summary


def overlap_markdown(summary: dict[str, Any]) -> str:
    """The counts per split as a Markdown table (printed by the command, quoted by the dataset card)."""
    rows = sum(s["rows"] for s in summary["splits"].values())
    lines = [f"Checked against {summary['benchmark']} ({', '.join(summary['benchmark_splits'])}: "
             f"{summary['benchmark_rows']:,} rows) on the tokens of {', '.join(summary['fields'])}: exact = the "
             f"same tokens, near = set Jaccard >= {summary['set_threshold']} and multiset Jaccard >= "
             f"{summary['multiset_threshold']} (the split's near-duplicate criterion).", "",
             "| split | rows | exact | near | overlapping | share |", "|---|---:|---:|---:|---:|---:|"]
    for name, counts in summary["splits"].items():
        both = counts["exact"] + counts["near"]
        share = f"{100 * both / counts['rows']:.2f}%" if counts["rows"] else "-"
        lines.append(f"| {name} | {counts['rows']:,} | {counts['exact']:,} | {counts['near']:,} | {both:,} | {share} |")
    verdict = ("The overlapping rows were removed." if summary.get("dropped")
               else "The overlapping rows were not removed." if rows else "")
    return "\n".join(lines + (["", verdict] if verdict else []))
