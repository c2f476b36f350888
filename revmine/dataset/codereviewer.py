"""Hunk rows (:func:`revmine.preprocess.hunks.hunk_rows`) as CodeReviewer's JSON Lines (Li et al., ESEC/FSE 2022;
microsoft/CodeBERT, ``CodeReviewer/code/utils.py``), which :func:`revmine.interop.codereviewer.read_codereviewer`
reads back to the same comment, ``old``/``new`` and ``patch`` values.

One split writes ``msg-<split>.jsonl``, ``ref-<split>.jsonl`` and ``cls-<split>.jsonl`` (CodeReviewer's names; its
splits are ``train``, ``valid``, ``test``): one JSON object per line as CodeReviewer's own code writes one
(``json.dumps`` with its defaults, so non-ASCII characters are ``\\u`` escapes, then ``\\n``), keys in the order
below. A row imported from CodeReviewer's files (its ``record``, :data:`~revmine.schema.HUNK_DATASET_SCHEMA`) is
written back as it was read, to its own task's file only: ``revmine import codereviewer`` then ``revmine export``
gives the files back byte for byte when they were written as CodeReviewer's code writes them. The three files are written atomically together (:func:`revmine.io.store.atomic_text`
in one stack: none appears unless all were written); other splits' files in the folder are left alone.

====  ===================================================================================================
task  fields (the readers' names: ``read_review_examples`` for msg/cls, ``RefineDataset`` for ref)
====  ===================================================================================================
msg   ``oldf``, ``patch``, ``msg``, ``id`` (the comment's id), ``y`` (1), ``proj``, ``lang``: a row per comment
ref   ``old_hunk`` (= patch), ``oldf``, ``hunk`` (the revised region with its header), ``comment``, ``id``,
      ``proj``, ``old``, ``new``, ``lang``: a row per comment
cls   ``oldf``, ``patch``, ``msg`` (the hunk's first comment, "" when none), ``id``
      (``<round_id>:<path>:<hunk index>``), ``y``, ``proj``, ``lang``: a row per hunk
====  ===================================================================================================

``lang`` is revmine's language name (:data:`revmine.lang.languages.LANGUAGES`); no reader of CodeReviewer's uses it.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any, Iterable

from ..io.store import atomic_text

__all__ = ["SPLITS", "TASKS", "write_codereviewer"]

#: CodeReviewer's split names (its file names: ``cls-valid.jsonl``)
SPLITS = ("train", "valid", "test")
TASKS = ("msg", "ref", "cls")


def write_codereviewer(rows: Iterable[dict[str, Any]], folder: str | Path, split: str) -> dict[str, Path]:
    """Write the ``msg``, ``ref`` and ``cls`` files of one ``split`` of hunk rows into ``folder``; return their
    paths by task."""
    if split not in SPLITS:
        raise ValueError(f"split {split!r}: CodeReviewer's splits are {', '.join(SPLITS)}")
    folder = Path(folder)
    paths = {task: folder / f"{task}-{split}.jsonl" for task in TASKS}
    seen: set[tuple[str, str | None, int]] = set()
    with contextlib.ExitStack() as stack:
        files = {task: stack.enter_context(atomic_text(path)) for task, path in paths.items()}
        for row in rows:
            if row.get("record") is not None:  # imported: its record as published, in its own task's file
                files[row["task"]].write(row["record"] + "\n")
                continue
            common = {"proj": row["project"], "lang": row.get("language")}
            if row["comment"] is not None:
                files["msg"].write(_line({"oldf": row["oldf"], "patch": row["patch"], "msg": row["comment"],
                                          "id": row["comment_id"], "y": 1, **common}))
                files["ref"].write(_line({"old_hunk": row["patch"], "oldf": row["oldf"], "hunk": row["new_hunk"],
                                          "comment": row["comment"], "id": row["comment_id"], "proj": row["project"],
                                          "old": row["old"], "new": row["new"], "lang": row.get("language")}))
            hunk = (row["round_id"], row["path"], row["hunk_index"])
            if hunk not in seen:  # the first row of a hunk carries its first comment
                seen.add(hunk)
                files["cls"].write(_line({"oldf": row["oldf"], "patch": row["patch"], "msg": row["comment"] or "",
                                          "id": ":".join(map(str, hunk)), "y": row["y"], **common}))
    return paths


def _line(record: dict[str, Any]) -> str:
    """One record as CodeReviewer's own code writes its JSON Lines (``run_infer_msg.py``: ``json.dumps(outdic) +
    "\\n"``): ``json.dumps``' defaults, non-ASCII characters escaped."""
    return json.dumps(record) + "\n"
