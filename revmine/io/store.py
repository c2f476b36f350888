"""The one place that reads and writes revmine's Parquet files.

Writes are atomic: data goes to a temporary file in the destination directory, is flushed and fsynced,
then renamed over the destination (``os.replace``). An interrupted or failed write therefore never
leaves a truncated file and never clobbers what was there before; a disk refusing the write (a file in
the way, read-only, full) is one :class:`~revmine.errors.OperationError` naming the destination, never
the temporary file, which is removed. Reads check the schema tag written
by :mod:`revmine.schema` so that a file from another stage gives a clear error naming the file; a file of
an earlier version listed in :data:`revmine.schema.UPGRADES` is read with the columns it lacks added.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Iterator, Sequence, TextIO

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..errors import InputError, output_error
from ..schema import UPGRADES, Renamed, schema_id


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
            error = output_error(exc, dest) if exc.filename in (None, tmp) else None
            if error is None:
                raise
            raise error from exc
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
    return new_mode()


def new_mode(directory: bool = False) -> int:
    """The mode ``open(..., "w")`` (0666) or ``mkdir`` (0777) gives something new: less the umask, which can
    only be read by setting it."""
    umask = os.umask(0)
    os.umask(umask)
    return (0o777 if directory else 0o666) & ~umask


def write_text(dest: str | Path, text: str) -> Path:
    """Atomically write a text file (summaries, reports, cards)."""
    with atomic_path(dest) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return Path(dest)


def write_json(dest: str | Path, obj: object) -> Path:
    """Strict JSON: NaN or infinity anywhere is a bug upstream (they are not JSON), so it raises."""
    return write_text(dest, json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n")


@contextlib.contextmanager
def atomic_text(dest: str | Path) -> Iterator[TextIO]:
    """A text file (UTF-8, ``\\n`` line ends) written piece by piece, that appears at ``dest`` only if the block
    succeeds: for outputs too large to hold as one string."""
    with atomic_path(dest) as tmp, open(tmp, "w", encoding="utf-8", newline="\n") as fh:
        yield fh


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
        with writing(self.dest):  # named here: an error passing through another writer's block is not its
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


#: rows per row group of the Parquet files the streaming stages write (filter, split, export; the last one
#: fewer): a file of at most this many rows is one row group, byte for byte what writing it whole gave, and a
#: writer holds at most one row group
ROW_GROUP_ROWS = 10_000


class RowGroupWriter(AtomicParquetWriter):
    """An :class:`AtomicParquetWriter` whose row groups hold ``row_group_rows`` rows each (the last one fewer),
    however the rows arrive: the file's bytes are those of ``pq.write_table(whole, row_group_size=row_group_rows)``
    (measured with pyarrow 26), so a stage that streams its rows writes the file it wrote from the whole table.

    A plain ParquetWriter starts a row group at every ``write``, so the batches a stage happens to read would
    show in its output. Memory holds at most one row group's rows; a writer given no rows writes one empty row
    group, as ``pq.write_table`` does for an empty table.
    """

    def __init__(self, dest: str | Path, schema: pa.Schema, row_group_rows: int):
        super().__init__(dest, schema)
        self.row_group_rows = row_group_rows
        self._pending: list[pa.RecordBatch] = []
        self._pending_rows = 0

    def write(self, table: pa.Table | pa.RecordBatch) -> None:
        if isinstance(table, pa.RecordBatch):
            table = pa.Table.from_batches([table])
        self._pending += table.select(self.schema.names).cast(self.schema).to_batches()
        self._pending_rows += table.num_rows
        while self._pending_rows >= self.row_group_rows:
            self._flush(self.row_group_rows)

    def _flush(self, rows: int) -> None:
        """Write the first ``rows`` pending rows as one row group (one contiguous chunk per column)."""
        pending = pa.Table.from_batches(self._pending, self.schema)
        super().write(pending.slice(0, rows).combine_chunks())
        self._pending = pending.slice(rows).to_batches()
        self._pending_rows -= rows

    def __exit__(self, exc_type, exc, tb) -> bool:
        if exc_type is None and (self._pending_rows or not self.rows):
            try:
                self._flush(self._pending_rows)
            except BaseException as error:  # the temporary file must still go
                super().__exit__(type(error), error, error.__traceback__)
                raise
        return super().__exit__(exc_type, exc, tb)


def read_table(path: str | Path, expect: str | pa.Schema | None = None, columns: list[str] | None = None
               ) -> pa.Table:
    """Read a Parquet file (or directory of parts), checked against what the caller expects.

    ``expect``: a schema tag ("scores/1"), or a schema of :mod:`revmine.schema`, whose tag is checked and
    whose columns (those of ``columns``, or all) must be there with their types (:func:`check_columns`).
    """
    path = Path(path)
    if not path.exists():
        raise InputError(path, "no such file or directory")
    try:
        schema = pq.read_schema(path) if path.is_file() else None
        if schema is not None:  # before reading: a file of another stage or a missing column is named
            _check(path, schema, expect, columns)
            table = pq.read_table(path, columns=columns_to_read(schema, columns))
            return upgraded(table, schema, columns)
        table = pq.read_table(path, columns=columns)
    except (pa.ArrowInvalid, OSError) as exc:
        raise InputError(path, f"not a readable Parquet file: {exc}") from exc
    _check(path, table.schema, expect, columns)
    return table


def columns_to_read(found: pa.Schema, columns: Sequence[str] | None) -> list[str] | None:
    """The columns to ask a file of schema ``found`` for, to give :func:`upgraded` ``columns``: those its version
    lacks are left out (added with their value then), those it names otherwise are asked by that name."""
    added = UPGRADES.get(schema_id(found) or "", {})
    if columns is None:
        return None
    return list(dict.fromkeys(added[c].old if isinstance(added.get(c), Renamed) else c for c in columns
                              if c not in added or isinstance(added[c], Renamed)))


def upgraded(data: pa.Table | pa.RecordBatch, found: pa.Schema, columns: Sequence[str] | None = None
             ) -> pa.Table | pa.RecordBatch:
    """``data`` read from a file of schema ``found``, with the columns its version lacks (schema.UPGRADES)
    added with the value they had then, and those it named otherwise (``Renamed``) under their name now,
    where the current schema has them (or in ``columns``' order)."""
    added = UPGRADES.get(schema_id(found) or "")
    if not added:
        return data
    renamed = {new: value.old for new, value in added.items() if isinstance(value, Renamed)}
    if renamed:
        names = [next((new for new, old in renamed.items() if old == n), n) for n in data.schema.names]
        data = data.rename_columns(names)
        added = {k: v for k, v in added.items() if k not in renamed}
    current = _current_schema(found)
    names = list(columns) if columns else [n for n in current.names if n in added or n in data.schema.names]
    nested = {name.split(".", 1)[0] for name in added if "." in name}  # a list of structs that gained fields
    arrays = [pa.array([added[name]] * data.num_rows, current.field(name).type) if name in added
              and name not in data.schema.names else _with_fields(data.column(name), current.field(name).type)
              if name in nested else data.column(name) for name in names]
    build = pa.Table.from_arrays if isinstance(data, pa.Table) else pa.RecordBatch.from_arrays
    return build(arrays, schema=pa.schema([current.field(n) if n in added or n in nested else data.schema.field(n)
                                           for n in names], metadata=current.metadata))


def _with_fields(column: pa.Array | pa.ChunkedArray, wanted: pa.DataType) -> pa.Array | pa.ChunkedArray:
    """A list-of-structs column with the struct fields of ``wanted`` it lacks added as nulls (an earlier
    version's comments, ``schema.UPGRADES``' dotted names)."""
    if isinstance(column, pa.ChunkedArray):
        return pa.chunked_array([_with_fields(chunk, wanted) for chunk in column.chunks], wanted)
    values = column.values
    struct = wanted.value_type
    fields = [values.field(f.name) if values.type.get_field_index(f.name) >= 0 else pa.nulls(len(values), f.type)
              for f in struct]
    rebuilt = pa.StructArray.from_arrays(fields, fields=list(struct), mask=values.is_null())
    return pa.ListArray.from_arrays(column.offsets, rebuilt, type=wanted, mask=column.is_null())


def _current_schema(found: pa.Schema) -> pa.Schema:
    """The schema of this revmine with the same name as ``found``'s tag."""
    from .. import schema as schemas

    name = (schema_id(found) or "").split("/")[0]
    return next(value for value in vars(schemas).values()
                if isinstance(value, pa.Schema) and (schema_id(value) or "").split("/")[0] == name)


def _check(path: Path, schema: pa.Schema, expect: str | pa.Schema | None, columns: Sequence[str] | None) -> None:
    if expect is not None:
        _check_tag(path, schema, expect)
    if isinstance(expect, pa.Schema):
        check_columns(path, schema, expect, columns)


def check_columns(path: str | Path | None, found: pa.Schema, expected: pa.Schema,
                  columns: Sequence[str] | None = None) -> None:
    """Every column of ``expected`` (or of ``columns``) must be in ``found`` with its type; others may follow.

    Types are compared by kind, not width (``int64`` fits ``int32``, ``string`` fits ``large_string``), so a
    file written by pandas is read; a column of another kind (numbers where text is expected) is refused
    by name instead of being cast or failing deep inside a stage.
    """
    added = UPGRADES.get(schema_id(found) or "", {})
    for name in columns or expected.names:
        if name in added and not isinstance(added[name], Renamed):
            continue  # an earlier version's file: the reader adds the column
        wanted = expected.field(name)
        index = found.get_field_index(added[name].old if name in added else name)  # Renamed: its name then
        if index < 0:
            raise InputError(path, f"missing column (expected {wanted.type})", field=name)
        missing_ok = {n.split(".", 1)[1] for n in added if n.startswith(f"{name}.")}
        if not _fits(found.field(index).type, wanted.type, missing_ok):
            raise InputError(path, f"column of type {found.field(index).type}, expected {wanted.type}", field=name)


_KINDS = (pa.types.is_integer, pa.types.is_floating, pa.types.is_boolean, pa.types.is_timestamp,
          lambda t: pa.types.is_string(t) or pa.types.is_large_string(t),
          lambda t: pa.types.is_binary(t) or pa.types.is_large_binary(t))


def _fits(found: pa.DataType, wanted: pa.DataType, missing_ok: set[str] = frozenset()) -> bool:
    """``found`` holds values of ``wanted``'s kind (an all-null column fits anything); struct fields named in
    ``missing_ok`` may be absent (an earlier version's, added by :func:`upgraded`)."""
    if found == wanted or pa.types.is_null(found):
        return True
    if pa.types.is_list(wanted) or pa.types.is_large_list(wanted):
        return (pa.types.is_list(found) or pa.types.is_large_list(found)) and _fits(found.value_type,
                                                                                     wanted.value_type, missing_ok)
    if pa.types.is_struct(wanted):
        if not pa.types.is_struct(found):
            return False
        names = [found.field(i).name for i in range(found.num_fields)]
        wanted = pa.struct([f for f in wanted if f.name in names or f.name not in missing_ok])
        return all(wanted.field(i).name in names
                   and _fits(found.field(wanted.field(i).name).type, wanted.field(i).type)
                   for i in range(wanted.num_fields))
    return any(kind(found) and kind(wanted) for kind in _KINDS)


def _check_tag(path: Path, schema: pa.Schema, expect: str | pa.Schema) -> None:
    """A file tagged by another stage, or by another version of this one, is refused by name."""
    if isinstance(expect, pa.Schema):
        expect = schema_id(expect) or ""
    found = schema_id(schema)
    if found is None or found == expect or (found in UPGRADES and found.split("/")[0] == expect.split("/")[0]):
        return
    if found.split("/")[0] != expect.split("/")[0]:
        raise InputError(path, f"expected a {expect} file, found {found}")
    raise InputError(path, f"schema version {found} is not supported (this revmine reads {expect})")


class Parts:
    """A Parquet file, or a directory of Parquet parts read in name order, streamed in record batches.

    Stages that write incrementally (the miners, one part per checkpoint) produce directories of parts;
    readers should not care which they get. Every part's schema tag (and, given a schema, its ``columns``)
    is checked up front.
    """

    def __init__(self, path: str | Path, expect: str | pa.Schema | None = None, columns: Sequence[str] | None = None):
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
            _check(file, handle.schema_arrow, expect, columns)
            self._handles.append(handle)
        found = self._handles[0].schema_arrow
        self.schema = upgraded(found.empty_table(), found).schema
        #: the schema tags of the files (an earlier version's is read with its missing columns added)
        self.tags = {schema_id(handle.schema_arrow) for handle in self._handles}
        self.num_rows = sum(h.metadata.num_rows for h in self._handles)

    def first_null(self, column: str) -> int | None:
        """The row (from 0, over all parts) of the first empty value of top-level ``column``, or None. Row groups
        whose statistics count no null are not read, so a check of a column of code before the work costs the
        file's footer, not a pass over the code. A part of an earlier version without the column has none."""
        offset = 0
        for handle in self._handles:
            meta = handle.metadata
            for group in range(meta.num_row_groups):
                rows = meta.row_group(group)
                chunk = next((rows.column(i) for i in range(rows.num_columns)
                              if rows.column(i).path_in_schema == column), None)
                stats = chunk.statistics if chunk is not None else None
                if chunk is not None and not (stats is not None and stats.has_null_count and stats.null_count == 0):
                    values = handle.read_row_group(group, columns=[column]).column(0)
                    if values.null_count:
                        return offset + pc.index(pc.is_null(values), True).as_py()
                offset += rows.num_rows
        return None

    def iter_batches(self, batch_size: int, columns: list[str] | None = None) -> Iterator[pa.RecordBatch]:
        for handle in self._handles:
            found = handle.schema_arrow
            for batch in handle.iter_batches(batch_size=batch_size, columns=columns_to_read(found, columns)):
                yield upgraded(batch, found, columns)
