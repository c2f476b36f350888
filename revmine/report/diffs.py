"""A seeded sample of each level's rows, shown as the reviewer saw them: triplets and pairs as m_s (the commented
lines marked) beside difflib's side-by-side diff to m_r, raw (by line) and abstracted (by token), with the comment;
hunk-level rows as their diff hunk and the comment on it. Rows are drawn from every (project, language) in turn, so
a run of several projects or languages is not shown through one of them (a project of files in three languages
shows each)."""

from __future__ import annotations

import difflib
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .links import Hosts, change_url


def spread(groups: list[Any], size: int, seed: int) -> np.ndarray:
    """``size`` row indices drawn with ``seed``, one group after the other (each group's rows in a seeded order):
    every group is shown before any is shown twice. Sorted, so the page follows the splits' order."""
    rng = np.random.default_rng(seed)
    by_group: dict[Any, list[int]] = {}
    for i, group in enumerate(groups):
        by_group.setdefault(group, []).append(i)
    queues = [list(rng.permutation(rows)) for _, rows in sorted(by_group.items(), key=lambda item: str(item[0]))]
    chosen: list[int] = []
    while len(chosen) < size and any(queues):
        for queue in queues:
            if queue and len(chosen) < size:
                chosen.append(int(queue.pop()))
    return np.sort(np.array(chosen, dtype=np.int64))


def _group(row: dict[str, Any]) -> tuple[str, str, str]:
    """What the sample takes in turn: a row's source, project and language (None sorts as "None")."""
    return row["source"], row["project"], row["language"]


def sample_view(splits: pa.Table, hosts: Hosts, size: int, seed: int, kind: str = "triplet") -> list[dict[str, Any]]:
    """``size`` rows of ``kind`` (triplet or pair) drawn with ``seed`` across the projects and languages (the same
    rows on every report of the same splits)."""
    where = pc.indices_nonzero(pc.equal(splits["kind"], kind)).to_numpy()
    rows = splits.take(where).to_pylist()
    rows = [rows[i] for i in spread([_group(r) for r in rows], size, seed)]
    for row in rows:
        row["url"] = change_url(hosts, row["source"], row["project"], row["change"])
        row["lines"] = side_by_side(row["m_s"].splitlines(), row["m_r"].splitlines(),
                                    row["start_line_before"], row["start_line_after"],
                                    (row["comment_start_line"], row["comment_end_line"]))
        row["tokens"] = token_diff(row["m_s_abstract"].split(), row["m_r_abstract"].split())
    return rows


def hunk_sample_view(hunks: pa.Table, hosts: Hosts, size: int, seed: int) -> list[dict[str, Any]]:
    """``size`` hunk-level rows with a reviewer comment (``y`` = 1) drawn with ``seed`` across the projects and languages: the
    hunk's diff lines tagged added, deleted or context, and the comment."""
    where = pc.indices_nonzero(pc.equal(hunks["y"], 1)).to_numpy()
    rows = hunks.take(where).to_pylist()
    rows = [rows[i] for i in spread([_group(r) for r in rows], size, seed)]
    for row in rows:
        row["url"] = change_url(hosts, row["source"], row["project"], row["change"])
        row["lines"] = [{"tag": {"+": "insert", "-": "delete", "@": "hunk"}.get(line[:1], "equal"), "text": line}
                        for line in row["patch"].splitlines()]
    return rows


def side_by_side(before: list[str], after: list[str], first_before: int, first_after: int,
                 commented: tuple[int | None, int | None]) -> list[dict[str, Any]]:
    """Rows of a side-by-side diff: file line numbers, texts, difflib's tag, and whether the reviewer's
    comment covers the line of m_s (lines ``commented``, inclusive, in the submitted file)."""
    start, end = commented
    end = end if end is not None else start
    rows = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes():
        for offset in range(max(i2 - i1, j2 - j1)):
            i, j = i1 + offset, j1 + offset
            left = first_before + i if i < i2 else None
            rows.append({"tag": tag, "left_no": left, "left": before[i] if i < i2 else None,
                         "right_no": first_after + j if j < j2 else None, "right": after[j] if j < j2 else None,
                         "commented": left is not None and start is not None and start <= left <= end})
    return rows


def token_diff(before: list[str], after: list[str]) -> dict[str, list[dict[str, str]]]:
    """The abstracted texts as runs of tokens, each tagged equal, delete/insert or replace."""
    left: list[dict[str, str]] = []
    right: list[dict[str, str]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes():
        if i2 > i1:
            left.append({"tag": tag, "text": " ".join(before[i1:i2])})
        if j2 > j1:
            right.append({"tag": tag, "text": " ".join(after[j1:j2])})
    return {"before": left, "after": right}
