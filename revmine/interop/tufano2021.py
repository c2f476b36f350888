"""The 2021 replication package (RosaliaTufano/code_review, MIT licence) as revmine rows.

Layout read (SOURCE is the package's root, its ``datasets`` folder, or any folder holding the files)::

    raw_data_splitted/{train,val,test}.csv       columns (index), comment, before, before_marked, after
    1-encoder/<split>/{src,tgt}-<name>.txt       the abstracted m_s and m_r, line i = CSV row i
    2-encoders/<split>/{src1,src2}-<name>.txt    the cleaned, abstracted comment; m_s with <START>/<END>

Each file is found by its name anywhere under SOURCE (``test.csv``, ``src-test.txt``...), so a flat folder
works too; the same name twice with different bytes is an error. The package's ``val`` is revmine's
``eval``. Row i of a split's CSV, with line i of each text file, is one example:

==================  ===============================================================================
column              from
==================  ===============================================================================
m_s, m_r, comment   ``before``, ``after``, ``comment`` (raw, as published)
m_s_abstract        ``src``; m_r_abstract: ``tgt``
comment_abstract    ``src1``; m_s_marked: ``src2`` (its trailing space is the export's line end)
kind                triplet when ``src1`` and ``src2`` exist for the split, else pair (1-encoder only)
provenance          source ``tufano2021``, project ``unknown``, change ``<name>-<row>`` (0-based row)
==================  ===============================================================================

``before_marked`` is not read: ``src2`` already holds the marking, abstracted. The package publishes no
abstraction maps, so ``abstraction_map`` is ``{}``. A split whose ``src``/``tgt`` files are missing cannot be
imported (its abstracted code would have to be recomputed, which is not a re-import of the published rows).
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..io.rows import PAIR, TRIPLET
from ..io.textio import read_lines, read_text
from .records import candidate, one_line

#: revmine's split -> the package's name for it
PACKAGE_SPLITS = {"train": "train", "eval": "val", "test": "test"}
SOURCE = "tufano2021"
REQUIRED_COLUMNS = ("comment", "before", "after")
#: text file prefix -> (column, whether an empty line is allowed: a comment may clean to nothing)
TEXT_FILES = {"src": ("m_s_abstract", False), "tgt": ("m_r_abstract", False),
              "src1": ("comment_abstract", True), "src2": ("m_s_marked", False)}


def read_package(source: Path) -> tuple[dict[str, list[dict[str, Any]]], dict[str, Any]]:
    """The package's rows per revmine split, and which file each split's columns came from."""
    if not source.is_dir():
        raise InputError(source, "expected the replication package's folder (with raw_data_splitted/)")
    rows: dict[str, list[dict[str, Any]]] = {}
    files: dict[str, dict[str, str]] = {}
    for split, name in PACKAGE_SPLITS.items():
        table = _find(source, f"{name}.csv")
        if table is None:
            continue
        records = _read_csv(table)
        texts = {prefix: _find(source, f"{prefix}-{name}.txt") for prefix in TEXT_FILES}
        for prefix in ("src", "tgt"):
            if texts[prefix] is None:
                raise InputError(table, f"no {prefix}-{name}.txt under {source}: the abstracted code of this "
                                        "split is needed (the 1-encoder folder)")
        triplets = texts["src1"] is not None and texts["src2"] is not None
        columns = {TEXT_FILES[p][0]: _read_text_file(path, len(records), table, TEXT_FILES[p][1])
                   for p, path in texts.items() if path is not None and (triplets or p in ("src", "tgt"))}
        rows[split] = [_row(split, n, record, {c: values[n] for c, values in columns.items()}, triplets)
                       for n, record in enumerate(records)]
        files[split] = {"csv": str(table), **{p: str(path) for p, path in texts.items() if path is not None
                                              and (triplets or p in ("src", "tgt"))}}
    if not rows:
        raise InputError(source, "no train.csv, val.csv or test.csv (raw_data_splitted/) under this folder")
    return rows, {"files": files}


def _row(split: str, n: int, record: dict[str, str], text: dict[str, str], triplet: bool) -> dict[str, Any]:
    kind = TRIPLET if triplet else PAIR
    return candidate(kind, SOURCE, "unknown", f"{PACKAGE_SPLITS[split]}-{n}", f"{PACKAGE_SPLITS[split]}-{n}",
                     record["before"], record["after"], record["comment"] if triplet else None,
                     text["m_s_abstract"], text["m_r_abstract"], text.get("comment_abstract"),
                     text.get("m_s_marked"), language="java")


def _find(root: Path, name: str) -> Path | None:
    """The file called ``name`` under ``root``; several with the same bytes are one, different ones an error."""
    found = sorted(p for p in root.rglob(name) if p.is_file())
    if not found:
        return None
    first = found[0].read_bytes()
    other = next((p for p in found[1:] if p.read_bytes() != first), None)
    if other is not None:
        raise InputError(other, f"differs from {found[0]}: which {name} to import is ambiguous")
    return found[0]


def _read_csv(path: Path) -> list[dict[str, str]]:
    """The split's rows (header first); a short or long row is an error naming its row and line."""
    reader = csv.reader(io.StringIO(read_text(path), newline=""))
    try:
        header = next(reader, None)
        if header is None:
            raise InputError(path, "empty file: expected a header with comment, before, after")
        for column in REQUIRED_COLUMNS:
            if column not in header:
                raise InputError(path, f"no column {column!r} in the header", line=1, field=column)
        records = []
        start = reader.line_num + 1
        for number, values in enumerate(reader, start=1):
            if len(values) != len(header):
                raise InputError(path, f"row {number}: {len(values)} fields, the header has {len(header)}",
                                 line=start)
            record = dict(zip(header, values))
            for column in ("before", "after"):
                if not record[column].strip():
                    raise InputError(path, f"row {number}: empty {column}", line=start, field=column)
            records.append(record)
            start = reader.line_num + 1
    except csv.Error as exc:
        raise InputError(path, f"not valid CSV: {exc}", line=reader.line_num) from exc
    return records


def _read_text_file(path: Path, rows: int, table: Path, empty_allowed: bool) -> list[str]:
    lines = read_lines(path)
    if len(lines) != rows:
        raise InputError(path, f"{len(lines)} lines, but {table.name} has {rows} rows: line i must be row i")
    values = [one_line(line) for line in lines]
    if not empty_allowed:
        empty = next((i for i, value in enumerate(values, start=1) if not value), None)
        if empty is not None:
            raise InputError(path, f"empty line (row {empty} of {table.name})", line=empty)
    return values
