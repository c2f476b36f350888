"""A recorded forge: REST replies served on 127.0.0.1 and git repositories built from sources.

Why: a mining job (the bundled example, a demo, a bug report) must run with no network and give the
same rows every time. The job keeps its real URLs; :func:`serve_recordings` starts a server for the
recorded replies, builds the repositories, and returns *routes* (:func:`revmine.miners.http.route`)
from those URLs to the server and to the built repositories. Rows, cache keys and checkpoints
therefore name the recorded hosts, never the port the server happened to get.

Folder layout::

    recordings/*.json    a list of exchanges: {"url": the URL as the miner asks for it (query order
                         free), "status", "headers", and "json" (a value, written after an optional
                         "prefix" such as Gerrit's ")]}'\\n") or "text"}. A request that matches no
                         exchange gets a 404, which is what forges answer for vanished objects.
    repos/*/history.toml one repository: ``url`` (the clone URL it answers for) and ``[[commits]]``
                         with ``id`` (a label), ``ref``, optional ``parent`` (a label), ``date``,
                         ``author`` ("Name <email>"), ``message``, ``files`` (path in the repository =
                         file in this folder) and optional ``delete`` (paths). Dates and authors are
                         fixed, so the commit ids, which the recordings quote, are the same on every
                         build.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import parse_qsl, unquote, urlsplit

from ..errors import InputError
from ..io.textio import read_toml

Key = tuple[str, str, tuple[tuple[str, str], ...]]


def _key(host: str, path: str, query: str) -> Key:
    """Host, decoded path and sorted query: how a request is matched to an exchange."""
    return host.lower(), unquote(path), tuple(sorted(parse_qsl(query, keep_blank_values=True)))


def load_recordings(folder: str | Path) -> dict[Key, dict]:
    """Every exchange of ``folder/recordings/*.json`` by request key (a key recorded twice is an error)."""
    exchanges: dict[Key, dict] = {}
    for path in sorted(Path(folder, "recordings").glob("*.json")):
        try:
            items = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise InputError(path, f"unreadable recording: {exc}") from None
        for i, item in enumerate(items if isinstance(items, list) else [None]):
            if not isinstance(item, dict) or not isinstance(item.get("url"), str):
                raise InputError(path, "must be a list of exchanges with a url", field=f"[{i}]")
            parts = urlsplit(item["url"])
            key = _key(parts.netloc, parts.path, parts.query)
            if key in exchanges:
                raise InputError(path, f"{item['url']} is recorded twice", field=f"[{i}]")
            exchanges[key] = item
    return exchanges


def _body(exchange: dict) -> bytes:
    if "text" in exchange:
        return str(exchange["text"]).encode("utf-8")
    return (exchange.get("prefix", "") + json.dumps(exchange.get("json"), ensure_ascii=False)).encode("utf-8")


class _Handler(BaseHTTPRequestHandler):
    """Answers ``GET /<recorded host>/<path>?<query>`` from the recordings."""

    protocol_version = "HTTP/1.1"
    exchanges: dict[Key, dict] = {}

    def log_message(self, *args: Any) -> None:  # quiet: the miner reports what it fetched
        pass

    def do_GET(self) -> None:  # noqa: N802
        parts = urlsplit(self.path)
        host, _, path = parts.path.lstrip("/").partition("/")
        exchange = self.exchanges.get(_key(host, "/" + path, parts.query))
        if exchange is None:
            status, headers = 404, {"Content-Type": "application/json"}
            body = json.dumps({"message": f"no recording for GET {host}/{path}"}).encode()
        else:
            status, headers, body = int(exchange.get("status", 200)), dict(exchange.get("headers", {})), _body(exchange)
            etag = headers.get("ETag")
            if etag is not None and self.headers.get("If-None-Match") == etag:
                status, body = 304, b""
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def fast_import_commit(mark: int, ref: str, committer: str, when: int, message: str,
                       files: dict[str, bytes | None], parent: int | None = None, author: bool = True) -> bytes:
    """One commit of a ``git fast-import`` stream: ``files`` maps a path to its bytes, or to None to
    delete it; ``committer`` ("Name <email>") is the author too (no author line when ``author`` is off)."""
    data = message.encode("utf-8")
    ident = f"{committer} {when} +0000\n"
    out = [f"commit {ref}\nmark :{mark}\n".encode(), f"author {ident}".encode() if author else b"",
           f"committer {ident}data {len(data)}\n".encode(), data, b"\n"]
    if parent is not None:
        out.append(f"from :{parent}\n".encode())
    for path, content in files.items():
        if content is None:
            out.append(f"D {path}\n".encode())
        else:
            out.append(f"M 100644 inline {path}\ndata {len(content)}\n".encode() + content + b"\n")
    return b"".join(out)


def fast_import(repo: Path, commits: list[bytes]) -> dict[int, str]:
    """Create the bare repository ``repo`` from a ``git fast-import`` stream of ``commits``
    (:func:`fast_import_commit`), in one process; returns {mark: commit id}."""
    subprocess.run(["git", "init", "--quiet", "--bare", str(repo)], check=True)
    marks = repo / "fast-import-marks"
    subprocess.run(["git", "-C", str(repo), "fast-import", "--quiet", f"--export-marks={marks}"],
                   input=b"".join(commits) + b"done\n", check=True)
    text = marks.read_text(encoding="ascii")
    marks.unlink()
    return {int(mark[1:]): sha for mark, sha in (line.split() for line in text.splitlines())}


def build_repos(folder: str | Path, dest: str | Path) -> dict[str, Path]:
    """Build every ``folder/repos/*/history.toml`` as a bare repository under ``dest``.

    Returns {clone URL it answers for: repository path}. One ``git fast-import`` per repository with
    fixed dates and authors, so the commit ids are the same on every machine and git version.
    """
    built = {}
    for history in sorted(Path(folder, "repos").glob("*/history.toml")):
        spec = read_toml(history)
        marks: dict[str, int] = {}
        stream = []
        for n, commit in enumerate(spec.get("commits", []), start=1):
            marks[commit["id"]] = n
            when = int(datetime.fromisoformat(commit["date"].replace("Z", "+00:00")).timestamp())
            files: dict[str, bytes | None] = {
                path: (history.parent / source).read_bytes() for path, source in commit.get("files", {}).items()}
            files.update({path: None for path in commit.get("delete", [])})
            stream.append(fast_import_commit(n, commit["ref"], commit["author"], when, commit["message"], files,
                                             marks[commit["parent"]] if "parent" in commit else None))
        repo = Path(dest) / f"{history.parent.name}.git"
        fast_import(repo, stream)
        built[spec["url"]] = repo
    return built


@dataclass(frozen=True)
class RecordedForge:
    """A running recorded forge: where it listens and the routes a mining job needs to use it."""

    url: str  # http://127.0.0.1:PORT
    repos: dict[str, Path]  # clone URL -> built repository
    hosts: tuple[str, ...]  # the recorded hosts

    @property
    def routes(self) -> dict[str, str]:
        """Routes for :class:`revmine.miners.JobOptions`: recorded hosts to the server, clone URLs to the repositories."""
        routes = {f"{scheme}://{host}/": f"{self.url}/{host}/" for host in self.hosts for scheme in ("https", "http")}
        routes.update({url: str(path) for url, path in self.repos.items()})
        return routes


@contextmanager
def serve_recordings(folder: str | Path, work: str | Path | None = None) -> Iterator[RecordedForge]:
    """Serve ``folder``'s recordings on 127.0.0.1 and build its repositories for the ``with`` block, in a
    temporary folder inside ``work`` (a job's output: named as revmine's temporaries, so that the next run
    removes it if this one is killed; see :mod:`revmine.io.output_lock`), else in the system's."""
    exchanges = load_recordings(folder)
    handler = type("RecordedHandler", (_Handler,), {"exchanges": exchanges})
    if work is not None:  # absolute: git runs in other folders and takes these paths as clone URLs
        work = Path(work).resolve()
        work.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".forge.", suffix=".tmp", dir=work) as tmp:
        repos = build_repos(folder, tmp)
        server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        server.daemon_threads = True
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield RecordedForge(f"http://127.0.0.1:{server.server_address[1]}", repos,
                                tuple(sorted({host for host, _, _ in exchanges})))
        finally:
            server.shutdown()
            server.server_close()
            thread.join()
