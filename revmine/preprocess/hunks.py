"""Hunk-level rows as CodeReviewer builds them (Li et al., "CodeReviewer: Pre-Training for Automating Code Review
Activities", ESEC/FSE 2022; microsoft/CodeBERT, ``CodeReviewer/code/utils.py``), from one mined review round.

CodeReviewer's unit is the diff hunk a reviewer comment sits on, not a method: ``msg`` (comment generation) pairs
the hunk with the comment, ``ref`` (code refinement) adds the same region after the revision, ``cls`` (quality
estimation) labels every hunk of the change, ``y`` = 1 when a comment sits on it. The decisions, each with the
definition it follows:

* **The diff.** Hunks are those of the change under review: the file at the change's base (``content_base``: the
  parent of the first patch set / the pull request's base; None when the change adds the file, an empty file)
  against the revision submitted (``content_before``), with git's default 3 lines of context. CodeReviewer's hunks
  are GitHub's, i.e. git's own diff, so the diff is git's: libgit2's xdiff (the same code as git's) through
  ``pygit2.Patch.create_from``, with the settings of ``git diff``'s defaults (``diff.algorithm=myers``,
  ``diff.indentHeuristic=true`` since git 2.14): Myers' algorithm, git's sliding of ambiguous blocks and the
  indent heuristic (``GIT_DIFF_INDENT_HEURISTIC``), no whitespace option, ``interhunk_lines=0`` (changes at most
  2 x context lines apart share one hunk). Lines are split on ``\\n`` only, as git does (a ``\\r`` stays on its
  line); a text with a NUL byte is binary to git, as to GitHub: it has no hunks. Measured on the 210 real revisions
  of ``fixtures/code_revisions`` against ``git diff --no-index -U3`` (git 2.39, user config shut out): 210/210
  identical hunk lists with the indent heuristic, 208/210 without it, 184/210 with difflib's ``SequenceMatcher``
  (the previous alignment); 68/68 of the three-revision rounds. Speed (:func:`diff_hunks` on the 210 files, median of
  5 runs, 2 shared cores): pygit2 ~2,800 files/s, difflib ~340, a ``git diff --no-index`` subprocess per file
  ~85 (temporary files, a process each; same hunks): pygit2 is exact, in-process and the fastest. With headers and
  lines as below, every hunk of the 210 revisions and of 16 PHP and Ruby ones equals ``git diff -U3``'s output
  byte for byte (226/226 files; 17/226 with the bare header and the end-of-file note revmine wrote before), at
  the same time per hunk (``benchmarks/bench_hunks.py``: ~300 us per hunk before and after).
* **``patch``** is the hunk as ``git diff -U3`` prints it, byte for byte (without the line end after its last
  line): git's header, then one line per diff line with its marker column (`` ``, ``-``, ``+``), lines joined by
  ``\\n``. The header is libgit2's (``pygit2.DiffHunk.header``, the same text as git's): ``@@ -a,b +c,d @@``,
  a count of 1 left out (``@@ -5 +5 @@``), and after it git's function context, the last line above the hunk
  that starts with a letter, ``_`` or ``$`` (git's default ``funcname``; no ``.gitattributes`` applies), as in
  CodeReviewer's published rows (``@@ -442,7 +442,17 @@ configRetry:``) and in its README's example
  (``"@@ -1 +1,2 @@\\n import torch\\n +import torch.nn as nn"``: the count of 1 left out, as git does). No
  ``\\ No newline at end of file`` line: CodeReviewer's rows never have one, and its reader
  (``ReviewExample.align_and_clean``) removes it. Remaining difference with CodeReviewer's own reader, not with its
  rows: that reader matches ``@@ -(\\d+),(\\d+) \\+(\\d+),(\\d+) @@`` and so skips a hunk whose header leaves
  a count out, in its rows as in ours. ``oldf`` is the whole base file as its bytes decode (UTF-8, strictly): a
  byte order mark and ``\\r\\n`` line ends are kept, as in CodeReviewer's ``oldf``, which is the file GitHub
  served; the reader slices it with the header's old range (split on ``\\n``, so a ``\\r`` stays on its line
  and is stripped with the line's spaces). The texts are diffed as they are, not normalised as the method level's
  are (:func:`.candidates.normalise_source`): a change that only adds or removes a BOM or turns ``\\n`` into
  ``\\r\\n`` is a hunk, as on GitHub, and a comment on it is kept rather than dropped as ``outside_hunk``.
* **Which hunk a comment picks.** The comment's line on the revision submitted (``REVISION``/``RIGHT``), that is
  the last line it covers (GitHub's ``line``, Gerrit's ``line``/``end_line``: :func:`.linking.comment_lines`), picks
  the hunk whose submitted lines contain it, context lines included (GitHub anchors review comments on any line of
  the diff hunk, and its ``diff_hunk`` is that hunk). A comment on a line of no hunk is dropped as
  ``DropReason.OUTSIDE_HUNK``; file-level, base-side (``PARENT``/``LEFT``) and out-of-range comments are dropped
  with the reasons the method linker uses (:func:`.linking.link_comment`).
* **Whose comments.** Reviewer comments only: a comment by the change's owner (``is_owner``) or a reply
  (``in_reply_to``) is dropped as ``DropReason.AUTHOR_COMMENT`` / ``DropReason.REPLY``, as the preprocess stage's
  triplets are meant (the owner's notes and answers are not review requests). A comment the miners recorded as
  a bot's or an AI reviewer's (``author_kind``, :mod:`revmine.miners.authors`) is dropped as
  ``DropReason.BOT`` / ``DropReason.AI_REVIEWER`` with its evidence, so a hunk only such accounts
  commented on is a ``y`` = 0 hunk: no person asked for a change there. Hunk rows have no filter stage of their
  own, so this is where they decide; the filter's per-project template check and its ``ai_reviewers`` setting
  concern method-level rows only.
* **``old`` and ``new`` (``ref``).** ``old`` is the hunk reviewed without its header (CodeReviewer's
  ``RefineDataset`` strips one marker column from every line: a header line would become code); ``new`` is the
  diff from the same base to the next revision (``content_after``; an empty file when it is None; git's alignment,
  a binary next revision aligned as text) over the same base lines, insertions at either edge of that range
  included, in the same form. ``old_hunk``/``hunk`` are both
  with their headers (the names of CodeReviewer's ``ref`` files).
* **``cls``.** One row per hunk of the file; ``y`` = 1 when a kept reviewer comment sits on it (its ``msg`` is the
  first such comment, as ``read_review_examples`` sets ``y`` = 1 from a non-empty ``msg``), else 0 and ``msg`` "".

:func:`hunk_rows` returns one row per (hunk, kept comment) with ``y`` = 1 and one per hunk without a kept comment
with ``y`` = 0 and no comment: the ``msg``/``ref`` rows are those with a comment, the ``cls`` rows the first row of
each hunk (:mod:`revmine.dataset.codereviewer` writes the three tasks).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

import pygit2
from pygit2.enums import DiffOption

from ..schema import AuthorKind, DropReason
from .linking import comment_lines, count_lines

__all__ = ["CONTEXT", "Hunk", "diff_hunks", "hunk_rows"]

#: git's default number of context lines (``diff.context``)
CONTEXT = 3
#: ``git diff``'s defaults: Myers' algorithm (libgit2's default too) with the indent heuristic
GIT_DIFF_FLAGS = DiffOption.INDENT_HEURISTIC
#: libgit2's origins of its "no newline at end of file" lines (both sides, the old side, the new side): left out
_EOFNL_ORIGINS = frozenset("=<>")
_REVISION_SIDES = frozenset(("REVISION", "RIGHT"))


@dataclass(frozen=True)
class Hunk:
    """One hunk: 0-based half-open line ranges in the old and new text, its diff lines (marker + text) and git's
    function context (the text after the header's ``@@``, "" when git prints none)."""

    old_from: int
    old_to: int
    new_from: int
    new_to: int
    lines: tuple[str, ...]
    context: str = ""

    @property
    def header(self) -> str:
        """git's header: ``@@ -a,b +c,d @@`` (a count of 1 left out) and its function context."""
        ranges = f"@@ -{_range(self.old_from, self.old_to)} +{_range(self.new_from, self.new_to)} @@"
        return f"{ranges} {self.context}" if self.context else ranges

    @property
    def text(self) -> str:
        """The hunk as a unified diff: header and lines."""
        return "\n".join((self.header, *self.lines))

    @property
    def body(self) -> str:
        """The diff lines alone, without the header: CodeReviewer's ``old``/``new``."""
        return "\n".join(self.lines)

    def has_new_line(self, line: int) -> bool:
        """Whether 1-based ``line`` of the new text is one of the hunk's lines."""
        return self.new_from < line <= self.new_to


def _range(start: int, end: int) -> str:
    """One side of git's header: 1-based start and count, the count left out when it is 1 (a count of 0 gives the
    line before)."""
    count = end - start
    return str(start + 1) if count == 1 else f"{start + 1 if count else start},{count}"


def _lines(text: str | None) -> list[str]:
    """Lines with their ``\\n``, split on ``\\n`` alone as git splits them (a last line without one kept as is)."""
    if not text:
        return []
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    return lines + [parts[-1]] if parts[-1] else lines


def _marked(marker: str, lines: list[str]) -> list[str]:
    return [marker + line.removesuffix("\n") for line in lines]


def _opcode_lines(opcodes: list[tuple[str, int, int, int, int]], old: list[str], new: list[str]) -> list[str]:
    lines = []
    for tag, i1, i2, j1, j2 in opcodes:
        if tag == "equal":
            lines += _marked(" ", old[i1:i2])
        else:
            lines += _marked("-", old[i1:i2]) + _marked("+", new[j1:j2])
    return lines


def diff_hunks(old: str | None, new: str | None, context: int = CONTEXT) -> list[Hunk]:
    """The hunks of the diff ``old`` -> ``new`` (None: no file, an empty text) with ``context`` lines of context,
    as ``git diff`` makes them (see the module docstring)."""
    return _libgit2_hunks(old, new, context, GIT_DIFF_FLAGS)


def _libgit2_hunks(old: str | None, new: str | None, context: int, flags: int) -> list[Hunk]:
    old_bytes, new_bytes = (old or "").encode("utf-8"), (new or "").encode("utf-8")
    # libgit2's lines point into the two buffers and pygit2 does not keep them alive (libgit2/pygit2#754 for
    # blobs): they are bound here until every line has been read
    patch = pygit2.Patch.create_from(old_bytes, new_bytes, context_lines=context, interhunk_lines=0,
                                     flag=flags)
    hunks = []
    for hunk in patch.hunks:
        # git's 1-based start; a side of 0 lines names the line before (0 before the first line)
        old_from = hunk.old_start - 1 if hunk.old_lines else hunk.old_start
        new_from = hunk.new_start - 1 if hunk.new_lines else hunk.new_start
        lines = tuple(line.origin + line.content.removesuffix("\n") for line in hunk.lines
                      if line.origin not in _EOFNL_ORIGINS)
        # the header's text after "@@ ... @@ ", as git prints it (libgit2 ends it with its line end)
        context = hunk.header.rstrip("\n").split("@@", 2)[2].removeprefix(" ")
        hunks.append(Hunk(old_from, old_from + hunk.old_lines, new_from, new_from + hunk.new_lines, lines, context))
    return hunks


def _opcodes(old: str | None, new: str | None, n_old: int, n_new: int) -> list[tuple[str, int, int, int, int]]:
    """git's alignment of ``old`` and ``new`` as (tag, i1, i2, j1, j2) blocks, "equal" or "change": the hunks
    without context lines are its changed blocks (the alignment does not depend on the context). Texts git would
    call binary are aligned as text: a region must cover its lines whatever the next revision holds."""
    opcodes: list[tuple[str, int, int, int, int]] = []
    i = j = 0
    for hunk in _libgit2_hunks(old, new, 0, GIT_DIFF_FLAGS | DiffOption.FORCE_TEXT):
        if hunk.old_from > i:
            opcodes.append(("equal", i, hunk.old_from, j, hunk.new_from))
        opcodes.append(("change", hunk.old_from, hunk.old_to, hunk.new_from, hunk.new_to))
        i, j = hunk.old_to, hunk.new_to
    if i < n_old:
        opcodes.append(("equal", i, n_old, j, n_new))
    return opcodes


def _regions(old: str | None, new: str | None) -> Callable[[int, int], Hunk]:
    """The diff ``old`` -> ``new`` over old lines ``[old_from, old_to)`` (0-based) of any number of ranges, the texts
    split and aligned once: insertions at both edges included, the revised side of a reviewed hunk (``new`` of
    CodeReviewer's ``ref``). A changed block that a range cuts keeps only its old lines inside the range, as
    deletions: its new lines cannot be split by old line."""
    old_lines, new_lines = _lines(old), _lines(new)
    opcodes = _opcodes(old, new, len(old_lines), len(new_lines))
    return lambda old_from, old_to: _region(old_lines, new_lines, opcodes, old_from, old_to)


def _region(old_lines: list[str], new_lines: list[str], opcodes: list[tuple[str, int, int, int, int]],
            old_from: int, old_to: int) -> Hunk:
    kept: list[tuple[str, int, int, int, int]] = []
    for tag, i1, i2, j1, j2 in opcodes:
        if i1 == i2:  # an insertion at old position i1
            if old_from <= i1 <= old_to:
                kept.append((tag, i1, i2, j1, j2))
            continue
        lo, hi = max(i1, old_from), min(i2, old_to)
        if lo >= hi:
            continue
        if tag == "equal":
            kept.append((tag, lo, hi, j1 + lo - i1, j1 + hi - i1))
        elif old_from <= i1 and i2 <= old_to:
            kept.append((tag, i1, i2, j1, j2))
        else:  # cut by the range: its old lines inside, deleted, beside the new lines on the range's side
            at = j2 if i1 < old_from else j1
            kept.append(("change", lo, hi, at, at))
    if not kept:
        return Hunk(old_from, old_to, 0, 0, ())
    return Hunk(old_from, old_to, kept[0][3], kept[-1][4], tuple(_opcode_lines(kept, old_lines, new_lines)))


def hunk_rows(round_row: Mapping[str, Any], context: int = CONTEXT
              ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The hunk rows of one rounds row (plain strings; ``content_base`` and ``language`` beside the
    :data:`~revmine.schema.ROUNDS_SCHEMA` columns) and the dropped rows of the comments that made none."""
    provenance = {
        "round_id": round_row["round_id"], "source": round_row["source"], "project": round_row["project"],
        "change": round_row["change"], "round": round_row["round"],
        "path": round_row.get("path_before") or round_row.get("path_after"), "language": round_row.get("language"),
        "licence": round_row.get("licence"),
    }
    comments = round_row.get("comments") or []
    submitted = round_row.get("content_before")
    if submitted is None:
        return [], [_drop(provenance, c, DropReason.NO_CONTENT_BEFORE, "the file is not in the revision submitted")
                    for c in comments]
    base, after = round_row.get("content_base"), round_row.get("content_after")
    hunks = diff_hunks(base, submitted, context)
    on_hunk: dict[int, list[dict[str, Any]]] = {}
    dropped = []
    n_lines = count_lines(submitted)
    for comment in comments:
        index, reason, detail = _hunk_of(comment, hunks, n_lines)
        if index is None:
            dropped.append(_drop(provenance, comment, reason, detail))
        else:
            on_hunk.setdefault(index, []).append(comment)
    if not hunks:
        return [], dropped
    shared = {**provenance, "oldf": base or ""}
    rows = []
    revised_region = _regions(base, after)  # one alignment of the base and the next revision for every hunk
    for index, hunk in enumerate(hunks):
        revised = revised_region(hunk.old_from, hunk.old_to)
        row = {**shared, "hunk_index": index, "old_start": hunk.old_from + 1, "old_end": hunk.old_to,
               "new_start": hunk.new_from + 1, "new_end": hunk.new_to, "patch": hunk.text, "old": hunk.body,
               "new_hunk": revised.text, "new": revised.body}
        commented = [{**row, "y": 1, **_comment_fields(c)} for c in on_hunk.get(index, [])]
        rows += commented or [{**row, "y": 0, **_comment_fields(None)}]
    return rows, dropped


def _hunk_of(comment: Mapping[str, Any], hunks: list[Hunk], n_lines: int) -> tuple[int | None, str, str]:
    """The index of the hunk ``comment`` sits on, or why it sits on none."""
    if comment.get("is_owner"):
        return None, DropReason.AUTHOR_COMMENT, "written by the change's owner"
    kind = comment.get("author_kind")
    if kind in (AuthorKind.BOT, AuthorKind.AI_REVIEWER):
        reason = DropReason.BOT if kind == AuthorKind.BOT else DropReason.AI_REVIEWER
        return None, reason, f"written by {'a bot' if kind == AuthorKind.BOT else 'an AI reviewer'} " \
                             f"{comment.get('author')!r} ({comment.get('author_evidence')})"
    if comment.get("in_reply_to"):
        return None, DropReason.REPLY, f"a reply to comment {comment['in_reply_to']}"
    lines = comment_lines(comment)
    if lines is None:
        return None, DropReason.FILE_COMMENT, "no line: a comment on the whole file"
    side = (comment.get("side") or "REVISION").upper()
    if side not in _REVISION_SIDES:
        return None, DropReason.WRONG_SIDE, f"side {side}: not the revision submitted"
    start, end = lines
    if not 1 <= start <= end <= n_lines:
        return None, DropReason.LINE_OUT_OF_RANGE, f"lines {start}-{end} in a file of {n_lines} lines"
    for index, hunk in enumerate(hunks):
        if hunk.has_new_line(end):
            return index, "", ""
    return None, DropReason.OUTSIDE_HUNK, f"line {end} is in no hunk of the diff from the change's base"


def _comment_fields(comment: Mapping[str, Any] | None) -> dict[str, Any]:
    if comment is None:
        return dict.fromkeys(("comment_id", "comment_author", "comment_start_line", "comment_end_line", "comment"))
    start, end = comment_lines(comment) or (None, None)
    return {"comment_id": comment.get("id"), "comment_author": comment.get("author"), "comment_start_line": start,
            "comment_end_line": end, "comment": comment.get("message")}


def _drop(provenance: dict[str, Any], comment: Mapping[str, Any], reason: str, detail: str) -> dict[str, Any]:
    """A dropped row in :data:`~revmine.schema.DROPPED_SCHEMA`'s columns."""
    lines = comment_lines(comment) or (None, None)
    return {"kind": "comment", "reason": reason, "detail": detail, **provenance, "comment_id": comment.get("id"),
            "comment_author": comment.get("author"), "comment_is_owner": comment.get("is_owner"),
            "comment_author_kind": comment.get("author_kind"), "comment_author_evidence": comment.get("author_evidence"),
            "comment_in_reply_to": comment.get("in_reply_to"), "comment_start_line": lines[0],
            "comment_end_line": lines[1]}
