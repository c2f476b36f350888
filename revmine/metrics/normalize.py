"""Opt-in normalisation of predictions before they are scored, for outputs of chat models.

A chat model asked for a revised method answers in Markdown: a sentence, the code in a fenced block
(```` ```java ... ``` ````), an explanation. Scored as is, the prose and the fence count as wrong tokens
and no prediction is ever perfect. ``normalize="code-fence"`` (``revmine score --normalize code-fence``)
scores the code of the first fenced block instead, and leaves a prediction without a fence as it is; the
references are never changed (they are the ground truth). The score stage counts the predictions it
normalised (``summary.json``'s ``normalized``) so that a reader sees how much of the output was prose.

Fences are CommonMark's (0.31, section 4.5 "Fenced code blocks"): a line of at least three backticks or
tildes, then an optional info string (the language; a backtick fence's may not hold a backtick), closed
by a line of the same character, at least as many, and nothing else but spaces; a fence never closed
runs to the end of the text (a truncated answer). The content's lines lose the opening fence's
indentation, as CommonMark removes it. One departure: a fence may be indented by any amount, not only up
to three spaces, because chat models nest code blocks in list items ("1. Change the loop:" then an
indented fence) and CommonMark's list-item rules would be needed to tell those apart. A fence needs lines
of its own: ```` ```x``` ```` inside a line is inline code, not a block, and is left as it is. The first
block is taken, not all of them: a chat answer gives its code first, and later blocks are usually a usage
example or an alternative, which would not belong in one prediction.
"""

from __future__ import annotations

import re
from typing import Callable, Sequence

_OPENING = re.compile(r"^([ \t]*)(`{3,}|~{3,})(.*)$")


def fenced_code(text: str) -> str | None:
    """The content of the first fenced code block of Markdown ``text`` (see the module docstring), or
    None when it has none."""
    lines = text.splitlines()
    for start, line in enumerate(lines):
        match = _OPENING.match(line)
        if match is None or (match.group(2)[0] == "`" and "`" in match.group(3)):
            continue
        indent, fence = match.group(1), match.group(2)
        closing = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        body = []
        for content in lines[start + 1:]:
            if closing.match(content):
                break
            body.append(content[len(indent):] if content.startswith(indent) else content.lstrip(" \t"))
        return "\n".join(body)
    return None


#: Normalisations by name (``revmine score --normalize``): each returns the text to score, or None when it
#: does not apply (the prediction is then scored as given).
NORMALIZATIONS: dict[str, Callable[[str], str | None]] = {"code-fence": fenced_code}


def normalize(predictions: Sequence[str], how: str) -> tuple[list[str], int]:
    """``predictions`` normalised by the named normalisation, and how many it applied to."""
    if how not in NORMALIZATIONS:
        raise ValueError(f"unknown normalisation {how!r}; known: {', '.join(NORMALIZATIONS)}")
    extract = NORMALIZATIONS[how]
    out, applied = [], 0
    for text in predictions:
        code = extract(text)
        applied += code is not None
        out.append(text if code is None else code)
    return out, applied

