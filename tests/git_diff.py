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
#: CodeReviewer's header pattern: a hunk whose first line does not match is dropped by its reader
CODEREVIEWER_HEADER = re.compile(r"@@ -(\d+),(\d+) \+(\d+),(\d+) @@")
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
    """git's hunks, headers with both counts written (git leaves out ",1"), section headings removed."""
    text = git_diff(tmp, old, new)
    body = text[text.index("\n@@") + 1:] if "\n@@" in text else ""
    hunks = re.split(r"\n(?=@@ )", body.removesuffix("\n")) if body else []
    out = []
    for hunk in hunks:
        header, _, rest = hunk.partition("\n")
        a, b, c, d = GIT_HEADER.match(header).groups()
        out.append(f"@@ -{a},{b or 1} +{c},{d or 1} @@" + ("\n" + rest if rest else ""))
    return out


def git_applies(tmp: Path, old: str, hunks: list[str]) -> bool:
    """Whether ``git apply --check`` accepts ``hunks`` as a patch of a file holding ``old``."""
    (tmp / "f").write_text(old, encoding="utf-8", newline="")
    (tmp / "p.diff").write_text("--- a/f\n+++ b/f\n" + "\n".join(hunks) + "\n", encoding="utf-8", newline="")
    return subprocess.run([*GIT, "apply", "--check", "p.diff"], cwd=tmp, capture_output=True,
                          env=GIT_ENV).returncode == 0
