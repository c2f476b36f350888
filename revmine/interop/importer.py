"""The import stage: a published dataset -> ``OUT/{train,eval,test}.parquet`` (``dataset/2``, the publisher's
own split, row order kept), ``OUT/candidates.parquet`` (``candidates/2``, every row) and ``OUT/import.json``.

The split files are what ``revmine export --splits OUT`` and ``revmine overlap`` read: exporting an imported
replication package gives its OpenNMT files back byte for byte. A CodeReviewer import also writes
``OUT/hunks.parquet`` (``hunk_dataset/2``: each record with its task and split), from which the export's
``codereviewer`` format writes CodeReviewer's files back byte for byte (when they were written as its code writes
JSON Lines: ``json.dumps`` with its defaults). ``candidates.parquet`` is what
``revmine filter`` and ``revmine split`` read, to filter or re-split the rows revmine's way. ``cluster_id``
is each row's own id: an import does not cluster (the split and the overlap check run the near-duplicate
join themselves). A split the source does not have is written with no rows. The folder is replaced whole
(:mod:`revmine.io.staging`).

The rows are streamed, :data:`BATCH_ROWS` at a time, split by split, into the split's file and
``candidates.parquet`` (in split order, as before): memory does not grow with the source (a 100 MB CodeReviewer
file held whole took 1.17 GB; ``benchmarks/bench_import_memory.py``). Only the rows' ids are kept, to refuse
two rows of the same provenance anywhere in the import. The 2021 package's CSV and text files are read whole
(their size is fixed: the published package).
"""

from __future__ import annotations

from itertools import islice
from pathlib import Path
from typing import Any, Iterable, Iterator

import pyarrow as pa

from ..errors import InputError
from ..io.rows import ID_COLUMNS, SPLITS, stable_id
from ..io.staging import staged_directory
from ..io.store import AtomicParquetWriter, write_json
from ..schema import CANDIDATES_SCHEMA, DATASET_SCHEMA, HUNK_DATASET_SCHEMA
from .codereviewer import codereviewer_files, codereviewer_hunk_rows, codereviewer_rows
from .tufano2021 import read_package

__all__ = ["FORMATS", "import_dataset"]

FORMATS = ("tufano2021", "codereviewer")
CANDIDATES_FILE = "candidates.parquet"
HUNKS_FILE = "hunks.parquet"  # CodeReviewer's records as hunk rows, for the export's codereviewer format
SUMMARY_FILE = "import.json"
BATCH_ROWS = 4_096


def import_dataset(fmt: str, source: str | Path, out_dir: str | Path, task: str | None = None) -> dict[str, Any]:
    """Import ``source`` (format ``fmt``; ``task`` for CodeReviewer) into ``out_dir``; return the summary."""
    source, out_dir = Path(source), Path(out_dir)
    streams: dict[str, Iterable[dict[str, Any]]]
    if fmt == "tufano2021":
        if task is not None:
            raise ValueError("--task is for the codereviewer format")
        rows, origin = read_package(source)
        streams = {name: rows.get(name, []) for name in SPLITS}
    elif fmt == "codereviewer":
        files, origin = codereviewer_files(source, task)
        streams = {name: (row for path, file_task in files.get(name, []) for row in codereviewer_rows(path, file_task))
                   for name in SPLITS}
    else:
        raise ValueError(f"unknown import format {fmt!r}; choose one of {FORMATS}")
    sizes: dict[str, int] = {}
    seen: dict[str, int] = {}  # id -> row number in the import (the splits in order), for duplicates
    entries = (*(f"{name}.parquet" for name in SPLITS), CANDIDATES_FILE, SUMMARY_FILE, HUNKS_FILE)
    with staged_directory(out_dir, entries) as staging, \
            AtomicParquetWriter(staging / CANDIDATES_FILE, CANDIDATES_SCHEMA) as every:
        for name in SPLITS:
            with AtomicParquetWriter(staging / f"{name}.parquet", DATASET_SCHEMA) as split:
                for table in _batches(streams[name]):
                    ids = pa.array(_ids(table, seen, source), pa.string())
                    every.write(table)
                    split.write(table.append_column("id", ids).append_column("cluster_id", ids)
                                .append_column("split", pa.array([name] * table.num_rows, pa.string())))
                sizes[name] = split.rows
        if fmt == "codereviewer":  # a second pass over the files, streamed as the first
            with AtomicParquetWriter(staging / HUNKS_FILE, HUNK_DATASET_SCHEMA) as hunks:
                for name in SPLITS:
                    rows = (row for path, file_task in files.get(name, [])
                            for row in codereviewer_hunk_rows(path, file_task, name))
                    while chunk := list(islice(rows, BATCH_ROWS)):
                        hunks.write(pa.Table.from_pylist(chunk, HUNK_DATASET_SCHEMA))
        summary = {"format": fmt, "source": str(source), "sizes": sizes, **origin}
        write_json(staging / SUMMARY_FILE, summary)
    return {**summary, "out": str(out_dir)}


def _batches(rows: Iterable[dict[str, Any]]) -> Iterator[pa.Table]:
    """The rows as tables of :data:`BATCH_ROWS` rows at most."""
    rows = iter(rows)
    while chunk := list(islice(rows, BATCH_ROWS)):
        yield pa.Table.from_pylist(chunk, CANDIDATES_SCHEMA)


def _ids(table: pa.Table, seen: dict[str, int], source: Path) -> list[str]:
    """The rows' ids (:func:`~revmine.io.rows.stable_id`), refusing one already seen in the import."""
    ids = [stable_id(*values) for values in zip(*(table.column(n).to_pylist() for n in ID_COLUMNS))]
    for value in ids:
        row = len(seen) + 1
        if value in seen:
            raise InputError(source, f"rows {seen[value]} and {row} have the same provenance (id {value}); "
                                     "a candidate is listed twice", line=row, field="id")
        seen[value] = row
    return ids
