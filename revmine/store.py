"""The one place that reads and writes revmine's Parquet files.

Writes are atomic: data goes to a temporary file in the destination directory, is flushed and fsynced,
then renamed over the destination (``os.replace``). An interrupted or failed write therefore never
leaves a truncated file and never clobbers what was there before; a disk refusing the write (a file in
the way, read-only, full) is one :class:`~revmine.errors.OperationError` naming the destination, never
the temporary file, which is removed. Reads check the schema tag written
by :mod:`revmine.schema` so that a file from another stage gives a clear error naming the file.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Iterator

import pyarrow as pa
import pyarrow.parquet as pq

from .errors import InputError, output_error
from .schema import schema_id


@contextlib.contextmanager
def writing(dest: str | Path) -> Iterator[None]:
    """Report a disk refusing to write ``dest`` (:func:`revmine.errors.output_error`) as one line naming it."""
    try:
        yield
    except OSError as exc:
        error = output_error(exc, dest)
        if error is None:
            raise
        raise error from exc


@contextlib.contextmanager
def atomic_path(dest: str | Path, suffix: str = ".tmp") -> Iterator[Path]:
    """Yield a temporary path beside ``dest``; rename it onto ``dest`` only if the block succeeds."""
    dest = Path(dest)
    with writing(dest):
        dest.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=suffix, dir=dest.parent)
        os.close(fd)
    tmp_path = Path(tmp)
    try:
        try:
            yield tmp_path
        except OSError as exc:  # the block writing the temporary file (pyarrow names no file)
            if exc.filename not in (None, tmp):
                raise
            with writing(dest):
                raise
        with writing(dest):
            with open(tmp_path, "rb+") as fh:
                os.fsync(fh.fileno())
            os.chmod(tmp_path, _mode_for(dest))  # mkstemp makes 0600; outputs get the usual permissions
            os.replace(tmp_path, dest)
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


def _mode_for(dest: Path) -> int:
    """The mode a plain ``open(dest, "w")`` would give: the file's own if it exists, else 0666 less umask."""
    if dest.exists():
        return dest.stat().st_mode & 0o7777
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def write_text(dest: str | Path, text: str) -> Path:
    """Atomically write a text file (summaries, reports, cards)."""
    with atomic_path(dest) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return Path(dest)


def write_json(dest: str | Path, obj: object) -> Path:
    """Strict JSON: NaN or infinity anywhere is a bug upstream (they are not JSON), so it raises."""
    return write_text(dest, json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n")


def write_table(table: pa.Table, dest: str | Path, schema: pa.Schema | None = None,
                metadata: dict[str, str] | None = None) -> Path:
    """Atomically write ``table`` as Parquet, cast to ``schema`` (which carries the schema tag)."""
    if schema is not None:
        try:
            table = table.select(schema.names).cast(schema)
        except (KeyError, ValueError, pa.ArrowInvalid, pa.ArrowTypeError) as exc:
            raise ValueError(f"{dest}: table does not fit schema {schema_id(schema)}: {exc}") from exc
    if metadata:
        merged = dict(table.schema.metadata or {})
        merged.update({k.encode(): v.encode() for k, v in metadata.items()})
        table = table.replace_schema_metadata(merged)
    with atomic_path(dest) as tmp:
        pq.write_table(table, tmp, compression="zstd")
    return Path(dest)


class AtomicParquetWriter:
    """Stream record batches into one Parquet file that appears only when the writer is closed cleanly.

    Memory stays bounded by the batch size; if the ``with`` block raises, nothing is written.
    """

    def __init__(self, dest: str | Path, schema: pa.Schema):
        self.dest = Path(dest)
        self.schema = schema
        self._ctx = atomic_path(self.dest)
        self._writer: pq.ParquetWriter | None = None
        self.rows = 0

    def __enter__(self) -> "AtomicParquetWriter":
        tmp = self._ctx.__enter__()
        try:
            self._writer = pq.ParquetWriter(tmp, self.schema, compression="zstd")
        except BaseException as error:  # the temporary file must still go
            self._ctx.__exit__(type(error), error, error.__traceback__)
            raise
        return self

    def write(self, table: pa.Table | pa.RecordBatch) -> None:
        assert self._writer is not None
        if isinstance(table, pa.RecordBatch):
            table = pa.Table.from_batches([table])
        self._writer.write_table(table.select(self.schema.names).cast(self.schema))
        self.rows += table.num_rows

    def __exit__(self, exc_type, exc, tb) -> bool:
        assert self._writer is not None
        try:
            self._writer.close()
        except BaseException as close_error:  # the temporary file must still go
            self._ctx.__exit__(type(close_error), close_error, close_error.__traceback__)
            raise
        return bool(self._ctx.__exit__(exc_type, exc, tb))


def read_table(path: str | Path, expect: str | None = None, columns: list[str] | None = None) -> pa.Table:
    """Read a Parquet file (or directory of parts); with ``expect`` ("scores/1"), check its schema tag."""
    path = Path(path)
    if not path.exists():
        raise InputError(path, "no such file or directory")
    try:
        table = pq.read_table(path, columns=columns)
    except (pa.ArrowInvalid, OSError) as exc:
        raise InputError(path, f"not a readable Parquet file: {exc}") from exc
    if expect is not None:
        _check_tag(path, pq.read_schema(path) if path.is_file() else table.schema, expect)
    return table


def _check_tag(path: Path, schema: pa.Schema, expect: str) -> None:
    """A file tagged by another stage, or by another version of this one, is refused by name."""
    found = schema_id(schema)
    if found is None or found == expect:
        return
    if found.split("/")[0] != expect.split("/")[0]:
        raise InputError(path, f"expected a {expect} file, found {found}")
    raise InputError(path, f"schema version {found} is not supported (this revmine reads {expect})")


class Parts:
    """A Parquet file, or a directory of Parquet parts read in name order, streamed in record batches.

    Stages that write incrementally (the miners, one part per checkpoint) produce directories of parts;
    readers should not care which they get. Every part's schema tag is checked up front.
    """

    def __init__(self, path: str | Path, expect: str | None = None):
        self.path = Path(path)
        if self.path.is_dir():
            self.files = sorted(self.path.glob("*.parquet"))
            if not self.files:
                raise InputError(self.path, "directory holds no .parquet parts")
        elif self.path.is_file():
            self.files = [self.path]
        else:
            raise InputError(self.path, "no such file or directory")
        self._handles: list[pq.ParquetFile] = []
        for file in self.files:
            try:
                handle = pq.ParquetFile(file)
            except (pa.ArrowInvalid, OSError) as exc:
                raise InputError(file, f"not a readable Parquet file: {exc}") from exc
            if expect is not None:
                _check_tag(file, handle.schema_arrow, expect)
            self._handles.append(handle)
        self.schema = self._handles[0].schema_arrow
        self.num_rows = sum(h.metadata.num_rows for h in self._handles)

    def iter_batches(self, batch_size: int, columns: list[str] | None = None) -> Iterator[pa.RecordBatch]:
        for handle in self._handles:
            yield from handle.iter_batches(batch_size=batch_size, columns=columns)
