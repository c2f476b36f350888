"""Pages of a run's rows for ``revmine browse``: every split of the triplets, pairs and hunks, one page at a time,
with a case-insensitive text search, filters by column value and by a text's length in tokens, and a sort by a
column or a length (stable: ties in file order), on files of any size.

A view (level, split, search, filters) is the sorted list of the matching rows' positions in their file, found by
reading only the columns it tests, one batch at a time (memory holds one batch and the positions: 8 bytes a row
matched), and kept in a small LRU cache keyed by the file's size and modification time, so paging through a view
costs no scan. A page reads only the row groups (10,000 rows in the files the split stage writes) that hold its
rows, and only the columns it shows, so the page at row 999,000 of a million costs what the first one does
(``benchmarks/bench_browser.py``). The files read are fixed by the level and split names, never by a path from the
request.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..errors import InputError
from ..io.rows import HF_SPLITS, SPLITS
from ..io.store import ROW_GROUP_ROWS, Parts, columns_to_read, upgraded
from ..schema import DATASET_SCHEMA, HUNK_DATASET_SCHEMA

#: rows read at a time while a view is searched: a row group of the split's files (65,536 took 1.6 times as long
#: and 1.5 times the memory to search 200,000 rows)
SCAN_ROWS = ROW_GROUP_ROWS
#: views kept (each holds the positions of its rows: at most 8 MB for a million)
CACHED_VIEWS = 16
MAX_LIMIT = 200
#: characters of a text shown in a page's cell (the row's detail has it whole)
PREVIEW_CHARS = 160
#: distinct values offered for a filter
MAX_VALUES = 1000


@dataclass(frozen=True)
class Level:
    """One kind of row: where its rows are, which columns a page shows, searches and filters on, and which
    texts its detail shows as code."""

    name: str
    shown: tuple[str, ...]
    searched: tuple[str, ...]
    filters: tuple[str, ...]
    code: tuple[str, ...]
    kind: str | None  # the value of ``kind`` its rows have in the split files; None: the hunk file
    measured: tuple[str, ...] = ()  # texts whose length in whitespace tokens rows are sorted and filtered by

    def file(self, run: Path, split: str) -> Path:
        return run / "splits" / (f"{split}.parquet" if self.kind else "hunks.parquet")

    def selects(self, split: str) -> tuple[str, str]:
        """The column and value that pick this level's rows of ``split`` out of its file."""
        return ("kind", self.kind) if self.kind else ("split", split)


LEVELS = {level.name: level for level in (
    Level("triplets", ("project", "language", "method_name", "comment", "m_s"),
          ("comment", "m_s", "m_r", "method_name", "path", "id"),
          ("source", "project", "language", "comment_author_kind", "match_rule"),
          ("m_s", "comment", "m_r", "m_s_abstract", "comment_abstract", "m_r_abstract", "m_s_marked"), "triplet",
          ("m_s_abstract", "m_r_abstract", "comment")),
    Level("pairs", ("project", "language", "method_name", "m_s", "m_r"),
          ("m_s", "m_r", "method_name", "path", "id"),
          ("source", "project", "language", "match_rule", "changed"),
          ("m_s", "m_r", "m_s_abstract", "m_r_abstract"), "pair", ("m_s_abstract", "m_r_abstract")),
    Level("hunks", ("project", "language", "path", "y", "comment", "patch"),
          ("comment", "patch", "new_hunk", "path"),
          ("source", "project", "language", "y"),
          ("patch", "comment", "new_hunk", "old", "new"), None, ("patch", "comment")),
)}
#: how a sort by a text's length is named (``tokens:m_s_abstract``)
TOKENS = "tokens:"


class BadRequest(ValueError):
    """A request the views cannot answer, with the one line saying why (the server's 400)."""


@dataclass(frozen=True)
class Query:
    """What a page shows: a level's rows of a split, those holding ``text`` (in ``column``, or any searched
    column; case-insensitive), whose ``filters`` columns equal the values given."""

    level: str
    split: str
    text: str = ""
    column: str = ""
    filters: tuple[tuple[str, str], ...] = ()
    #: a filter column, or ``tokens:`` and a measured column (its length in whitespace tokens); "": file order
    sort: str = ""
    descending: bool = False
    #: a measured column whose length in tokens must be within ``shortest``..``longest`` (either may be None)
    length: str = ""
    shortest: int | None = None
    longest: int | None = None

    def __post_init__(self) -> None:
        if self.level not in LEVELS:
            raise BadRequest(f"level {self.level!r} is not one of {', '.join(LEVELS)}")
        if self.split not in SPLITS:
            raise BadRequest(f"split {self.split!r} is not one of {', '.join(SPLITS)}")
        level = LEVELS[self.level]
        if self.column and self.column not in level.searched:
            raise BadRequest(f"search column {self.column!r} is not one of {', '.join(level.searched)}")
        for name, _ in self.filters:
            if name not in level.filters:
                raise BadRequest(f"filter column {name!r} is not one of {', '.join(level.filters)}")
        sorts = [*level.filters, *(TOKENS + name for name in level.measured)]
        if self.sort and self.sort not in sorts:
            raise BadRequest(f"sort {self.sort!r} is not one of {', '.join(sorts)}")
        if self.length and self.length not in level.measured:
            raise BadRequest(f"length column {self.length!r} is not one of {', '.join(level.measured)}")
        if (self.shortest is not None or self.longest is not None) and not self.length:
            raise BadRequest("a length range needs the column it measures (len)")


class RunRows:
    """The rows of a run folder (its ``splits/``), by level and split."""

    def __init__(self, run: str | Path):
        self.run = Path(run).resolve()
        if not (self.run / "splits").is_dir():
            raise InputError(self.run, "no splits/ folder: not the output folder of revmine run, or its split "
                                       "stage has not run")
        self._views: OrderedDict[tuple, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def levels(self) -> list[dict[str, Any]]:
        """Each level the run has, with its splits' row counts (their Hugging Face names as labels)."""
        found = []
        for level in LEVELS.values():
            if not all(level.file(self.run, split).exists() for split in SPLITS):
                continue
            found.append({"name": level.name, "filters": list(level.filters), "searched": list(level.searched),
                          "shown": list(level.shown), "code": list(level.code), "measured": list(level.measured),
                          "splits": [{"name": split, "label": HF_SPLITS[split],
                                      "rows": len(self._view(Query(level.name, split)))} for split in SPLITS]})
        return found

    def page(self, query: Query, offset: int, limit: int) -> dict[str, Any]:
        """Rows ``offset`` to ``offset + limit`` of the view (fewer at its end), texts cut to
        :data:`PREVIEW_CHARS`, each with ``_row``, its position in the file (for :meth:`row`)."""
        if offset < 0:
            raise BadRequest(f"offset {offset} is negative")
        if not 1 <= limit <= MAX_LIMIT:
            raise BadRequest(f"limit {limit} is not between 1 and {MAX_LIMIT}")
        view = self._view(query)
        chosen = view[offset:offset + limit]
        level = LEVELS[query.level]
        rows = self._take(level.file(self.run, query.split), chosen, list(level.shown))
        for position, row in zip(chosen.tolist(), rows):
            for name, value in row.items():
                if isinstance(value, str) and len(value) > PREVIEW_CHARS:
                    row[name] = value[:PREVIEW_CHARS] + "…"
            row["_row"] = position
        return {"total": int(len(view)), "offset": offset, "limit": limit, "rows": rows}

    def row(self, level_name: str, split: str, position: int) -> dict[str, Any]:
        """Every column of the row at ``position`` of the level's file, which must be one of the split's rows."""
        query = Query(level_name, split)
        level = LEVELS[level_name]
        path = level.file(self.run, split)
        rows = self._handle(path).metadata.num_rows
        if not 0 <= position < rows:
            raise BadRequest(f"row {position} is not a row of {path.name} (0 to {rows - 1})")
        row = self._take(path, np.array([position]), None)[0]
        column, value = level.selects(query.split)
        if row[column] != value:
            raise BadRequest(f"row {position} of {path.name} is not one of the {level_name} of {split}")
        return row

    def values(self, level_name: str, split: str) -> dict[str, list[Any]]:
        """The distinct values of each filter column among the level's rows of the split (at most
        :data:`MAX_VALUES` each, sorted)."""
        Query(level_name, split)  # the names checked
        level = LEVELS[level_name]
        column, value = level.selects(split)
        found: dict[str, set] = {name: set() for name in level.filters}
        for batch in self._batches(level.file(self.run, split), [column, *level.filters]):
            batch = batch.filter(pc.equal(batch[column], value))
            for name in level.filters:
                found[name].update(pc.unique(batch[name]).to_pylist())
        return {name: sorted((v for v in values if v is not None), key=str)[:MAX_VALUES]
                for name, values in found.items()}

    def _view(self, query: Query) -> np.ndarray:
        """The positions of the rows the query selects, from the cache or by one pass over the columns it tests."""
        path = LEVELS[query.level].file(self.run, query.split)
        stat = path.stat()
        key = (query, stat.st_size, stat.st_mtime_ns)
        with self._lock:
            if key in self._views:
                self._views.move_to_end(key)
                return self._views[key]
        view = self._scan(path, query)
        with self._lock:
            self._views[key] = view
            while len(self._views) > CACHED_VIEWS:
                self._views.popitem(last=False)
        return view

    def _scan(self, path: Path, query: Query) -> np.ndarray:
        level = LEVELS[query.level]
        column, value = level.selects(query.split)
        searched = [query.column] if query.column else list(level.searched)
        types = self._handle(path).schema_arrow
        filters = [(name, _typed(value_text, types.field(name).type, name)) for name, value_text in query.filters]
        by = query.sort.removeprefix(TOKENS)
        needed = list(dict.fromkeys([column, *(n for n, _ in filters), *(searched if query.text else []),
                                     *([query.length] if query.length else []), *([by] if by else [])]))
        found, keys, start = [], [], 0
        for batch in self._batches(path, needed):
            mask = pc.equal(batch[column], value)
            for name, wanted in filters:
                mask = pc.and_(mask, pc.equal(batch[name], wanted))
            if query.text:
                hit = None
                for name in searched:
                    matched = pc.match_substring(batch[name], query.text, ignore_case=True)
                    hit = matched if hit is None else pc.or_(hit, matched)
                mask = pc.and_(mask, hit)
            if query.length:
                tokens = _tokens(batch[query.length])
                if query.shortest is not None:
                    mask = pc.and_(mask, pc.greater_equal(tokens, query.shortest))
                if query.longest is not None:
                    mask = pc.and_(mask, pc.less_equal(tokens, query.longest))
            here = np.flatnonzero(pc.fill_null(mask, False).to_numpy(zero_copy_only=False))
            found.append(here + start)
            if by:  # the sort key of each row kept (a length, or a filter column's short value)
                key = _tokens(batch[by]) if query.sort.startswith(TOKENS) else batch[by]
                keys.append(key.take(pa.array(here, pa.int64())))
            start += batch.num_rows
        positions = np.concatenate(found) if found else np.empty(0, np.int64)
        if by and len(positions):  # Arrow's sort is stable: ties stay in file order
            order = pc.array_sort_indices(pa.concat_arrays(keys), order="descending" if query.descending
                                          else "ascending", null_placement="at_end")
            positions = positions[order.to_numpy()]
        return positions

    def _handle(self, path: Path) -> pq.ParquetFile:
        if not path.is_file():
            raise InputError(path, "no such file")
        Parts(path, expect=DATASET_SCHEMA if path.name != "hunks.parquet" else HUNK_DATASET_SCHEMA)
        return pq.ParquetFile(path)

    def _batches(self, path: Path, columns: list[str]):  # type: ignore[no-untyped-def]
        handle = self._handle(path)
        found = handle.schema_arrow
        for batch in handle.iter_batches(batch_size=SCAN_ROWS, columns=columns_to_read(found, columns)):
            yield upgraded(batch, found, columns)

    def _take(self, path: Path, positions: np.ndarray, columns: list[str] | None) -> list[dict[str, Any]]:
        """The rows at ``positions`` (sorted), reading only the row groups that hold them."""
        handle = self._handle(path)
        found = handle.schema_arrow
        sizes = [handle.metadata.row_group(i).num_rows for i in range(handle.num_row_groups)]
        starts = np.concatenate([[0], np.cumsum(sizes)])
        groups = np.searchsorted(starts, positions, side="right") - 1
        rows: list[dict[str, Any]] = []
        for group in np.unique(groups):
            table = upgraded(handle.read_row_group(int(group), columns=columns_to_read(found, columns)), found, columns)
            rows += table.take(pa.array(positions[groups == group] - starts[group])).to_pylist()
        return rows


def _tokens(texts: pa.Array) -> pa.Array:
    """The length of each text in whitespace tokens (0 for an empty or missing one)."""
    return pc.fill_null(pc.list_value_length(pc.utf8_split_whitespace(texts)), 0)


def _typed(text: str, type_: pa.DataType, name: str) -> pa.Scalar:
    """A filter's value, given as text, as a scalar of its column's type (``true``/``false``, numbers)."""
    try:
        return pa.scalar(text).cast(type_)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
        raise BadRequest(f"filter {name}={text!r}: not a value of the column's type {type_}") from exc
