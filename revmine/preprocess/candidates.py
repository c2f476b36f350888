"""The preprocess stage: review rounds -> candidate triplets and pairs (``revmine preprocess``).

Reads ``rounds.parquet`` (:data:`~revmine.schema.ROUNDS_SCHEMA`, one row per round and file) in
batches and streams ``candidates.parquet`` and ``dropped.parquet`` out, so memory is bounded by the batch
size, not the input. Per file:

1. Contents are normalised as CodeNet did before anything else: UTF-8 (undecodable bytes drop the file),
   byte-order mark removed, ``\\r\\n`` and ``\\r`` turned into ``\\n``.
2. Limits keep pathological inputs bounded: a byte limit per content (generated files), a bracket nesting
   limit (Lizard and javalang recurse on nesting), and a per-file time budget checked inside Lizard's
   token stream and between abstractions. A file that hits one is dropped with that reason.
3. Methods are extracted and matched before/after (:mod:`.methods` for Java, :mod:`.functions` for the other
   languages, by the row's ``language``); comments are linked (:mod:`.linking`).
   A file that does not compile is not dropped: its methods are extracted around the brackets that do
   not balance, and a comment on lines where no method could be extracted is dropped as ``unparseable``.
4. A *triplet* is written for every linked comment whose method still exists after the round (also when
   the method did not change: ``changed`` says so, the filters decide), a *pair* for every method whose
   text changed. m_s/m_r are abstracted together (:func:`.abstraction.abstract_pair`, src2abs-exact, for
   Java; :func:`.treeabstraction.abstract_code_pair` for the others, with the language's shipped idioms), the
   comment with the pair's map (:func:`revmine.lang.comments.clean_comment`).
5. A triplet's ``m_s_marked`` is the 2-encoder input (``src2`` of the 2021 package): ``m_s_abstract`` with
   ``<START>``/``<END>`` around the tokens its comment's range touches (:meth:`.abstraction.AbstractedPair.marked`).
   The range is the comment's own (several comments on one method: each triplet has its marks): Gerrit's
   character range when it has one (characters counted in UTF-16 units, as Gerrit does), else its whole
   lines (GitHub ranges and line comments). Lines above m_s's text that still link to the method
   (annotation-only lines, which m_s leaves out) are clipped away: a range only on them marks nothing,
   ``<START> <END>`` before m_s's first token. A character past the end of its line means the line end.

Every input that made no candidate is a row of ``dropped.parquet`` with a :class:`DropReason`: a failed
file gives a ``file`` row and one ``comment`` row per comment on it, so comments can be counted alone.
Methods added in the revision have no m_s and are neither candidates nor dropped.

The work is :func:`process_batch` (:func:`process_file` over a record batch), mapped by a
:mod:`revmine.runtime.engine`: in-process by default, on a Dask cluster with ``engine="dask"``. Reading and writing
stay here, in input order, so the outputs do not depend on the engine.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections import Counter, OrderedDict
from pathlib import Path
from typing import Any, Iterable, Iterator, NamedTuple

import pyarrow as pa

from ..errors import InputError
from ..io.store import AtomicParquetWriter, Parts
from ..io.textio import read_lines
from ..lang.comments import clean_comment
from ..lang.idioms import default_idioms, load_idioms
from ..runtime.engine import open_engine
from ..runtime.progress import progress_bar
from ..schema import CANDIDATES_SCHEMA, DROPPED_SCHEMA, HUNKS_SCHEMA, ROUNDS_SCHEMA, UPGRADES, DropReason
from .abstraction import AbstractedPair, abstract_pair
from .functions import extract_functions
from .hunks import hunk_rows
from .linking import Link, comment_lines, count_lines, link_comment
from .methods import ExtractionError, FileMethods, Match, Method, extract_methods, match_methods
from .options import LEVELS, MAX_DEPTH, Limits, PreprocessOptions
from .treeabstraction import abstract_code_pair

__all__ = ["BatchResult", "LEVELS", "Limits", "MethodCache", "PreprocessOptions", "comment_span", "normalise_source",
           "preprocess", "process_batch", "process_file", "process_hunks"]

CANDIDATES_FILE = "candidates.parquet"
DROPPED_FILE = "dropped.parquet"
HUNKS_FILE = "hunks.parquet"

_TEXT_COLUMNS = ("round_id", "source", "project", "change", "path_before", "path_after")
_CONTENT_COLUMNS = ("content_before", "content_after", "content_base")
_COLUMNS = (*_TEXT_COLUMNS, "round", "language", "licence", *_CONTENT_COLUMNS, "comments")


def normalise_source(data: bytes) -> str:
    """Decode a file as CodeNet normalised it: UTF-8, no byte-order mark, Unix line endings."""
    text = data.decode("utf-8")
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n")


def preprocess(rounds: str | Path, out: str | Path, idioms: str | Path | Iterable[str] | None = None,
               batch_size: int = PreprocessOptions.batch_size, max_file_bytes: int = Limits.max_file_bytes,
               timeout: float = Limits.timeout, max_depth: int = MAX_DEPTH, progress: bool = False,
               engine: str = PreprocessOptions.engine, workers: int | None = None,
               address: str | None = None, levels: tuple[str, ...] = PreprocessOptions.levels) -> dict[str, Any]:
    """Turn ``rounds`` into ``OUT/candidates.parquet`` and ``OUT/dropped.parquet`` (and ``OUT/hunks.parquet`` with
    ``levels`` holding ``"hunk"``); return the counts.

    ``idioms``: a path to Java's idiom list, the idioms themselves, or None for the 2021 dataset's list.

    ``engine``: ``"local"`` (in this process) or ``"dask"``: batches of rounds are processed on a
    dask.distributed cluster (``workers`` processes on this machine, or the scheduler at ``address`` /
    ``$REVMINE_DASK_SCHEDULER``; see :mod:`revmine.runtime.engine`) and written here in input order, so both
    engines write byte-identical files. On Dask each batch has its own method cache, so a file shared by
    the last round of one batch and the first of the next is read by Lizard twice; nothing else differs.
    The per-file ``timeout`` is wall-clock time: give a cluster of your own one thread per worker process,
    as the one started here has, or threads competing for the GIL make files time out sooner.
    """
    rounds, out = Path(rounds), Path(out)
    source = _open_rounds(rounds)
    levels = tuple(levels)
    if "hunk" in levels and any("content_base" in UPGRADES.get(tag or "", {}) for tag in source.tags):
        raise InputError(rounds, "mined by a revmine that did not record the change's base (rounds/1): hunk-level "
                         "rows need it; mine again", field="content_base")
    idiom_set = _idioms(idioms)
    limits = Limits(max_file_bytes, timeout, max_depth)
    totals: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    with open_engine(engine, workers=workers, address=address) as runner, \
            AtomicParquetWriter(out / CANDIDATES_FILE, CANDIDATES_SCHEMA) as cands, \
            AtomicParquetWriter(out / DROPPED_FILE, DROPPED_SCHEMA) as drops, \
            contextlib.ExitStack() as optional, \
            progress_bar(total=source.num_rows, desc="preprocess", unit="file", enabled=progress) as bar:
        batches = source.iter_batches(batch_size=batch_size, columns=list(_COLUMNS))
        # in-process, one method cache serves the whole run; a remote batch makes its own
        hunks = optional.enter_context(AtomicParquetWriter(out / HUNKS_FILE, HUNKS_SCHEMA)) if "hunk" in levels \
            else None
        cache = MethodCache() if runner.name == "local" else None
        for result in runner.map(process_batch, batches, idiom_set, limits, cache, levels):
            totals.update(result.counts)
            reasons.update(result.reasons)
            if result.candidates is not None:
                cands.write(result.candidates)
            if result.dropped is not None:
                drops.write(result.dropped)
            if result.hunks is not None and hunks is not None:
                hunks.write(result.hunks)
            bar.update(result.counts["files"])
    return {
        "files": totals["files"],
        "comments": totals["triplet"] + totals["dropped_comments"],  # every comment is a triplet or a dropped row
        "triplets": totals["triplet"],
        "pairs": totals["pair"],
        "dropped": sum(reasons.values()),
        "dropped_by_reason": dict(sorted(reasons.items())),
        "candidates_path": str(out / CANDIDATES_FILE),
        "dropped_path": str(out / DROPPED_FILE),
        **({"hunks": totals["hunks"], "hunk_comments": totals["hunk_comments"],
            "hunks_path": str(out / HUNKS_FILE)} if "hunk" in levels else {}),
    }


class BatchResult(NamedTuple):
    """One batch's output: the rows to append (None when there are none) and what they count."""

    candidates: pa.Table | None
    dropped: pa.Table | None
    counts: Counter  # files, triplet, pair, dropped_comments, hunks, hunk_comments
    reasons: Counter  # dropped rows per reason
    hunks: pa.Table | None = None


def process_batch(batch: pa.RecordBatch, idioms: frozenset[str], limits: Limits,
                  cache: MethodCache | None = None, levels: tuple[str, ...] = ("method",)) -> BatchResult:
    """:func:`process_file` (and :func:`process_hunks`) over a batch of the rounds table, in row order: the unit an
    engine maps."""
    kept: list[dict[str, Any]] = []
    dropped: list[dict[str, Any]] = []
    hunks: list[dict[str, Any]] = []
    cache = MethodCache() if cache is None else cache
    for row in _rows(batch):
        if "method" in levels:
            row_kept, row_dropped = process_file(row, idioms, limits, cache)
            kept += row_kept
            dropped += row_dropped
        if "hunk" in levels:
            row_hunks, row_dropped = process_hunks(row, limits)
            hunks += row_hunks
            dropped += row_dropped
    counts: Counter[str] = Counter(r["kind"] for r in kept)
    counts["files"] = batch.num_rows
    counts["dropped_comments"] = sum(r["kind"] == "comment" for r in dropped)
    counts["hunks"] = len({(r["round_id"], r["path"], r["hunk_index"]) for r in hunks})
    counts["hunk_comments"] = sum(r["y"] for r in hunks)
    return BatchResult(
        candidates=pa.Table.from_pylist(kept, schema=CANDIDATES_SCHEMA) if kept else None,
        dropped=pa.Table.from_pylist(dropped, schema=DROPPED_SCHEMA) if dropped else None,
        counts=counts,
        reasons=Counter(r["reason"] for r in dropped),
        hunks=pa.Table.from_pylist(hunks, schema=HUNKS_SCHEMA) if hunks else None,
    )


def process_hunks(row: dict[str, Any], limits: Limits) -> tuple[list[dict], list[dict]]:
    """CodeReviewer's hunk rows of one rounds row (:func:`.hunks.hunk_rows`) and the comments that made none
    (``kind`` ``hunk_comment``, so that the method level's counts of dropped comments are not doubled); a file
    that cannot be read is a ``hunk_file`` row, as the method level's ``file`` row."""
    file = _File(row, frozenset(), limits, MethodCache(0))
    try:
        if file.bad:
            raise ExtractionError(DropReason.BAD_ENCODING, file.bad)
        # the files as their bytes decode, BOM and line ends kept: CodeReviewer's hunks and oldf are GitHub's
        texts = {name: None if row[name] is None else file._source(name, row[name], normalise=False)
                 for name in _CONTENT_COLUMNS}
    except ExtractionError as exc:
        return [], [file._drop("hunk_file", exc.reason, exc.detail)]
    rows, dropped = hunk_rows({**file.provenance, "path_before": file.provenance["path"],
                               "comments": file.comments, **texts})
    return rows, [{**drop, "kind": "hunk_comment"} for drop in dropped]


def _open_rounds(path: Path) -> Parts:
    return Parts(path, expect=ROUNDS_SCHEMA, columns=_COLUMNS)


def _idioms(idioms: str | Path | Iterable[str] | None) -> frozenset[str]:
    if idioms is None:
        return default_idioms()
    if isinstance(idioms, (str, Path)):
        return load_idioms(read_lines(Path(idioms)))  # strict UTF-8: a bad byte is reported with its line
    return frozenset(idioms)


def _rows(batch: pa.RecordBatch) -> Iterator[dict[str, Any]]:
    """The batch's rows with text columns as raw bytes: decoding is per row, so bad bytes drop one row."""
    columns = {name: batch.column(name).cast(pa.large_binary()).to_pylist() for name in (*_TEXT_COLUMNS,
                                                                                          *_CONTENT_COLUMNS)}
    rounds, languages = batch.column("round").to_pylist(), batch.column("language").to_pylist()
    licences = batch.column("licence").to_pylist()
    comments = batch.column("comments")
    for i in range(batch.num_rows):
        row = {name: values[i] for name, values in columns.items()}
        row["round"], row["language"], row["licence"] = rounds[i], languages[i] or "java", licences[i]
        try:
            row["comments"] = comments[i].as_py()
        except UnicodeDecodeError as exc:
            row["comments"], row["undecodable"] = None, _undecodable("comments", exc)
        yield row


def _undecodable(field: str, error: UnicodeDecodeError) -> str:
    return f"{field}: invalid UTF-8 at byte {error.start}"


class MethodCache:
    """The methods of recently seen sources: a round's revised file is usually the next round's submitted one,
    and Lizard is most of the stage's time."""

    def __init__(self, size: int = 32):
        self.size = size
        self._entries: OrderedDict[tuple[str, str, int], FileMethods] = OrderedDict()

    def methods(self, source: str, language: str, deadline: float, max_depth: int) -> FileMethods:
        key = (source, language, max_depth)
        if key in self._entries:
            self._entries.move_to_end(key)
            return self._entries[key]
        methods = self._entries[key] = (extract_methods(source, deadline, max_depth) if language == "java" else
                                        extract_functions(source, language, deadline, max_depth))
        if len(self._entries) > self.size:
            self._entries.popitem(last=False)
        return methods


def process_file(row: dict[str, Any], idioms: frozenset[str], limits: Limits,
                 cache: MethodCache | None = None) -> tuple[list[dict], list[dict]]:
    """Candidates and dropped rows of one rounds row (text columns as UTF-8 bytes, as :func:`_rows` gives)."""
    return _File(row, idioms, limits, cache or MethodCache(0)).run()


class _File:
    """The work on one (round, file) row; collects candidate and dropped rows in input order."""

    def __init__(self, row: dict[str, Any], idioms: frozenset[str], limits: Limits, cache: MethodCache):
        self.row, self.idioms, self.limits, self.cache = row, idioms, limits, cache
        self.bad: str | None = row.get("undecodable")
        text = {name: self._text(name) for name in _TEXT_COLUMNS}
        self.language: str = row.get("language") or "java"
        self.provenance = {
            "round_id": text["round_id"], "source": text["source"], "project": text["project"],
            "change": text["change"], "round": row["round"], "path": text["path_before"] or text["path_after"],
            "language": self.language, "licence": row.get("licence"),
        }
        self.path_after = text["path_after"]
        self.comments: list[dict[str, Any]] = row["comments"] or []
        self.kept: list[dict[str, Any]] = []
        self.dropped: list[dict[str, Any]] = []

    def _text(self, name: str) -> str | None:
        """A text column, decoded; undecodable bytes are remembered (the row is dropped) and replaced."""
        value = self.row[name]
        if value is None:
            return None
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError as exc:
            self.bad = self.bad or _undecodable(name, exc)
            return value.decode("utf-8", errors="replace")

    def run(self) -> tuple[list[dict], list[dict]]:
        try:
            self._run()
        except ExtractionError as exc:
            self.kept = []
            self.dropped = [self._drop("file", exc.reason, exc.detail)]
            self.dropped += [self._drop_comment(c, None, exc.reason, exc.detail) for c in self.comments]
        return self.kept, self.dropped

    def _run(self) -> None:
        if self.bad:
            raise ExtractionError(DropReason.BAD_ENCODING, self.bad)
        before_bytes, after_bytes = self.row["content_before"], self.row["content_after"]
        if before_bytes is None:
            detail = "the file is not in the revision submitted"
            self.dropped = [self._drop_comment(c, None, DropReason.NO_CONTENT_BEFORE, detail) for c in self.comments]
            return
        before = self._source("content_before", before_bytes)
        after = None if after_bytes is None else self._source("content_after", after_bytes)
        deadline = time.monotonic() + self.limits.timeout
        methods_before = self._methods("content_before", before, deadline)
        methods_after = FileMethods([]) if after is None else self._methods("content_after", after, deadline)
        matching = match_methods(methods_before, methods_after)
        match_of = {id(m.before): m for m in matching.matches}
        if self.language != "java":  # the user's idiom list is Java's; the others ship with revmine
            self.idioms = default_idioms(self.language)
        abstracted = _Abstractions(self.language, self.idioms, deadline)
        n_lines = count_lines(before)
        deleted = "no method of the next revision matches" + "".join(
            f"; it has an {u.detail}" for u in methods_after.unbalanced[:1])
        for comment in self.comments:
            link = link_comment(comment, methods_before, n_lines)
            if link.method is None:
                reason, detail = _unlinked(comment, link, methods_before)
                self.dropped.append(self._drop_comment(comment, None, reason, detail))
            elif id(link.method) not in match_of:
                self.dropped.append(self._drop_comment(comment, link.method, DropReason.METHOD_DELETED, deleted))
            else:
                self._candidate(match_of[id(link.method)], abstracted, comment)
        for method in matching.deleted:
            self.dropped.append(self._drop_method(method, DropReason.METHOD_DELETED, deleted))
        for match in matching.matches:
            if match.before.text != match.after.text:
                self._candidate(match, abstracted, None)

    def _source(self, field: str, data: bytes, normalise: bool = True) -> str:
        """The content decoded (:func:`normalise_source`, or strict UTF-8 alone with ``normalise=False``), or
        the reason it cannot be read."""
        if len(data) > self.limits.max_file_bytes:
            raise ExtractionError(DropReason.FILE_TOO_LARGE,
                                  f"{field}: {len(data)} bytes, over the limit of {self.limits.max_file_bytes}")
        try:
            return normalise_source(data) if normalise else data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ExtractionError(DropReason.BAD_ENCODING, _undecodable(field, exc)) from exc

    def _methods(self, field: str, source: str, deadline: float) -> FileMethods:
        try:
            return self.cache.methods(source, self.language, deadline, self.limits.max_depth)
        except ExtractionError as exc:
            raise ExtractionError(exc.reason, f"{field}: {exc.detail}") from exc

    def _candidate(self, match: Match, abstracted: "_Abstractions", comment: dict | None) -> None:
        """A triplet (with ``comment``) or a pair, or a dropped row if the abstraction fails."""
        before, after = match.before, match.after
        abstracted.check_deadline()
        try:
            pair = abstracted.pair(match)
            comment_abstract = None if comment is None else clean_comment(comment.get("message") or "",
                                                                          pair.mapping, self.idioms)
            marked = None if comment is None else pair.marked(*comment_span(comment, before))
        except ExtractionError:
            raise  # the file's time budget, checked inside the abstraction: the whole file is dropped
        except RecursionError:
            self._drop_failed(match, comment, DropReason.TOO_DEEP, "the abstraction recursed too deep")
            return
        except Exception as exc:  # noqa: BLE001 - one bad method must not stop a run; the reason is kept
            self._drop_failed(match, comment, DropReason.ABSTRACTION_FAILED, f"{type(exc).__name__}: {exc}")
            return
        self.kept.append({
            "kind": "pair" if comment is None else "triplet",
            **self.provenance,
            **_comment_fields(comment),
            "path_after": self.path_after,
            "method_name": before.name,
            "signature": before.signature,
            "signature_after": after.signature,
            "match_rule": match.rule,
            "start_line_before": before.start_line,
            "end_line_before": before.end_line,
            "start_line_after": after.start_line,
            "end_line_after": after.end_line,
            "changed": before.text != after.text,
            "m_s": before.text,
            "m_r": after.text,
            "comment": None if comment is None else comment.get("message"),
            "m_s_abstract": pair.before,
            "m_r_abstract": pair.after,
            "comment_abstract": comment_abstract,
            "m_s_marked": marked,
            "abstraction_map": json.dumps(pair.mapping, ensure_ascii=False, sort_keys=True),
            "abstraction_ids": json.dumps(pair.ids, ensure_ascii=False, sort_keys=True),
        })

    def _drop_failed(self, match: Match, comment: dict | None, reason: str, detail: str) -> None:
        if comment is None:
            self.dropped.append(self._drop_method(match.before, reason, detail))
        else:
            self.dropped.append(self._drop_comment(comment, match.before, reason, detail))

    def _drop(self, kind: str, reason: str, detail: str | None, **fields: Any) -> dict[str, Any]:
        return {"kind": kind, "reason": reason, "detail": detail, **self.provenance, **fields}

    def _drop_comment(self, comment: dict, method: Method | None, reason: str, detail: str | None) -> dict[str, Any]:
        return self._drop("comment", reason, detail, **_comment_fields(comment), **_method_fields(method))

    def _drop_method(self, method: Method, reason: str, detail: str) -> dict[str, Any]:
        return self._drop("method", reason, detail, **_method_fields(method))


class _Abstractions:
    """abstract_pair once per matched method (a triplet and its pair share it), within the time budget: Java's
    src2abs-exact abstraction, or the tree-sitter one of the file's language."""

    def __init__(self, language: str, idioms: frozenset[str], deadline: float):
        self.language, self.idioms, self.deadline = language, idioms, deadline
        self.done: dict[int, AbstractedPair] = {}

    def check_deadline(self) -> None:
        if time.monotonic() > self.deadline:
            raise ExtractionError(DropReason.TIMEOUT, "time budget exceeded while abstracting methods")

    def pair(self, match: Match) -> AbstractedPair:
        key = id(match.before)
        if key not in self.done:
            before, after = match.before.text, match.after.text
            self.done[key] = (abstract_pair(before, after, self.idioms, spans=True, deadline=self.deadline)
                              if self.language == "java" else
                              abstract_code_pair(before, after, self.language, self.idioms, spans=True,
                                                 deadline=self.deadline))
        return self.done[key]


def _unlinked(comment: dict, link: Link, methods: FileMethods) -> tuple[str, str]:
    """Why a comment links to no method: where an unbalanced bracket hides the method boundaries, that."""
    lines = comment_lines(comment)
    if link.reason in (DropReason.OUTSIDE_METHOD, DropReason.PARTLY_OUTSIDE_METHOD) and lines is not None:
        culprit = methods.unbalanced_in(*lines)
        if culprit is not None:
            return DropReason.UNPARSEABLE, f"{link.detail}: no method could be extracted over an {culprit.detail}"
    return link.reason, link.detail


def _comment_fields(comment: dict | None) -> dict[str, Any]:
    if comment is None:
        return {}
    lines = comment_lines(comment) or (None, None)
    return {
        "comment_id": comment.get("id"),
        "comment_author": comment.get("author"),
        "comment_is_owner": comment.get("is_owner"),
        "comment_author_kind": comment.get("author_kind"),
        "comment_author_evidence": comment.get("author_evidence"),
        "comment_in_reply_to": comment.get("in_reply_to"),
        "comment_start_line": lines[0],
        "comment_end_line": lines[1],
    }


def comment_span(comment: dict, method: Method) -> tuple[int, int]:
    """The characters ``[start, end)`` of ``method.text`` that a linked comment covers (see step 5 above)."""
    start_char, end_char = comment.get("start_character"), comment.get("end_character")
    if start_char is None or end_char is None:  # whole lines, as the linker counts them
        (start_line, end_line), start_char, end_char = comment_lines(comment), 0, None
    else:
        start_line, end_line = comment["start_line"], comment["end_line"]
    lines = method.text.split("\n")

    def offset(line: int, units: int | None) -> int:
        k = line - method.start_line
        if k < 0:  # above the text: annotation-only lines
            return 0
        text = lines[k]
        column = len(text) if units is None else _utf16_index(text, units)
        return sum(len(above) + 1 for above in lines[:k]) + column

    start = offset(start_line, start_char)
    return start, max(start, offset(end_line, end_char))


def _utf16_index(text: str, units: int) -> int:
    """The index in ``text`` of a position counted in UTF-16 code units (Gerrit's), capped at the line end."""
    if text.isascii():
        return min(units, len(text))
    for index, char in enumerate(text):
        units -= 2 if ord(char) > 0xFFFF else 1
        if units < 0:
            return index
    return len(text)


def _method_fields(method: Method | None) -> dict[str, Any]:
    if method is None:
        return {}
    return {"method_name": method.name, "signature": method.signature,
            "start_line_before": method.start_line, "end_line_before": method.end_line}
