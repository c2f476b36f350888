"""Reference implementations whose dependencies clash with ours, each in a virtualenv of its own.

Why: a metric is checked against the package that defines it, run unchanged, but some of those pin
versions this project cannot install beside its own (``codebleu`` 0.7.0 needs ``tree-sitter<0.23``; we need
``>=0.25``). So the reference runs in a separate interpreter, and values cross as JSON.

``reference_python(name, requirements)`` makes (the first time) a virtualenv with exactly those pip
requirements under ``$REVMINE_REFERENCE_CACHE/<name>`` (default ``~/.cache/revmine/reference/<name>``),
outside the repository and reused between runs; an ``flock`` beside it lets concurrent sessions wait for
one builder. A virtualenv is kept only once pip succeeded (``.complete`` records its requirements; other
requirements rebuild it). ``run_json(python, script, payload)`` runs a script in it, payload on stdin,
and returns the JSON it prints. Failures raise :class:`ReferenceUnavailable` with pip's or the script's
last lines, which the tests turn into a failure, not a skip: a reference that cannot run is not a pass.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Sequence

PIP_TIMEOUT = 900.0  # seconds: a first build on a loaded 2-core machine


class ReferenceUnavailable(RuntimeError):
    """The reference virtualenv could not be made, or its script failed (the message says why)."""


def cache_root() -> Path:
    return Path(os.environ.get("REVMINE_REFERENCE_CACHE") or Path.home() / ".cache" / "revmine" / "reference")


def _tail(text: str, lines: int = 8) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


def reference_python(name: str, requirements: Sequence[str]) -> Path:
    """The interpreter of the virtualenv ``name`` holding ``requirements`` (built by pip the first time)."""
    root = cache_root()
    home = root / name
    wanted = "\n".join(requirements) + "\n"
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ReferenceUnavailable(f"cannot make the cache folder {root} (set REVMINE_REFERENCE_CACHE): {exc}") from exc
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        marker = home / ".complete"
        if marker.exists() and marker.read_text() == wanted:
            return home / "bin" / "python"
        shutil.rmtree(home, ignore_errors=True)  # a half-built one (venv cannot be moved once made)
        try:
            steps = [[sys.executable, "-m", "venv", str(home)],
                     [str(home / "bin" / "python"), "-m", "pip", "install", "--disable-pip-version-check",
                      "--no-input", "-q", *requirements]]
            for step in steps:
                try:
                    proc = subprocess.run(step, capture_output=True, text=True, timeout=PIP_TIMEOUT)
                except subprocess.TimeoutExpired as exc:
                    raise ReferenceUnavailable(f"{' '.join(step[:4])}... took over {PIP_TIMEOUT:.0f} s") from exc
                if proc.returncode != 0:
                    raise ReferenceUnavailable(f"could not build the reference virtualenv {home} "
                                               f"({' '.join(step)}):\n{_tail(proc.stdout + proc.stderr)}")
            marker.write_text(wanted)
        except BaseException:
            shutil.rmtree(home, ignore_errors=True)
            raise
    return home / "bin" / "python"


def run_json(python: Path, script: str, payload: Any, env: dict[str, str] | None = None,
             timeout: float = 1800.0) -> Any:
    """Run ``script`` (Python source) with ``python``, ``payload`` as JSON on stdin, ``env`` added to the
    environment; its stdout as JSON."""
    proc = subprocess.run([str(python), "-c", script], input=json.dumps(payload), capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, **(env or {})})
    if proc.returncode != 0:
        raise ReferenceUnavailable(f"the reference script failed in {python}:\n{_tail(proc.stderr)}")
    return json.loads(proc.stdout)
