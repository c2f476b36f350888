"""The opt-out list: accounts and e-mail addresses whose comments and changes are left out of what revmine builds
(``[publish] opt_out``), as BigCode's The Stack honours an opt-out list by username.

One identity a line (a login, a Gerrit username or e-mail, a GitLab username), compared without regard to case;
blank lines and ``#`` comments are skipped. Read here because two stages apply it: the miners (nothing of theirs
reaches a file, dropped rows' files included) and the export (rows mined before the list named them).
"""

from __future__ import annotations

from pathlib import Path

from .textio import read_lines

__all__ = ["OPT_OUT", "read_opt_out"]

#: the reason a row or comment left out for the list is counted under
OPT_OUT = "opt_out"


def read_opt_out(path: str | Path | None) -> frozenset[str]:
    """The identities of the list at ``path``, lower-cased (none: an empty set)."""
    if path is None:
        return frozenset()
    names = (line.split("#", 1)[0].strip() for line in read_lines(Path(path)))
    return frozenset(name.lower() for name in names if name)
