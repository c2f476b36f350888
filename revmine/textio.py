"""Reading users' text files strictly, so that a bad byte or line is reported where it is."""

from __future__ import annotations

import json
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser, published before it joined the standard library
    import tomli as tomllib

from .errors import InputError


def read_text(path: Path) -> str:
    """The whole file, decoded strictly as UTF-8 (a BOM is dropped): a bad byte is reported with its line
    number. Line ends are kept as they are (CSV fields may hold line breaks of their own)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(path, f"cannot read: {exc.strerror or exc}") from exc
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(path, f"undecodable byte 0x{data[exc.start]:02x} (not UTF-8)", line=line) from exc


def read_lines(path: Path) -> list[str]:
    """Decode strictly as UTF-8 (a BOM is dropped) so a bad byte is reported with its line number."""
    lines = read_text(path).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines]


def read_jsonl(path: Path, lines: list[str] | None = None) -> list[tuple[int, dict]]:
    """The JSON Lines file's objects with their line numbers; blank lines are skipped.

    The project's one JSON Lines reader: bad bytes (through :func:`read_lines`), bad JSON and a line that
    is not a JSON object are errors naming the file and line. ``lines``: the file's lines when the
    caller has read them already (``path`` is then only named in errors).
    """
    records = []
    for number, line in enumerate(read_lines(path) if lines is None else lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(path, f"not valid JSON: {exc.msg} (column {exc.colno})", line=number) from exc
        if not isinstance(record, dict):
            raise InputError(path, f"expected a JSON object, not {type(record).__name__}", line=number)
        records.append((number, record))
    return records


def read_toml(path: Path, quote: bool = True) -> dict:
    """A job or settings file; unreadable or invalid TOML is an error naming the file.

    ``quote=False`` keeps the decoder's message (which may quote the file) out of the error: for files
    that hold secrets, such as a credentials file.
    """
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(path, f"cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise InputError(path, "not valid TOML: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(path, f"not valid TOML: {exc}" if quote else "not valid TOML") from None
