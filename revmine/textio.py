"""Reading users' text files strictly, so that a bad byte or line is reported where it is."""

from __future__ import annotations

import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser, published before it joined the standard library
    import tomli as tomllib

from .errors import InputError


def read_lines(path: Path) -> list[str]:
    """Decode strictly as UTF-8 (a BOM is dropped) so a bad byte is reported with its line number."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(path, f"cannot read: {exc.strerror or exc}") from exc
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(path, f"undecodable byte 0x{data[exc.start]:02x} (not UTF-8)", line=line) from exc
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines]


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
