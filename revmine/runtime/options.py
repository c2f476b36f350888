"""A stage's settings, declared once: each becomes a command-line flag, a job-file key, a check, a fingerprint.

A stage's Options dataclass marks its user-facing fields with :func:`option` (type, default, help, allowed
range or choices). Everything else is derived from that declaration, so a default or a range is written
in exactly one place:

* :func:`add_arguments` adds the stage's flags to an argparse parser (``max_tokens`` -> ``--max-tokens``);
  a value out of range is a usage error naming the flag and the allowed range;
* :func:`from_section` reads a job file's table (unknown keys, wrong types and out-of-range values are
  :class:`~revmine.errors.InputError` naming the file and ``[section.key]``);
* :func:`check` is called by the dataclass itself (``__post_init__``), so the Python API refuses the same
  values;
* :func:`settings` is the stable, JSON-friendly dict that ``revmine run`` fingerprints to resume;
* :func:`reference` is the Markdown table of docs/job-file.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

from ..errors import InputError

_KEY = "revmine.option"


@dataclass(frozen=True)
class Spec:
    """What a setting accepts. ``type`` is that of the value, or of each item when ``items`` is set."""

    type: type
    help: str
    items: bool = False  # a list (TOML array; on the command line, comma-separated)
    choices: tuple[Any, ...] = ()
    min: float | None = None
    max: float | None = None
    above: float | None = None  # exclusive lower bound (a timeout > 0)
    length: int | None = None  # a list's exact length
    flag: str | None = None  # None: --name-with-dashes; "": not a flag (positional or job-file only)
    job: bool = True  # a key of the stage's job-file table
    required: bool = False
    digest: bool = False  # a path whose *contents* are part of the stage's fingerprint
    split: Callable[[str], list[str]] | None = None  # a list given as one string; default: at commas
    append: bool = False  # a list flag given once per item (--refs a --refs b) rather than comma-separated
    stdin: str = ""  # an input file read whole: on the command line "-" is standard input, saved with this
    # suffix (".csv") unless recognisably of another kind (Parquet, JSON Lines)

    def describe(self) -> str:
        """The allowed values in words, e.g. ``an integer >= 1`` or ``a list of 3 numbers in [0, 1]``."""
        noun = {int: "an integer", float: "a number", str: "a string", bool: "true or false",
                Path: "a path"}[self.type]
        if self.choices:
            noun = "one of " + ", ".join(map(show, self.choices))
        bounds = []
        if self.min is not None and self.max is not None:
            bounds.append(f"in [{_num(self.min)}, {_num(self.max)}]")
        elif self.min is not None:
            bounds.append(f">= {_num(self.min)}")
        elif self.max is not None:
            bounds.append(f"<= {_num(self.max)}")
        if self.above is not None:
            bounds.append(f"> {_num(self.above)}")
        one = " ".join([noun, *bounds])
        if not self.items:
            return one
        count = f"{self.length} " if self.length is not None else ""
        plural = {int: "integers", float: "numbers", str: "strings", bool: "booleans", Path: "paths"}[self.type]
        each = ", ".join(map(show, self.choices)) if self.choices else " ".join([plural, *bounds])
        return f"a list of {count}{plural} from {each}" if self.choices else f"a list of {count}{each}"


def show(value: Any) -> str:
    """A value as it is written in a job file (TOML)."""
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(map(show, value)) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(str(value)) if isinstance(value, (str, Path)) else repr(value)


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


def option(default: Any = None, help: str = "", *, type: type | None = None, **spec: Any) -> Any:
    """A dataclass field that is a user-facing setting; ``type`` defaults to the default's type."""
    if type is None:
        sample = default[0] if isinstance(default, (tuple, list)) and default else default
        if sample is None:
            raise TypeError("option(): give type= when the default is None or empty")
        type = Path if isinstance(sample, Path) else sample.__class__
    return dataclasses.field(default=default, metadata={_KEY: Spec(type, help, **spec)})


def specs(cls: type) -> dict[str, Spec]:
    """The declared settings of an Options class, in field order."""
    return {f.name: f.metadata[_KEY] for f in dataclasses.fields(cls) if _KEY in f.metadata}


def _item(spec: Spec, value: Any) -> Any:
    """One value (or list item) checked and normalised; ValueError says what is allowed."""
    kind = spec.type
    ok = (isinstance(value, (int, float)) if kind is float else
          isinstance(value, (str, Path)) if kind is Path else isinstance(value, kind))
    if isinstance(value, bool) and kind is not bool or not ok:
        raise ValueError(f"must be {spec.describe()}, not {value.__class__.__name__} {show(value)}")
    if kind is float:
        value = float(value)
        if not math.isfinite(value):
            raise ValueError(f"must be {spec.describe()}, not {show(value)}")
    elif kind is Path:
        value = Path(value)
    if (spec.choices and value not in spec.choices or spec.min is not None and value < spec.min
            or spec.max is not None and value > spec.max or spec.above is not None and value <= spec.above):
        raise ValueError(f"must be {spec.describe()}, not {show(value)}")
    return value


def check_value(spec: Spec, value: Any) -> Any:
    """``value`` checked against ``spec`` and normalised (lists become tuples, paths :class:`Path`)."""
    if value is None:
        if spec.required:
            raise ValueError(f"is required: {spec.describe()}")
        return None
    if not spec.items:
        return _item(spec, value)
    if isinstance(value, str):
        value = (spec.split or _commas)(value)
    if not isinstance(value, (list, tuple, set, frozenset)):
        raise ValueError(f"must be {spec.describe()}, not {value.__class__.__name__} {show(value)}")
    items = tuple(_item(spec, v) for v in value)
    if spec.length is not None and len(items) != spec.length:
        raise ValueError(f"must be {spec.describe()}, not {len(items)} value(s) {show(list(value))}")
    return items


def _commas(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def check(options: Any) -> None:
    """Refuse a declared setting out of its range (for ``__post_init__``): an InputError naming the setting."""
    for name, spec in specs(type(options)).items():
        try:
            check_value(spec, getattr(options, name))
        except ValueError as exc:
            raise InputError.setting(name, str(exc)) from None


def _parse(spec: Spec, text: str, stdin: Callable[[str], Path] | None = None) -> Any:
    """A command-line string as the setting's value (numbers parsed, lists split, "-" standard input)."""
    if spec.items and not spec.append:
        return [_parse_one(spec, part, stdin) for part in (spec.split or _commas)(text)]
    return _parse_one(spec, text, stdin)


def _parse_one(spec: Spec, text: str, stdin: Callable[[str], Path] | None = None) -> Any:
    if text == "-" and spec.stdin and stdin is not None:
        return stdin(spec.stdin)
    if spec.type is bool:
        return text.lower() in ("true", "yes", "1")
    if spec.type in (int, float):
        try:
            return spec.type(text)
        except ValueError:
            raise ValueError(f"must be {spec.describe()}, not {show(text)}") from None
    return text


def add_arguments(parser: argparse.ArgumentParser, cls: type, skip: tuple[str, ...] = (),
                  stdin: Callable[[str], Path] | None = None) -> None:
    """Add a flag per setting of ``cls`` (not given: the dataclass default applies, shown in the help).

    ``stdin``: what "-" becomes, given the suffix, for a setting declared with ``stdin`` (the command line
    saves standard input to a file, as the readers need a path)."""
    for name, spec in specs(cls).items():
        if spec.flag == "" or name in skip:
            continue
        default = next(f.default for f in dataclasses.fields(cls) if f.name == name)
        shown = "" if default is None else \
            f" (default: {','.join(map(str, default)) if isinstance(default, tuple) else default})"

        def convert(text: str, spec: Spec = spec) -> Any:
            try:
                value = _parse(spec, text, stdin)
                return _item(spec, value) if spec.append else check_value(spec, value)
            except ValueError as exc:
                raise argparse.ArgumentTypeError(str(exc)) from None

        flag = spec.flag or "--" + name.replace("_", "-")
        metavar = "{" + ",".join(map(str, spec.choices)) + "}" if spec.choices and not spec.items else None
        parser.add_argument(flag, dest=name, type=convert, default=argparse.SUPPRESS, required=spec.required,
                            metavar=metavar, action="append" if spec.append else "store",
                            help=(spec.help + shown + (" (repeat the flag for several)" if spec.append else "")
                                  + ("; - for standard input" if spec.stdin and stdin is not None else ""))
                            .replace("%", "%%"))


def from_args(cls: type, args: argparse.Namespace, **extra: Any) -> Any:
    """The Options of ``cls`` from parsed flags (added by :func:`add_arguments`) and ``extra`` values."""
    given = {name: getattr(args, name) for name in specs(cls) if hasattr(args, name)}
    return cls(**(given | extra))


def from_section(cls: type, section: Any, path: str | Path, name: str, base: Path | None = None,
                 **extra: Any) -> Any:
    """The Options of ``cls`` from job-file table ``[name]``; relative paths are relative to ``base``.

    Every problem is an InputError naming ``path`` and ``[name.key]`` (or ``[name]``) and what is allowed.
    """
    if not isinstance(section, Mapping):
        raise InputError(path, "must be a table", field=name)
    known = {key: spec for key, spec in specs(cls).items() if spec.job}
    unknown = sorted(set(section) - set(known))
    if unknown:
        raise InputError(path, f"unknown setting(s) {unknown}; known: {sorted(known)}", field=name)
    values = {}
    for key, value in section.items():
        try:
            values[key] = check_value(known[key], value)
        except ValueError as exc:
            raise InputError(path, str(exc), field=f"{name}.{key}") from None
        if known[key].type is Path and base is not None:
            values[key] = tuple(base / v for v in values[key]) if known[key].items else base / values[key]
    try:
        return cls(**(values | extra))
    except InputError as exc:  # a rule between settings (fractions summing to 1...) or a missing one
        raise InputError(path, exc.message, field=f"{name}.{exc.field}" if exc.field else name) from None


def settings(options: Any) -> dict[str, Any]:
    """The job-file settings of ``options`` as JSON values, for a fingerprint (paths as strings)."""
    def plain(value: Any) -> Any:
        if isinstance(value, tuple):
            return [plain(v) for v in value]
        return str(value) if isinstance(value, Path) else value
    return {name: plain(getattr(options, name)) for name, spec in specs(type(options)).items() if spec.job}


def reference(cls: type, section: str) -> str:
    """The Markdown table documenting table ``[section]`` of a job file."""
    lines = [f"### `[{section}]`", "", "| key | allowed | default | what |", "|---|---|---|---|"]
    for f in dataclasses.fields(cls):
        spec = f.metadata.get(_KEY)
        if spec is None or not spec.job:
            continue
        default = "required" if spec.required else "-" if f.default is None else f"`{show(f.default)}`"
        lines.append(f"| `{f.name}` | {spec.describe()} | {default} | {spec.help} |")
    return "\n".join(lines) + "\n"
