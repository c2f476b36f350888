"""Readers for the prediction formats users download or produce, all into one :class:`Predictions`.

Supported formats (``detect_format`` picks one from the file name and first line; ``--format`` overrides):

``tufano``
    The replication-package format of Tufano et al. (ICSE 2021): blocks separated by a blank line, with
    lines ``INPUT_NL     : ...`` (optional), ``INPUT_CODE   : ...``, ``ORACLE       : ...`` and
    ``PREDICTION i : ...`` for i = 1..k. The value is what follows the first ``" : "``.
``text``
    Parallel text files as written by OpenNMT/fairseq beam search: one hypothesis per line, ``beam``
    consecutive lines per example, plus a references file with one line per example.
``jsonl``
    JSON Lines, one object per example (CodeReviewer style); field names are configurable. The prediction
    field holds a string or a list of k strings (best first); the reference field a string or a list of
    references (several references per example).
``parquet``
    The same fields as columns; the prediction column is a string or a list of strings, the reference
    column a string or a list of strings.

Several references per example: ``text`` takes one references file per reference (``--refs a --refs b``),
the others a list in the reference field. ``references`` then holds the first of each example and
``extra_references`` the others; metrics score against all (``Metric.multi_reference_scores``).

Each example's language (JSON Lines and Parquet only): the field named by ``lang_field`` (``--lang-field``; never
guessed, as a prediction or reference field is), a string in every record; ``languages`` restricts its values
(the score stage passes the languages its ``lang=auto`` metrics know). A record without it, or with a value
outside ``languages``, is an error naming the file, the line (row) and the field. ``Predictions.languages``
holds the values, one per example.

Every example must have the same number k of predictions: a varying beam would make "perfect at k"
meaningless, so it is an error naming the line. Undecodable bytes are an error naming the line too.

:func:`iter_predictions` reads any format in chunks of whole examples, with the whole file's checks, so
that the score stage holds one chunk at a time; :func:`read_predictions` and the ``read_*`` functions are
the same reading in one chunk.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Collection, Iterable, Iterator, NamedTuple, Sequence

from ..errors import InputError
from ..io.store import Parts
from ..io.textio import iter_jsonl, iter_lines
from ..lang.languages import canonical
from .options import PREDICTION_FORMATS


#: Field names tried, in order, when a JSON Lines or Parquet input does not name its fields.
PREDICTION_FIELDS = ("predictions", "prediction", "preds", "pred", "hypotheses", "hypothesis", "hyp", "output")
REFERENCE_FIELDS = ("reference", "references", "ref", "gold", "target", "oracle", "msg")
ID_FIELDS = ("id", "idx", "example_id")


@dataclass
class Predictions:
    """k ranked predictions per example, the reference, and optional ids and model inputs."""

    predictions: list[list[str]]
    references: list[str]
    ids: list[str] | None = None
    inputs: dict[str, list[str]] = field(default_factory=dict)  # e.g. {"INPUT_CODE": [...], "INPUT_NL": [...]}
    source: str = ""
    format: str = ""
    extra_references: list[list[str]] | None = None  # per example, the references after the first
    languages: list[str] | None = None  # per example, its language (``lang_field``)

    def __post_init__(self) -> None:
        if len(self.predictions) != len(self.references):
            raise InputError(self.source, f"{len(self.predictions)} examples with predictions "
                                          f"but {len(self.references)} references")

    @property
    def k(self) -> int:
        return len(self.predictions[0]) if self.predictions else 0

    def __len__(self) -> int:
        return len(self.references)

    def flat(self) -> tuple[list[str], list[str]]:
        """One (prediction, reference) pair per prediction, example by example, rank by rank."""
        k = self.k
        return [h for beam in self.predictions for h in beam], [r for r in self.references for _ in range(k)]

    def reference_sets(self) -> list[list[str]] | None:
        """Per example all its references, or None when every example has one."""
        if not self.extra_references or not any(self.extra_references):
            return None
        return [[first, *more] for first, more in zip(self.references, self.extra_references)]


_TUFANO_LINE = re.compile(r"^(INPUT_NL|INPUT_CODE|ORACLE|PREDICTION (\d+))\s*:(?: (.*)|$)")


class _Example(NamedTuple):
    """One example as a reader yields it: its k predictions, its references (the first, then any others),
    its id, its model inputs and its language."""

    beam: list[str]
    references: list[str]
    id: str | None = None
    inputs: dict[str, str] = {}
    language: str | None = None


def _chunked(examples: Iterable[_Example], size: int | None, source: Path, fmt: str) -> Iterator[Predictions]:
    """``examples`` gathered into :class:`Predictions` of whole examples, each closed once it holds ``size``
    predictions or more (None: one for the whole file)."""
    chunk: list[_Example] = []
    held = 0
    for example in examples:
        chunk.append(example)
        held += len(example.beam)
        if size is not None and held >= size:
            yield _predictions(chunk, source, fmt)
            chunk, held = [], 0
    if chunk:
        yield _predictions(chunk, source, fmt)


def _predictions(chunk: list[_Example], source: Path, fmt: str) -> Predictions:
    extra = [e.references[1:] for e in chunk]
    return Predictions([e.beam for e in chunk], [e.references[0] for e in chunk],
                       ids=[e.id for e in chunk] if chunk[0].id is not None else None,  # type: ignore[misc]
                       inputs={name: [e.inputs[name] for e in chunk] for name in chunk[0].inputs},
                       source=str(source), format=fmt, extra_references=extra if any(extra) else None,
                       languages=[e.language for e in chunk] if chunk[0].language is not None else None)


def read_tufano(path: str | Path) -> Predictions:
    """Read the Tufano et al. block format whole (:func:`iter_predictions` reads it in chunks)."""
    return _whole(iter_predictions(path, "tufano"))


def _tufano_examples(path: Path) -> Iterator[_Example]:
    """The Tufano et al. blocks; checks ranks are 1..k in order and k and the INPUT lines are the same
    everywhere."""
    block: dict[str, str] = {}
    block_preds: list[str] = []
    block_start = 0
    first: _Example | None = None

    def close() -> _Example | None:
        nonlocal first
        if not block and not block_preds:
            return None
        if "ORACLE" not in block:
            raise InputError(path, "block has no ORACLE line", line=block_start)
        if not block_preds:
            raise InputError(path, "block has no PREDICTION line", line=block_start)
        if first is not None and len(block_preds) != len(first.beam):
            raise InputError(path, f"block has {len(block_preds)} predictions, earlier blocks have "
                                   f"{len(first.beam)} (inconsistent k)", line=block_start)
        for name in ("INPUT_CODE", "INPUT_NL"):
            if first is not None and (name in block) != (name in first.inputs):
                have = "has" if name in block else "has no"
                raise InputError(path, f"block {have} {name} line, unlike the blocks before it", line=block_start)
        example = _Example(list(block_preds), [block["ORACLE"]],
                           inputs={name: block[name] for name in ("INPUT_CODE", "INPUT_NL") if name in block})
        first = first or example
        block.clear()
        block_preds.clear()
        return example

    for number, line in enumerate(iter_lines(path), start=1):
        if not line.strip():
            if (example := close()) is not None:
                yield example
            continue
        match = _TUFANO_LINE.match(line)
        if match is None:
            raise InputError(path, f"unexpected line {line[:60]!r}: expected INPUT_NL, INPUT_CODE, ORACLE "
                                   "or PREDICTION i followed by ' : '", line=number)
        if not block and not block_preds:
            block_start = number
        tag, rank, value = match.group(1), match.group(2), match.group(3) or ""
        if rank is not None:
            if int(rank) != len(block_preds) + 1:
                raise InputError(path, f"PREDICTION {rank} out of order (expected {len(block_preds) + 1})",
                                 line=number)
            block_preds.append(value)
        elif tag in block:
            raise InputError(path, f"second {tag} line in one block (missing blank line?)", line=number)
        else:
            block[tag] = value
    if (example := close()) is not None:
        yield example
    if first is None:
        raise InputError(path, "no prediction blocks found")


def read_text(hypotheses: str | Path, references: str | Path | Sequence[str | Path], beam: int = 1) -> Predictions:
    """Read parallel files whole (:func:`iter_predictions` reads them in chunks)."""
    return _whole(iter_predictions(hypotheses, "text", references, beam))


class _Counted:
    """Lines taken from an iterator, counted, so that a file's length is known once it has been read."""

    def __init__(self, lines: Iterator[str]):
        self.lines, self.count = lines, 0

    def take(self, n: int) -> list[str]:
        got = list(islice(self.lines, n))
        self.count += len(got)
        return got

    def total(self) -> int:
        """Lines in the file: those taken and the rest, read now."""
        self.count += sum(1 for _ in self.lines)
        return self.count


def _text_examples(hyp_path: Path, ref_paths: list[Path], beam: int) -> Iterator[_Example]:
    """``beam`` consecutive hypothesis lines per reference line, read in step; several references files
    give several references per example (line i of each). Line counts are checked when the files end."""
    if beam < 1:
        raise InputError.setting("beam", f"must be at least 1, got {beam}")
    refs, hyps = _Counted(iter_lines(ref_paths[0])), _Counted(iter_lines(hyp_path))
    more = [_Counted(iter_lines(path)) for path in ref_paths[1:]]
    while ref := refs.take(1):
        lines, extra = hyps.take(beam), [m.take(1) for m in more]
        if len(lines) < beam or not all(extra):
            break  # a file ended early: the counts below say which
        yield _Example(lines, ref + [line for (line,) in extra])
    n = refs.total()
    if not n:
        raise InputError(ref_paths[0], "no references: the file is empty")
    if hyps.total() != beam * n:
        raise InputError(hyp_path, f"{hyps.count} hypothesis lines, but {ref_paths[0]} has {n} references "
                                   f"and the beam is {beam}: expected {beam * n} lines")
    for path, lines in zip(ref_paths[1:], more):
        if lines.total() != n:
            raise InputError(path, f"{lines.count} references, but {ref_paths[0]} has {n}")


def _pick(names: Sequence[str], wanted: str | None, candidates: Sequence[str], path: Path, what: str,
          required: bool = True) -> str | None:
    if wanted is not None:
        if wanted not in names:
            raise InputError(path, f"no {what} field {wanted!r}; fields are {sorted(names)}", field=wanted)
        return wanted
    for name in candidates:
        if name in names:
            return name
    if required:
        raise InputError(path, f"cannot tell which field holds the {what}; fields are {sorted(names)} "
                               f"(name it with --{what}-field)")
    return None


def _as_beam(value: object, path: Path, line: int | None, fld: str) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, str) for v in value):
        return list(value)
    raise InputError(path, f"expected a string or a non-empty list of strings, got {type(value).__name__}",
                     line=line, field=fld)


def _language(rec: dict, path: Path, line: int | None, fld: str, languages: Collection[str] | None) -> str:
    """The record's language: a string (another name of a language read as revmine's), one of ``languages``."""
    value = rec.get(fld)
    if value is None:
        raise InputError(path, "missing language (every example needs one with --lang-field)", line=line, field=fld)
    if not isinstance(value, str):
        raise InputError(path, f"expected a language name, got {type(value).__name__}", line=line, field=fld)
    value = canonical(value)  # CodeReviewer's "py", "cs"... as revmine names them
    if languages is not None and value not in languages:
        raise InputError(path, f"unknown language {value!r}; known: {', '.join(languages)}", line=line, field=fld)
    return value


def _record_examples(records: Iterable[tuple[int | None, dict]], path: Path, pred_field: str | None,
                     ref_field: str | None, id_field: str | None, lang_field: str | None = None,
                     languages: Collection[str] | None = None) -> Iterator[_Example]:
    """Examples from records (JSON objects, Parquet rows) with their line or row numbers; the fields are
    picked from the first record."""
    fields: tuple[str, str, str | None, str | None] | None = None
    k = 0
    for line, rec in records:
        if fields is None:
            names = list(rec.keys())
            fields = (_pick(names, pred_field, PREDICTION_FIELDS, path, "prediction"),  # type: ignore[assignment]
                      _pick(names, ref_field, REFERENCE_FIELDS, path, "reference"),
                      _pick(names, id_field, ID_FIELDS, path, "id", required=False),
                      _pick(names, lang_field, (), path, "language") if lang_field is not None else None)
        pf, rf, idf, lf = fields
        for fld in (pf, rf):
            if fld not in rec or rec[fld] is None:
                raise InputError(path, "missing value", line=line, field=fld)
        beam = _as_beam(rec[pf], path, line, pf)
        if k and len(beam) != k:
            raise InputError(path, f"{len(beam)} predictions where earlier records have {k} "
                                   "(inconsistent k)", line=line, field=pf)
        k = len(beam)
        if idf is not None and rec.get(idf) is None:
            raise InputError(path, "missing id (the id field is present in other records)", line=line, field=idf)
        yield _Example(beam, _as_beam(rec[rf], path, line, rf),  # one reference or a list of them
                       str(rec[idf]) if idf is not None else None,
                       language=_language(rec, path, line, lf, languages) if lf is not None else None)
    if fields is None:
        raise InputError(path, "no records")


def read_jsonl(path: str | Path, pred_field: str | None = None, ref_field: str | None = None,
               id_field: str | None = None, lang_field: str | None = None) -> Predictions:
    """Read JSON Lines predictions whole (:func:`iter_predictions` reads them in chunks)."""
    return _whole(iter_predictions(path, "jsonl", pred_field=pred_field, ref_field=ref_field, id_field=id_field,
                                   lang_field=lang_field))


def read_parquet(path: str | Path, pred_field: str | None = None, ref_field: str | None = None,
                 id_field: str | None = None, lang_field: str | None = None) -> Predictions:
    """Read Parquet predictions whole (:func:`iter_predictions` reads them in chunks)."""
    return _whole(iter_predictions(path, "parquet", pred_field=pred_field, ref_field=ref_field, id_field=id_field,
                                   lang_field=lang_field))


def _parquet_rows(path: Path) -> Iterator[tuple[int, dict]]:
    """The rows as dicts, a record batch at a time, numbered from 1: Parquet rows have no line numbers, so
    errors name the row in their place (each value's type is checked with its row)."""
    number = 0
    for batch in Parts(path).iter_batches(_PARQUET_BATCH):
        for row in batch.to_pylist():
            number += 1
            yield number, row


#: Rows per record batch read from a Parquet predictions file.
_PARQUET_BATCH = 4096


def detect_format(path: str | Path) -> str:
    """Guess the format from the extension, then from the first non-empty line (only blank lines: text)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in (".parquet", ".pq"):
        return "parquet"
    if suffix in (".jsonl", ".json", ".ndjson"):
        return "jsonl"
    try:  # the head is enough to tell; the reader then decodes the whole file strictly, with line numbers
        with open(path, "rb") as fh:
            head = fh.read(1 << 16).decode("utf-8", errors="replace").lstrip("\ufeff")
    except OSError as exc:
        raise InputError(path, f"cannot read: {exc.strerror or exc}") from exc
    for line in head.splitlines():
        if line.strip():
            if _TUFANO_LINE.match(line):
                return "tufano"
            if line.lstrip().startswith("{"):
                return "jsonl"
            return "text"
    if head:  # lines, all blank: empty predictions, one a line (a model may well predict nothing)
        return "text"
    raise InputError(path, "file is empty")


def read_predictions(path: str | Path, fmt: str | None = None,
                     references: str | Path | Sequence[str | Path] | None = None,
                     beam: int = 1, pred_field: str | None = None, ref_field: str | None = None,
                     id_field: str | None = None, lang_field: str | None = None) -> Predictions:
    """Read predictions in any supported format (detected when ``fmt`` is None), whole."""
    return _whole(iter_predictions(path, fmt, references, beam, pred_field, ref_field, id_field,
                                   lang_field=lang_field))


def iter_predictions(path: str | Path, fmt: str | None = None,
                     references: str | Path | Sequence[str | Path] | None = None,
                     beam: int = 1, pred_field: str | None = None, ref_field: str | None = None,
                     id_field: str | None = None, size: int | None = None, lang_field: str | None = None,
                     languages: Collection[str] | None = None) -> Iterator[Predictions]:
    """Read predictions in any supported format in chunks of whole examples (all k predictions of an
    example in one chunk), each closed once it holds ``size`` predictions or more (None: one chunk), so
    that a caller holds one chunk at a time. The checks are the whole file's (the same k everywhere,
    INPUT lines in every block or none, the files' line counts); an error in a later chunk is raised when
    that chunk is read, naming the file and line (or row) and field as ever. ``lang_field``: each
    example's language, one of ``languages`` if given (module docstring).
    """
    fmt = fmt or detect_format(path)
    if fmt not in PREDICTION_FORMATS:
        raise InputError.setting("format", f"unknown format {fmt!r}; choose one of {', '.join(PREDICTION_FORMATS)}")
    if lang_field is not None and fmt in ("tufano", "text"):
        raise InputError.setting("lang_field", f"{fmt} predictions have no fields: give each example's language "
                                               "in a JSON Lines or Parquet file")
    path = Path(path)
    if fmt == "tufano":
        examples = _tufano_examples(path)
    elif fmt == "text":
        if not references:
            raise InputError(path, "plain-text predictions need a references file (--refs)")
        ref_paths = [Path(references)] if isinstance(references, (str, Path)) else [Path(r) for r in references]
        examples = _text_examples(path, ref_paths, beam)
    else:
        records = iter_jsonl(path) if fmt == "jsonl" else _parquet_rows(path)
        examples = _record_examples(records, path, pred_field, ref_field, id_field, lang_field, languages)
    return _chunked(examples, size, path, fmt)


def _whole(chunks: Iterator[Predictions]) -> Predictions:
    """The one chunk of a reading with ``size=None``."""
    (whole,) = chunks
    return whole
