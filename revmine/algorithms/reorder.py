"""Write streamed rows to Parquet files, each in an order given row by row, in bounded memory.

The split writes each split's rows sorted by (kind, id) and the filter its dropped rows grouped by filter;
both know every row's file and position from a first pass over a few columns, before they read the rows'
code. Holding the whole table to ``take`` from it made their memory grow with the corpus. Here each row
is appended, as it streams by, to a spill file of its destination's *bucket* (positions ``[b * B, (b+1) *
B)``, Arrow IPC compressed with LZ4, in a temporary folder); at the end each destination's buckets are read
back one at a time, sorted by position and written to it. Two passes over the data, the memory of one
bucket; what a destination receives depends on the positions only, never on how the input was batched
(the stages write to :class:`revmine.io.store.RowGroupWriter`, whose row groups do not depend on the buckets
either). An external bucket sort rather than a library's: pyarrow's sort does not spill,
and DuckDB or polars would write their own Parquet, without the schema tags and atomic writes of
:mod:`revmine.io.store`.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..io.store import AtomicParquetWriter

__all__ = ["BUCKET_ROWS", "Reorder"]

#: Rows of one destination held in memory at once when the buckets are written out.
BUCKET_ROWS = 32_768
_POSITION = "__position"
_IPC = pa.ipc.IpcWriteOptions(compression="lz4")


class Reorder:
    """Rows :meth:`add`-ed in any order reach ``sinks[d]`` in the order of their positions.

    Positions are a destination's row numbers (0, 1, 2 ... without gaps, each once); use as a context
    manager inside the stage's staging folder (``spill_dir``), so that spill files never outlive it::

        with Reorder([train, test], spill_dir=staging) as reorder:
            for batch in batches:
                reorder.add(0, batch.take(rows), positions)
    """

    def __init__(self, sinks: Sequence[AtomicParquetWriter], spill_dir: str | Path, bucket_rows: int | None = None):
        bucket_rows = BUCKET_ROWS if bucket_rows is None else bucket_rows
        if bucket_rows < 1:
            raise ValueError(f"bucket_rows must be at least 1, not {bucket_rows}")
        self.sinks, self.bucket_rows = list(sinks), bucket_rows
        self._dir = tempfile.TemporaryDirectory(prefix=".spill-", dir=spill_dir)
        self._spills: dict[tuple[int, int], pa.ipc.RecordBatchFileWriter] = {}

    def add(self, sink: int, rows: pa.Table, positions: np.ndarray) -> None:
        """Send ``rows`` to ``sinks[sink]``, row i at ``positions[i]``."""
        positions = np.asarray(positions, dtype=np.int64)
        if len(positions) != rows.num_rows:
            raise ValueError(f"{rows.num_rows} rows but {len(positions)} positions")
        buckets = positions // self.bucket_rows
        for bucket in np.unique(buckets).tolist():
            chosen = np.flatnonzero(buckets == bucket)
            part = rows.take(pa.array(chosen)).append_column(_POSITION, pa.array(positions[chosen]))
            key = (sink, bucket)
            if key not in self._spills:
                path = Path(self._dir.name) / f"{sink}-{bucket}.arrow"
                self._spills[key] = pa.ipc.new_file(path, part.schema, options=_IPC)
            self._spills[key].write_table(part)

    def close(self) -> None:
        """Write every destination's buckets in order, then remove the spill files."""
        try:
            for writer in self._spills.values():
                writer.close()
            for sink, bucket in sorted(self._spills):
                with pa.memory_map(str(Path(self._dir.name) / f"{sink}-{bucket}.arrow")) as source:
                    part = pa.ipc.open_file(source).read_all()
                order = pc.sort_indices(part.column(_POSITION))
                self.sinks[sink].write(part.drop_columns([_POSITION]).take(order))
                del part, order
        finally:
            self._spills.clear()
            self._dir.cleanup()

    def __enter__(self) -> "Reorder":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
        else:  # the stage failed: its staging folder goes, and the spill files with it
            for writer in self._spills.values():
                writer.close()
            self._dir.cleanup()
