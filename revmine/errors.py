"""Whose fault an error is: the user's (:class:`InputError`), the world's (:class:`OperationError`), or a bug.

The command line prints the first two as one line (exit status 2 and 1) and lets everything else keep its
traceback. Neither subclasses ``ValueError``: a bug's ``ValueError`` (a schema cast gone wrong, a bad
argument between two of revmine's own functions) must not be mistaken for the user's and lose its traceback.
"""

from __future__ import annotations

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
