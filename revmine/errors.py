"""Whose fault an error is: the user's (:class:`InputError`), the world's (:class:`OperationError`), or a bug.

The command line prints the first two as one line (exit status 2 and 1) and lets everything else keep its
traceback. Neither subclasses ``ValueError``: a bug's ``ValueError`` (a schema cast gone wrong, a bad
argument between two of revmine's own functions) must not be mistaken for the user's and lose its traceback.
"""

from __future__ import annotations

import errno
from pathlib import Path


class InputError(Exception):
    """Bad input: a file or a setting. The message starts with ``file:line [field]`` (or, for a setting, with
    the setting's name: :meth:`setting`) so it can be acted on."""

    def __init__(self, path: str | Path | None, message: str, line: int | None = None, field: str | None = None):
        where = str(path) if path is not None else "<input>"
        if line is not None:
            where += f":{line}"
        if field is not None:
            where += f" [{field}]"
        super().__init__(f"{where}: {message}")
        self.path = None if path is None else str(path)
        self.line = line
        self.field = field
        self.message = message

    @classmethod
    def setting(cls, name: str, message: str) -> "InputError":
        """A bad setting (a command-line option, a key of a job file's table): the message starts with its name."""
        error = cls(None, message, field=name)
        error.args = (f"{name}: {message}",)
        return error


class OperationError(RuntimeError):
    """An expected failure outside revmine (a forge answering an error, git failing, a full disk): one line
    saying what failed and what to do."""


_IN_THE_WAY = "is a file where a directory is needed: remove it or choose another output path"
#: errno values that mean "this output cannot be written there", with what the user can do about it
_CANNOT_WRITE = {
    errno.EEXIST: _IN_THE_WAY,
    errno.ENOTDIR: _IN_THE_WAY,
    errno.EISDIR: "is a directory where a file is needed: choose a file path",
    errno.EROFS: "the file system is read-only: choose an output path on a writable disk",
    errno.EACCES: "permission denied: make the directory writable or choose another output path",
    errno.EPERM: "permission denied: make the directory writable or choose another output path",
    errno.ENOSPC: "the disk is full: free some space or choose an output path on another disk",
    errno.EDQUOT: "the disk quota is exhausted: free some space or choose an output path on another disk",
}


def output_error(exc: OSError, dest: str | Path) -> OperationError | None:
    """The one line for an ``OSError`` that stopped revmine writing ``dest``: what failed and what to do;
    None when the error is not one of a disk refusing a write (it is then a bug, or someone else's)."""
    advice = _CANNOT_WRITE.get(exc.errno) if exc.errno is not None else None
    if advice is None:
        return None
    if advice is _IN_THE_WAY:
        blocker = next((p for p in (Path(dest), *Path(dest).parents) if p.exists() and not p.is_dir()), None)
        return OperationError(f"cannot write {dest}: {blocker or 'a part of the path'} {advice}")
    return OperationError(f"cannot write {dest}: {advice}")
