"""Reading users' text files strictly, so that a bad byte or line is reported where it is."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Iterable, Iterator

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser, published before it joined the standard library
    import tomli as tomllib

from ..errors import InputError


#: The longest line the readers of users' text files accept, in bytes (``REVMINE_MAX_LINE_BYTES`` overrides
#: it). A prediction, a reference or a labelled comment is at most a method on one line; a longer line is
#: a file of another kind (a minified bundle, a binary), which would otherwise be held several times over
#: in memory by the decoding and tokenising (a 50 MB line took 3.4 GB before it was refused).
MAX_LINE_BYTES = 1 << 20


#: The largest job or credentials file (TOML) accepted, in bytes (``REVMINE_MAX_TOML_BYTES`` overrides it).
#: A TOML file is parsed whole; a [[projects]] entry of examples/job.toml takes about 110 bytes, so the
#: limit holds some 9,000 projects: a larger file is a file of another kind given by mistake (a data dump,
#: /dev/zero), which would otherwise be read into memory whole before being refused.
MAX_TOML_BYTES = 1 << 20


def max_line_bytes() -> int:
    """The line limit in force: ``REVMINE_MAX_LINE_BYTES`` if set (a positive integer), else the default."""
    return _limit("REVMINE_MAX_LINE_BYTES", MAX_LINE_BYTES)


def max_toml_bytes() -> int:
    """The TOML file limit in force: ``REVMINE_MAX_TOML_BYTES`` if set (a positive integer), else the default."""
    return _limit("REVMINE_MAX_TOML_BYTES", MAX_TOML_BYTES)


def _limit(variable: str, default: int) -> int:
    value = os.environ.get(variable)
    if value is None:
        return default
    if not value.isdigit() or int(value) < 1:
        raise InputError.setting(variable, f"expected a positive number of bytes, got {value!r}")
    return int(value)


def read_text(path: Path) -> str:
    """The whole file, decoded strictly as UTF-8 (a BOM is dropped): a bad byte is reported with its line
    number. Line ends are kept as they are (a CSV field may hold line breaks of its own, so a CSV file is
    read whole rather than as lines)."""
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
    """The file's lines (:func:`iter_lines`) as a list."""
    return list(iter_lines(path))


def iter_lines(path: Path) -> Iterator[str]:
    """The file's lines, read a block at a time: strict UTF-8 (a BOM is dropped), so that a bad byte is reported
    with its line number, and no line longer than :func:`max_line_bytes` (memory stays bounded by it, and by
    the caller: lines are yielded as they are read, so a reader that does not keep them holds one block)."""
    limit = max_line_bytes()
    before, rest, first = 0, b"", True
    try:
        with open(path, "rb") as handle:
            while block := handle.read(1 << 20):
                if first and block.startswith(b"\xef\xbb\xbf"):
                    block = block[3:]
                first = False
                pieces = (rest + block).split(b"\n")
                rest = pieces.pop()
                lines = _decode(path, pieces + [rest] if len(rest) > limit else pieces, before, limit)
                before += len(lines)
                yield from lines
    except OSError as exc:
        raise InputError(path, f"cannot read: {exc.strerror or exc}") from exc
    if rest:
        yield from _decode(path, [rest], before, limit)


def _decode(path: Path, pieces: list[bytes], before: int, limit: int) -> list[str]:
    """Complete lines (without their newline) that follow line ``before``, checked and decoded."""
    if pieces and max(map(len, pieces)) > limit:
        number = before + 1 + next(i for i, piece in enumerate(pieces) if len(piece) > limit)
        raise InputError(path, f"line longer than {limit:,} bytes: not a text file of lines? (the limit is set "
                               "by REVMINE_MAX_LINE_BYTES)", line=number)
    joined = b"\n".join(pieces)
    try:
        text = joined.decode("utf-8")
    except UnicodeDecodeError as exc:
        number = before + joined[: exc.start].count(b"\n") + 1
        raise InputError(path, f"undecodable byte 0x{joined[exc.start]:02x} (not UTF-8)", line=number) from exc
    if not pieces:
        return []
    lines = text.split("\n")
    return [line[:-1] if line.endswith("\r") else line for line in lines] if "\r" in text else lines


def read_jsonl(path: Path, lines: list[str] | None = None) -> list[tuple[int, dict]]:
    """The JSON Lines file's objects with their line numbers (:func:`iter_jsonl`) as a list."""
    return list(iter_jsonl(path, lines))


def iter_jsonl(path: Path, lines: Iterable[str] | None = None) -> Iterator[tuple[int, dict]]:
    """The JSON Lines file's objects with their line numbers, as they are read; blank lines are skipped.

    The project's one JSON Lines reader: bad bytes (through :func:`iter_lines`), bad JSON and a line that
    is not a JSON object are errors naming the file and line; so are what JSON allows and no later stage can
    take (issue 31): nesting deeper than Python's recursion limit (``json`` recurses: RecursionError), and an
    escaped lone surrogate (``"a\\ud800b"``: a str that UTF-8, hence Parquet, cannot encode; checked only on a
    line holding a ``\\u`` escape of one). ``lines``: the file's lines when the caller has read them already
    (``path`` is then only named in errors).
    """
    for number, line in enumerate(iter_lines(path) if lines is None else lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(path, f"not valid JSON: {exc.msg} (column {exc.colno})", line=number) from exc
        except RecursionError:
            raise InputError(path, "not valid JSON here: nested deeper than its reader follows", line=number) from None
        if not isinstance(record, dict):
            raise InputError(path, f"expected a JSON object, not {type(record).__name__}", line=number)
        if _SURROGATE_ESCAPE.search(line):
            _check_surrogates(path, number, record)
        yield number, record


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _check_surrogates(path: Path, number: int, record: dict) -> None:
    """An error naming the field of ``record`` holding a lone surrogate (a pair decodes to one character); one
    in a name (of a field, at any depth) is not quoted: printing it would fail as writing it does."""
    for key, value in record.items():
        if not _encodes(key):
            raise InputError(path, "a lone surrogate in a field name: not text", line=number)
        stack = [value]
        while stack:
            item = stack.pop()
            if isinstance(item, str) and not _encodes(item):
                bad = next(i for i, char in enumerate(item) if not _encodes(char))
                raise InputError(path, f"a lone surrogate (\\u{ord(item[bad]):04x}) at character {bad}: not text",
                                 line=number, field=key)
            if isinstance(item, dict):
                if not all(_encodes(name) for name in item):
                    raise InputError(path, "a lone surrogate in a field name: not text", line=number, field=key)
                stack.extend(item.values())
            elif isinstance(item, list):
                stack.extend(item)


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def read_toml(path: Path, quote: bool = True) -> dict:
    """A job or settings file; unreadable or invalid TOML is an error naming the file.

    ``quote=False`` keeps the decoder's message (which may quote the file) out of the error: for files
    that hold secrets, such as a credentials file. A file larger than :func:`max_toml_bytes` is refused
    unread beyond the limit.
    """
    limit = max_toml_bytes()
    try:
        with open(path, "rb") as handle:
            data = handle.read(limit + 1)
        if len(data) > limit:
            raise InputError(path, f"larger than {limit:,} bytes: not a job or settings file? (the limit is set by "
                                   "REVMINE_MAX_TOML_BYTES)")
        return tomllib.loads(data.decode("utf-8"))
    except OSError as exc:
        raise InputError(path, f"cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise InputError(path, "not valid TOML: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(path, f"not valid TOML: {exc}" if quote else "not valid TOML") from None
