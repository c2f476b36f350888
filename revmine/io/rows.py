"""Dataset rows as the filter, split and export stages share them: reading and checking a candidate table,
the stable ``id`` of a row, the columns each filter reads, the token bags near-duplicates are found on,
how a cluster is named and which of its rows stays, and the table of dropped rows.

It lives apart from the stages so that none imports another's helpers. Error locations are 1-based rows
(``kept.parquet:1 [cluster_id]: row 1 ...``), like the prediction readers' records.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Sequence

import pyarrow as pa
import pyarrow.compute as pc

from ..errors import InputError
from ..schema import CANDIDATES_NAME, CANDIDATES_SCHEMA, CANDIDATES_VERSION, FILTER_DROPPED_SCHEMA, AuthorKind, schema_id
from .kinds import DUPLICATE_FIELDS, HF_SPLITS, KINDS, PAIR, SPLIT_NAMES, SPLITS, TRIPLET
from .store import Parts, check_columns

__all__ = [
    "CANDIDATES_TAG", "DUPLICATE_FIELDS", "HF_SPLITS", "KINDS", "PAIR", "SPLIT_NAMES", "SPLITS", "TRIPLET",
    "CandidateRows", "cluster_names",
    "BATCH_ROWS", "CandidateFile", "ID_COLUMNS", "PASSENGER_COLUMNS", "dropped_rows", "duplicate_key",
    "keep_one_per_cluster", "stable_id", "with_ids",
]

CANDIDATES_TAG = f"{CANDIDATES_NAME}/{CANDIDATES_VERSION}"


#: What a row's id is a hash of (:func:`stable_id`'s arguments).
ID_COLUMNS = ("kind", "round_id", "path", "comment_id", "signature", "start_line_before")


def stable_id(kind: str, round_id: str, path: str | None, comment_id: str | None, signature: str,
              start_line_before: int) -> str:
    """A row's id: a hash of where it comes from (round, file, comment, method), the same in every run."""
    parts = (kind, round_id, path or "", comment_id or "", signature, str(start_line_before))
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:20]


def with_ids(table: pa.Table, origin: str | Path | None = None) -> pa.Table:
    """``table`` with an ``id`` column first (computed from provenance when absent); ids must be unique."""
    if "id" not in table.column_names:
        columns = [table.column(n).to_pylist() for n in ID_COLUMNS]
        table = table.add_column(0, "id", pa.array([stable_id(*values) for values in zip(*columns)], pa.string()))
    seen: dict[str, int] = {}
    for row, value in enumerate(table.column("id").to_pylist(), start=1):
        if value in seen:
            raise InputError(origin, f"rows {seen[value]} and {row} have the same provenance (id {value}); "
                                     "a candidate is listed twice", line=row, field="id")
        seen[value] = row
    return table


#: Columns no filter or split decision reads: the first pass leaves them out, the writing pass streams them.
PASSENGER_COLUMNS = ("m_s", "m_r", "abstraction_map", "abstraction_ids", "m_s_marked")
#: Rows read at a time by the passes over a candidate file.
BATCH_ROWS = 16_384


class CandidateFile:
    """A table of candidates (a Parquet file, a folder of parts, or a table in memory) read in batches.

    Filter and split decide on a few columns of every row, then copy whole rows to their outputs; holding
    the whole table (raw code, maps) in memory for that made their peak grow with the corpus at several
    KiB a row. :meth:`working` is the first pass: it checks every batch (schema tag, required values,
    kinds, a triplet's ``m_s_marked``), gives rows their ``id`` and checks ids are unique, and returns the
    table without :data:`PASSENGER_COLUMNS`; :meth:`batches` is the writing pass, whole rows a batch at a
    time, in the same order.
    """

    def __init__(self, source: str | Path | pa.Table, accept: tuple[str, ...] = (CANDIDATES_TAG,),
                 given_clusters: bool = True, batch_rows: int | None = None):
        self.path = None if isinstance(source, pa.Table) else Path(source)
        self._table = source if isinstance(source, pa.Table) else None
        self._parts = None if self.path is None else Parts(self.path)
        self.schema = schema = self._parts.schema if self._parts is not None else source.schema
        found = schema_id(schema)
        # Parts reads an earlier version (schema.UPGRADES) with its missing columns added, under the current tag
        if self.path is not None and found is not None and found not in accept:
            raise InputError(self.path, f"expected a {' or '.join(accept)} file, found {found}")
        check_columns(self.path, schema, CANDIDATES_SCHEMA)  # an int m_s is refused, not cast to text
        #: given by the caller or a stage before this one (``given_clusters=False``: a cluster_id is not read)
        self.extra = [n for n in ("id", "cluster_id")[:2 if given_clusters else 1] if n in schema.names]
        self.batch_rows = batch_rows or BATCH_ROWS

    def batches(self, columns: Sequence[str] | None = None) -> Iterator[tuple[int, pa.Table]]:
        """(first row, rows) in file order: ``id``, any ``cluster_id``, then ``columns`` (default: every
        candidate column); ids are computed from provenance where the input has none."""
        columns = list(columns or CANDIDATES_SCHEMA.names)
        given = [n for n in self.extra if n != "id"]
        derive = "id" not in self.extra
        read = list(dict.fromkeys([*self.extra, *columns, *(ID_COLUMNS if derive else ())]))
        if self._parts is not None:
            batches = self._parts.iter_batches(self.batch_rows, columns=read)
        else:
            batches = self._table.select(read).to_batches(max_chunksize=self.batch_rows)
        start = 0
        for batch in batches:
            table = pa.Table.from_batches([batch])
            if derive:
                values = zip(*(table.column(n).to_pylist() for n in ID_COLUMNS))
                table = table.append_column("id", pa.array([stable_id(*v) for v in values], pa.string()))
            self._check_required(start, table)
            yield start, table.select(["id", *given, *columns])
            start += table.num_rows

    def _schema(self, columns: Sequence[str]) -> pa.Schema:
        return pa.schema([pa.field("id", pa.string()), *(self.schema.field(n) for n in
                                                         [*(n for n in self.extra if n != "id"), *columns])])

    def working(self) -> pa.Table:
        """Every row without the passenger columns, checked (see the class); ids unique."""
        self._check_passengers()
        light = [n for n in CANDIDATES_SCHEMA.names if n not in PASSENGER_COLUMNS]
        seen: dict[str, int] = {}
        parts = []
        for start, table in self.batches([*light, "m_s_marked"]):
            self._check(start, table)
            for row, value in enumerate(table.column("id").to_pylist(), start=start + 1):
                if value in seen:
                    raise InputError(self.path, f"rows {seen[value]} and {row} have the same provenance (id {value}); "
                                                "a candidate is listed twice", line=row, field="id")
                seen[value] = row
            parts.append(table.drop_columns(["m_s_marked"]))
        return pa.concat_tables(parts).combine_chunks() if parts else self._schema(light).empty_table()

    def _check_passengers(self) -> None:
        """No empty value in a required passenger column (the code), found before any work: the working pass does
        not read them, and a bad cell once surfaced only when the rows were written, after every filter had run.
        A file's row groups are read only where their statistics do not rule a null out (:meth:`Parts.first_null`)."""
        for f in CANDIDATES_SCHEMA:
            if f.name not in PASSENGER_COLUMNS or f.nullable or f.name not in self.schema.names:
                continue
            if self._parts is not None:
                first = self._parts.first_null(f.name)
            else:
                column = self._table.column(f.name)
                first = pc.index(pc.is_null(column), True).as_py() if column.null_count else None
            if first is not None:
                raise InputError(self.path, f"row {first + 1}: empty value in a required column", line=first + 1,
                                 field=f.name)

    def _check_required(self, start: int, table: pa.Table) -> None:
        """No empty value in a required column of the batch (rows numbered from 1 in the file); a passenger
        column is checked as it streams, before its batch is written (outputs are staged: nothing is left)."""
        for f in CANDIDATES_SCHEMA:
            if f.name in table.column_names and not f.nullable and table.column(f.name).null_count:
                row = start + pc.index(pc.is_null(table.column(f.name)), True).as_py() + 1
                raise InputError(self.path, f"row {row}: empty value in a required column", line=row, field=f.name)

    def _check(self, start: int, table: pa.Table) -> None:
        """Kinds and a triplet's m_s_marked of one batch (rows numbered from 1 in the file)."""
        kinds = table.column("kind").to_pylist()
        bad = next((i for i, value in enumerate(kinds) if value not in KINDS), None)
        if bad is not None:
            raise InputError(self.path, f"row {start + bad + 1}: kind {kinds[bad]!r} is not one of {KINDS}",
                             line=start + bad + 1, field="kind")
        authors = table.column("comment_author_kind").to_pylist()
        bad = next((i for i, value in enumerate(authors) if value is not None and value not in AuthorKind.ALL), None)
        if bad is not None:
            raise InputError(self.path, f"row {start + bad + 1}: comment_author_kind {authors[bad]!r} is not one of "
                             f"{AuthorKind.ALL}", line=start + bad + 1, field="comment_author_kind")
        marked = table.column("m_s_marked").to_pylist()
        bad = next((i for i, (kind, value) in enumerate(zip(kinds, marked)) if kind == TRIPLET and value is None), None)
        if bad is not None:  # src2 of the export would get an empty line
            raise InputError(self.path, f"row {start + bad + 1}: a triplet without m_s_marked",
                             line=start + bad + 1, field="m_s_marked")


class CandidateRows:
    """The candidate table as Python columns, each converted (and tokenised) once and shared by the filters.

    Tokens are interned: abstracted code has a small vocabulary (keywords, ``VAR_1``...), so a token list
    costs a pointer a token instead of a string object a token (about 6x less on the 2021 split).
    """

    def __init__(self, table: pa.Table, source: "CandidateFile | None" = None):
        self.table = table
        #: the file the table was read from, for the columns it leaves out (:meth:`passenger`)
        self.source = source
        self._columns: dict[str, list[Any]] = {}
        self._tokens: dict[str, list[list[str]]] = {}
        #: what a filter computes over the whole table once and another reads (the template accounts)
        self.memo: dict[str, Any] = {}

    def passenger(self, name: str, positions: Sequence[int]) -> list[Any]:
        """``name``'s values at ``positions``, for a column the working table leaves out
        (:data:`PASSENGER_COLUMNS`): one more pass over the file reading that column alone, keeping only
        the rows asked for (a noise model that reads the code gets the m_s of the triplets still in)."""
        if self.source is None:
            raise ValueError(f"column {name!r} is not in the working table and no file was given to read it from")
        wanted = sorted(set(positions))
        found: dict[int, Any] = {}
        at = 0
        for start, batch in self.source.batches([name]):
            end = start + batch.num_rows
            here = []
            while at < len(wanted) and wanted[at] < end:
                here.append(wanted[at])
                at += 1
            if here:
                values = batch.column(name).take(pa.array([p - start for p in here])).to_pylist()
                found.update(zip(here, values))
        return [found[p] for p in positions]

    def __len__(self) -> int:
        return self.table.num_rows

    def col(self, name: str) -> list[Any]:
        if name not in self._columns:
            self._columns[name] = self.table.column(name).to_pylist()
        return self._columns[name]

    def tokens(self, name: str) -> list[list[str]]:
        if name not in self._tokens:
            column = self.table.column(name)
            self._tokens[name] = [list(map(sys.intern, text.split())) if text else []
                                  for start in range(0, len(column), BATCH_ROWS)
                                  for text in column.slice(start, BATCH_ROWS).to_pylist()]
        return self._tokens[name]

    def bags(self, rows: Iterable[int], fields: Sequence[str] = DUPLICATE_FIELDS) -> list[list[str]]:
        """Each row's near-duplicate document: the tokens of ``fields``, each tagged with its field's
        position so that a token of m_s never matches the same token of m_r (one string per distinct
        tagged token, shared by every row that has it)."""
        field_tokens = [self.tokens(name) for name in fields]
        tagged: dict[tuple[int, str], str] = {}

        def tag(f: int, token: str) -> str:
            return tagged.get((f, token)) or tagged.setdefault((f, token), f"{f}\x1f{token}")
        return [[tag(f, t) for f, tokens in enumerate(field_tokens) for t in tokens[i]] for i in rows]


def cluster_names(labels: Sequence[int], names: Sequence[str]) -> list[str]:
    """Each member's cluster name: the smallest of its cluster's ``names`` (``labels`` say who is together),
    so that a cluster's name does not depend on row order."""
    smallest: dict[int, str] = {}
    for label, name in zip(labels, names):
        smallest[label] = min(smallest.get(label, name), name)
    return [smallest[label] for label in labels]


def duplicate_key(cluster: str, kind: str, comment: Sequence[str] | None) -> tuple[str, str, tuple[str, ...]]:
    """Rows with equal keys are duplicates of each other (one of them is kept).

    ``cluster`` is the row's near-duplicate cluster (code: m_s and m_r). Pairs of one cluster are
    duplicates; triplets only when their cleaned comments (``comment``, the tokens of
    ``comment_abstract``) are also identical, because the same code with another comment is another
    example. A triplet and a pair are never duplicates: they are different tasks."""
    return cluster, kind, tuple(comment or ()) if kind == TRIPLET else ()


def keep_one_per_cluster(rows: Sequence[int], cluster: Sequence[str] | Mapping[int, str], kind: Sequence[str],
                         ids: Sequence[str], comments: Sequence[Sequence[str] | None]) -> dict[int, int]:
    """row -> the row kept for its :func:`duplicate_key`: the one with the smallest id, so that the choice
    does not depend on row order."""
    key = {i: duplicate_key(cluster[i], kind[i], comments[i]) for i in rows}
    keeper: dict[tuple[str, str, tuple[str, ...]], int] = {}
    for i in rows:
        if key[i] not in keeper or ids[i] < ids[keeper[key[i]]]:
            keeper[key[i]] = i
    return {i: keeper[key[i]] for i in rows}


def dropped_rows(table: pa.Table, rows: list[int], name: str | Sequence[str], details: list[str | None],
                 clusters: list[str] | None = None) -> pa.Table:
    """Rows of ``table`` (with an ``id`` column) as dropped rows of filter ``name`` (or each row's filter),
    in the dropped schema."""
    part = table.drop_columns([n for n in ("cluster_id", "split") if n in table.column_names]).take(
        pa.array(rows, pa.int64()))
    names = [name] * len(rows) if isinstance(name, str) else name
    part = part.append_column("reason", pa.array(names, pa.string()))
    part = part.append_column("detail", pa.array(details, pa.string()))
    part = part.append_column("cluster_id", pa.array(clusters or [None] * len(rows), pa.string()))
    return part.select(FILTER_DROPPED_SCHEMA.names).cast(FILTER_DROPPED_SCHEMA)
