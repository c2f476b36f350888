"""The import stage: a published dataset -> ``OUT/{train,eval,test}.parquet`` (``dataset/2``, the publisher's
own split, row order kept), ``OUT/candidates.parquet`` (``candidates/2``, every row) and ``OUT/import.json``.

The split files are what ``revmine export --splits OUT`` and ``revmine overlap`` read: exporting an imported
replication package gives its OpenNMT files back byte for byte. ``candidates.parquet`` is what
``revmine filter`` and ``revmine split`` read, to filter or re-split the rows revmine's way. ``cluster_id``
is each row's own id: an import does not cluster (the split and the overlap check run the near-duplicate
join themselves). A split the source does not have is written with no rows. The folder is replaced whole
(:mod:`revmine.io.staging`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa

from ..io.rows import SPLITS, with_ids
from ..io.staging import staged_directory
from ..io.store import write_json, write_table
from ..schema import CANDIDATES_SCHEMA, DATASET_SCHEMA
from .codereviewer import read_codereviewer
from .tufano2021 import read_package

__all__ = ["FORMATS", "import_dataset"]

FORMATS = ("tufano2021", "codereviewer")
CANDIDATES_FILE = "candidates.parquet"
SUMMARY_FILE = "import.json"


def import_dataset(fmt: str, source: str | Path, out_dir: str | Path, task: str | None = None) -> dict[str, Any]:
    """Import ``source`` (format ``fmt``; ``task`` for CodeReviewer) into ``out_dir``; return the summary."""
    source, out_dir = Path(source), Path(out_dir)
    if fmt == "tufano2021":
        if task is not None:
            raise ValueError("--task is for the codereviewer format")
        rows, origin = read_package(source)
    elif fmt == "codereviewer":
        rows, origin = read_codereviewer(source, task)
    else:
        raise ValueError(f"unknown import format {fmt!r}; choose one of {FORMATS}")
    tables = {name: with_ids(pa.Table.from_pylist(rows.get(name, []), CANDIDATES_SCHEMA), source) for name in SPLITS}
    every = with_ids(pa.concat_tables(tables.values()), source)  # ids unique across splits too
    sizes = {name: table.num_rows for name, table in tables.items()}
    summary = {"format": fmt, "source": str(source), "sizes": sizes, **origin}
    entries = (*(f"{name}.parquet" for name in SPLITS), CANDIDATES_FILE, SUMMARY_FILE)
    with staged_directory(out_dir, entries) as staging:
        for name, table in tables.items():
            table = table.append_column("cluster_id", table.column("id"))
            table = table.append_column("split", pa.array([name] * table.num_rows, pa.string()))
            write_table(table, staging / f"{name}.parquet", DATASET_SCHEMA)
        write_table(every.drop_columns(["id"]), staging / CANDIDATES_FILE, CANDIDATES_SCHEMA)
        write_json(staging / SUMMARY_FILE, summary)
    return {**summary, "out": str(out_dir)}
