"""Progress of a long stage on stderr: a bar on a terminal, a plain line every few seconds in a log or a pipe.

A bar redrawn with carriage returns is unreadable in a CI log or a file, and nothing at all leaves a
user of a three-hour run without news; so off a terminal a line such as ``preprocess: 1200/5000 files
(24%), 31 s`` is printed every :data:`EVERY` seconds and once at the end. ``revmine -q`` turns both off
(``enabled=False``: tqdm's own disabled bar). The interface is the part of tqdm's that the stages use: ``update``, iteration,
use as a context manager.
"""

from __future__ import annotations

import sys
import threading
import time
from contextlib import contextmanager
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


class Watch:
    """What a job is waiting on, said on stderr while a wait lasts: a line every ``every`` seconds for each wait
    that has lasted that long (``waiting 20 s on git fetch from review.example.org``), none for quick ones.

    Why: a server that accepts a connection and never answers left ``revmine run`` silent after
    ``[1/5] mine ...`` for as long as it waited; a user could not tell a stall from slow work. Waits are
    bounded elsewhere (the miners' ``stall_timeout``); this says which one is running. Threads may wait at once
    (a job mines several changes at a time): each wait is shown. One daemon thread, started by the first wait.
    """

    def __init__(self, enabled: bool = True, every: float = EVERY, stream: IO[str] | None = None):
        self.enabled, self.every = enabled, every
        self.stream = stream or sys.stderr
        self._waits: dict[object, list[Any]] = {}  # a wait -> [what, started, last shown]
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    @contextmanager
    def wait(self, what: str) -> Iterator[None]:
        """Around a wait on ``what`` (a request, a fetch)."""
        if not self.enabled:
            yield
            return
        key, now = object(), time.monotonic()
        with self._lock:
            self._waits[key] = [what, now, now]
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="revmine-watch", daemon=True)
                self._thread.start()
        try:
            yield
        finally:
            with self._lock:
                del self._waits[key]

    def _run(self) -> None:
        while not self._stop.wait(min(self.every / 4, 1.0)):
            now, lines = time.monotonic(), []
            with self._lock:
                for wait in self._waits.values():
                    if now - wait[2] >= self.every:
                        wait[2] = now
                        lines.append(f"waiting {now - wait[1]:.0f} s on {wait[0]}")
            for line in lines:
                print(line, file=self.stream, flush=True)

    def close(self) -> None:
        self._stop.set()
