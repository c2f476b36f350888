"""Multi-file stage outputs that appear whole or not at all.

A stage that writes several files (the filter's kept/dropped/report, the split's train/eval/test/dropped and
``split.json``, the export's folder tree) must never leave a mix of two runs: a re-run with another seed
that fails half-way would otherwise leave train from one seed beside test from the other (leakage), and
an export with fewer formats would leave the earlier run's files beside a card that does not list them.

:func:`staged_directory` gives the stage an empty temporary sibling of its output directory; only when the
stage succeeds is the old directory renamed away, the new one renamed in, and the old one deleted. Both
renames are within one parent directory (atomic on POSIX); between them the output is briefly absent,
never mixed; a disk refusing the writes is one error naming ``dest`` (never the temporary folder, which
is removed). Because the old directory is deleted whole, an existing output directory must hold only
entries the stage writes (``owned``): a mistyped ``--out`` pointing at a directory of other files is
refused instead of erased.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import tempfile
from pathlib import Path
from typing import Callable, Iterable, Iterator

from ..errors import InputError, OperationError, output_error
from .output_lock import output_lock
from .store import new_mode, writing

__all__ = ["check_writable", "command_output", "staged_directory"]


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
    with writing(dest):
        dest.parent.mkdir(parents=True, exist_ok=True)
        new = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", suffix=".new", dir=dest.parent))
        os.chmod(new, new_mode(directory=True))  # not mkdtemp's 0700: others may read the output
    try:
        try:
            yield new
        except OperationError as exc:  # a write into the staging folder failed: name the output, not the folder
            raise OperationError(str(exc).replace(str(new), str(dest))) from exc
        old = new.with_suffix(".old")
        with writing(dest):
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


@contextlib.contextmanager
def command_output(out: str | Path | None, keep: Callable[[Path], bool] = lambda out: False, *,
                   command: str = "revmine", wait: bool = True, say: Callable[[str], None] | None = None,
                   directory: bool = True) -> Iterator[None]:
    """Run a command that writes to ``out`` as its one writer, so that a failure leaves nothing it created.

    The command holds ``out``'s lock (:func:`revmine.io.output_lock.output_lock`: a second writer waits, or
    fails at once unless ``wait``) and removes the temporaries of a writer that was killed. If the block
    raises, the topmost folder (or file) of ``out`` that did not exist before is removed, unless
    ``keep(out)``: a resumable command's checkpoints are progress, not debris. A disk refusing a write under
    ``out`` (a file in the way, read-only, full) becomes one :class:`~revmine.errors.OperationError`, before
    the command's work when :func:`check_writable` can tell (``out`` a folder, or a file if not ``directory``).
    """
    if out is None:
        yield
        return
    out = Path(out).absolute()
    created = next((p for p in (*reversed(out.parents), out) if not p.exists()), None)
    with output_lock(out, command, wait, say):
        try:
            check_writable(out, directory)
            yield
        except BaseException as exc:
            if created is not None and created.exists() and not (out.is_dir() and keep(out)):
                shutil.rmtree(created) if created.is_dir() else created.unlink()
            if isinstance(exc, OSError) and exc.filename is not None and _within(Path(str(exc.filename)), out):
                error = output_error(exc, exc.filename)
                if error is not None:
                    raise error from exc
            raise


def check_writable(out: Path, directory: bool = True) -> None:
    """Refuse an output that cannot be written before the work, not after it: the folder that will hold it
    (``out`` itself, or its parent for a file) is made and a probe file written into it and removed."""
    folder = out if directory else out.parent
    try:
        if out.exists() and out.is_dir() != directory:
            code = errno.ENOTDIR if directory else errno.EISDIR
            raise OSError(code, os.strerror(code), str(out))
        folder.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".revmine-probe.", suffix=".tmp", dir=folder)  # a TEMPORARY name
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        error = output_error(exc, out)
        if error is None:
            raise
        raise error from exc


def _within(path: Path, folder: Path) -> bool:
    path = path.absolute()
    return path == folder or folder in path.parents
