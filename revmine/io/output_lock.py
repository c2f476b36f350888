"""One writer per output: an advisory lock beside it, held for the whole command, and the clean-up after a
writer that was killed.

Two commands writing one ``--out`` at once raced (two ``git init`` in one clone folder, a manifest saying a
project failed while its rows were written). Every command that writes an output takes this lock first
(:func:`revmine.io.staging.command_output`); readers take none. A second writer waits, saying who holds it,
or with ``--no-lock-wait`` stops at once with one error line.

Why beside the output (``.NAME.lock`` in its parent) and not inside: a stage replaces its folder whole
(:func:`revmine.io.staging.staged_directory`), which would take a lock inside with it, and a file output has no
inside. Why ``flock``: the kernel releases it when its holder dies, ``kill -9`` included, so a lock is never
stale. The file names its holder (PID, host, command) for whoever waits; a holder that ends removes it, so
a file found with a holder's name when the lock is taken was left by a writer that was killed: the new
holder says so and removes that writer's temporaries (:func:`remove_temporaries`). A writer that opened the
file just before its holder removed it checks, once it holds the lock, that the path is still that file
(else it opens the new one and tries again), so two writers never hold two files of one name.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import shutil
import socket
import sys
from pathlib import Path
from typing import Callable, Iterator

from ..errors import OperationError, output_error

#: revmine's temporaries, by name: ``.<name>.<8 characters of mkstemp/mkdtemp>.(tmp|new|old)`` (atomic
#: writes, staged folders, the replayed forge's repositories) and ``.revmine-run-<32 hex>`` (a Dask mining
#: job's marker); nothing else is ever removed.
TEMPORARY = re.compile(r"\..+\.[a-z0-9_]{8}\.(tmp|new|old)|\.revmine-run-[0-9a-f]{32}")


class OutputLocked(OperationError):
    """Another revmine is writing the output and the command was asked not to wait."""


def lock_path(out: Path) -> Path:
    return out.parent / f".{out.name}.lock"


def _holder(command: str) -> str:
    return f"PID {os.getpid()} on {socket.gethostname()}: {command[:200]}"


def _read(fd: int) -> str:
    os.lseek(fd, 0, os.SEEK_SET)
    return os.read(fd, 4096).decode("utf-8", "replace").strip()


def _open_locked(path: Path, out: Path, wait: bool, say: Callable[[str], None]) -> int | None:
    """A descriptor of the lock file at ``path``, locked (see the module docstring for the re-check); None
    when the disk refuses the file: nothing can be written there, and the command's first write says why
    in its own words (naming the file it writes)."""
    while True:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)  # again: a failed holder removes what it created
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            if output_error(exc, path) is None:
                raise
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read(fd) or "another revmine"
            if not wait:
                os.close(fd)
                raise OutputLocked(f"{out}: {holder} is writing it; run again when it ends, or give another --out")
            say(f"revmine: waiting for {holder}, which is writing {out}")
            fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            same = os.fstat(fd).st_ino == os.stat(path).st_ino
        except FileNotFoundError:
            same = False
        if same:
            return fd
        os.close(fd)  # its holder removed it as we waited: the next writer's file is the lock now


@contextlib.contextmanager
def output_lock(out: str | Path, command: str, wait: bool = True,
                say: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold the lock of ``out`` for the ``with`` block as ``command`` (its parent folders are made if needed;
    ``say`` tells of a wait and of a killed writer's clean-up: stderr if None)."""
    say = say or (lambda line: print(line, file=sys.stderr, flush=True))
    out = Path(out).absolute()
    path = lock_path(out)
    fd = _open_locked(path, out, wait, say)
    if fd is None:
        yield
        return
    try:
        killed = _read(fd)
        if killed:
            removed = remove_temporaries(out)
            say(f"revmine: note: the last writer of {out} ({killed}) was stopped before it ended; "
                f"{removed} of its temporaries removed")
        os.ftruncate(fd, 0)
        os.pwrite(fd, _holder(command).encode("utf-8"), 0)
        yield
    finally:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        os.close(fd)  # closing releases the lock


def remove_temporaries(out: Path) -> int:
    """Remove revmine's temporaries (:data:`TEMPORARY`) inside ``out`` and its own staged siblings
    (``.<out name>.XXXXXXXX.new`` / ``.old`` beside it); how many were removed."""
    found = [p for p in out.rglob(".*") if TEMPORARY.fullmatch(p.name)] if out.is_dir() else []
    found += [p for p in out.parent.glob(f".{out.name}.*") if TEMPORARY.fullmatch(p.name)]
    removed = 0
    for path in sorted(found, key=lambda p: len(p.parts)):  # a folder before what it holds
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        elif path.exists() or path.is_symlink():
            path.unlink(missing_ok=True)
        else:
            continue  # inside a folder removed already
        removed += 1
    return removed
