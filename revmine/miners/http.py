"""One HTTP client for every forge: on-disk cache, polite retries, rate limits, safe credentials.

Why one client: Gerrit and GitHub differ only in how a body is framed (Gerrit prefixes JSON with
``)]}'``) and how credentials are sent; caching, retries, rate limits and redaction are the same.

Decisions
- Cache: ``requests-cache`` on SQLite (default ``<out>/http_cache.sqlite``). Only 200 responses whose
  body parses are stored (``filter_fn``); a body of the wrong shape is evicted by :meth:`Client.get`,
  one with a field of the wrong type by :meth:`Client.validating` (the miners check fields there).
  The database is in WAL mode (``synchronous=NORMAL``): a commit no longer waits for an fsync (7 ms
  each here, once per stored response), a ``kill -9`` still loses nothing committed, and a power cut
  can lose only the last responses, never corrupt the file (they are fetched again: the cache is an
  optimisation, the checkpoints are what make a job resumable). A process opens one backend (one
  connection per table) per cache file, shared by every client on it (:class:`_CacheFile`): with a
  connection per client, two SQLite locks and the interpreter's could wait on each other for the 5 s of
  SQLite's default busy timeout, stalling the whole process (see :class:`_CacheFile`).
  The key is the method and the redacted URL (:func:`cache_key`): headers never count, so
  ``Authorization`` cannot reach a key, and token parameters are redacted from keys and from what
  is stored. ``Vary`` is dropped from responses before caching: GitHub answers ``Vary: Authorization``,
  which would otherwise make every authenticated request a cache miss and defeat offline replay.
- Freshness: a cached response is reused as is (resume, replay) unless the caller asks to
  ``revalidate`` (conditional request with ``If-None-Match``; a 304 reuses the stored body) or gives
  ``fresh_after`` (the change was updated after the response was stored). ``cache_mode="offline"``
  never touches the network and fails clearly on a miss.
- Rate limits: ``X-RateLimit-Remaining``/``Reset`` (GitLab: ``RateLimit-Remaining``/``Reset``) are tracked per token. A 429, or a 403 with no
  remaining quota, a ``Retry-After`` or a body about a rate limit (GitHub's *secondary* limits come
  with neither header), or a GraphQL 200 whose ``errors`` say ``RATE_LIMITED`` (:meth:`Client.post`), switches to another token if one is left, else sleeps for ``Retry-After``
  (seconds or an HTTP date), until the reset time, or 60 s (GitHub's advice for secondary limits);
  never less than 1 s, so ``Retry-After: 0`` cannot make us hammer. After ``max_rate_limit_retries``
  rate-limited answers per token to one request, or when ``wait_on_rate_limit`` is false,
  :class:`RateLimited` is raised. Timeouts, connection errors, 5xx and 200s whose body cannot be
  decoded (cut short, a proxy's HTML page, Gerrit JSON without its prefix: what a failing gateway sends)
  are retried with exponential backoff, ``max_retries`` times, then raise one error naming the URL and
  what was wrong; a request that timed out every time (``timeout``: seconds to connect, and between two
  bytes of the answer, headers or body) is :class:`Stalled`, which fails a job's project as stalled. While a request waits,
  the job's :class:`~revmine.runtime.progress.Watch` says which one. A body that decodes but has the wrong
  shape is not retried (the forge would answer the same). Other 4xx raise :class:`RemoteError` with the body's ``message`` (secrets redacted).
  Clock and sleep are injectable.
- Concurrency: a :class:`Limiter` shared by every client of a job bounds what is on the wire: at most
  ``concurrency`` requests at once, at most ``per_host`` to one host (counted where a request really
  goes, after routes), and never more requests on one token than the forge said it has left (a request
  reserves its token's quota before it is sent, so threads cannot overspend it together; while a token's
  quota is unknown, at its first use and after a reset, one request at a time finds it out). It holds no
  secret (tokens are known by a digest), so a version shared across processes can keep its interface. A
  client is safe to use from several threads, and clients with each other: the process's writes to a
  cache file go through its one connection, serialised by requests-cache's lock (other processes sharing
  the file wait up to :data:`CACHE_BUSY_TIMEOUT` for SQLite's), counters and token states by the limiter's.
- Bodies: JSON (Gerrit's after its ``)]}'`` line), except Gerrit's file-content endpoint, which is
  base64 text whether or not its ``X-FYI-Content-Encoding: base64`` header came through.
- Routes: ``routes`` maps URL prefixes to where they are really answered (a recorded forge on
  loopback, a mirror). Only the wire sees the routed URL; keys, responses and messages keep the URL
  asked for, so rows, cache and checkpoints do not depend on the port a replay server got. Gerrit's
  authenticated ``/a/`` paths are such a wire-only rewrite (:meth:`Client.authenticate_under`), so a
  cache written with credentials replays without them and vice versa.
- Secrets: credentials come from the environment or a TOML file (:func:`credentials_from_env`);
  they never appear in ``repr``, URLs in messages, exceptions or the cache. URLs given by the user
  must not carry any (:func:`check_url`): they are copied into rows, manifests and checkpoints. A
  credential that cannot go into a header (a token copied with a ``\\r``) is refused as it is read, naming
  the variable or the file and key, before any request (requests' own error would quote it).
"""

from __future__ import annotations

import base64
import binascii
import copy
import email.utils
import hashlib
import json
import os
import re
import sqlite3
import threading
import time
from collections import Counter
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, ContextManager, Iterator, Literal
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import requests
from requests.adapters import HTTPAdapter
from urllib3.exceptions import ReadTimeoutError

from ..errors import InputError, OperationError
from ..io.textio import read_toml
from ..runtime.progress import Watch
from .settings import DEFAULT_MAX_PER_HOST, CacheMode

Dialect = Literal["gerrit", "github", "gitlab"]

GERRIT_PREFIX = ")]}'"
#: Query parameters that may carry secrets: never part of a cache key, never shown in a message.
SECRET_PARAMS = ("access_token", "token", "api_key", "apikey", "password", "client_secret", "private_token")
#: Schemes where a bare user name (no password) is an account, not a secret (``ssh://git@host/...``).
SSH_SCHEMES = ("ssh", "git+ssh", "ssh+git")
#: Shortest wait on a rate limit: a ``Retry-After: 0`` or a reset in the past must not make us hammer.
MIN_RATE_LIMIT_WAIT = 1.0
#: Wait on a rate limit that names no time (GitHub's advice for secondary rate limits).
DEFAULT_RATE_LIMIT_WAIT = 60.0
#: Seconds a cache connection waits for another's lock before ``database is locked``: long enough for the
#: commits of other processes sharing the file (Dask workers), which may wait for their interpreter.
CACHE_BUSY_TIMEOUT = 60.0
AUTH_HEADERS = ("Authorization", "Proxy-Authorization", "X-API-KEY", "Cookie", "PRIVATE-TOKEN")
#: Gerrit's file-content endpoint (``/changes/{id}/revisions/{rev}/files/{file}/content``): base64 text.
GERRIT_CONTENT = re.compile(r"/changes/[^/]+/revisions/[^/]+/files/[^/]+/content$")


class RemoteError(OperationError):
    """A forge answered something unusable; the message names the (redacted) URL."""

    def __init__(self, url: str, message: str, status: int | None = None):
        self.url = redact_url(url)
        self.status = status
        self.detail = message
        super().__init__(f"{self.url}: {message}")


class Stalled(RemoteError):
    """The forge sent nothing within the timeout on every try (it accepts connections and does not answer)."""


class MalformedResponse(RemoteError):
    """The body is not what the API documents (truncated, HTML, missing prefix, wrong type)."""


class RateLimited(RemoteError):
    """Out of quota and told not to wait (or the wait exceeds ``max_wait``)."""


class NotCached(RemoteError):
    """Offline mode and the response is not in the cache."""


class BadField(ValueError):
    """A field of a decoded body has the wrong type or value; :meth:`Client.validating` turns it into a
    :class:`MalformedResponse` naming the URL (and evicts the response)."""


def check_url(url: Any, field: str, path: str | Path | None = None) -> None:
    """Refuse a user-given URL that carries a secret (user-info, a token parameter): such URLs are
    copied into rows, manifests, checkpoints and the cache. The message names ``field``, never the URL.

    A bare user name is allowed only where it is an account, not a secret: ``ssh://git@host/...`` and
    scp-like ``git@host:path``."""
    if url is None:
        return
    if not isinstance(url, str):
        raise InputError(path, f"must be a string, not {type(url).__name__}", field=field)
    if "://" not in url:  # a local path or scp-like [user@]host:path
        head = url.split("/", 1)[0]
        leaked = "@" in head and ":" in head.split("@", 1)[0]
    else:
        parts = urlsplit(url)
        leaked = parts.password is not None or (parts.username is not None and parts.scheme not in SSH_SCHEMES)
        secret = next((k for k, _ in parse_qsl(parts.query, keep_blank_values=True)
                       if k.lower() in SECRET_PARAMS), None)
        if secret is not None:
            raise InputError(path, f"must not carry the secret parameter {secret!r}; put credentials in "
                             "GITHUB_TOKEN(S), GERRIT_USER/GERRIT_PASSWORD or $REVMINE_CREDENTIALS", field=field)
    if leaked:
        raise InputError(path, "must not contain user-info (user:password@); put credentials in "
                         "GITHUB_TOKEN(S), GERRIT_USER/GERRIT_PASSWORD or $REVMINE_CREDENTIALS", field=field)


def host_of(url: str) -> str:
    """``hostname[:port]`` of a URL: never its user-info."""
    parts = urlsplit(url)
    return (parts.hostname or "") + (f":{parts.port}" if parts.port else "")


def redact_url(url: str) -> str:
    """The URL without user-info and without secret-looking query parameters."""
    parts = urlsplit(url)
    netloc = host_of(url)
    query = urlencode([(k, "REDACTED" if k.lower() in SECRET_PARAMS else v)
                       for k, v in parse_qsl(parts.query, keep_blank_values=True)])
    return urlunsplit((parts.scheme, netloc, parts.path, query, ""))


def route(url: str, routes: dict[str, str]) -> str:
    """``url`` with its longest prefix found in ``routes`` replaced (unchanged when none matches)."""
    prefix = max((p for p in routes if url.startswith(p)), key=len, default=None)
    return url if prefix is None else routes[prefix] + url[len(prefix):]


def cache_key(request: requests.PreparedRequest, **_: Any) -> str:
    """The response cache's key for a request: its method and redacted URL, never its headers.

    Why not requests-cache's default key: it normalises every URL through ``url_normalize``/``idna``,
    which costs more per replayed response than reading the response itself.
    """
    ident = f"{(request.method or 'GET').upper()} {redact_url(request.url or '')}"
    return hashlib.blake2b(ident.encode("utf-8"), digest_size=8).hexdigest()


@dataclass
class Credentials:
    """Tokens (GitHub, rotated) or user/password (Gerrit HTTP password). ``repr`` never shows them."""

    tokens: list[str] = field(default_factory=list, repr=False)
    user: str | None = None
    password: str | None = field(default=None, repr=False)
    #: the header a token goes in (GitLab's personal, project and group tokens: ``PRIVATE-TOKEN``); None:
    #: ``Authorization: Bearer`` (GitHub, GitLab OAuth tokens)
    token_header: str | None = None

    def __bool__(self) -> bool:
        return bool(self.tokens or (self.user and self.password))

    def secrets(self) -> list[str]:
        """Every secret string, so tests and redaction can check none leaks."""
        return [s for s in [*self.tokens, self.password] if s]


def credentials_from_env(dialect: Dialect, host: str | None = None,
                         env: dict[str, str] | None = None) -> Credentials:
    """Credentials for a forge from the environment, else from the TOML file ``$REVMINE_CREDENTIALS``.

    GitHub: ``GITHUB_TOKENS`` (comma-separated, rotated) or ``GITHUB_TOKEN``. Gerrit: ``GERRIT_USER``
    and ``GERRIT_PASSWORD``. GitLab: ``GITLAB_TOKENS`` or ``GITLAB_TOKEN`` (personal, project or group access
    tokens, sent as ``PRIVATE-TOKEN``), or ``GITLAB_OAUTH_TOKEN`` (an OAuth token, sent as ``Bearer``). The file
    holds ``[github] tokens = [...]`` / ``[gerrit] user, password`` / ``[gitlab] tokens = [...]`` (with
    ``oauth = true`` for OAuth tokens), optionally per host as ``[github."ghe.example.org"]``; it keeps secrets
    out of job files and shells.
    """
    env = os.environ if env is None else env
    header = "PRIVATE-TOKEN" if dialect == "gitlab" else None
    if dialect in ("github", "gitlab"):
        prefix = dialect.upper()
        name = next((n for n in (f"{prefix}_TOKENS", f"{prefix}_TOKEN", f"{prefix}_OAUTH_TOKEN") if env.get(n)),
                    f"{prefix}_TOKEN")
        tokens = [t.strip() for t in (env.get(name) or "").replace("\n", ",").split(",") if t.strip()]
        for i, token in enumerate(tokens):
            _check_secret(token, None, name if len(tokens) == 1 else f"{name}, token {i + 1}", _TOKEN)
        if tokens:
            return Credentials(tokens=tokens, token_header=None if name.endswith("_OAUTH_TOKEN") else header)
    elif env.get("GERRIT_USER") and env.get("GERRIT_PASSWORD"):
        _check_secret(env["GERRIT_USER"], None, "GERRIT_USER", _PASSWORD)
        _check_secret(env["GERRIT_PASSWORD"], None, "GERRIT_PASSWORD", _PASSWORD)
        return Credentials(user=env["GERRIT_USER"], password=env["GERRIT_PASSWORD"])
    path = env.get("REVMINE_CREDENTIALS")
    if not path:
        return Credentials()
    _check_private(Path(path))
    config = read_toml(Path(path), quote=False)
    section = config.get(dialect, {})
    if not isinstance(section, dict):
        raise InputError(path, "must be a table", field=dialect)
    if host and isinstance(section.get(host), dict):
        section = section[host]
    tokens = section.get("tokens", [section["token"]] if "token" in section else [])
    if not isinstance(tokens, list) or not all(isinstance(t, str) for t in tokens):
        raise InputError(path, "must be a list of strings", field=f"{dialect}.tokens")
    for i, token in enumerate(tokens):
        _check_secret(token, path, f"{dialect}.tokens[{i}]", _TOKEN)
    for key in ("user", "password"):
        if section.get(key) is not None:
            _check_secret(section[key], path, f"{dialect}.{key}", _PASSWORD)
    return Credentials(tokens=tokens, user=section.get("user"), password=section.get("password"),
                       token_header=None if section.get("oauth") is True else header)


def _check_private(path: Path) -> None:
    """Refuse a credentials file that others can read or write, as ssh refuses such a key: its tokens are as
    good as a password, and a file of mode 644 gives them to every account of the machine."""
    try:
        mode = path.stat().st_mode & 0o777
    except OSError:
        return  # read_toml says it is missing or unreadable, in its words
    if mode & 0o077:
        raise InputError(path, f"mode {mode:o}: other accounts can read this credentials file; "
                               f"chmod 600 {path} (ssh refuses such keys too)", field="REVMINE_CREDENTIALS")


#: What a token may hold (it goes into an ``Authorization`` header as it is): visible ASCII. A user name or
#: password goes base64-encoded (gerrit.py, from UTF-8): any character but a control one (a pasted line end).
_TOKEN = (re.compile(r"[!-~]+"), "a token cannot have (a space, a control character or non-ASCII)")
_PASSWORD = (re.compile(r"[^\x00-\x1f\x7f-\x9f]+"), "a user name or password cannot have (a control character)")


def _check_secret(value: Any, path: str | Path | None, where: str, rule: tuple[re.Pattern[str], str]) -> None:
    """Refuse a malformed credential before any request: requests would raise on the header with the secret
    in its message (``InvalidHeader``: a token copied with a ``\\r``). The error names where the value came
    from (the variable, or the file and key), never the value."""
    allowed, cannot = rule
    if not isinstance(value, str) or not allowed.fullmatch(value):
        what = ("must be a string" if not isinstance(value, str) else
                f"holds a character {cannot}: copied with a line end?")
        raise InputError(path or "environment", what, field=where)  # not a setting: a job would claim it


def _timed_out(exc: BaseException) -> bool:
    """Whether a request failed by waiting longer than its timeout: before the answer (``requests.Timeout``) or
    inside its body, which requests reports as a ``ConnectionError`` around urllib3's ``ReadTimeoutError`` (a
    server that sends the headers and then nothing is as stalled as one that sends nothing)."""
    while exc is not None:
        if isinstance(exc, (requests.Timeout, ReadTimeoutError)):
            return True
        exc = exc.args[0] if exc.args and isinstance(exc.args[0], BaseException) else exc.__cause__
    return False


def _graphql_rate_limited(body: Any) -> bool:
    """Whether a 200's body is GitHub's GraphQL rate-limit answer (``errors`` of type ``RATE_LIMITED``: the
    query cost more points than the token has left)."""
    errors = body.get("errors") if isinstance(body, dict) else None
    return isinstance(errors, list) and any(isinstance(e, dict) and e.get("type") == "RATE_LIMITED" for e in errors)


def _quota(headers: Any, name: str) -> str | None:
    """A rate-limit header: GitHub's ``X-RateLimit-<name>``, else GitLab's ``RateLimit-<name>``."""
    value = headers.get(f"X-RateLimit-{name}")
    return headers.get(f"RateLimit-{name}") if value is None else value


class _CountingAdapter(HTTPAdapter):
    """Counts what really goes on the wire, drops ``Vary`` and applies routes (see the module docstring):
    first ``auth_paths`` (where authenticated requests go), then ``routes`` (where a URL is answered)."""

    def __init__(self, stats: Stats, routes: dict[str, str], limiter: Limiter, **kwargs: Any):
        super().__init__(pool_maxsize=max(limiter.per_host, 10), **kwargs)
        self.stats = stats
        self.routes = routes
        self.limiter = limiter
        self.auth_paths: dict[str, str] = {}

    def send(self, request: requests.PreparedRequest, *args: Any, **kwargs: Any) -> requests.Response:
        target = route(route(request.url or "", self.auth_paths), self.routes)
        with self.limiter.slot(host_of(target)):  # the host that really answers, until its answer is read
            if target == request.url:
                response = super().send(request, *args, **kwargs)
                response.content  # noqa: B018 - read while the slot is held
                return response
            wire = request.copy()
            wire.url = target
            response = super().send(wire, *args, **kwargs)
            response.content  # noqa: B018
        response.url, response.request = request.url, request  # what was asked, not where it was answered
        return response

    def build_response(self, req: requests.PreparedRequest, resp: Any) -> requests.Response:
        response = super().build_response(req, resp)
        response.headers.pop("Vary", None)
        self.stats.add("requests")
        if response.status_code == 304:
            self.stats.add("not_modified")
        return response


class _EnvironmentOnce:
    """A session's ``merge_environment_settings`` that reads the environment once per scheme and host.

    Why: with ``trust_env`` (proxies, ``NO_PROXY``, a CA bundle from the environment still apply),
    requests scans every environment variable twice per request to find proxies: 0.22 ms of CPU a
    request here (38 variables), a sixth of what a request costs. What it finds depends only on the URL's
    scheme and host and on the arguments, so it is kept per client for the run (the environment is read
    when the client first asks a host, as requests would read it then).
    """

    def __init__(self, merge: Callable[..., dict[str, Any]]):
        self.merge = merge
        self.settings: dict[tuple, dict[str, Any]] = {}

    def __call__(self, url: str, proxies: dict[str, str] | None, stream: bool | None, verify: Any,
                 cert: Any) -> dict[str, Any]:
        key = (urlsplit(url)[:2], tuple(sorted((proxies or {}).items())), stream, verify, cert)
        settings = self.settings.get(key)
        if settings is None:  # two threads may both compute it: the same answer
            settings = self.settings[key] = self.merge(url, proxies, stream, verify, cert)
        return {**settings, "proxies": settings["proxies"].copy()}  # requests may add to its copy


class Stats(Counter):
    """A client's request counts, updated from several threads."""

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()

    def add(self, key: str, n: int = 1) -> None:
        with self._lock:
            self[key] += n


@dataclass
class _Budget:
    """What one token may still spend: the forge's last word on its quota, and the requests sent since."""

    remaining: int | None = None  # None: not known (no answer yet, or its window has been reset)
    reset: float = 0.0  # when the forge renews the quota (epoch seconds)
    in_flight: int = 0  # requests sent on it and not answered yet
    metered: bool = True  # False once the forge answered without quota headers (it does not count)
    renewals: int = 0  # how many times a waiter renewed it (several may wait for one reset)

    def usable(self, now: float) -> bool:
        if self.remaining is not None and self.reset and self.reset <= now:
            self.remaining = None  # a new window: the next answer says how much is left
        if self.remaining is None:  # one request at a time finds out how much is left
            return not self.metered or self.in_flight == 0
        return self.remaining - self.in_flight > 0


@contextmanager
def held(host: ContextManager[Any], total: ContextManager[Any] | None) -> Iterator[None]:
    """A host's request slot, then the job's (None: no job-wide limit): one order wherever slots are held
    (:class:`Limiter`, :class:`revmine.miners.cluster.ClusterLimiter`), so no two requests wait on each other."""
    with host, (nullcontext() if total is None else total):
        yield


class Limiter:
    """Politeness shared by every client of a job (see the module docstring): request slots in total
    and per host, and each token's quota.

    Why shared rather than per client: two projects on one forge are two clients but one host, and often
    one token; their limits hold only if they are counted together.
    """

    def __init__(self, concurrency: int | None = None, per_host: int = DEFAULT_MAX_PER_HOST):
        if per_host < 1 or (concurrency is not None and concurrency < 1):
            raise ValueError("concurrency and requests per host must be at least 1")
        self.per_host = per_host
        self._total = threading.BoundedSemaphore(concurrency) if concurrency else None
        self._hosts: dict[str, threading.BoundedSemaphore] = {}
        self._budgets: dict[str, _Budget] = {}
        self._cond = threading.Condition()

    def slot(self, host: str) -> ContextManager[None]:
        """Hold one of ``host``'s request slots, then one of the job's (in that order, always)."""
        with self._cond:
            if host not in self._hosts:
                self._hosts[host] = threading.BoundedSemaphore(self.per_host)
            return held(self._hosts[host], self._total)

    @staticmethod
    def token_id(token: str) -> str:
        """How the limiter knows a token: a digest, never the token."""
        return hashlib.sha256(token.encode("utf-8")).hexdigest()[:16]

    def take(self, tokens: list[str], start: int, now: Callable[[], float]) -> tuple[int | None, int]:
        """Reserve one request on the first of ``tokens`` (ids, tried from ``start``) with quota left:
        (its index, 0). When none has any, once the requests in flight on them have answered:
        (None, index of the token renewed first), for the caller to wait until its reset."""
        with self._cond:
            while (taken := self.try_take(tokens, start, now())) is None:
                self._cond.wait()  # an answer in flight may report quota
            return taken

    def try_take(self, tokens: list[str], start: int, clock: float) -> tuple[int | None, int] | None:
        """:meth:`take` without waiting: None while only the answers in flight can tell (a limiter in
        another process is asked this way, since its caller cannot wait on its condition)."""
        with self._cond:
            budgets = [self._budgets.setdefault(t, _Budget()) for t in tokens]
            for k in range(len(tokens)):
                i = (start + k) % len(tokens)
                if budgets[i].usable(clock):
                    budgets[i].in_flight += 1
                    return i, 0
            if not any(b.in_flight for b in budgets):
                return None, min(range(len(tokens)), key=lambda j: budgets[j].reset)
            return None

    def reset_at(self, token: str) -> tuple[float, int]:
        """When ``token``'s quota is renewed, and the count of renewals to give :meth:`renew` after the wait."""
        with self._cond:
            budget = self._budgets.setdefault(token, _Budget())
            return budget.reset, budget.renewals

    def renew(self, token: str, renewals: int | None = None) -> None:
        """After waiting for its reset: the token's quota is unknown again (the next answer says it), unless
        another waiter renewed it since ``renewals`` was read (its window's answers count, not this wait)."""
        with self._cond:
            budget = self._budgets.setdefault(token, _Budget())
            if renewals is None or budget.renewals == renewals:
                budget.remaining, budget.renewals = None, budget.renewals + 1
                self._cond.notify_all()

    def settle(self, token: str, remaining: int | None = None, reset: float | None = None,
               metered: bool | None = None) -> None:
        """A request reserved on ``token`` was answered (``remaining``/``reset``: what the answer said;
        ``metered``: whether it had quota headers, None when it came from the cache and says nothing)."""
        with self._cond:
            budget = self._budgets.setdefault(token, _Budget())
            budget.in_flight = max(budget.in_flight - 1, 0)
            if metered is not None:
                budget.metered = metered
            if remaining is not None:
                if reset is not None and reset > budget.reset:  # a newer window: its count is the truth
                    budget.remaining, budget.reset = remaining, reset
                else:  # answers of one window may arrive out of order: the lowest count is the latest
                    budget.remaining = remaining if budget.remaining is None else min(budget.remaining, remaining)
            elif reset is not None:
                budget.reset = reset
            self._cond.notify_all()

    def exhaust(self, token: str, reset: float) -> None:
        """The forge refused a request on ``token`` for its rate limit until ``reset``."""
        with self._cond:
            budget = self._budgets.setdefault(token, _Budget())
            budget.remaining, budget.reset = 0, reset
            self._cond.notify_all()

    def any_usable(self, tokens: list[str], now: float) -> bool:
        with self._cond:
            return any(self._budgets.setdefault(t, _Budget()).usable(now) for t in tokens)


class _CacheFile:
    """This process's one requests-cache backend on a cache file, shared by the clients using the file.

    Why: a backend per client meant a connection per client on one file. requests-cache waits for the
    file's write lock in ``BEGIN IMMEDIATE`` holding its connection's SQLite mutex, while its other threads
    read through that connection without its lock, and CPython's ``sqlite3`` takes the mutex with the
    interpreter lock held (``sqlite3_column_name`` after a step). A reader blocked on that mutex held up
    the writer owning the write lock, who needed the interpreter to commit: nothing ran until SQLite's busy
    timeout (5 s by default) broke the cycle, and requests-cache's retry could form it again (5, 10, 15 s;
    seen with gdb). With one connection, the process's writers queue on requests-cache's lock before SQLite
    is asked, so ``BEGIN IMMEDIATE`` only waits for other processes, which do not need this interpreter.

    Each session gets a shallow copy of the backend: the copy shares the connections and the lock but keeps
    the session's own settings (requests-cache keeps ``filter_fn`` there, and each client parses its
    dialect). Files are known by device and inode, so that two spellings of a path are one file and a
    file deleted and made anew is not served by a connection to the old one. The last client to close
    closes the connections (which folds the write-ahead log back into the file).
    """

    _open: dict[tuple[int, int], _CacheFile] = {}
    _lock = threading.Lock()

    def __init__(self, path: Path, identity: tuple[int, int]):
        from requests_cache.backends.sqlite import SQLiteCache  # imported lazily: only cached clients need it

        self.identity = identity
        self.backend = SQLiteCache(path, wal=True, timeout=CACHE_BUSY_TIMEOUT)
        self.users = 0

    @classmethod
    def acquire(cls, path: Path) -> _CacheFile:
        """The process's backend on ``path`` (opened, in WAL mode, when no client uses it yet)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        with cls._lock:
            _switch_to_wal(path)
            stat = path.stat()
            identity = (stat.st_dev, stat.st_ino)
            if identity not in cls._open:
                cls._open[identity] = cls(path, identity)
            shared = cls._open[identity]
            shared.users += 1
            return shared

    def session_backend(self) -> Any:
        """A backend for one session: its own settings, the process's connections."""
        return copy.copy(self.backend)

    def release(self) -> None:
        """A client is done with the file; the last one closes the connections."""
        with self._lock:
            self.users -= 1
            if self.users == 0:
                del self._open[self.identity]
                self.backend.close()


def _switch_to_wal(path: Path) -> None:
    """Put the cache file in WAL mode (it stays so): requests-cache asks for it on every connection it opens,
    and on a new file SQLite refuses the switch at once with ``database is locked``, without waiting, when
    another process switches or writes it at the same moment (4 processes opening a new file together:
    7-15 of 100 trials), so it is retried here until the busy timeout. Once the file is in WAL mode,
    asking again is a no-op that does not wait for writers (0 of 100 such trials failed)."""
    deadline = time.monotonic() + CACHE_BUSY_TIMEOUT
    con = sqlite3.connect(path, timeout=CACHE_BUSY_TIMEOUT)
    try:
        while True:
            try:
                con.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.01)
    finally:
        con.close()


class Client:
    """A polite, cached JSON client for one forge (``dialect``) and one set of credentials."""

    def __init__(self, dialect: Dialect, credentials: Credentials | None = None, *,
                 cache_path: str | Path | None = None, cache_mode: CacheMode = "use",
                 timeout: float = 30.0, max_retries: int = 5, backoff: float = 1.0,
                 wait_on_rate_limit: bool = True, max_wait: float = 3600.0, max_rate_limit_retries: int = 5,
                 routes: dict[str, str] | None = None, limiter: Limiter | None = None, watch: Watch | None = None,
                 clock: Callable[[], float] = time.time, sleep: Callable[[float], None] = time.sleep):
        if cache_mode not in ("use", "offline", "off"):
            raise ValueError(f"cache_mode must be 'use', 'offline' or 'off', not {cache_mode!r}")
        if cache_mode != "off" and cache_path is None:
            raise ValueError("cache_path is required unless cache_mode='off'")
        self.dialect = dialect
        self.credentials = credentials or Credentials()
        self.cache_mode = cache_mode
        self.timeout, self.max_retries, self.backoff = timeout, max_retries, backoff
        self.wait_on_rate_limit, self.max_wait = wait_on_rate_limit, max_wait
        self.max_rate_limit_retries = max_rate_limit_retries
        self.clock, self.sleep = clock, sleep
        self.stats = Stats()
        self.limiter = limiter or Limiter()
        self.watch = watch or Watch(enabled=False)  # says which request a stall holds (revmine.runtime.progress)
        self._tokens = [Limiter.token_id(t) for t in self.credentials.tokens]
        self._next_token = 0
        self._adapter = _CountingAdapter(self.stats, routes or {}, self.limiter)
        self._cache_file = None if cache_mode == "off" else _CacheFile.acquire(Path(cache_path))
        self.session = self._make_session()

    def authenticate_under(self, prefix: str, auth_prefix: str) -> None:
        """Send requests for URLs under ``prefix`` to ``auth_prefix`` when credentials are set (Gerrit's
        ``/a/``). Only the wire sees it: keys, responses and messages keep ``prefix``, so a cache works
        with and without credentials."""
        if self.credentials:
            self._adapter.auth_paths[prefix] = auth_prefix

    def _make_session(self) -> requests.Session:
        if self._cache_file is None:
            session = requests.Session()
        else:
            import requests_cache  # imported lazily: only cached clients need it

            session = requests_cache.CachedSession(
                backend=self._cache_file.session_backend(), expire_after=requests_cache.NEVER_EXPIRE,
                allowable_codes=(200,), allowable_methods=("GET",),
                ignored_parameters=[*AUTH_HEADERS, *SECRET_PARAMS], key_fn=cache_key,
                filter_fn=self._cacheable, stale_if_error=False, autoclose=False)  # closed by the last client
            if self.cache_mode == "offline":
                session.trust_env = False  # nothing goes on the wire: skip per-request proxy/netrc lookups
        merge = session.merge_environment_settings
        session.merge_environment_settings = _EnvironmentOnce(merge)  # type: ignore[method-assign]
        session.mount("http://", self._adapter)
        session.mount("https://", self._adapter)
        session.headers["User-Agent"] = "revmine-miner"
        if self.dialect == "github":
            session.headers["Accept"] = "application/vnd.github+json"
        return session

    # --- body parsing -------------------------------------------------------------------------------
    def _cacheable(self, response: requests.Response) -> bool:
        """requests-cache filter: store (and keep) a response only if its body parses."""
        if response.status_code != 200:
            return False
        try:
            self._parse(response)
        except MalformedResponse:
            return False
        return True

    def _parse(self, response: requests.Response) -> Any:
        """Decode a body once and remember the result on the response object."""
        if hasattr(response, "_revmine_body"):
            return response._revmine_body
        url = response.url
        ctype = response.headers.get("Content-Type", "")
        text = response.content.decode("utf-8", errors="replace")
        if self._is_base64_text(response):
            try:
                body: Any = base64.b64decode(b"".join(response.content.split()), validate=True).decode(
                    "utf-8", "replace")
            except (binascii.Error, ValueError):
                raise MalformedResponse(url, "file content is not valid base64", response.status_code) from None
        else:
            if "html" in ctype or text.lstrip()[:1] == "<":
                raise MalformedResponse(url, f"expected JSON, got an HTML page (Content-Type {ctype!r})",
                                        response.status_code)
            if self.dialect == "gerrit":
                if not text.startswith(GERRIT_PREFIX):
                    raise MalformedResponse(url, "Gerrit JSON body lacks the )]}' prefix", response.status_code)
                text = text[len(GERRIT_PREFIX):]
            try:
                body = json.loads(text)
            except json.JSONDecodeError as exc:
                raise MalformedResponse(url, f"invalid or truncated JSON ({exc.msg} at char {exc.pos} "
                                        f"of {len(text)})", response.status_code) from None
        response._revmine_body = body  # type: ignore[attr-defined]
        return body

    def _is_base64_text(self, response: requests.Response) -> bool:
        """Whether a body is base64 text rather than JSON: Gerrit's file-content endpoint always answers so
        (its ``X-FYI-Content-Encoding: base64`` header is informational, and proxies may drop it)."""
        if response.headers.get("X-FYI-Content-Encoding", "").lower() == "base64":
            return True
        return self.dialect == "gerrit" and GERRIT_CONTENT.search(urlsplit(response.url).path) is not None

    # --- public API ---------------------------------------------------------------------------------
    def get(self, url: str, params: dict[str, Any] | list[tuple[str, Any]] | None = None, *,
            expect: type | None = None, revalidate: bool = False,
            fresh_after: datetime | None = None) -> tuple[Any, requests.Response]:
        """GET ``url`` and return (decoded body, response); ``expect`` checks the body's top-level type.

        ``revalidate`` sends a conditional request for a cached URL; ``fresh_after`` does so only when
        the stored response is older than that time (the change moved on since it was cached).
        """
        response = self._request(url, params, revalidate, fresh_after)
        body = self._parse(response)
        if expect is not None and not isinstance(body, expect):
            self._evict(response)
            raise MalformedResponse(response.url, f"expected a JSON {expect.__name__}, got "
                                    f"{type(body).__name__}", response.status_code)
        return body, response

    def post(self, url: str, body: dict[str, Any]) -> tuple[Any, requests.Response]:
        """POST ``body`` as JSON (GitHub's GraphQL endpoint) and return (decoded JSON object, response), with the
        retries, rate limits and token rotation of :meth:`get`.

        Never cached: the cache keys on the method and the URL, which every GraphQL query shares, and a query's
        answer must be fresh anyway (GraphQL has no ETag to revalidate with); offline, a POST is
        :class:`NotCached`. A 200 whose ``errors`` say ``RATE_LIMITED`` is a rate limit (waited for as a 403's);
        other ``errors`` raise :class:`RemoteError` with their messages."""
        response = self._request(url, None, True, None, body)
        answer = self._parse(response)
        if not isinstance(answer, dict):
            raise MalformedResponse(url, f"expected a JSON object, got {type(answer).__name__}", 200)
        errors = answer.get("errors")
        if errors:
            said = "; ".join(str(e.get("message") if isinstance(e, dict) else e) for e in errors)
            raise RemoteError(url, f"GraphQL errors: {self._redact(said[:300])}", 200)
        return answer, response

    def get_pages(self, url: str, params: dict[str, Any] | None = None, *,
                  revalidate: bool = False, fresh_after: datetime | None = None
                  ) -> Iterator[tuple[list, requests.Response]]:
        """Yield (JSON list, response) of each page of a paginated GitHub or GitLab resource, following
        ``Link: rel="next"`` (keyset and offset paging), else GitLab's ``X-Next-Page`` (offset paging, whose
        ``Link`` a proxy may drop); the response names and evicts a page a caller finds malformed."""
        next_url: str | None = url
        while next_url:
            page, response = self.get(next_url, params, expect=list, revalidate=revalidate,
                                      fresh_after=fresh_after)
            yield page, response
            next_url = response.links.get("next", {}).get("url")
            number = response.headers.get("X-Next-Page", "").strip()
            if next_url is None and number.isdigit():
                asked = urlsplit(response.url)
                query = [(k, v) for k, v in parse_qsl(asked.query, keep_blank_values=True) if k != "page"]
                next_url = urlunsplit(asked._replace(query=urlencode([*query, ("page", number)])))
            params = None  # the next link carries the query

    @contextmanager
    def validating(self, response: requests.Response) -> Iterator[None]:
        """Turn a :class:`BadField` raised while converting ``response`` into a :class:`MalformedResponse`
        naming its URL, after evicting it: a parseable but wrong body must not poison the cache."""
        try:
            yield
        except BadField as exc:
            self._evict(response)
            raise MalformedResponse(response.url, str(exc), response.status_code) from None

    def close(self) -> None:
        self.session.close()
        if self._cache_file is not None:
            self._cache_file.release()
            self._cache_file = None

    # --- internals ----------------------------------------------------------------------------------
    def _evict(self, response: requests.Response) -> None:
        key = getattr(response, "cache_key", None)
        if key and hasattr(self.session, "cache"):
            self.session.cache.delete(key)

    def _auth(self) -> tuple[dict[str, str], Any, int | None]:
        """Headers/auth for the next request, reserving a token with quota left (or waiting for one)."""
        if self.credentials.user and self.credentials.password:
            return {}, (self.credentials.user, self.credentials.password), None
        if not self._tokens:
            return {}, None, None
        while True:
            i, first = self.limiter.take(self._tokens, self._next_token, self.clock)
            if i is not None:
                break
            # every token is exhausted: wait for the earliest reset
            reset, renewals = self.limiter.reset_at(self._tokens[first])
            self._wait(reset - self.clock(), "<all tokens>")
            self.limiter.renew(self._tokens[first], renewals)
        self._next_token = (i + 1) % len(self._tokens)
        token = self.credentials.tokens[i]
        header = self.credentials.token_header
        return ({header: token} if header else {"Authorization": f"Bearer {token}"}), None, i

    def _wait(self, seconds: float, url: str) -> None:
        seconds = max(seconds, 0.0)
        if not self.wait_on_rate_limit:
            raise RateLimited(url, f"rate limited; quota resets in {seconds:.0f}s (wait_on_rate_limit is off)")
        if seconds > self.max_wait:
            raise RateLimited(url, f"rate limited for {seconds:.0f}s, more than max_wait={self.max_wait:.0f}s")
        self.stats.add("rate_limit_waits")
        self.stats.add("rate_limit_sleep_s", round(seconds))
        self.sleep(seconds)

    def _settle(self, token: int | None, response: requests.Response | None) -> None:
        """Release the reservation of ``token`` with what the answer (if any came) says of its quota."""
        if token is None:
            return
        remaining = reset = metered = None
        if response is not None and not getattr(response, "from_cache", False):
            left, at = _quota(response.headers, "Remaining"), _quota(response.headers, "Reset")
            remaining = int(left) if left is not None and left.isdigit() else None
            reset = float(at) if at is not None and at.isdigit() else None
            metered = remaining is not None or self._rate_limit_delay(response) is not None
        self.limiter.settle(self._tokens[token], remaining, reset, metered)

    def _rate_limit_delay(self, response: requests.Response) -> float | None:
        """Seconds to wait if ``response`` says we are rate limited, else None (see the module docstring)."""
        headers, status = response.headers, response.status_code
        exhausted = _quota(headers, "Remaining") == "0"
        graphql = status == 200 and _graphql_rate_limited(self._parse(response))
        if status != 429 and not graphql and not (status == 403 and (exhausted or "Retry-After" in headers
                                                                     or "rate limit" in self._message(response).lower())):
            return None
        delay = self._retry_after(headers.get("Retry-After", ""))
        reset = _quota(headers, "Reset") or ""
        if delay is None and (exhausted or graphql) and reset.isdigit():
            delay = float(reset) - self.clock() + 1.0
        return max(DEFAULT_RATE_LIMIT_WAIT if delay is None else delay, MIN_RATE_LIMIT_WAIT)

    def _retry_after(self, value: str) -> float | None:
        """``Retry-After`` in seconds: delta-seconds or an HTTP date (None when absent or unreadable)."""
        value = value.strip()
        if value.isdigit():
            return float(value)
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        return when.timestamp() - self.clock()

    def _message(self, response: requests.Response) -> str:
        """The error body's ``message`` (JSON, or Gerrit's plain text), short and with secrets redacted."""
        text = response.content.decode("utf-8", "replace").removeprefix(GERRIT_PREFIX).strip()
        try:
            body = json.loads(text)
            message = (body.get("message") or body.get("error")) if isinstance(body, dict) else None  # GitLab: either
        except ValueError:
            html = "html" in response.headers.get("Content-Type", "") or text[:1] == "<"
            message = None if html else text.split("\n", 1)[0]
        return self._redact(str(message or "")[:200])

    def _redact(self, message: str) -> str:
        """``message`` with every credential replaced: a forge's error text may quote what it was sent."""
        for secret in self.credentials.secrets():
            message = message.replace(secret, "REDACTED")
        return message

    def _stored(self, url: str, params: Any) -> tuple[str, requests.Response | None]:
        """The URL asked (with ``params``) and its stored response (None: not cached), looked up by the key
        the online request stores it under.

        Why not ``session.get(only_if_cached=True)``: its proxy, policy and signature machinery costs
        more per lookup than everything else a replayed round needs (offline), and online it made each
        change's ``fresh_after`` check a second pass through requests (~0.6 ms of CPU a request, 30%);
        there is no policy to apply either way: nothing stored expires, and only bodies that parse are stored.
        """
        request = requests.PreparedRequest()
        request.prepare_method("GET")
        request.prepare_url(url, params)  # the URL exactly as the online request has it
        return request.url or url, self.session.cache.get_response(cache_key(request))

    def _replay(self, url: str, params: Any) -> requests.Response:
        """Offline: the stored response, or :class:`NotCached`."""
        asked, response = self._stored(url, params)
        if response is None:
            raise NotCached(asked, "not in the cache (offline replay); run once online first", 504)
        self.stats.add("cache_hits")
        return response

    def _request(self, url: str, params: Any, revalidate: bool, fresh_after: datetime | None,
                 body: dict[str, Any] | None = None) -> requests.Response:
        method = "GET" if body is None else "POST"
        if self.cache_mode == "offline":
            if body is not None:
                raise NotCached(url, "a GraphQL query is never cached (offline replay is for REST); run online", 504)
            return self._replay(url, params)
        cached_ok = self.cache_mode != "off" and not revalidate and fresh_after is None
        if self.cache_mode != "off" and fresh_after is not None:
            hit = self._stored(url, params)[1]
            created = getattr(hit, "created_at", None)
            if created is not None and created.replace(tzinfo=created.tzinfo or timezone.utc) >= fresh_after:
                self.stats.add("cache_hits")
                return hit
        attempts = limited = 0
        while True:
            headers, auth, token = self._auth()
            kwargs: dict[str, Any] = {"params": params, "headers": headers, "auth": auth, "timeout": self.timeout}
            if body is not None:
                kwargs["json"] = body
            if self.cache_mode != "off":
                kwargs["refresh"] = not cached_ok
            response = None
            try:
                with self.watch.wait(f"{method} {redact_url(url)}"):
                    response = self.session.request(method, url, **kwargs)
            except (requests.Timeout, requests.ConnectionError, requests.exceptions.ChunkedEncodingError) as exc:
                attempts += 1
                stalled = _timed_out(exc)
                if stalled:
                    self.stats.add("timeouts")
                if attempts > self.max_retries:
                    if stalled:
                        raise Stalled(url, f"no answer within {self.timeout:g} s, {attempts} attempts") from None
                    raise RemoteError(url, f"gave up after {attempts} attempts: {type(exc).__name__}") from None
                self._backoff(attempts)
                continue
            finally:
                self._settle(token, response)
            if getattr(response, "from_cache", False) and not getattr(response, "revalidated", False):
                self.stats.add("cache_hits")
            status = response.status_code
            if status == 200:
                try:
                    self._parse(response)
                except MalformedResponse as exc:  # a proxy's error page, a body cut short: as a 5xx
                    attempts += 1
                    if attempts > self.max_retries:
                        raise MalformedResponse(response.url, f"{exc.detail}, {attempts} times; giving up",
                                                status) from None
                    self._backoff(attempts)
                    continue
                if body is None or not _graphql_rate_limited(self._parse(response)):
                    return response
            delay = self._rate_limit_delay(response)
            if delay is not None:
                limited += 1
                if limited > self.max_rate_limit_retries * max(len(self._tokens), 1):
                    raise RateLimited(response.url, f"still rate limited after {limited} answers (HTTP {status}"
                                      f"{self._said(response)}); giving up", status)
                if token is not None:
                    self.limiter.exhaust(self._tokens[token], self.clock() + delay)
                    if self.limiter.any_usable(self._tokens, self.clock()):
                        continue  # another token still has quota
                    self.limiter.renew(self._tokens[token])  # retried after the wait below
                self._wait(delay, response.url)
                continue
            if status >= 500:
                attempts += 1
                if attempts > self.max_retries:
                    raise RemoteError(response.url, f"HTTP {status} after {attempts} attempts", status)
                self._backoff(attempts)
                continue
            raise RemoteError(response.url, f"HTTP {status} {response.reason or ''}".rstrip() + self._said(response),
                              status)

    def _said(self, response: requests.Response) -> str:
        """``: <the body's message>`` for an error text, or nothing when the body says nothing."""
        message = self._message(response)
        return f": {message}" if message else ""

    def _backoff(self, attempt: int) -> None:
        self.stats.add("retries")
        self.sleep(min(self.backoff * 2 ** (attempt - 1), 60.0))
