"""A local bare clone per project: file contents at review revisions come from git, not HTTP.

Why plain ``git`` subprocesses: one ``git fetch`` brings every patch set (Gerrit ``refs/changes/*``)
or pull-request head (GitHub ``refs/pull/*/head``), and one long-lived ``git cat-file --batch-command``
answers thousands of blob reads without a process per file, which is what makes mining fast.
A revision that git cannot reach (force-pushed away, garbage-collected) is reported as missing so the
caller can fall back to the REST content endpoint or drop the round with a reason.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

_ENV = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}


class GitError(RuntimeError):
    """A git command failed; the message names the repository and the command."""


class GitRepo:
    """A bare mirror of a forge's repository, with fast reads of blobs at commits."""

    def __init__(self, path: str | Path, url: str, refspecs: list[str]):
        self.path = Path(path)
        self.url = url
        self.refspecs = refspecs
        self._batch: subprocess.Popen | None = None

    def _git(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        proc = subprocess.run(["git", "-C", str(self.path), *args], capture_output=True, env=_ENV)
        if check and proc.returncode != 0:
            err = proc.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
            raise GitError(f"{self.path}: git {args[0]} failed: {err[0]}")
        return proc

    def sync(self) -> None:
        """Create the bare clone if needed and fetch every review ref (one fetch per run)."""
        if not (self.path / "HEAD").exists():
            self.path.mkdir(parents=True, exist_ok=True)
            self._git("init", "--quiet", "--bare")
            self._git("remote", "add", "origin", self.url)
        self._git("fetch", "--quiet", "--no-tags", "origin", *self.refspecs)
        self.close()  # a running cat-file must see the new objects

    def fetch_commit(self, sha: str) -> bool:
        """Try to fetch one commit the refs did not bring (servers may allow fetching by sha)."""
        proc = self._git("fetch", "--quiet", "--no-tags", "origin", sha, check=False)
        self.close()
        return proc.returncode == 0 and self.has_commit(sha)

    # --- object reads through one cat-file process ---------------------------------------------------
    def _command(self, command: str) -> tuple[str, bytes | None]:
        if self._batch is None or self._batch.poll() is not None:
            self._batch = subprocess.Popen(
                ["git", "-C", str(self.path), "cat-file", "--batch-command"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=_ENV)
        assert self._batch.stdin and self._batch.stdout
        self._batch.stdin.write(command.encode("utf-8") + b"\n")
        self._batch.stdin.flush()
        header = self._batch.stdout.readline().decode("utf-8", "replace").rstrip("\n")
        if header.endswith(" missing") or header.endswith(" ambiguous") or not header:
            return "missing", None
        oid, kind, size = header.rsplit(" ", 2)
        if not command.startswith("contents "):
            return oid, None
        data = self._batch.stdout.read(int(size))
        self._batch.stdout.read(1)  # the newline after the contents
        return oid, data

    def has_commit(self, sha: str) -> bool:
        return self._command(f"info {sha}^{{commit}}")[0] != "missing"

    def blob_id(self, sha: str, path: str) -> str | None:
        """The blob id of ``path`` at commit ``sha`` (None: no such file there)."""
        oid = self._command(f"info {sha}:{path}")[0]
        return None if oid == "missing" else oid

    def read(self, sha: str, path: str) -> str | None:
        """The text of ``path`` at ``sha`` (None: no such file there)."""
        oid, data = self._command(f"contents {sha}:{path}")
        return None if data is None else data.decode("utf-8", "replace")

    def renamed_to(self, before: str, after: str, path: str) -> str | None:
        """Where ``path`` went between two commits, if git sees a rename (else None)."""
        out = self._git("diff", "--name-status", "-M", "-z", before, after, "--").stdout.decode("utf-8", "replace")
        fields = out.split("\0")
        i = 0
        while i < len(fields) - 1:
            status = fields[i]
            if status.startswith(("R", "C")):
                old, new = fields[i + 1], fields[i + 2]
                if old == path and status.startswith("R"):
                    return new
                i += 3
            else:
                i += 2
        return None

    def close(self) -> None:
        if self._batch is not None:
            if self._batch.stdin:
                self._batch.stdin.close()
            self._batch.wait()
            if self._batch.stdout:
                self._batch.stdout.close()
            self._batch = None
