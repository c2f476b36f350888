"""Dataset rows as the filter, split and export stages share them: reading and checking a candidate table,
the stable ``id`` of a row, the columns each filter reads, the token bags near-duplicates are found on,
how a cluster is named and which of its rows stays, and the table of dropped rows.

It lives apart from the stages so that none imports another's helpers. Error locations are 1-based rows
(``kept.parquet:1 [cluster_id]: row 1 ...``), like the prediction readers' records.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import pyarrow as pa
import pyarrow.compute as pc

from .errors import InputError
from .schema import CANDIDATES_NAME, CANDIDATES_SCHEMA, CANDIDATES_VERSION, FILTER_DROPPED_SCHEMA, schema_id
from .store import check_columns, read_table

__all__ = [
    "CANDIDATES_TAG", "DUPLICATE_FIELDS", "KINDS", "PAIR", "SPLITS", "TRIPLET", "CandidateRows", "cluster_names",
    "dropped_rows", "duplicate_key", "keep_one_per_cluster", "load_candidates", "stable_id", "with_ids",
]

TRIPLET, PAIR = "triplet", "pair"
KINDS = (TRIPLET, PAIR)
#: The dataset's splits, in order (``train.parquet``, ``eval.parquet``, ``test.parquet``): the split writes
#: them, export and the overlap check read them, and an import of a published dataset fills them.
SPLITS = ("train", "eval", "test")
CANDIDATES_TAG = f"{CANDIDATES_NAME}/{CANDIDATES_VERSION}"
#: Whitespace-tokenised columns whose tokens make a row's bag for near-duplicate detection.
DUPLICATE_FIELDS: tuple[str, ...] = ("m_s_abstract", "m_r_abstract")


def stable_id(kind: str, round_id: str, path: str | None, comment_id: str | None, signature: str,
              start_line_before: int) -> str:
    """A row's id: a hash of where it comes from (round, file, comment, method), the same in every run."""
    parts = (kind, round_id, path or "", comment_id or "", signature, str(start_line_before))
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:20]


def with_ids(table: pa.Table, origin: str | Path | None = None) -> pa.Table:
    """``table`` with an ``id`` column first (computed from provenance when absent); ids must be unique."""
    if "id" not in table.column_names:
        columns = [table.column(n).to_pylist() for n in
                   ("kind", "round_id", "path", "comment_id", "signature", "start_line_before")]
        table = table.add_column(0, "id", pa.array([stable_id(*values) for values in zip(*columns)], pa.string()))
    seen: dict[str, int] = {}
    for row, value in enumerate(table.column("id").to_pylist(), start=1):
        if value in seen:
            raise InputError(origin, f"rows {seen[value]} and {row} have the same provenance (id {value}); "
                                     "a candidate is listed twice", line=row, field="id")
        seen[value] = row
    return table


def load_candidates(source: str | Path | pa.Table, accept: tuple[str, ...] = (CANDIDATES_TAG,)
                    ) -> tuple[pa.Table, Path | None]:
    """Read and check a table of candidates (a path or an in-memory table) whose schema tag is one of
    ``accept``; returns it (with its ``id`` and ``cluster_id`` columns, if any) and its path."""
    path = None if isinstance(source, pa.Table) else Path(source)
    table = source if isinstance(source, pa.Table) else read_table(path)
    found = schema_id(table.schema)
    if path is not None and found is not None and found not in accept:
        raise InputError(path, f"expected a {' or '.join(accept)} file, found {found}")
    check_columns(path, table.schema, CANDIDATES_SCHEMA)  # an int m_s is refused, not cast to text
    for f in CANDIDATES_SCHEMA:
        if not f.nullable and table.column(f.name).null_count:
            row = pc.index(pc.is_null(table.column(f.name)), True).as_py() + 1
            raise InputError(path, f"row {row}: empty value in a required column", line=row, field=f.name)
    kinds = table.column("kind").to_pylist()
    bad = next((row for row, value in enumerate(kinds, start=1) if value not in KINDS), None)
    if bad is not None:
        raise InputError(path, f"row {bad}: kind {kinds[bad - 1]!r} is not one of {KINDS}", line=bad, field="kind")
    marked = table.column("m_s_marked").to_pylist()
    bad = next((row for row, (kind, value) in enumerate(zip(kinds, marked), start=1)
                if kind == TRIPLET and value is None), None)
    if bad is not None:  # src2 of the export would get an empty line
        raise InputError(path, f"row {bad}: a triplet without m_s_marked", line=bad, field="m_s_marked")
    extra = [n for n in ("id", "cluster_id") if n in table.column_names]  # given by the caller or a stage
    return table.select([*extra, *CANDIDATES_SCHEMA.names]), path


class CandidateRows:
    """The candidate table as Python columns, each converted (and tokenised) once and shared by the filters."""

    def __init__(self, table: pa.Table):
        self.table = table
        self._columns: dict[str, list[Any]] = {}
        self._tokens: dict[str, list[list[str]]] = {}

    def __len__(self) -> int:
        return self.table.num_rows

    def col(self, name: str) -> list[Any]:
        if name not in self._columns:
            self._columns[name] = self.table.column(name).to_pylist()
        return self._columns[name]

    def tokens(self, name: str) -> list[list[str]]:
        if name not in self._tokens:
            self._tokens[name] = [(text or "").split() for text in self.col(name)]
        return self._tokens[name]

    def bags(self, rows: Iterable[int], fields: Sequence[str] = DUPLICATE_FIELDS) -> list[list[str]]:
        """Each row's near-duplicate document: the tokens of ``fields``, each tagged with its field's
        position so that a token of m_s never matches the same token of m_r."""
        field_tokens = [self.tokens(name) for name in fields]
        return [[f"{f}\x1f{t}" for f, tokens in enumerate(field_tokens) for t in tokens[i]] for i in rows]


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


def dropped_rows(table: pa.Table, rows: list[int], name: str, details: list[str | None],
                 clusters: list[str] | None = None) -> pa.Table:
    """Rows of ``table`` (with an ``id`` column) as dropped rows of filter ``name``, in the dropped schema."""
    part = table.drop_columns([n for n in ("cluster_id", "split") if n in table.column_names]).take(
        pa.array(rows, pa.int64()))
    part = part.append_column("filter", pa.array([name] * len(rows), pa.string()))
    part = part.append_column("detail", pa.array(details, pa.string()))
    part = part.append_column("cluster_id", pa.array(clusters or [None] * len(rows), pa.string()))
    return part.select(FILTER_DROPPED_SCHEMA.names).cast(FILTER_DROPPED_SCHEMA)
