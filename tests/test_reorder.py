"""Rows reach their files in the order of their positions, whatever order they come in, in bounded memory."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from revmine.algorithms.reorder import Reorder
from revmine.io.store import AtomicParquetWriter

SCHEMA = pa.schema([pa.field("name", pa.string())])


def rows(*names: str) -> pa.Table:
    return pa.table({"name": list(names)}, schema=SCHEMA)


def test_rows_arrive_in_position_order_across_batches_and_buckets(tmp_path: Path) -> None:
    with AtomicParquetWriter(tmp_path / "a.parquet", SCHEMA) as a, AtomicParquetWriter(tmp_path / "b.parquet", SCHEMA) as b:
        with Reorder([a, b], spill_dir=tmp_path, bucket_rows=2) as reorder:
            reorder.add(0, rows("a3", "a0", "a4"), np.array([3, 0, 4]))
            reorder.add(1, rows("b1", "b0"), np.array([1, 0]))
            reorder.add(0, rows("a2", "a1"), np.array([2, 1]))
    assert pq.read_table(tmp_path / "a.parquet").column("name").to_pylist() == ["a0", "a1", "a2", "a3", "a4"]
    assert pq.read_table(tmp_path / "b.parquet").column("name").to_pylist() == ["b0", "b1"]
    # one row group a bucket: positions 0-1, 2-3, 4
    assert [g.num_rows for g in (pq.ParquetFile(tmp_path / "a.parquet").metadata.row_group(i)
                                 for i in range(3))] == [2, 2, 1]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.parquet", "b.parquet"]  # no spill left


def test_a_failure_leaves_neither_output_nor_spill(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="stage failed"):
        with AtomicParquetWriter(tmp_path / "a.parquet", SCHEMA) as a, Reorder([a], spill_dir=tmp_path) as reorder:
            reorder.add(0, rows("x"), np.array([0]))
            raise RuntimeError("stage failed")
    assert list(tmp_path.iterdir()) == []


def test_positions_must_match_the_rows(tmp_path: Path) -> None:
    with AtomicParquetWriter(tmp_path / "a.parquet", SCHEMA) as a, Reorder([a], spill_dir=tmp_path) as reorder:
        with pytest.raises(ValueError, match="2 rows but 1 positions"):
            reorder.add(0, rows("x", "y"), np.array([0]))
