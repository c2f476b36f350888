"""git's own diff and apply, run by the tests on the same texts revmine diffs: the reference for hunks.

git's defaults are pinned (``diff.algorithm=myers``, ``diff.indentHeuristic=true``, 3 lines of context) and
no system or user configuration can change them.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

REVISIONS = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "code_revisions" / "revisions.jsonl"
GIT_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", re.M)
#: git's diff defaults pinned, and no system or user config that could change them
GIT = ["git", "-c", "diff.algorithm=myers", "-c", "diff.indentHeuristic=true", "-c", "diff.context=3"]
GIT_ENV = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null"}


def git_diff(tmp: Path, old: str, new: str) -> str:
    (tmp / "a").write_text(old, encoding="utf-8", newline="")
    (tmp / "b").write_text(new, encoding="utf-8", newline="")
    done = subprocess.run([*GIT, "diff", "--no-index", "--no-color", "-U3", "a", "b"], cwd=tmp, capture_output=True,
                          env=GIT_ENV)
    assert done.returncode in (0, 1), done.stderr
    return done.stdout.decode("utf-8")


def git_hunks(tmp: Path, old: str, new: str) -> list[str]:
    """git's hunks exactly as ``git diff -U3`` prints them (header and its function context included), each without
    the line end after its last line, and without git's ``\\ No newline at end of file`` lines (CodeReviewer's
    rows have none)."""
    text = git_diff(tmp, old, new)
    body = text[text.index("\n@@") + 1:] if "\n@@" in text else ""
    body = body.replace("\n\\ No newline at end of file", "")
    return re.split(r"\n(?=@@ )", body.removesuffix("\n")) if body else []


def header_numbers(hunk: str) -> tuple[int, int, int, int]:
    """The four numbers of a hunk's git header (old start, old count, new start, new count; a count git leaves out
    is 1)."""
    a, b, c, d = GIT_HEADER.match(hunk).groups()
    return int(a), int(b or 1), int(c), int(d or 1)


def bare(hunk: str) -> str:
    """A hunk with its header's function context removed (``@@ -a,b +c,d @@`` kept)."""
    header, newline, rest = hunk.partition("\n")
    return GIT_HEADER.match(header).group(0) + newline + rest


def git_applies(tmp: Path, old: str, hunks: list[str]) -> bool:
    """Whether ``git apply --check`` accepts ``hunks`` as a patch of a file holding ``old``."""
    (tmp / "f").write_text(old, encoding="utf-8", newline="")
    (tmp / "p.diff").write_text("--- a/f\n+++ b/f\n" + "\n".join(hunks) + "\n", encoding="utf-8", newline="")
    return subprocess.run([*GIT, "apply", "--check", "p.diff"], cwd=tmp, capture_output=True,
                          env=GIT_ENV).returncode == 0
