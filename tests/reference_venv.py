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

Real code that the fixtures lack (released files of packages) is fetched the same way, once, by the package
registries' own clients (``npm_package``, ``maven_artifact``, ``crate``), into ``<cache>/downloads`` and pinned by
sha256: a registry that cannot be reached, or a file that is not the pinned one, raises ``ReferenceUnavailable``.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable, Sequence

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


def _run(step: Sequence[str], cwd: Path | None = None) -> None:
    try:
        proc = subprocess.run(list(step), capture_output=True, text=True, timeout=PIP_TIMEOUT, cwd=cwd)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ReferenceUnavailable(f"{' '.join(step)} failed: {exc}") from exc
    if proc.returncode != 0:
        raise ReferenceUnavailable(f"{' '.join(step)} failed:\n{_tail(proc.stdout + proc.stderr)}")


def _download(filename: str, sha256: str, fetch: Callable[[Path], Path]) -> Path:
    """``filename`` from the cache, or fetched into it by ``fetch(scratch folder)`` (which returns where the
    client put it), checked against ``sha256`` either way."""
    folder = cache_root() / "downloads"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ReferenceUnavailable(f"cannot make the cache folder {folder} (set REVMINE_REFERENCE_CACHE): "
                                   f"{exc}") from exc
    kept = folder / filename
    with open(folder / f"{filename}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not kept.exists():
            scratch = folder / f"{filename}.partial"
            shutil.rmtree(scratch, ignore_errors=True)
            scratch.mkdir()
            try:
                shutil.copyfile(fetch(scratch), scratch / ".file")
                (scratch / ".file").replace(kept)
            finally:
                shutil.rmtree(scratch, ignore_errors=True)
        found = hashlib.sha256(kept.read_bytes()).hexdigest()
        if found != sha256:
            kept.unlink()
            raise ReferenceUnavailable(f"{filename} has sha256 {found}, not the pinned {sha256}")
    return kept


def npm_package(name: str, version: str, sha256: str) -> Path:
    """The tarball of ``name@version`` as ``npm pack`` fetches it from the npm registry."""
    filename = f"{name.lstrip('@').replace('/', '-')}-{version}.tgz"

    def fetch(scratch: Path) -> Path:
        _run(["npm", "pack", "--silent", f"{name}@{version}", "--pack-destination", str(scratch)], cwd=scratch)
        return scratch / filename
    return _download(filename, sha256, fetch)


def maven_artifact(group: str, artifact: str, version: str, sha256: str) -> Path:
    """The jar of ``group:artifact:version`` as Maven's dependency plugin copies it from Maven Central."""
    filename = f"{artifact}-{version}.jar"

    def fetch(scratch: Path) -> Path:
        _run(["mvn", "-q", "-B", "dependency:copy", f"-Dartifact={group}:{artifact}:{version}",
              f"-DoutputDirectory={scratch}"], cwd=scratch)
        return scratch / filename
    return _download(filename, sha256, fetch)


def crate(name: str, version: str, sha256: str) -> Path:
    """The ``.crate`` (a tar.gz of the sources) of ``name`` ``version`` as ``cargo fetch`` downloads it from
    Rust's package registry for a scratch project that depends on exactly that version."""
    filename = f"{name}-{version}.crate"

    def fetch(scratch: Path) -> Path:
        (scratch / "src").mkdir()
        (scratch / "src" / "lib.rs").write_text("")
        (scratch / "Cargo.toml").write_text(f'[package]\nname = "scratch"\nversion = "0.0.0"\nedition = "2021"\n\n'
                                            f'[dependencies]\n{name} = {{ version = "={version}", '
                                            f'default-features = false }}\n')
        _run(["cargo", "fetch", "--quiet", "--manifest-path", str(scratch / "Cargo.toml")], cwd=scratch)
        home = Path(os.environ.get("CARGO_HOME") or Path.home() / ".cargo")
        found = sorted((home / "registry" / "cache").glob(f"*/{filename}"))
        if not found:
            raise ReferenceUnavailable(f"cargo fetch left no {filename} under {home / 'registry' / 'cache'}")
        return found[0]
    return _download(filename, sha256, fetch)
