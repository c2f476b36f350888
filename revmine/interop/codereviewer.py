"""CodeReviewer's JSON Lines (Li et al., "CodeReviewer: Pre-Training for Automating Code Review Activities",
ESEC/FSE 2022; microsoft/CodeBERT, folder CodeReviewer, dataset on Zenodo 6355569) as revmine rows.

Files are named ``<task>-<split>.jsonl`` (``cls-train.jsonl``, ``msg-valid.jsonl``, ``ref-test.jsonl``; a
training set may be several ``*train*.jsonl``); SOURCE is one file or a folder of them. The split is read
from the name (``train``; ``valid``/``val``/``dev`` -> eval; ``test``), the task from its prefix or ``--task``.
Field names are those CodeReviewer's own readers use (``code/utils.py``: ``read_review_examples`` for
``cls``/``msg``, ``RefineDataset`` for ``ref``):

=========================  =====================================================================
task: fields               columns
=========================  =====================================================================
ref (code refinement):     triplet. m_s = ``old``, m_r = ``new`` (diff hunks, one marker column),
``old``, ``new``,          comment = ``comment``. m_s_abstract / m_r_abstract: the hunk's lines
``comment``                without their marker column, as whitespace tokens (what CodeReviewer
                           compares: ``line[1:].strip()`` joined); comment_abstract: the comment's
                           tokens; m_s_marked: m_s_abstract inside ``<START>`` ... ``<END>`` (the
                           comment is on the whole hunk)
msg (comment generation):  triplet. m_s = ``patch`` (the diff hunk under review), comment = ``msg``,
``patch``, ``msg``         m_r = "" (the task has no revised code). m_s_abstract: the patch's
                           whitespace tokens, diff markers and ``@@`` header included
cls (quality estimation):  as msg; ``y`` = 1 (the change needs a comment) is a triplet with ``msg``
``patch``, ``y``           ("" when absent), ``y`` = 0 a pair
all (optional)             ``id`` -> comment_id (else ``<file>:<line>``); ``repo`` or ``proj`` ->
                           project (else ``unknown``); ``lang`` -> language (short codes such as
                           ``py``, ``js``, ``cs``, ``rb`` as revmine names them); ``oldf`` (the
                           whole old file) has no column here: it is kept in the hunk rows
=========================  =====================================================================

Provenance: source ``codereviewer``, change ``<file stem>:<line>`` (unique per example).

Beside these candidates rows, :func:`codereviewer_hunk_rows` gives each record as a hunk row
(:data:`~revmine.schema.HUNK_DATASET_SCHEMA`) holding the record itself, from which ``revmine export`` writes
CodeReviewer's files back byte for byte (the import writes them to ``hunks.parquet``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

from ..errors import InputError
from ..io.rows import PAIR, TRIPLET
from ..io.textio import iter_jsonl
from ..lang.languages import canonical
from .records import candidate, one_line

TASKS = ("cls", "msg", "ref")
SOURCE = "codereviewer"
#: task -> fields every record must have, as strings (``y`` is checked apart)
REQUIRED = {"ref": ("old", "new", "comment"), "msg": ("patch", "msg"), "cls": ("patch",)}
#: words in a file name -> revmine's split, looked for in this order
SPLIT_WORDS = (("train", "train"), ("valid", "eval"), ("val", "eval"), ("dev", "eval"), ("test", "test"))


def read_codereviewer(source: Path, task: str | None = None) -> tuple[dict[str, list[dict[str, Any]]], dict[str, Any]]:
    """The rows per revmine split of one task's files, and the files read with their task and split (whole: the
    import streams them with :func:`codereviewer_files` and :func:`codereviewer_rows`)."""
    files, origin = codereviewer_files(source, task)
    return {split: [row for path, file_task in paths for row in codereviewer_rows(path, file_task)]
            for split, paths in files.items()}, origin


def codereviewer_files(source: Path, task: str | None = None) -> tuple[dict[str, list[tuple[Path, str]]], dict]:
    """The files per revmine split with their task, in name order, and the summary's record of them; no row is
    read (a 100 MB file held whole cost 1.17 GB: issue 31)."""
    files = sorted(source.glob("*.jsonl")) if source.is_dir() else [source]
    if not files or not files[0].exists():
        raise InputError(source, "no .jsonl file here (CodeReviewer's files are <task>-<split>.jsonl)")
    if task is not None and task not in TASKS:
        raise InputError(source, f"unknown CodeReviewer task {task!r}; choose one of {TASKS}")
    by_split: dict[str, list[tuple[Path, str]]] = {}
    read: dict[str, dict[str, str]] = {}
    for path in files:
        file_task, split = _task_of(path, task), _split_of(path)
        by_split.setdefault(split, []).append((path, file_task))
        read[str(path)] = {"task": file_task, "split": split}
    return by_split, {"files": read}


def codereviewer_rows(path: Path, task: str) -> Iterator[dict[str, Any]]:
    """The rows of one file, as its lines are read."""
    for number, record in iter_jsonl(path):
        yield _row(task, path, number, record)


def _task_of(path: Path, task: str | None) -> str:
    prefix = path.name.split("-", 1)[0]
    if prefix in TASKS:
        if task is not None and prefix != task:
            raise InputError(path, f"the file name says task {prefix!r}, --task says {task!r}")
        return prefix
    if task is None:
        raise InputError(path, f"cannot tell the task from the name (expected a prefix {'-, '.join(TASKS)}-): "
                               "give --task")
    return task


def _split_of(path: Path) -> str:
    name = path.stem.lower()
    for word, split in SPLIT_WORDS:
        if word in name:
            return split
    raise InputError(path, "cannot tell the split from the name (expected train, valid or test in it)")


def _text(path: Path, number: int, record: dict, name: str, required: bool = True) -> str:
    value = record.get(name)
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        problem = "missing" if name not in record else f"{type(value).__name__}, not a string"
        raise InputError(path, f"field {name!r} {problem}", line=number, field=name)
    return value


def _hunk_tokens(hunk: str) -> str:
    """A refinement hunk as CodeReviewer compares it: each line without its marker column, as tokens."""
    return one_line(" ".join(line[1:] for line in hunk.split("\n")))


def _language(record: dict) -> str | None:
    """The record's ``lang`` as revmine names languages (CodeReviewer's short codes mapped; others kept)."""
    lang = record.get("lang")
    return canonical(lang) if isinstance(lang, str) and lang else None


def codereviewer_hunk_rows(path: Path, task: str, split: str) -> Iterator[dict[str, Any]]:
    """The rows of one file as hunk rows of ``split`` (:data:`~revmine.schema.HUNK_DATASET_SCHEMA`), each with its
    task and its record (``json.dumps`` of the object read, its fields in their order), which the export writes
    back: ``revmine export`` of an import gives CodeReviewer's files back. The columns a task publishes are filled
    (``patch`` from ``patch`` or ``old_hunk``, ``new_hunk`` from ``hunk``; the rest empty), lines unknown."""
    for number, record in iter_jsonl(path):
        row = _row(task, path, number, record)  # the same checks and provenance as the candidates rows
        label = record.get("y") if task == "cls" else int(row["comment"] is not None)
        yield {"split": split, "round_id": row["round_id"], "source": SOURCE, "project": row["project"],
               "change": row["change"], "round": 0, "path": None, "language": row["language"],
               "oldf": _text(path, number, record, "oldf", required=False), "hunk_index": 0,
               "old_start": None, "old_end": None, "new_start": None, "new_end": None,
               "patch": _text(path, number, record, "patch" if task != "ref" else "old_hunk", required=False),
               "old": _text(path, number, record, "old", required=False),
               "new_hunk": _text(path, number, record, "hunk", required=False),
               "new": _text(path, number, record, "new", required=False), "y": label,
               "comment_id": row["comment_id"], "comment_author": None, "comment_start_line": None,
               "comment_end_line": None, "comment": row["comment"], "task": task, "record": json.dumps(record)}


def _row(task: str, path: Path, number: int, record: dict) -> dict[str, Any]:
    for name in REQUIRED[task]:
        _text(path, number, record, name)
    project = record.get("repo") or record.get("proj") or "unknown"
    language = _language(record)
    ids = record.get("id")
    comment_id = str(ids) if ids is not None else f"{path.name}:{number}"
    change = f"{path.stem}:{number}"
    if task == "ref":
        old, new, comment = record["old"], record["new"], record["comment"]
        code = _hunk_tokens(old)
        return candidate(TRIPLET, SOURCE, str(project), change, comment_id, old, new, comment, code,
                         _hunk_tokens(new), one_line(comment), f"<START> {code} <END>", language=language)
    kind = TRIPLET
    if task == "cls":
        label = record.get("y")
        if label not in (0, 1) or isinstance(label, bool):
            raise InputError(path, f"field 'y' is {label!r}: expected 0 or 1", line=number, field="y")
        kind = TRIPLET if label == 1 else PAIR
    patch = record["patch"]
    code = one_line(patch)
    comment = _text(path, number, record, "msg", required=False) if kind == TRIPLET else None
    return candidate(kind, SOURCE, str(project), change, comment_id, patch, "", comment, code, "",
                     None if comment is None else one_line(comment),
                     f"<START> {code} <END>" if kind == TRIPLET else None, language=language)
