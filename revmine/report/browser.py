"""``revmine browse RUN``: a row browser on 127.0.0.1, as Hugging Face's dataset viewer is for a Hub dataset: page
through every split of the triplets, pairs and hunks, search their texts, filter by column value, open a row.

The standard library's threading HTTP server answers a page (``/``: HTML and script, nothing from the network) and
four JSON endpoints over :class:`~revmine.report.row_views.RunRows`: ``/api/levels``, ``/api/rows`` (``level``,
``split``, ``offset``, ``limit``, ``q``, ``in``, ``f.<column>``), ``/api/values`` and ``/api/row``. A bad parameter
is a 400 with one line ``{"error": ...}``; any other path a 404: the server serves no file, so no path can
reach outside the run. It listens on loopback only and answers only requests addressed to it by that name
(a page elsewhere cannot reach it through a DNS name pointed at 127.0.0.1).
"""

from __future__ import annotations

import json
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from .render import render
from .row_views import BadRequest, Query, RunRows

HOST = "127.0.0.1"
DEFAULT_PORT = 8765
PAGE_SIZE = 25
_ONE = {"level", "split", "offset", "limit", "q", "in", "row", "sort", "desc", "len", "min", "max"}


def make_server(run: str | Path, port: int = DEFAULT_PORT) -> ThreadingHTTPServer:
    """A server for the run folder ``run`` bound to 127.0.0.1:``port`` (0: any free port), not yet serving."""
    rows = RunRows(run)
    page = render("browse.html", run=str(rows.run), page_size=PAGE_SIZE)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            url = urlsplit(self.path)
            if self.headers.get("Host", "").rsplit(":", 1)[0] not in (HOST, "localhost"):
                return self._send(HTTPStatus.FORBIDDEN, {"error": "only http://127.0.0.1 requests are answered"})
            try:
                params = _params(url.query)
                if url.path == "/":
                    return self._send(HTTPStatus.OK, page, "text/html; charset=utf-8")
                if url.path == "/favicon.ico":  # what a browser asks for first: no icon, and no error in its console
                    return self._send(HTTPStatus.NO_CONTENT, "")
                if url.path == "/api/levels":
                    return self._send(HTTPStatus.OK, {"run": rows.run.name, "levels": rows.levels()})
                if url.path == "/api/rows":
                    filters = tuple(sorted((k[2:], v) for k, v in params.items() if k.startswith("f.")))
                    query = Query(_need(params, "level"), _need(params, "split"), params.get("q", ""),
                                  params.get("in", ""), filters, params.get("sort", ""), params.get("desc") == "1",
                                  params.get("len", ""), _int(params, "min", None) if "min" in params else None,
                                  _int(params, "max", None) if "max" in params else None)
                    return self._send(HTTPStatus.OK, rows.page(query, _int(params, "offset", 0),
                                                               _int(params, "limit", PAGE_SIZE)))
                if url.path == "/api/values":
                    return self._send(HTTPStatus.OK, rows.values(_need(params, "level"), _need(params, "split")))
                if url.path == "/api/row":
                    return self._send(HTTPStatus.OK, rows.row(_need(params, "level"), _need(params, "split"),
                                                              _int(params, "row", None)))
            except BadRequest as exc:
                return self._send(HTTPStatus.BAD_REQUEST, {"error": str(exc)})
            return self._send(HTTPStatus.NOT_FOUND, {"error": f"no such page: {url.path}"})

        def _send(self, status: HTTPStatus, body: Any, kind: str = "application/json") -> None:
            data = (body if isinstance(body, str) else json.dumps(body)).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("Content-Security-Policy", "default-src 'self'; script-src 'unsafe-inline'; "
                                                        "style-src 'unsafe-inline'")
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (http.server's name)
            """Quiet: a page's requests are not news."""

    return ThreadingHTTPServer((HOST, port), Handler)


def _params(query: str) -> dict[str, str]:
    """The query string's parameters, each at most once, all known."""
    params: dict[str, str] = {}
    for name, value in parse_qsl(query, keep_blank_values=True, strict_parsing=False):
        if name not in _ONE and not name.startswith("f."):
            raise BadRequest(f"unknown parameter {name!r}")
        if name in params:
            raise BadRequest(f"parameter {name!r} given twice")
        params[name] = value
    return params


def _need(params: dict[str, str], name: str) -> str:
    if name not in params:
        raise BadRequest(f"parameter {name!r} is missing")
    return params[name]


def _int(params: dict[str, str], name: str, default: int | None) -> int:
    if name not in params and default is not None:
        return default
    text = _need(params, name)
    try:
        return int(text)
    except ValueError:
        raise BadRequest(f"parameter {name}={text!r} is not a whole number") from None
