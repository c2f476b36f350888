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

Every example must have the same number k of predictions: a varying beam would make "perfect at k"
meaningless, so it is an error naming the line. Undecodable bytes are an error naming the line too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from ..errors import InputError
from ..store import read_table
from ..textio import read_jsonl as read_json_objects
from ..textio import read_lines

FORMATS = ("tufano", "text", "jsonl", "parquet")

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


def read_tufano(path: str | Path) -> Predictions:
    """Read the Tufano et al. block format; checks ranks are 1..k in order and k is the same everywhere."""
    path = Path(path)
    preds: list[list[str]] = []
    refs: list[str] = []
    inputs: dict[str, list[str]] = {}
    block: dict[str, str] = {}
    block_preds: list[str] = []
    block_start = 0

    def close(end_line: int) -> None:
        if not block and not block_preds:
            return
        if "ORACLE" not in block:
            raise InputError(path, "block has no ORACLE line", line=block_start)
        if not block_preds:
            raise InputError(path, "block has no PREDICTION line", line=block_start)
        if preds and len(block_preds) != len(preds[0]):
            raise InputError(path, f"block has {len(block_preds)} predictions, earlier blocks have "
                                   f"{len(preds[0])} (inconsistent k)", line=block_start)
        refs.append(block["ORACLE"])
        preds.append(list(block_preds))
        for name in ("INPUT_CODE", "INPUT_NL"):
            if len(refs) > 1 and (name in block) != (name in inputs):
                have = "has" if name in block else "has no"
                raise InputError(path, f"block {have} {name} line, unlike the blocks before it", line=block_start)
            if name in block:
                inputs.setdefault(name, []).append(block[name])
        block.clear()
        block_preds.clear()

    for number, line in enumerate(read_lines(path), start=1):
        if not line.strip():
            close(number)
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
    close(0)
    if inputs and any(len(v) != len(refs) for v in inputs.values()):
        raise InputError(path, "INPUT lines present in only some blocks")
    if not refs:
        raise InputError(path, "no prediction blocks found")
    return Predictions(preds, refs, inputs=inputs, source=str(path), format="tufano")


def read_text(hypotheses: str | Path, references: str | Path | Sequence[str | Path], beam: int = 1) -> Predictions:
    """Read parallel files: ``beam`` consecutive hypothesis lines per reference line; several references
    files give several references per example (line i of each)."""
    hyp_path = Path(hypotheses)
    ref_paths = [Path(references)] if isinstance(references, (str, Path)) else [Path(r) for r in references]
    if beam < 1:
        raise InputError.setting("beam", f"must be at least 1, got {beam}")
    hyps, refs = read_lines(hyp_path), read_lines(ref_paths[0])
    if not refs:
        raise InputError(ref_paths[0], "no references: the file is empty")
    if len(hyps) != beam * len(refs):
        raise InputError(hyp_path, f"{len(hyps)} hypothesis lines, but {ref_paths[0]} has {len(refs)} references "
                                   f"and the beam is {beam}: expected {beam * len(refs)} lines")
    more = [read_lines(path) for path in ref_paths[1:]]
    for path, lines in zip(ref_paths[1:], more):
        if len(lines) != len(refs):
            raise InputError(path, f"{len(lines)} references, but {ref_paths[0]} has {len(refs)}")
    preds = [hyps[i * beam:(i + 1) * beam] for i in range(len(refs))]
    extra = [list(row) for row in zip(*more)] if more else None
    return Predictions(preds, refs, source=str(hyp_path), format="text", extra_references=extra)


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


def _from_records(records: list[tuple[int | None, dict]], path: Path, fmt: str, pred_field: str | None,
                  ref_field: str | None, id_field: str | None) -> Predictions:
    if not records:
        raise InputError(path, "no records")
    names = list(records[0][1].keys())
    pf = _pick(names, pred_field, PREDICTION_FIELDS, path, "prediction")
    rf = _pick(names, ref_field, REFERENCE_FIELDS, path, "reference")
    idf = _pick(names, id_field, ID_FIELDS, path, "id", required=False)
    preds, refs, ids, extra = [], [], [], []
    for line, rec in records:
        for fld in (pf, rf):
            if fld not in rec or rec[fld] is None:
                raise InputError(path, "missing value", line=line, field=fld)
        beam = _as_beam(rec[pf], path, line, pf)
        if preds and len(beam) != len(preds[0]):
            raise InputError(path, f"{len(beam)} predictions where earlier records have {len(preds[0])} "
                                   "(inconsistent k)", line=line, field=pf)
        ref, *more = _as_beam(rec[rf], path, line, rf)  # one reference or a list of them
        preds.append(beam)
        refs.append(ref)
        extra.append(more)
        if idf is not None:
            if rec.get(idf) is None:
                raise InputError(path, "missing id (the id field is present in other records)", line=line, field=idf)
            ids.append(str(rec[idf]))
    return Predictions(preds, refs, ids=ids if idf is not None else None, source=str(path), format=fmt,
                       extra_references=extra if any(extra) else None)


def read_jsonl(path: str | Path, pred_field: str | None = None, ref_field: str | None = None,
               id_field: str | None = None) -> Predictions:
    path = Path(path)
    return _from_records(read_json_objects(path), path, "jsonl", pred_field, ref_field, id_field)


def read_parquet(path: str | Path, pred_field: str | None = None, ref_field: str | None = None,
                 id_field: str | None = None) -> Predictions:
    path = Path(path)
    rows = read_table(path).to_pylist()  # each value's type is checked with its row below
    # Parquet rows have no line numbers; report 1-based row numbers in their place.
    return _from_records(list(enumerate(rows, start=1)), path, "parquet", pred_field, ref_field, id_field)


def detect_format(path: str | Path) -> str:
    """Guess the format from the extension, then from the first non-empty line."""
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
    raise InputError(path, "file is empty")


def read_predictions(path: str | Path, fmt: str | None = None,
                     references: str | Path | Sequence[str | Path] | None = None,
                     beam: int = 1, pred_field: str | None = None, ref_field: str | None = None,
                     id_field: str | None = None) -> Predictions:
    """Read predictions in any supported format (detected when ``fmt`` is None)."""
    fmt = fmt or detect_format(path)
    if fmt not in FORMATS:
        raise InputError.setting("format", f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if fmt == "tufano":
        return read_tufano(path)
    if fmt == "text":
        if not references:
            raise InputError(path, "plain-text predictions need a references file (--refs)")
        return read_text(path, references, beam)
    reader = read_jsonl if fmt == "jsonl" else read_parquet
    return reader(path, pred_field, ref_field, id_field)
