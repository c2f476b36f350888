"""One imported example as a row of the candidates schema: what a published format gives is set, the rest
(lines, signatures, maps that the format does not publish) gets neutral values, never invented ones.

Lines are those of the texts themselves (m_s from line 1 to its last line); a triplet's comment is on the
whole of m_s (``comment_start_line``/``comment_end_line``): the publisher linked it to this method or hunk,
and the filter stage's ``not_linked`` check then keeps it."""

from __future__ import annotations

from typing import Any

from ..io.rows import TRIPLET
from ..schema import CANDIDATES_SCHEMA

#: ``match_rule`` of every imported row: m_s and m_r were paired by the publisher, not by revmine.
IMPORTED = "imported"


def one_line(text: str) -> str:
    """Whitespace-separated tokens on one line, as the OpenNMT files hold them."""
    return " ".join(text.split())


def candidate(kind: str, source: str, project: str, change: str, comment_id: str, m_s: str, m_r: str,
              comment: str | None, m_s_abstract: str, m_r_abstract: str, comment_abstract: str | None,
              m_s_marked: str | None, path: str | None = None, language: str | None = None) -> dict[str, Any]:
    """A full candidates row; provenance ``source:project:change`` makes the stable id unique per example."""
    row: dict[str, Any] = dict.fromkeys(CANDIDATES_SCHEMA.names)
    row.update(
        kind=kind, round_id=f"{source}:{project}:{change}", source=source, project=project, change=change,
        round=0, path=path, language=language, comment_id=comment_id, method_name="", signature="", signature_after="",
        match_rule=IMPORTED, start_line_before=1, end_line_before=max(1, len(m_s.splitlines())),
        comment_start_line=1 if kind == TRIPLET else None,
        comment_end_line=max(1, len(m_s.splitlines())) if kind == TRIPLET else None,
        start_line_after=1, end_line_after=max(1, len(m_r.splitlines())), changed=m_s != m_r,
        m_s=m_s, m_r=m_r, comment=comment, m_s_abstract=m_s_abstract, m_r_abstract=m_r_abstract,
        comment_abstract=comment_abstract, abstraction_map="{}", m_s_marked=m_s_marked,
    )
    return row
