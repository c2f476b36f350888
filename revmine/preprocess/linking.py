"""Link a reviewer comment to the one method it is about, or say why it cannot be linked.

A comment links to the method whose link range (annotation-only lines above the declaration, the
declaration and the body: :class:`~revmine.preprocess.methods.Method`) contains both its start and its
end line. Its lines are ``start_line``..``end_line`` when the comment has a range, else ``line`` alone.
A Gerrit range that ends at character 0 of its last line selects nothing on that line, so that line is
not counted. Everything else is an unlinked comment with a :class:`~revmine.schema.DropReason`:
file-level comments, comments on the base revision (``PARENT``/``LEFT``: m_s is the revision submitted),
lines outside the file (:func:`count_lines`), and ranges outside every method, partly outside one, or over several.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from ..schema import DropReason
from .methods import Method

__all__ = ["Link", "comment_lines", "count_lines", "link_comment"]

#: Sides that denote the revision submitted; a missing side means it too (Gerrit omits the default).
_REVISION_SIDES = frozenset(("REVISION", "RIGHT"))


@dataclass(frozen=True)
class Link:
    """The outcome for one comment: ``method`` if linked, else ``reason`` and a human ``detail``."""

    method: Method | None = None
    reason: str | None = None
    detail: str | None = None


def comment_lines(comment: Mapping[str, Any]) -> tuple[int, int] | None:
    """The comment's (start, end) lines on its side, or None for a file-level comment."""
    start = comment.get("start_line")
    if start is None:
        start = comment.get("line")
    if start is None:
        return None
    end = comment.get("end_line")
    if end is None:
        end = start
    elif comment.get("end_character") == 0 and end > start:
        end -= 1
    return start, end


def count_lines(source: str) -> int:
    """Lines of a normalised source as Gerrit numbers them: a final newline ends the last line, it starts none."""
    if not source:
        return 0
    return source.count("\n") + (not source.endswith("\n"))


def link_comment(comment: Mapping[str, Any], methods: Sequence[Method], n_lines: int) -> Link:
    """Link ``comment`` (a ``COMMENT_TYPE`` record) to one of ``methods`` of a file of ``n_lines`` lines."""
    lines = comment_lines(comment)
    if lines is None:
        return Link(reason=DropReason.FILE_COMMENT, detail="no line: a comment on the whole file")
    start, end = lines
    side = (comment.get("side") or "REVISION").upper()
    if side not in _REVISION_SIDES:
        return Link(reason=DropReason.WRONG_SIDE, detail=f"side {side}: not the revision submitted")
    if not 1 <= start <= end <= n_lines:
        return Link(reason=DropReason.LINE_OUT_OF_RANGE,
                    detail=f"lines {start}-{end} in a file of {n_lines} lines")
    touched = [m for m in methods if m.link_start <= end and start <= m.end_line]
    if not touched:
        return Link(reason=DropReason.OUTSIDE_METHOD, detail=f"lines {start}-{end} are in no method")
    if len(touched) > 1:
        names = ", ".join(m.signature for m in touched)
        return Link(reason=DropReason.SPANS_METHODS, detail=f"lines {start}-{end} touch {names}")
    method = touched[0]
    if not method.link_start <= start <= end <= method.end_line:
        return Link(reason=DropReason.PARTLY_OUTSIDE_METHOD,
                    detail=f"lines {start}-{end} overrun {method.signature} "
                           f"(lines {method.link_start}-{method.end_line})")
    return Link(method=method)
