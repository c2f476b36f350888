"""Abstracted predictions back to source code (``revmine unabstract``), with each example's stored map.

A model trained on the abstracted dataset predicts ``TYPE_n``/``METHOD_n``/``VAR_n`` and literal ids; the
map of example i (a JSON column of a candidates or dataset Parquet file, row i) turns its ``beam``
consecutive prediction lines back into names. The ``abstraction_ids`` column (the complete inverse) is
preferred: ``abstraction_map`` (original -> id) cannot restore the second id of a name that had two.
Ids a map does not know (a ``VAR_99`` the model invented) stay as they are and are counted.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from ..errors import InputError
from ..io.store import check_columns, read_table, write_text
from ..io.textio import read_lines
from .abstraction import Inverse, MapSource, unabstract, unknown_ids
from .options import UnabstractOptions

#: map columns tried, in order, when none is named
MAP_COLUMNS = ("abstraction_ids", "abstraction_map")


@dataclass(frozen=True)
class Unabstracted:
    """What :func:`unabstract_file` wrote: how many predictions, and how many ids no map knew."""

    out: Path
    predictions: int
    unknown_ids: int


def read_maps(path: Path, column: str | None = None) -> list[MapSource]:
    """Each row's abstraction map from a Parquet file; ``column`` defaults to the first of ``MAP_COLUMNS``
    the file has. A missing column or a row that is not a JSON object is an error naming file and row."""
    table = read_table(path)
    column = column or next((c for c in MAP_COLUMNS if c in table.column_names), MAP_COLUMNS[0])
    if column not in table.column_names:
        raise InputError(path, f"no column {column!r}; columns are {', '.join(table.column_names)}", field=column)
    check_columns(path, table.schema, pa.schema([pa.field(column, pa.string())]))  # JSON text, not numbers
    wrap = Inverse if column == "abstraction_ids" else dict
    maps: list[MapSource] = []
    for row, text in enumerate(table.column(column).to_pylist(), start=1):
        try:
            maps.append(wrap(json.loads(text)))
        except (TypeError, ValueError) as exc:
            raise InputError(path, f"row {row}: not a JSON map ({exc})", field=column) from exc
    return maps


def unabstract_file(predictions: Path, out: Path, options: UnabstractOptions) -> Unabstracted:
    """Unabstract every line of ``predictions`` (``options.beam`` lines per example) with its example's map
    from ``options.maps``, and write the source-code lines to ``out``."""
    maps, beam = options.maps, options.beam
    assert maps is not None  # a required setting: UnabstractOptions refuses None
    lines = read_lines(predictions)
    per_example = read_maps(maps, options.map_column)
    if len(lines) != beam * len(per_example):
        raise InputError(predictions, f"{len(lines)} lines, but {maps} has {len(per_example)} maps and the "
                                      f"beam is {beam}: expected {beam * len(per_example)} lines")
    mappings = [per_example[number // beam] for number in range(len(lines))]
    source = [unabstract(line, mapping) for line, mapping in zip(lines, mappings)]
    unknown = sum(len(unknown_ids(line, mapping)) for line, mapping in zip(lines, mappings))
    write_text(out, "".join(f"{line}\n" for line in source))
    return Unabstracted(Path(out), len(source), unknown)
