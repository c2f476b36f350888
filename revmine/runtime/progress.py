"""Progress of a long stage on stderr: a bar on a terminal, a plain line every few seconds in a log or a pipe.

A bar redrawn with carriage returns is unreadable in a CI log or a file, and nothing at all leaves a
user of a three-hour run without news; so off a terminal a line such as ``preprocess: 1200/5000 files
(24%), 31 s`` is printed every :data:`EVERY` seconds and once at the end. ``revmine -q`` turns both off
(``enabled=False``: tqdm's own disabled bar). The interface is the part of tqdm's that the stages use: ``update``, iteration,
use as a context manager.
"""

from __future__ import annotations

import sys
import time
from typing import IO, Any, Iterable, Iterator

EVERY = 10.0  # seconds between two lines off a terminal


class Lines:
    """Counts work and prints it as one line every ``every`` seconds and when closed."""

    def __init__(self, iterable: Iterable[Any] | None = None, total: int | None = None, desc: str | None = None,
                 unit: str = "it", every: float = EVERY, stream: IO[str] | None = None):
        self.iterable = iterable
        self.total = total if total is not None or iterable is None else _length(iterable)
        self.desc, self.unit, self.every = desc or "progress", unit, every
        self.stream = stream or sys.stderr
        self.n = 0
        self.started = self.shown = time.monotonic()
        self.closed = False

    def update(self, n: int = 1) -> None:
        self.n += n
        now = time.monotonic()
        if now - self.shown >= self.every:
            self.shown = now
            self._line()

    def _line(self) -> None:
        done = f"{self.n}/{self.total}" if self.total else str(self.n)
        share = f" ({self.n / self.total:.0%})" if self.total else ""
        print(f"{self.desc}: {done} {self.unit}s{share}, "
              f"{time.monotonic() - self.started:.0f} s", file=self.stream, flush=True)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._line()

    def __iter__(self) -> Iterator[Any]:
        for item in self.iterable or ():
            yield item
            self.update()
        self.close()

    def __enter__(self) -> Lines:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _length(iterable: Iterable[Any]) -> int | None:
    try:
        return len(iterable)  # type: ignore[arg-type]
    except TypeError:
        return None


def progress_bar(iterable: Iterable[Any] | None = None, *, total: int | None = None, desc: str | None = None,
                 unit: str = "it", enabled: bool = True, leave: bool = True) -> Any:
    """A tqdm bar when stderr is a terminal, else :class:`Lines`; tqdm's disabled bar when not ``enabled``."""
    if not enabled or sys.stderr.isatty():
        from tqdm import tqdm

        return tqdm(iterable, total=total, desc=desc, unit=unit, leave=leave, disable=not enabled)
    return Lines(iterable, total=total, desc=desc, unit=unit)
