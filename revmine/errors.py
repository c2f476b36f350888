"""The one exception type users see for bad input: it always names the file, and the row or field."""

from __future__ import annotations

from pathlib import Path


class InputError(ValueError):
    """Bad input data. The message starts with ``file:line`` (or ``file: field``) so it can be acted on."""

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


class OperationError(RuntimeError):
    """An expected failure outside revmine (a forge answering an error, git failing): one line to the user."""
