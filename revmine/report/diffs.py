"""A seeded sample of triplets shown as the reviewer saw them: m_s with the commented lines marked, the
comment, and difflib's side-by-side diff to m_r, raw (by line) and abstracted (by token)."""

from __future__ import annotations

import difflib
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .links import Hosts, change_url


def sample_view(splits: pa.Table, hosts: Hosts, size: int, seed: int) -> list[dict[str, Any]]:
    """``size`` triplets drawn with ``seed`` (the same rows on every report of the same splits)."""
    where = pc.indices_nonzero(pc.equal(splits["kind"], "triplet")).to_numpy()
    chosen = np.sort(np.random.default_rng(seed).choice(where, size=min(size, where.size), replace=False))
    rows = splits.take(chosen).to_pylist()
    for row in rows:
        row["url"] = change_url(hosts, row["source"], row["project"], row["change"])
        row["lines"] = side_by_side(row["m_s"].splitlines(), row["m_r"].splitlines(),
                                    row["start_line_before"], row["start_line_after"],
                                    (row["comment_start_line"], row["comment_end_line"]))
        row["tokens"] = token_diff(row["m_s_abstract"].split(), row["m_r_abstract"].split())
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
