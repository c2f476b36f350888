"""Multi-file stage outputs that appear whole or not at all.

A stage that writes several files (the filter's kept/dropped/report, the split's train/eval/test/dropped and
``split.json``, the export's folder tree) must never leave a mix of two runs: a re-run with another seed
that fails half-way would otherwise leave train from one seed beside test from the other (leakage), and
an export with fewer formats would leave the earlier run's files beside a card that does not list them.

:func:`staged_directory` gives the stage an empty temporary sibling of its output directory; only when the
stage succeeds is the old directory renamed away, the new one renamed in, and the old one deleted. Both
renames are within one parent directory (atomic on POSIX); between them the output is briefly absent,
never mixed. Because the old directory is deleted whole, an existing output directory must hold only
entries the stage writes (``owned``): a mistyped ``--out`` pointing at a directory of other files is
refused instead of erased.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from pathlib import Path
from typing import Iterable, Iterator

from .errors import InputError

__all__ = ["staged_directory"]


@contextlib.contextmanager
def staged_directory(dest: str | Path, owned: Iterable[str]) -> Iterator[Path]:
    """Yield an empty directory beside ``dest`` that replaces ``dest`` whole if the block succeeds."""
    dest = Path(dest)
    if dest.exists():
        if not dest.is_dir():
            raise InputError(dest, "output exists and is not a directory")
        foreign = sorted(p.name for p in dest.iterdir() if p.name not in set(owned))
        if foreign:
            raise InputError(dest, f"output directory holds entries this stage does not write ({', '.join(foreign[:5])}"
                                   f"{', ...' if len(foreign) > 5 else ''}); it would replace them: give an empty "
                                   "or new directory")
    dest.parent.mkdir(parents=True, exist_ok=True)
    new = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", suffix=".new", dir=dest.parent))
    try:
        yield new
        old = new.with_suffix(".old")
        if dest.exists():
            os.rename(dest, old)
        try:
            os.rename(new, dest)
        except OSError:
            if old.exists():
                os.rename(old, dest)
            raise
        _fsync_dir(dest.parent)
        shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(new, ignore_errors=True)


def _fsync_dir(path: Path) -> None:
    """Make the renames durable (a no-op where directories cannot be opened, e.g. Windows)."""
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
