"""A local bare clone per project: file contents at review revisions come from git, not HTTP.

Why plain ``git`` subprocesses: one ``git fetch`` brings every patch set (Gerrit ``refs/changes/*``)
or pull-request head (GitHub ``refs/pull/*/head``), and two long-lived plumbing processes per repository
answer every later question without a process per question (spawning git costs 3-5 ms, which alone
capped replay near 200 rounds/s): ``git cat-file --batch-command`` reads blobs and
``git diff-tree --stdin`` detects renames. Both flush one answer per request line.
A revision that git cannot reach (force-pushed away, garbage-collected) is reported as missing so the
caller can fall back to the REST content endpoint or drop the round with a reason.
A repository is shared by the threads mining a project's changes: one lock keeps each question and its
answer together on the pipes (git answers in microseconds; the threads wait on the network).
"""

from __future__ import annotations

import errno
import fcntl
import os
import re
import signal
import subprocess
import threading
import time
from contextlib import contextmanager
from functools import wraps
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, TypeVar

from ..errors import OperationError, output_error
from ..runtime.progress import Watch
from .base import source_text
from .http import Stats, redact_url

_ENV = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}


F = TypeVar("F", bound=Callable[..., Any])


def _locked(method: F) -> F:
    """Run ``method`` holding the repository's lock (see the module docstring)."""
    @wraps(method)
    def run(self: "GitRepo", *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            return method(self, *args, **kwargs)
    return run  # type: ignore[return-value]


def _with_config(env: dict[str, str], key: str, value: str) -> dict[str, str]:
    """``env`` plus one git setting, through ``GIT_CONFIG_COUNT`` (git 2.31+): for ``http.<url>.extraHeader``
    the header reaches no command line, file or other host, and git never prints it."""
    n = int(env.get("GIT_CONFIG_COUNT") or 0)
    return {**env, "GIT_CONFIG_COUNT": str(n + 1), f"GIT_CONFIG_KEY_{n}": key, f"GIT_CONFIG_VALUE_{n}": value}


def _bounded(env: dict[str, str], stall_timeout: float) -> dict[str, str]:
    """``env`` with every network wait of git bounded by ``stall_timeout`` seconds without data.

    git-remote-http has no timeout of its own: a server that accepts the connection and never answers held
    ``git fetch`` forever. curl's low-speed limit (``http.lowSpeedLimit`` 1 byte/s for ``http.lowSpeedTime``)
    aborts such a transfer, whether it stalls before the first byte or mid-pack, with "Operation too slow" (curl
    averages the speed over its last ~6 s, so a stall after some bytes is seen up to ~6 s late); a
    large fetch that is slow but moving is not cut (git's server sends keep-alive packets while it packs).
    Over ssh, the client's ``ConnectTimeout`` and ``ServerAlive*`` do the same, unless the user set
    ``GIT_SSH_COMMAND``.
    """
    seconds = str(max(1, round(stall_timeout)))
    env = _with_config(_with_config(env, "http.lowSpeedLimit", "1"), "http.lowSpeedTime", seconds)
    if "GIT_SSH_COMMAND" not in env:
        alive = max(1, round(stall_timeout / 4))
        env["GIT_SSH_COMMAND"] = (f"ssh -o ConnectTimeout={seconds} -o ServerAliveInterval={alive} "
                                  "-o ServerAliveCountMax=4")
    return env


#: what the stderr of a git command stopped by :func:`_run_connect_bounded` ends with
_UNCONNECTED = "connection not open within"
#: curl's trace lines (``GIT_TRACE_CURL``) saying that a connection is being opened, and that it is open
_CONNECTING = (b"== Info: Trying ", b"== Info: Resolving", b"== Info: Hostname")
_CONNECTED = (b"== Info: Connected to ", b"== Info: Re-using existing connection")
#: a trace line starts with its time of day; git's own messages do not
_TRACE_LINE = re.compile(rb"\d\d:\d\d:\d\d\.\d+ ")


def _run_connect_bounded(args: list[str], env: dict[str, str], connect_timeout: float | None
                         ) -> subprocess.CompletedProcess:
    """Run a git command over HTTP and stop it when opening a connection takes ``connect_timeout`` seconds
    (None: no bound); the finished process, its stderr without the trace lines and, if it was stopped, ending
    with a line saying :data:`_UNCONNECTED`.

    Why: curl's low-speed limit (:func:`_bounded`) counts only once connected, and git exposes no connect timeout:
    a host that drops the handshake (a firewall) held ``git fetch`` for the kernel's ~2 minutes of SYN retries per
    try. curl's trace (``GIT_TRACE_CURL``, without data; it redacts credentials) says when a connection is being
    opened and when it is open: only that phase is timed, so a long transfer or git's local work after it is never
    cut. The command runs in its own process group (git-remote-http is git's child): SIGTERM lets git remove its
    lock files, SIGKILL follows if it does not end.
    """
    if connect_timeout is None:
        return subprocess.run(args, capture_output=True, env=env)
    env = {**env, "GIT_TRACE_CURL": "2", "GIT_TRACE_CURL_NO_DATA": "1"}
    popen = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, start_new_session=True)
    state = {"since": time.monotonic()}  # since when a connection is being opened (absent: none is)
    kept: list[bytes] = []
    out: list[bytes] = []

    def read() -> None:
        assert popen.stderr is not None
        for line in popen.stderr:
            if not _TRACE_LINE.match(line):
                kept.append(line)
            elif any(sign in line for sign in _CONNECTING):
                state.setdefault("since", time.monotonic())
            elif any(sign in line for sign in _CONNECTED):
                state.pop("since", None)
    readers = [threading.Thread(target=read, daemon=True),
               threading.Thread(target=lambda: out.append(popen.stdout.read()), daemon=True)]  # type: ignore[union-attr]
    for reader in readers:
        reader.start()
    stopped = False
    while popen.poll() is None:
        since = state.get("since")
        if since is not None and time.monotonic() - since > connect_timeout:
            stopped = True
            _stop_group(popen)
            break
        try:
            popen.wait(timeout=0.1)
        except subprocess.TimeoutExpired:
            pass
    for reader in readers:
        reader.join(timeout=5)
    for stream in (popen.stdout, popen.stderr):  # read to their end by the readers (or the group is gone)
        if stream is not None:
            stream.close()
    if stopped:
        kept.append(f"fatal: {_UNCONNECTED} {connect_timeout:g} s\n".encode())
    return subprocess.CompletedProcess(args, popen.returncode, b"".join(out), b"".join(kept))


def _stop_group(popen: subprocess.Popen) -> None:
    """Stop a process group: SIGTERM, then SIGKILL after 2 s (see :func:`_run_connect_bounded`)."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(popen.pid, sig)
        except ProcessLookupError:
            return
        try:
            popen.wait(timeout=2)
            return
        except subprocess.TimeoutExpired:
            continue


class GitError(OperationError):
    """A git command failed; the message names the repository and the command."""


class GitRefused(GitError):
    """The server refused git's credentials (HTTP 401 or 403): the project's credentials are wrong, which
    the job reports as such, not as a broken repository."""


class GitStalled(GitError):
    """The server sent nothing for the stall timeout on every try: the project fails as stalled."""


#: How git says the server answered 401/403: it asks for a user name it cannot prompt for, or says so.
_REFUSED = ("could not read Username", "Authentication failed", "returned error: 401", "returned error: 403")
#: How git says a wait was cut by the bounds of :func:`_bounded` (curl's error 28; ssh's timeouts).
_STALLED = (_UNCONNECTED, "Operation too slow", "Operation timed out", "Connection timed out", "Timeout, server")


class _Pipe:
    """A long-lived git process fed one request at a time, with a buffer to read its framed answers."""

    def __init__(self, repo: Path, *args: str):
        self.proc = subprocess.Popen(["git", "-C", str(repo), *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, env=_ENV)
        self.command = args[0]
        self._buf = b""

    def alive(self) -> bool:
        return self.proc.poll() is None

    def send(self, text: str) -> None:
        assert self.proc.stdin
        self.proc.stdin.write(text.encode("utf-8"))
        self.proc.stdin.flush()

    def _fill(self) -> None:
        assert self.proc.stdout
        chunk = self.proc.stdout.read1(1 << 16)
        if not chunk:
            raise GitError(f"git {self.command} stopped answering")
        self._buf += chunk

    def until(self, sep: bytes) -> bytes:
        """The bytes up to the next ``sep`` (consumed, not returned)."""
        while (i := self._buf.find(sep)) < 0:
            self._fill()
        out, self._buf = self._buf[:i], self._buf[i + len(sep):]
        return out

    def exact(self, n: int) -> bytes:
        while len(self._buf) < n:
            self._fill()
        out, self._buf = self._buf[:n], self._buf[n:]
        return out

    def close(self) -> None:
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream:
                stream.close()
        self.proc.wait()


class GitRepo:
    """A bare mirror of a forge's repository, with fast reads of blobs at commits."""

    def __init__(self, path: str | Path, url: str, refspecs: list[str], auth_header: str | None = None, *,
                 stall_timeout: float = 60.0, retries: int = 2, stats: Stats | None = None,
                 watch: Watch | None = None):
        self.path = Path(path)
        self.url = url
        self.refspecs = refspecs
        env = _bounded(_ENV, stall_timeout)
        self._env = env if auth_header is None else _with_config(env, f"http.{url}.extraHeader", auth_header)
        self.stall_timeout, self.retries = stall_timeout, retries
        self.stats = Stats() if stats is None else stats  # stalls and retries (a job passes its client's counts)
        self.watch = watch or Watch(enabled=False)
        self._pipes: dict[str, _Pipe] = {}
        self._lock = threading.RLock()

    def _git(self, *args: str, check: bool = True, network: bool = False) -> subprocess.CompletedProcess:
        """Run git in the clone; ``network``: a command that talks to the URL, whose connect phase is bounded."""
        bounded = network and self.url.startswith(("http://", "https://"))
        proc = _run_connect_bounded(["git", "-C", str(self.path), *args], self._env,
                                    self.stall_timeout if bounded else None)
        if proc.returncode != 0 and b"No space left on device" in proc.stderr:  # the disk, not the repository
            full = output_error(OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)), self.path)
            assert full is not None  # ENOSPC always has its advice
            raise full
        if check and proc.returncode != 0:
            self._fail(proc, args)
        return proc

    def _fail(self, proc: subprocess.CompletedProcess, args: tuple[str, ...]) -> None:
        lines = proc.stderr.decode("utf-8", "replace").strip().splitlines() or [""]
        # git's first fatal line says what went wrong; advice ("Please make sure...") may follow it
        err = next((line for line in lines if line.startswith(("fatal:", "error:"))), lines[-1])
        refused = any(sign in err for sign in _REFUSED)
        raise (GitRefused if refused else GitError)(f"{self.path}: git {args[0]} failed: {err}")

    def _pipe(self, *args: str) -> _Pipe:
        pipe = self._pipes.get(args[0])
        if pipe is None or not pipe.alive():
            pipe = self._pipes[args[0]] = _Pipe(self.path, *args)
        return pipe

    @contextmanager
    def _writing(self) -> Iterator[None]:
        """Hold the clone's lock (an ``flock`` on ``.NAME.lock`` beside it) while git changes it: a clone
        folder (``--repos``) may be shared by runs into other outputs, and two ``git init`` or ``git fetch``
        in one repository at once fail ("cannot copy ... File exists") or interleave ``FETCH_HEAD``.
        Readers need no lock: git adds objects before it moves refs."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path.parent / f".{self.path.name}.lock", "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            yield  # closing the file releases the lock

    @_locked
    def sync(self) -> None:
        """Create the bare clone if needed and fetch every review ref (one fetch per run)."""
        with self._writing():
            if not (self.path / "HEAD").exists():
                self.path.mkdir(parents=True, exist_ok=True)
                self._git("init", "--quiet", "--bare")
            # from the URL of this run, not a stored remote: the clone may be shared or the URL moved
            self._fetch(*self.refspecs)
        self.close()  # running readers must see the new objects

    @_locked
    def fetch_commit(self, sha: str) -> bool:
        """Try to fetch one commit the refs did not bring (servers may allow fetching by sha)."""
        return self._fetched(sha) and self.has_commit(sha)

    @_locked
    def fetch_commits(self, shas: list[str]) -> dict[str, bool]:
        """Fetch commits the refs did not bring in one ``git fetch`` (a merge request's force-pushed versions);
        when the server refuses one of them (git then fetches none), each is tried alone."""
        if len(shas) == 1:
            return {shas[0]: self.fetch_commit(shas[0])}
        return self.has_commits(shas) if self._fetched(*shas) else {sha: self.fetch_commit(sha) for sha in shas}

    def _fetched(self, *shas: str) -> bool:
        """Whether git fetched ``shas`` (a refusal is an answer; a stall is not, and raises :class:`GitStalled`);
        the readers are restarted to see the new objects."""
        try:
            with self._writing():
                self._fetch(*shas)
            return True
        except GitStalled:
            raise
        except GitError:
            return False
        finally:
            self.close()

    def _fetch(self, *refspecs: str) -> None:
        """``git fetch`` of ``refspecs`` from the URL; a stall (see :func:`_bounded` and :func:`_run_connect_bounded`)
        is retried ``retries`` times after 1, 2, 4... s, then is :class:`GitStalled` (each stall and retry counted
        in ``stats``)."""
        what = f"git fetch from {redact_url(self.url)}"
        stalled = ""
        for attempt in range(self.retries + 1):
            with self.watch.wait(what):
                proc = self._git("fetch", "--quiet", "--no-tags", self.url, *refspecs, check=False, network=True)
            if proc.returncode == 0:
                return
            if not any(sign.encode() in proc.stderr for sign in _STALLED):
                self._fail(proc, ("fetch",))
            stalled = "no connection within" if _UNCONNECTED.encode() in proc.stderr else "no data for"
            self.stats.add("git_stalls")
            if attempt < self.retries:
                self.stats.add("retries")
                time.sleep(min(2 ** attempt, 60))
        raise GitStalled(f"{self.path}: {what} stalled: {stalled} {self.stall_timeout:g} s, "
                         f"{self.retries + 1} tries")

    # --- object reads through one cat-file process ---------------------------------------------------
    @_locked
    def _batch(self, commands: list[str]) -> list[tuple[str | None, bytes | None]]:
        """(object id or None if missing, contents for ``contents`` commands) of each command.

        All commands go in one write and the answers are read back in order: one round trip to git
        for the lot, which is what a read costs once the process runs. Chunks keep the pending
        commands well below a pipe's buffer, so git never blocks on input while we wait on output.
        """
        pipe = self._pipe("cat-file", "--batch-command")
        answers: list[tuple[str | None, bytes | None]] = []
        for i in range(0, len(commands), 64):
            chunk = commands[i:i + 64]
            pipe.send("".join(f"{c}\n" for c in chunk))
            for command in chunk:
                header = pipe.until(b"\n").decode("utf-8", "replace")
                if not header or header.endswith((" missing", " ambiguous")):
                    answers.append((None, None))
                    continue
                oid, _kind, size = header.rsplit(" ", 2)
                data = pipe.exact(int(size) + 1)[:-1] if command.startswith("contents ") else None
                answers.append((oid, data))  # contents are followed by a newline, dropped above
        return answers

    def read_many(self, wanted: list[tuple[str, str]], commits: Iterable[str] = ()
                  ) -> tuple[list[str | None], dict[str, bool]]:
        """Texts of (commit, path) pairs (None: no such file, or no such commit) and whether git has
        each of ``commits``, in one round trip (a round reads two revisions of a file it may not know).
        A content that is not UTF-8 text raises :class:`~.base.Dropped` (``bad_encoding``): the file is dropped."""
        commits = list(commits)
        answers = self._batch([f"contents {sha}:{path}" for sha, path in wanted]
                              + [f"info {sha}^{{commit}}" for sha in commits])
        texts = [None if data is None else source_text(data, f"{path} at {sha}")
                 for (sha, path), (_, data) in zip(wanted, answers)]
        return texts, {sha: oid is not None for sha, (oid, _) in zip(commits, answers[len(wanted):])}

    def has_commits(self, shas: Iterable[str]) -> dict[str, bool]:
        return self.read_many([], shas)[1]

    def has_commit(self, sha: str) -> bool:
        return self.has_commits([sha])[sha]

    def blob_ids(self, wanted: list[tuple[str, str]]) -> list[str | None]:
        """The blob id of each (commit, path) (None: no such file there), in one round trip."""
        return [oid for oid, _ in self._batch([f"info {sha}:{path}" for sha, path in wanted])]

    def root_files(self, sha: str) -> dict[str, str] | None:
        """{name: blob id} of the files at the top of ``sha``'s tree (None: git lacks the commit), one round trip.

        ``cat-file`` gives a tree as git stores it: entries of ``<mode> <name>\\0`` and a 20-byte binary id."""
        _, data = self._batch([f"contents {sha}^{{tree}}"])[0]
        if data is None:
            return None
        files, at = {}, 0
        while at < len(data):
            space, nul = data.index(b" ", at), data.index(b"\0", at)
            mode, name = data[at:space], data[space + 1:nul].decode("utf-8", "replace")
            if mode.startswith(b"100"):  # a file (not a folder, 40000; a link, 120000; a submodule, 160000)
                files[name] = data[nul + 1:nul + 21].hex()
            at = nul + 21
        return files

    def blob_text(self, oid: str) -> str | None:
        """A blob's text by its id (None: git lacks it); bytes that are not UTF-8 are replaced."""
        _, data = self._batch([f"contents {oid}"])[0]
        return None if data is None else data.decode("utf-8", "replace")

    def read(self, sha: str, path: str) -> str | None:
        """The text of ``path`` at ``sha`` (None: no such file there)."""
        return self.read_many([(sha, path)])[0][0]

    @_locked
    def commits_between(self, base: str, head: str) -> list[str] | None:
        """Commits reachable from ``head`` and not from ``base``, parents first (a pull request's
        commits); None when git lacks either."""
        proc = self._git("rev-list", "--topo-order", "--reverse", head, f"^{base}", "--", check=False)
        return proc.stdout.decode("ascii").split() if proc.returncode == 0 else None

    @_locked
    def renamed_to(self, before: str, after: str, path: str) -> str | None:
        """Where ``path`` went between two commits present in git, if git sees a rename (else None).

        ``diff-tree --stdin`` reads "<commit> <parent>" lines and diffs parent -> commit (any two
        commits will do). Its answer has no end marker, so each question is followed by an empty diff
        (``after`` against itself): with ``--always`` that prints only a header, which ends the answer.
        """
        pipe = self._pipe("diff-tree", "--stdin", "--always", "-r", "-M", "--name-status", "-z")
        pipe.send(f"{after} {before}\n{after} {after}\n")
        header = pipe.until(b"\0")
        moved = None
        while (status := pipe.until(b"\0")) != header:
            old = pipe.until(b"\0").decode("utf-8", "replace")
            new = pipe.until(b"\0").decode("utf-8", "replace") if status[:1] in b"RC" else None
            if status[:1] == b"R" and old == path:
                moved = new
        return moved

    @_locked
    def close(self) -> None:
        """Stop the reader processes (they are restarted on the next read)."""
        for pipe in self._pipes.values():
            pipe.close()
        self._pipes.clear()
