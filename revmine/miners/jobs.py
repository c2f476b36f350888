"""Mining jobs: one or many projects, resumable after ``kill -9``, with a run manifest.

Output directory layout::

    OUT/rounds.parquet/<slug>-000000.parquet ...  parts in ROUNDS_SCHEMA, one per batch of changes
    OUT/state/dropped/<slug>-000000.parquet ...   drops (reviewed files that made no row), one part per batch
    OUT/state/<slug>.json                         checkpoint: changes done, next part numbers, window, counts
    OUT/dropped.parquet                           every project's drops, in MINE_DROPPED_SCHEMA
    OUT/manifest.json                             what was asked, fetched, counted, versions
    OUT/repos/<slug>.git                          bare clones (contents come from git)
    OUT/http_cache.sqlite                         response cache (no credentials in it)

The cache and the clones are inputs rather than outputs: ``JobOptions.cache`` / ``repos`` (``cache`` /
``repos`` in a job file) put them elsewhere so that several runs share them, e.g. an offline replay
into a fresh directory that neither asks the forge nor clones again.

Why a batch job finishes: a project that fails (the forge failing after its retries, refused credentials,
a rate limit not worth waiting for, git failing, a listing that stalls) is recorded with the typed reason
(:class:`~revmine.miners.base.DropReason`) in the manifest (``status``, ``failure``) and as one row of
``dropped.parquet`` with no change; what it mined before failing is kept, and the other projects go on.
Then :class:`MiningFailed` says which failed. A project whose checkpoint says it finished is not asked
again: re-running the job retries only what failed or was stopped. Bugs are not failures of a project:
they stop the job with their traceback. A listing of no change at all (a window with none, or a forge that
answers nothing for a window it had changes in: issue 31) is not a finish: the project is ``empty``, with a
``warning`` in the manifest and on the command line, and is asked again by the next run.

Concurrency (``JobOptions.concurrency`` N, ``concurrency`` in a job file): N projects at a time, their
changes mined by a pool of threads per host (:data:`THREADS_PER_SLOT` per request slot of that host, so
that changes waiting for a busy host's slots never hold the threads of another's), each project's
results taken in its listing order so that parts, checkpoints and drops are byte for byte those of a
sequential run. The wire is bounded by one :class:`~revmine.miners.http.Limiter` for the job: N
requests in all, ``max_concurrent_per_host`` per host, each token's quota. Threads suffice: the work
waits on the network (git answers in microseconds).

On Dask (``JobOptions.engine``, ``revmine run --engine dask``): each project is mined whole by a worker,
as above, into its own parts, checkpoint and drops under the job's output, which the workers must share
with this process (checked); the limits are the job's, held by the cluster
(:mod:`revmine.miners.cluster`), and the manifest and ``dropped.parquet`` are assembled here in the order
asked: the files are those of an in-process run. Workers take credentials from their own environment. A
job of recordings is mined in this process (its forge answers on this machine's loopback).

Why this is crash-safe: a batch's parts (rows, drops) are written atomically (revmine.io.store) *before*
the checkpoint that names its changes is written atomically. A kill between the two leaves parts whose
numbers are not below the checkpoint's ``next_part`` / ``next_drop_part``; they are deleted on resume
and their changes are mined again, so the output never holds a change's rows or drops twice nor misses
one. The drops are parts rather than a list in the checkpoint so that the file rewritten at each batch
stays small however many files a run drops. The time window of a run (``until`` defaults to
the start of the first run) is stored in the checkpoint so a resumed run asks the same questions and
replays them from the cache.
"""

from __future__ import annotations

import hashlib
import json
import platform
import re
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter, deque
from concurrent.futures import Future, ThreadPoolExecutor, wait
from contextlib import ExitStack, contextmanager
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, TypeVar

import pyarrow as pa
import pyarrow.parquet as pq

from ..errors import InputError, OperationError
from ..io.store import write_json, write_table
from ..io.textio import read_toml
from ..lang.languages import DEFAULT_LANGUAGES, check_languages
from ..package import __version__
from ..runtime.progress import Watch, progress_bar
from ..schema import MINE_DROPPED_SCHEMA, ROUNDS_SCHEMA, schema_id
from .authors import known_accounts
from .base import Drop, DropReason, ListingStalled, Mined, Miner
from .gerrit import GerritMiner
from .git import GitError, GitRefused, GitRepo, GitStalled
from .github import APIS, DEFAULT_API, GitHubMiner
from .gitlab import DEFAULT_URL as GITLAB_URL
from .gitlab import GitLabMiner
from .http import (Client, Credentials, Dialect, Limiter, RateLimited, RemoteError, Stalled, check_url,
                   credentials_from_env, host_of, route)
from ..io.opt_out import read_opt_out
from .licences import LicenceReader
from .rounds import ContentReader, parse_time
from .settings import DEFAULT_BATCH_SIZE, DEFAULT_CACHE_MODE, DEFAULT_MAX_PER_HOST, DEFAULT_STALL_TIMEOUT, CacheMode

PARTS_DIR = "rounds.parquet"
DROPS_DIR = "state/dropped"
#: A drop part: the run's ``dropped.parquet`` columns (``reason`` a :class:`DropReason`, ``detail`` its sentence).
DROP_PART_SCHEMA = MINE_DROPPED_SCHEMA.remove_metadata()
SECRET_KEYS = {"token", "tokens", "password", "secret", "authorization"}
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
#: Threads mining changes per request slot: a change also parses, reads git and writes the cache between
#: its requests, and the slot it left should not wait for that (the limiter still allows N on the wire).
THREADS_PER_SLOT = 2
#: How many failed projects the error message lists (the manifest has them all).
SUMMARY_LINES = 15
T = TypeVar("T")
R = TypeVar("R")


@dataclass
class ProjectSpec:
    """One project to mine: what the user asked for (never holds a credential)."""

    source: str  # "gerrit" | "github" | "gitlab"
    project: str  # Gerrit project name, OWNER/NAME on GitHub, GROUP/NAME or a numeric id on GitLab
    url: str | None = None  # Gerrit or GitLab base URL
    api_url: str = DEFAULT_API  # GitHub API base (Enterprise, tests)
    since: datetime | None = None
    until: datetime | None = None
    clone_url: str | None = None  # default: derived from url / api_url
    api: str = "rest"  # GitHub: "rest" or "graphql" (where pull requests and review comments come from)

    @property
    def host(self) -> str:
        return host_of(self.url or self.api_url)

    def check_urls(self, path: str | Path | None = None, where: str = "") -> None:
        """Refuse URLs carrying a secret (:func:`~revmine.miners.http.check_url`): they would be copied
        into rows, the checkpoint, the manifest and the cache. ``where`` prefixes the field named."""
        for name in ("url", "api_url", "clone_url"):
            check_url(getattr(self, name), f"{where}{name}", path)

    @property
    def slug(self) -> str:
        """A file-name-safe, unique name for checkpoint, parts and clone."""
        ident = f"{self.source}:{self.host}:{self.project}"
        readable = re.sub(r"[^A-Za-z0-9._-]+", "_", f"{self.source}-{self.project}")[:60]
        return f"{readable}-{hashlib.sha1(ident.encode()).hexdigest()[:8]}"

    def asked(self) -> dict:
        return {k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in asdict(self).items()}




@dataclass
class JobOptions:
    """How to mine (shared by all projects of a job)."""

    cache: Path | None = None  # default OUT/http_cache.sqlite
    repos: Path | None = None  # directory of the bare clones, default OUT/repos
    routes: dict[str, str] = field(default_factory=dict)  # URL prefix -> where it is answered (http.route)
    # None below: the job file's value (run_job), else the default; a value given here wins over the job's
    cache_mode: CacheMode | None = None  # default DEFAULT_CACHE_MODE
    batch_size: int | None = None  # changes per part / checkpoint, default DEFAULT_BATCH_SIZE
    concurrency: int | None = None  # projects, changes and requests at once, default 1
    max_concurrent_per_host: int | None = None  # requests in flight to one host, default DEFAULT_MAX_PER_HOST
    languages: tuple[str, ...] | None = None  # files mined, by language (revmine.lang.languages), default Java
    robot_comments: bool | None = None  # Gerrit: also mine robot comments (one request more a change), default no
    stall_timeout: float | None = None  # seconds without data before a wait is a stall, default DEFAULT_STALL_TIMEOUT
    known_accounts: Path | None = None  # a CSV of more bot / AI-reviewer accounts (revmine.miners.authors)
    accounts: Any = None  # the shipped list and known_accounts' rows, read by resolved() (in the client)
    opt_out: Path | None = None  # the opt-out list ([publish] opt_out, revmine.io.opt_out)
    opted_out: frozenset[str] = frozenset()  # its identities, read by resolved()

    def resolved(self) -> "JobOptions":
        """A copy with the defaults in place of what neither the caller nor a job file gave."""
        return replace(self, cache_mode=self.cache_mode or DEFAULT_CACHE_MODE,
                       languages=check_languages(self.languages or DEFAULT_LANGUAGES),
                       robot_comments=bool(self.robot_comments),
                       stall_timeout=self.stall_timeout or DEFAULT_STALL_TIMEOUT,
                       accounts=known_accounts(self.known_accounts), opted_out=read_opt_out(self.opt_out),
                       batch_size=self.batch_size or DEFAULT_BATCH_SIZE, concurrency=self.concurrency or 1,
                       max_concurrent_per_host=self.max_concurrent_per_host or DEFAULT_MAX_PER_HOST)
    progress: bool = True
    wait_on_rate_limit: bool = True
    credentials: dict[str, Credentials] = field(default_factory=dict)  # by source; else from env
    ambient_credentials: bool = True  # read the environment / $REVMINE_CREDENTIALS (off for recordings)
    client_options: dict[str, Any] = field(default_factory=dict)  # timeout, backoff, clock, sleep...
    engine: Any = None  # a revmine.runtime.engine.DaskEngine: projects mined on its workers (see _mine_on_cluster)
    now: Callable[[], datetime] = lambda: datetime.now(timezone.utc)


def _versions() -> dict[str, str]:
    found = {"revmine": __version__, "python": platform.python_version(), "schema": schema_id(ROUNDS_SCHEMA)}
    for pkg in ("requests", "requests-cache", "pyarrow", "tqdm"):
        try:
            found[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            found[pkg] = "missing"
    git = subprocess.run(["git", "--version"], capture_output=True, text=True)
    found["git"] = git.stdout.strip().removeprefix("git version ")
    return found


class _Checkpoint:
    """The per-project state file, rewritten atomically after each batch (it never holds rows or drops)."""

    VERSION = 2  # 1 held the drops in the file

    def __init__(self, path: Path, spec: ProjectSpec, now: datetime, languages: tuple[str, ...],
                 robot_comments: bool = False):
        self.path = path
        if path.exists():
            self.data = self._load(path, spec, languages)
            if bool(self.data.get("robot_comments", False)) != robot_comments:  # checkpoints from before: none
                raise InputError(path, f"checkpoint mined {'with' if not robot_comments else 'without'} robot "
                                 f"comments, job asks {'with' if robot_comments else 'without'}; use another --out "
                                 "directory", field="robot_comments")
        else:
            self.data = {"version": self.VERSION, "asked": spec.asked(), "done": {}, "next_part": 0,
                         "next_drop_part": 0, "http": {}, "content_fallbacks": 0, "finished": False,
                         "since": (spec.since or EPOCH).isoformat(), "until": (spec.until or now).isoformat(),
                         "languages": list(languages), "robot_comments": robot_comments}

    @classmethod
    def _load(cls, path: Path, spec: ProjectSpec, languages: tuple[str, ...]) -> dict:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise InputError(path, f"unreadable checkpoint: {exc}") from None
        if not isinstance(data, dict) or data.get("version") != cls.VERSION:
            found = data.get("version") if isinstance(data, dict) else None
            raise InputError(path, f"checkpoint version {found!r} is not {cls.VERSION} (written by another "
                             "revmine); use another --out directory", field="version")
        asked, wanted = data.get("asked", {}), spec.asked()
        for key in ("source", "project", "url", "api_url"):
            if asked.get(key) != wanted[key]:
                raise InputError(path, f"checkpoint is for {asked.get(key)!r}, job asks for {wanted[key]!r};"
                                 " use another --out directory", field=key)
        mined = tuple(data.get("languages", DEFAULT_LANGUAGES))  # checkpoints from before languages: Java
        if mined != languages:  # the changes done hold the files of those languages only
            raise InputError(path, f"checkpoint mined {', '.join(mined)}, job asks for {', '.join(languages)}; "
                             "use another --out directory", field="languages")
        return data

    def save(self) -> None:
        write_json(self.path, self.data)


class _Parts:
    """One project's numbered Parquet parts in a directory: ``<slug>-000000.parquet``, ...

    The checkpoint holds the next number; a part at or beyond it was written by a run killed before its
    checkpoint (its changes are mined again), so :meth:`prune` deletes it, with any temporary file."""

    def __init__(self, directory: Path, slug: str, schema: pa.Schema):
        self.directory, self.slug, self.schema = directory, slug, schema

    def prune(self, next_part: int) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        for stale in self.directory.glob(f"*{self.slug}-*"):
            seq = stale.name.removeprefix(f"{self.slug}-").removesuffix(".parquet")
            if stale.name.startswith(".") or not seq.isdigit() or int(seq) >= next_part:
                stale.unlink()

    def write(self, rows: list[dict], seq: int) -> None:
        table = pa.Table.from_pylist(rows, schema=self.schema)
        write_table(table, self.directory / f"{self.slug}-{seq:06d}.parquet", schema=self.schema)

    def read(self) -> pa.Table:
        """Every part of the project, in order (an empty table when there is none)."""
        parts = sorted(part for part in self.directory.glob(f"{self.slug}-*.parquet")
                       if part.name[len(self.slug) + 1:-len(".parquet")].isdigit())
        return pa.concat_tables([self._read_part(part) for part in parts]) if parts else self.schema.empty_table()

    def _read_part(self, part: Path) -> pa.Table:
        return pq.read_table(part, schema=self.schema)


class _DropParts(_Parts):
    """A project's drop parts; those of a run begun by a revmine before ``mine_dropped/2`` (the sentence in
    ``reason``, the code in ``kind``) are read in today's columns, so that the run resumes."""

    def _read_part(self, part: Path) -> pa.Table:
        table = pq.read_table(part)
        if "kind" in table.column_names:
            table = table.rename_columns([{"reason": "detail", "kind": "reason"}.get(n, n) for n in table.column_names])
        return table.select(self.schema.names).cast(self.schema)


def manifest_holds(out: str | Path) -> bool:
    """Whether ``OUT/manifest.json`` says what the projects' checkpoints hold: a project is failed exactly when
    its checkpoint is unfinished (or absent), and its changes, rows and drops are the checkpoint's.

    Why: the manifest is what a user reads and what a pipeline's "already done" trusts. One written by a run
    that raced another (before outputs had one writer) or edited by hand can say a project failed with 0
    changes while its rows are all there; a pipeline then mines again, which writes the manifest anew from
    the checkpoints without asking the forge for finished projects."""
    out = Path(out)
    try:
        projects = json.loads((out / "manifest.json").read_text(encoding="utf-8"))["projects"]
        for p in projects:
            path = out / "state" / f"{p['slug']}.json"
            state = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
            done = state.get("done", {})
            drops = sum(pq.read_metadata(part).num_rows for part in (out / DROPS_DIR).glob(f"{p['slug']}-*.parquet")
                        if int(part.name[len(p["slug"]) + 1:-len(".parquet")]) < state.get("next_drop_part", 0))
            if ((p["status"] in ("failed", "empty")) == bool(state.get("finished")) or p["changes_done"] != len(done)
                    or p["rows"] != sum(done.values()) or len(p["dropped"]) != drops):
                return False
    except (OSError, ValueError, KeyError, TypeError):  # unreadable or of another shape: not to be trusted
        return False
    return True


def _drop_parts(out: Path, spec: ProjectSpec) -> _Parts:
    return _DropParts(out / DROPS_DIR, spec.slug, DROP_PART_SCHEMA)


class _Output:
    """A project's rows and drops on their way to disk, one batch of changes at a time.

    Why this order is crash-safe: a batch's parts (rows, drops) are written atomically before the
    checkpoint naming its changes; see the module docstring."""

    def __init__(self, out: Path, spec: ProjectSpec, ckpt: _Checkpoint):
        self.spec, self.ckpt, self.state = spec, ckpt, ckpt.data
        self.rows = _Parts(out / PARTS_DIR, spec.slug, ROUNDS_SCHEMA)
        self.drops = _drop_parts(out, spec)
        self.rows.prune(self.state["next_part"])
        self.drops.prune(self.state["next_drop_part"])
        self.http_before = Counter(self.state["http"])
        self.pending = Mined()
        self.pending_done: dict[str, int] = {}
        self.pending_fallbacks = 0

    def is_done(self, key: str) -> bool:
        return key in self.state["done"] or key in self.pending_done

    def add(self, key: str, mined: Mined, fallbacks: int) -> None:
        self.pending += mined
        self.pending_done[key] = len(mined.rows)
        self.pending_fallbacks += fallbacks

    @property
    def batch(self) -> int:
        return len(self.pending_done)

    def flush(self, http: Counter, finished: bool = False) -> None:
        state = self.state
        if self.pending.rows:
            self.rows.write(self.pending.rows, state["next_part"])
            state["next_part"] += 1
        if self.pending.drops:
            self.drops.write([self._drop_row(d) for d in self.pending.drops], state["next_drop_part"])
            state["next_drop_part"] += 1
        state["done"].update(self.pending_done)
        state["content_fallbacks"] += self.pending_fallbacks
        state["http"] = dict(self.http_before + http)
        state["finished"] = finished or state["finished"]
        self.ckpt.save()
        self.pending, self.pending_done, self.pending_fallbacks = Mined(), {}, 0

    def _drop_row(self, drop: Drop) -> dict:
        return {"source": self.spec.source, "project": self.spec.project, "change": drop.change,
                "round_id": drop.round_id, "path": drop.path, "reason": drop.reason.value, "detail": drop.message}


class MiningFailed(OperationError):
    """Some projects of a job failed; the others were mined (a one-screen summary, the rest in the manifest)."""

    def __init__(self, failed: list[dict], total: int, out: Path):
        self.failed = failed
        if total == 1:  # one project: its error, on one line
            p = failed[0]
            super().__init__(f"mining {p['asked']['source']} {p['asked']['project']} failed "
                             f"({p['failure']['kind']}): {p['failure']['reason']}")
            return
        others = "the others are done; " if total > len(failed) else ""
        lines = [f"mining failed for {len(failed)} of {total} project{'s' * (total > 1)} ({others}run the same "
                 "command again to retry only what failed or is unfinished):"]
        lines += [f"  {p['asked']['source']} {p['asked']['project']}: {p['failure']['kind']}: {p['failure']['reason']}"
                  for p in failed[:SUMMARY_LINES]]
        if len(failed) > SUMMARY_LINES:
            lines.append(f"  ... and {len(failed) - SUMMARY_LINES} more")
        lines.append(f"details: {out / 'manifest.json'} (projects[].failure), {out / 'dropped.parquet'}")
        super().__init__("\n".join(lines))


def _failure(exc: Exception) -> dict:
    """A failed project's typed reason and one line saying what happened."""
    if isinstance(exc, ListingStalled):
        kind = DropReason.LISTING_STALLED
    elif isinstance(exc, (GitStalled, Stalled)):
        kind = DropReason.STALLED
    elif isinstance(exc, GitRefused) or (isinstance(exc, RemoteError) and exc.status in (401, 403)):
        kind = DropReason.BAD_CREDENTIALS
    elif isinstance(exc, GitError):
        kind = DropReason.GIT_ERROR
    elif isinstance(exc, RateLimited):
        kind = DropReason.RATE_LIMITED
    else:
        kind = DropReason.FORGE_ERROR
    return {"kind": kind.value, "reason": (str(exc).splitlines() or [type(exc).__name__])[0][:500]}


def _ordered(pool: ThreadPoolExecutor | None, fn: Callable[[T], R], items: Iterable[T], window: int
             ) -> Iterator[tuple[T, R]]:
    """``(item, fn(item))`` in the order of ``items``, with up to ``window`` calls running in ``pool``
    (none: one after the other). When the consumer stops or a call fails, calls not started are cancelled
    and running ones awaited, so nothing still uses what the caller closes next."""
    if pool is None:
        for item in items:
            yield item, fn(item)
        return
    pending: deque[tuple[T, Future]] = deque()
    try:
        for item in items:
            pending.append((item, pool.submit(fn, item)))
            if len(pending) >= window:
                first, future = pending.popleft()
                yield first, future.result()
        while pending:
            first, future = pending.popleft()
            yield first, future.result()
    finally:
        for _, future in pending:
            future.cancel()
        wait([future for _, future in pending])


class _Stopped(Exception):
    """The job is stopping (Ctrl-C, a bug in another project): projects still running end at their next change."""


@dataclass
class _Shared:
    """What the projects of a running job share: the wire's limits, the pools mining changes (``threads``
    each; 0: one change after the other) and the signal to stop."""

    limiter: Limiter
    watch: Watch
    threads: int = 0
    stop: threading.Event = field(default_factory=threading.Event)
    _pools: dict[str, tuple[ThreadPoolExecutor, int]] = field(default_factory=dict)  # host -> (pool, projects)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @contextmanager
    def pool(self, host: str) -> Iterator[ThreadPoolExecutor | None]:
        """The pool mining the changes of the running projects answered by ``host``: one per host, ended
        when its last project ends (a job may ask many hosts, a few at a time).

        Why not one pool for the job: a change holds its thread while it waits for a request slot, so
        with one pool the changes queued for a full host took the threads that another host's changes
        needed, and that host idled (measured: one request in flight of its 4 for seconds at a time).
        """
        if not self.threads:
            yield None
            return
        with self._lock:
            pool, users = self._pools.get(host) or (ThreadPoolExecutor(self.threads,
                                                                       thread_name_prefix="revmine-change"), 0)
            self._pools[host] = pool, users + 1
        try:
            yield pool
        finally:
            with self._lock:
                pool, users = self._pools.pop(host)
                if users > 1:
                    self._pools[host] = pool, users - 1
            if users == 1:
                pool.shutdown()


def _client(spec: ProjectSpec, out: Path, opts: JobOptions, limiter: Limiter, watch: Watch) -> Client:
    """The project's HTTP client, with the job's credentials for its forge, else the environment's."""
    dialect: Dialect = spec.source if spec.source in ("gerrit", "gitlab") else "github"  # type: ignore[assignment]
    credentials = opts.credentials.get(spec.source) or (
        credentials_from_env(dialect, spec.host) if opts.ambient_credentials else Credentials())
    return Client(dialect, credentials, cache_path=opts.cache or out / "http_cache.sqlite",
                  cache_mode=opts.cache_mode, wait_on_rate_limit=opts.wait_on_rate_limit, routes=opts.routes,
                  limiter=limiter, watch=watch, **{"timeout": opts.stall_timeout, **opts.client_options})


def _miner(spec: ProjectSpec, client: Client, state: dict, accounts: Any = None,
           opted_out: frozenset[str] = frozenset()) -> Miner:
    """The forge's miner over the run's window (stored in the checkpoint, so a resumed run asks the same); a
    Gerrit account is recorded by the identity the opt-out list names, if it names one (``gerrit._account``)."""
    since, until = parse_time(state["since"]), parse_time(state["until"])
    languages = tuple(state["languages"])
    if spec.source == "gerrit":
        return GerritMiner(client, spec.url or "", spec.project, since, until, languages=languages,
                           robot_comments=bool(state.get("robot_comments", False)), accounts=accounts,
                           opted_out=opted_out)
    if spec.source == "gitlab":
        return GitLabMiner(client, spec.url or GITLAB_URL, spec.project, spec.since and since, spec.until and until,
                           languages=languages, accounts=accounts)
    return GitHubMiner(client, spec.project, spec.since and since, spec.until and until, spec.api_url,
                       languages=languages, accounts=accounts, api=spec.api)


def _repo(spec: ProjectSpec, miner: Miner, out: Path, opts: JobOptions, client: Client) -> GitRepo:
    """The project's bare clone, brought up to date (offline: only from a clone on this machine); its stalls
    are counted with ``client``'s requests and said by its watch."""
    repo = GitRepo((opts.repos or out / "repos") / f"{spec.slug}.git",
                   route(spec.clone_url or miner.default_clone_url, opts.routes), miner.refspecs,
                   None if spec.clone_url else miner.git_auth_header(), stall_timeout=opts.stall_timeout or
                   DEFAULT_STALL_TIMEOUT, stats=client.stats, watch=client.watch)
    if opts.cache_mode != "offline":
        repo.sync()
    elif not (repo.path / "HEAD").exists():
        if not _is_local(repo.url):
            raise InputError(repo.path, f"offline replay needs the clone of {spec.project}; run once "
                             "online, or point repos= at the clones of an earlier run")
        repo.sync()  # a clone from this machine is not network access
    return repo


def _mine_change(miner: Miner, change: dict, licences: LicenceReader, fetch: bool,
                 opted_out: frozenset[str] = frozenset()) -> tuple[Mined, int]:
    """Rows and drops of one change (without anything of the people on the opt-out list), and how many files
    came from the REST fallback."""
    reader = ContentReader(licences.repo, miner.fallback(change), fetch=fetch, licences=licences)
    try:
        mined = miner.rounds(change, reader)
    except RemoteError as exc:
        if exc.status != 404:
            raise
        mined = Mined(drops=[Drop(DropReason.CHANGE_GONE, str(exc), miner.key(change))])  # deleted since listed
    return (_without(mined, opted_out) if opted_out else mined), reader.fallbacks


def _without(mined: Mined, opted_out: frozenset[str]) -> Mined:
    """``mined`` less the rows of changes owned by, and the comments written by, people on the opt-out list: each
    is a drop (``opt_out``) that names the change and file, never the person."""
    kept = Mined(drops=list(mined.drops))
    for row in mined.rows:
        where = (row["change"], row["path_before"], row["round_id"])
        if (row["owner"] or "").lower() in opted_out:
            kept.drops.append(Drop(DropReason.OPT_OUT, "the change's owner is on the opt-out list", *where))
            continue
        comments = [c for c in row["comments"] if (c["author"] or "").lower() not in opted_out]
        kept.drops += [Drop(DropReason.OPT_OUT, "a comment by someone on the opt-out list", *where)
                       for _ in range(len(row["comments"]) - len(comments))]
        kept.rows.append({**row, "comments": comments})
    return kept


def _mine_changes(miner: Miner, licences: LicenceReader, output: _Output, http: Counter, opts: JobOptions,
                  shared: _Shared, pool: ThreadPoolExecutor | None, counts: Counter) -> None:
    """Mine every listed change not done yet (in ``pool``, taken in listing order), flushing a batch every
    ``batch_size`` changes (``http``: the client's live request counts, saved with each batch); ``licences``
    reads the project's repository (one per project: each licence file is matched once)."""
    fetch = opts.cache_mode != "offline"

    def todo() -> Iterator[tuple[str, dict]]:
        for change in miner.list_changes():
            if shared.stop.is_set():
                raise _Stopped()
            counts["changes_listed"] += 1
            bar.update()
            key = miner.key(change)
            if output.is_done(key):
                counts["changes_skipped_done"] += 1
                continue
            yield key, change

    def mine(item: tuple[str, dict]) -> tuple[Mined, int]:
        return _mine_change(miner, item[1], licences, fetch, opts.opted_out)

    with progress_bar(desc=output.spec.slug, unit="change", enabled=opts.progress, leave=False) as bar:
        for (key, _), mined in _ordered(pool, mine, todo(), THREADS_PER_SLOT * (opts.concurrency or 1)):
            output.add(key, *mined)
            counts["changes_mined"] += 1
            if output.batch >= opts.batch_size:
                output.flush(http)
    output.flush(http, finished=counts["changes_listed"] > 0)  # nothing listed: not a finish (module doc)


def _summary(spec: ProjectSpec, state: dict, drops: pa.Table, counts: Counter, http_this_run: Counter,
             seconds: float, status: str, failure: dict | None = None, warning: str | None = None) -> dict:
    """The project's entry in the manifest (``status``: mined, finished_before (not asked again), failed, empty
    (nothing listed: unfinished, with a ``warning``))."""
    dropped = drops.select(["round_id", "change", "path", "reason", "detail"]).to_pylist()
    details = Counter(re.sub(r"\b[0-9a-f]{40}\b", "<sha>", d["detail"]) for d in dropped)
    return {
        "asked": spec.asked(), "slug": spec.slug, "status": status, "failure": failure, "warning": warning,
        "window": {"since": state["since"], "until": state["until"]},
        "changes_listed_this_run": counts["changes_listed"], "changes_mined_this_run": counts["changes_mined"],
        "changes_skipped_resume": counts["changes_skipped_done"], "changes_done": len(state["done"]),
        "rows": sum(state["done"].values()), "parts": state["next_part"],
        "dropped": dropped, "dropped_by_reason": dict(sorted(Counter(drops.column("reason").to_pylist()).items())),
        "dropped_by_detail": dict(details),
        "http": state["http"], "http_this_run": dict(http_this_run),
        "content_fallbacks": state["content_fallbacks"], "seconds_this_run": round(seconds, 3),
    }


def _mine_project(spec: ProjectSpec, out: Path, opts: JobOptions, shared: _Shared) -> dict:
    """Mine one project into ``out`` (resuming from its checkpoint) and return its summary; a failure of
    the forge or of git is the project's (see the module docstring), not the job's."""
    started = time.monotonic()
    ckpt = _Checkpoint(out / "state" / f"{spec.slug}.json", spec, opts.now(), opts.languages,
                       bool(opts.robot_comments))
    if ckpt.data["finished"]:
        return _summary(spec, ckpt.data, _drop_parts(out, spec).read(), Counter(), Counter(), 0.0, "finished_before")
    output = _Output(out, spec, ckpt)
    client = _client(spec, out, opts, shared.limiter, shared.watch)
    counts: Counter = Counter()
    failure = None
    try:
        miner = _miner(spec, client, ckpt.data, opts.accounts, opts.opted_out)
        repo = _repo(spec, miner, out, opts, client)
        try:
            with shared.pool(host_of(route(spec.url or spec.api_url, opts.routes))) as pool:  # the host answering
                licences = LicenceReader(repo, miner.licence_answer())
                _mine_changes(miner, licences, output, client.stats, opts, shared, pool, counts)
        finally:
            repo.close()
    except (RemoteError, GitError, ListingStalled) as exc:
        failure = _failure(exc)
        if output.batch or ckpt.path.exists():  # what was mined before the failure is kept, still unfinished
            output.flush(client.stats)
    finally:
        client.close()
    warning = None
    if failure is None and not counts["changes_listed"]:
        before = len(ckpt.data["done"])
        warning = (f"the forge listed no change for {ckpt.data['since']} .. {ckpt.data['until']}"
                   + (f", where it listed {before} before" if before else "")
                   + ": not marked finished, asked again by the next run (check the project and the window)")
    return _summary(spec, ckpt.data, output.drops.read(), counts, client.stats, time.monotonic() - started,
                    "failed" if failure else "empty" if warning else "mined", failure, warning)


def _mine_all(specs: list[ProjectSpec], out: Path, opts: JobOptions, limiter: Limiter | None = None) -> list[dict]:
    """Every project's summary, in the order asked: ``opts.concurrency`` projects and changes at a time
    (``limiter``: the job's limits, when they are held elsewhere than in this process)."""
    if getattr(opts.engine, "name", "local") == "dask":
        return _mine_on_cluster(specs, out, opts)
    n = opts.concurrency or 1
    shared = _Shared(limiter or Limiter(n, opts.max_concurrent_per_host), Watch(enabled=opts.progress))
    with ExitStack() as stack, progress_bar(total=len(specs), desc="projects", unit="project",
                                            enabled=opts.progress and len(specs) > 1) as bar:
        stack.callback(shared.watch.close)
        if n == 1:
            summaries = []
            for spec in specs:
                summaries.append(_mine_project(spec, out, opts, shared))
                bar.update()
            return summaries
        shared.threads = THREADS_PER_SLOT * min(n, shared.limiter.per_host)  # a host never has more slots
        projects = stack.enter_context(ThreadPoolExecutor(min(n, len(specs)), thread_name_prefix="revmine-project"))
        futures = [projects.submit(_mine_project, spec, out, opts, shared) for spec in specs]
        for future in futures:
            future.add_done_callback(lambda _: bar.update())
        try:
            return [future.result() for future in futures]
        except BaseException:
            shared.stop.set()  # the running projects end at their next change (their batches are kept)
            for future in futures:
                future.cancel()
            raise


def _mine_on_cluster(specs: list[ProjectSpec], out: Path, opts: JobOptions) -> list[dict]:
    """Every project's summary, each project mined whole on a worker of ``opts.engine``'s cluster into its
    own parts, checkpoint and drops under ``out`` (a directory the workers share with this process), with
    the job's limits held by the cluster (:mod:`revmine.miners.cluster`). The summaries come back in the
    order asked, so the manifest and ``dropped.parquet`` written here are those of an in-process run.

    Credentials given in ``opts`` are refused: they would travel through the scheduler; the workers read
    theirs from their environment, as an in-process run does."""
    if opts.credentials:
        raise InputError.setting("engine", "mining on Dask takes credentials from the workers' environment "
                                           "(GITHUB_TOKEN(S), GERRIT_USER/GERRIT_PASSWORD, GITLAB_TOKEN(S), "
                                           "$REVMINE_CREDENTIALS), "
                                           "never through the scheduler")
    from .cluster import semaphore_closer

    client = opts.engine.client
    budgets = client.submit(Limiter, actor=True, pure=False)
    remote = replace(opts, engine=None, progress=False, cache=opts.cache and Path(opts.cache).resolve(),
                     repos=opts.repos and Path(opts.repos).resolve())  # workers may run in another directory
    run = uuid.uuid4().hex
    marker = out.resolve() / f".revmine-run-{run}"  # a worker that does not see it does not share the disk
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.touch()
    actor = budgets.result()
    futures = [client.submit(_mine_on_worker, spec, marker, remote, run, actor, pure=False) for spec in specs]
    try:
        with progress_bar(total=len(specs), desc="projects", unit="project",
                          enabled=opts.progress and len(specs) > 1) as bar:
            summaries = []
            for future in futures:
                summaries.append(future.result())
                bar.update()
            return summaries
    finally:
        client.cancel([*futures, budgets])
        client.run_on_scheduler(semaphore_closer(f"revmine-{run}-"))
        marker.unlink(missing_ok=True)


def _mine_on_worker(spec: ProjectSpec, marker: Path, opts: JobOptions, run: str, budgets: Any) -> dict:
    """One project's summary, mined on a Dask worker into ``marker``'s directory (the job's output, which the
    client made the marker in) under the job's limits held by the cluster."""
    from .cluster import ClusterLimiter  # needs dask.distributed, there on a worker

    if not marker.exists():
        raise OperationError(f"a Dask worker does not see {marker.parent}: mining on Dask needs the output "
                             "directory (and cache and repos) on a disk shared with the workers")
    out = marker.parent
    limiter = ClusterLimiter(run, budgets, opts.concurrency, opts.max_concurrent_per_host)
    try:
        return _mine_all([spec], out, opts, limiter)[0]  # type: ignore[arg-type] - Limiter's interface
    finally:
        limiter.close()


def run_projects(specs: list[ProjectSpec], out: str | Path, options: JobOptions | None = None,
                 asked: dict | None = None) -> dict:
    """Mine every project into ``out`` and write ``manifest.json`` and ``dropped.parquet``; returns the
    manifest, or raises :class:`MiningFailed` (after writing them) when a project failed."""
    opts = (options or JobOptions()).resolved()
    for spec in specs:
        spec.check_urls()
        if opts.ambient_credentials and not opts.credentials.get(spec.source):
            # a malformed credential stops the job here, in one line, not a project mid-way (nor leaks it)
            credentials_from_env(spec.source if spec.source in ("gerrit", "gitlab") else "github", spec.host)
    out = Path(out)
    started = datetime.now(timezone.utc).isoformat()
    projects = _mine_all(specs, out, opts)
    failed = [p for p in projects if p["status"] == "failed"]
    totals = Counter({"projects_failed": len(failed)})
    for p in projects:
        totals.update({"changes_done": p["changes_done"], "rows": p["rows"], "dropped": len(p["dropped"]),
                       "content_fallbacks": p["content_fallbacks"], "http_requests": p["http"].get("requests", 0)})
    manifest = {
        "asked": asked or {"projects": [s.asked() for s in specs]},
        "options": {"cache_mode": opts.cache_mode, "batch_size": opts.batch_size, "concurrency": opts.concurrency,
                    "max_concurrent_per_host": opts.max_concurrent_per_host, "languages": list(opts.languages),
                    "robot_comments": opts.robot_comments, "stall_timeout": opts.stall_timeout,
                    "known_accounts": None if opts.known_accounts is None else str(opts.known_accounts),
                    "cache": str(opts.cache or out / "http_cache.sqlite"), "repos": str(opts.repos or out / "repos")},
        "output": str(out / PARTS_DIR), "started": started, "finished": datetime.now(timezone.utc).isoformat(),
        "projects": projects, "totals": dict(totals), "versions": _versions(), "argv": sys.argv[:1],
    }
    failures = pa.Table.from_pylist(
        [{"source": p["asked"]["source"], "project": p["asked"]["project"], "change": None, "round_id": None,
          "path": None, "reason": p["failure"]["kind"], "detail": f"project failed: {p['failure']['reason']}"}
         for p in failed], schema=MINE_DROPPED_SCHEMA.remove_metadata())
    dropped = pa.concat_tables([*(_drop_parts(out, spec).read() for spec in specs), failures])
    write_table(dropped, out / "dropped.parquet", MINE_DROPPED_SCHEMA)
    write_json(out / "manifest.json", manifest)
    if failed:
        raise MiningFailed(failed, len(projects), out)
    return manifest


def _is_local(url: str) -> bool:
    """Whether a clone URL is a path or ``file://`` URL (not ``scheme://`` nor scp-like ``host:path``)."""
    return url.startswith("file://") or ("://" not in url and ":" not in url.split("/", 1)[0])


def _since_until(since: Any, until: Any) -> tuple[datetime | None, datetime | None]:
    return parse_time(since, "since"), parse_time(until, "until")


def mine_gerrit(url: str, project: str, out: str | Path, since: str | datetime | None = None,
                until: str | datetime | None = None, *, clone_url: str | None = None,
                options: JobOptions | None = None) -> dict:
    """Mine one Gerrit project (``revmine mine gerrit``); returns the run manifest."""
    s, u = _since_until(since, until)
    return run_projects([ProjectSpec("gerrit", project, url=url.rstrip("/"), since=s, until=u,
                                     clone_url=clone_url)], out, options)


def mine_github(repo: str, out: str | Path, since: str | datetime | None = None,
                api_url: str = DEFAULT_API, until: str | datetime | None = None, *,
                clone_url: str | None = None, options: JobOptions | None = None, api: str = "rest") -> dict:
    """Mine one GitHub repository (``revmine mine github``) through its REST or GraphQL ``api``; returns the run
    manifest."""
    s, u = _since_until(since, until)
    return run_projects([ProjectSpec("github", repo, api_url=api_url.rstrip("/"), since=s, until=u,
                                     clone_url=clone_url, api=api)], out, options)


def mine_gitlab(project: str, out: str | Path, since: str | datetime | None = None,
                url: str = GITLAB_URL, until: str | datetime | None = None, *,
                clone_url: str | None = None, options: JobOptions | None = None) -> dict:
    """Mine one GitLab project, ``GROUP/NAME`` or its numeric id (``revmine mine gitlab``); returns the run
    manifest."""
    s, u = _since_until(since, until)
    return run_projects([ProjectSpec("gitlab", str(project), url=url.rstrip("/"), since=s, until=u,
                                     clone_url=clone_url)], out, options)


#: the tables of a credentials file ($REVMINE_CREDENTIALS), which a job file must not hold
CREDENTIAL_TABLES = ("github", "gerrit", "gitlab")
CREDENTIALS_ADVICE = ("credentials do not belong in a job file (it is shared, copied into run folders and "
                      "committed); use GITHUB_TOKEN(S), GERRIT_USER/GERRIT_PASSWORD, GITLAB_TOKEN(S) or "
                      "$REVMINE_CREDENTIALS, a file of mode 600 with [github] tokens = [...] / [gerrit] user, "
                      "password / [gitlab] tokens = [...]")


def check_no_credentials(path: Path, doc: dict[str, Any]) -> None:
    """Refuse a job file that holds a secret, wherever: a key such as ``token`` or ``password`` in any table or
    project, or a credentials file's ``[github]``/``[gerrit]``/``[gitlab]`` table. Checked before anything else of
    the file, so the user reads why rather than "unknown setting"; the value is never repeated."""
    tables = [(name, value) for name, value in doc.items() if isinstance(value, dict)]
    tables += [(f"projects[{i}]", entry) for i, entry in enumerate(doc.get("projects") or [])
               if isinstance(entry, dict)]
    for name, table in tables:
        if name in CREDENTIAL_TABLES:
            raise InputError(path, CREDENTIALS_ADVICE, field=name)
        secret = sorted(SECRET_KEYS & {str(key).lower() for key in table})
        if secret:
            raise InputError(path, CREDENTIALS_ADVICE, field=f"{name}.{secret[0]}")


def load_job(path: str | Path) -> tuple[list[ProjectSpec], dict]:
    """Read a job TOML: ``[job]`` (out, cache, repos, cache_mode, batch_size, concurrency,
    max_concurrent_per_host, languages, robot_comments, stall_timeout, known_accounts, recordings) and
    ``[[projects]]``."""
    path = Path(path)
    return _job_of(path, read_toml(path))


def _job_of(path: Path, doc: dict) -> tuple[list[ProjectSpec], dict]:
    """:func:`load_job` of a job file already read (``doc``)."""
    job = doc.get("job", {})
    entries = doc.get("projects")
    if not isinstance(job, dict):
        raise InputError(path, "must be a table", field="job")
    if not isinstance(entries, list) or not entries or not all(isinstance(e, dict) for e in entries):
        raise InputError(path, "needs at least one [[projects]] table", field="projects")
    check_no_credentials(path, doc)
    specs = []
    for i, entry in enumerate(entries):
        where = f"projects[{i}]"
        source = entry.get("source")
        try:
            since, until = parse_time(entry.get("since"), f"{where}.since"), parse_time(entry.get("until"), f"{where}.until")
        except InputError as exc:
            raise InputError(path, str(exc).split(": ", 1)[1], field=exc.field) from None
        if source == "gerrit":
            if not isinstance(entry.get("url"), str) or not isinstance(entry.get("project"), str):
                raise InputError(path, "a gerrit project needs url and project", field=where)
            specs.append(ProjectSpec("gerrit", entry["project"], url=entry["url"].rstrip("/"), since=since,
                                     until=until, clone_url=entry.get("clone_url")))
        elif source == "github":
            repo = entry.get("repo")
            if not isinstance(repo, str) or repo.count("/") != 1:
                raise InputError(path, "a github project needs repo = \"OWNER/NAME\"", field=f"{where}.repo")
            api = entry.get("api", "rest")
            if api not in APIS:
                raise InputError(path, f"must be 'rest' or 'graphql', not {api!r}", field=f"{where}.api")
            specs.append(ProjectSpec("github", repo, api_url=str(entry.get("api_url", DEFAULT_API)).rstrip("/"),
                                     since=since, until=until, clone_url=entry.get("clone_url"), api=api))
        elif source == "gitlab":
            project, url = entry.get("project"), entry.get("url", GITLAB_URL)
            if isinstance(project, int) and not isinstance(project, bool) and project > 0:
                project = str(project)
            if not isinstance(project, str) or not project.strip("/") or not isinstance(url, str):
                raise InputError(path, "a gitlab project needs project = \"GROUP/NAME\" (or its numeric id) and "
                                 "an instance url (default https://gitlab.com)", field=f"{where}.project")
            specs.append(ProjectSpec("gitlab", project.strip("/"), url=url.rstrip("/"), since=since, until=until,
                                     clone_url=entry.get("clone_url")))
        else:
            raise InputError(path, f"source must be 'gerrit', 'github' or 'gitlab', not {source!r}",
                             field=f"{where}.source")
        specs[-1].check_urls(path, f"{where}.")
    return specs, job


def run_job(job_toml_path: str | Path, out: str | Path | None = None, options: JobOptions | None = None) -> dict:
    """Run a batch job (``revmine mine --job JOB.toml``); resumes from ``out``'s checkpoints.

    ``[job] recordings = "DIR"`` mines a recorded forge (:mod:`revmine.miners.replay`) instead of
    the network: its server is started on loopback for the run, and the job's URLs are routed to it.
    Credentials from the environment are not used then (a recording needs none, and Gerrit's would
    change the paths asked); ``options.credentials`` still are.
    """
    path = Path(job_toml_path)
    doc = read_toml(path)
    specs, job = _job_of(path, doc)
    base = path.resolve().parent
    target = Path(out) if out is not None else (base / job["out"] if "out" in job else None)
    if target is None:
        raise InputError(path, "no output directory: give out= in [job] or --out", field="job.out")
    opts = replace(options or JobOptions())  # a copy: the job's values fill what the caller left None
    if "cache" in job and opts.cache is None:
        opts.cache = base / job["cache"]
    if "repos" in job and opts.repos is None:
        opts.repos = base / job["repos"]
    if "cache_mode" in job and opts.cache_mode is None:
        opts.cache_mode = job["cache_mode"]
    for key in ("batch_size", "concurrency", "max_concurrent_per_host"):
        if key in job and (not isinstance(job[key], int) or isinstance(job[key], bool) or job[key] < 1):
            raise InputError(path, "must be a positive integer", field=f"job.{key}")
    if "batch_size" in job and opts.batch_size is None:
        opts.batch_size = job["batch_size"]
    if "concurrency" in job and opts.concurrency is None:
        opts.concurrency = job["concurrency"]
    if "max_concurrent_per_host" in job and opts.max_concurrent_per_host is None:
        opts.max_concurrent_per_host = job["max_concurrent_per_host"]
    if "languages" in job and opts.languages is None:
        languages = job["languages"]
        if not isinstance(languages, list) or not all(isinstance(name, str) for name in languages):
            raise InputError(path, "must be a list of language names", field="job.languages")
        try:
            opts.languages = check_languages(languages)
        except InputError as exc:
            raise InputError(path, exc.message, field="job.languages") from None
    if "known_accounts" in job and opts.known_accounts is None:
        if not isinstance(job["known_accounts"], str):
            raise InputError(path, "must be a path", field="job.known_accounts")
        opts.known_accounts = base / job["known_accounts"]
    if "stall_timeout" in job and opts.stall_timeout is None:
        value = job["stall_timeout"]
        if not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 0:
            raise InputError(path, "must be a number of seconds above 0", field="job.stall_timeout")
        opts.stall_timeout = float(value)
    if "robot_comments" in job and opts.robot_comments is None:
        if not isinstance(job["robot_comments"], bool):
            raise InputError(path, "must be true or false", field="job.robot_comments")
        opts.robot_comments = job["robot_comments"]
    opt_out = doc.get("publish", {}).get("opt_out")  # [publish]: the pipeline checked its type
    if isinstance(opt_out, str) and opts.opt_out is None:
        opts.opt_out = base / opt_out
    asked = {"job": str(path), "projects": [s.asked() for s in specs]}
    if "recordings" not in job:
        return run_projects(specs, target, opts, asked=asked)
    from .replay import serve_recordings  # only replayed jobs need the server

    with serve_recordings(base / job["recordings"], work=target) as forge:
        opts.routes = {**forge.routes, **opts.routes}
        opts.ambient_credentials = False
        opts.engine = None  # the recorded forge answers on this machine's loopback: mined here
        return run_projects(specs, target, opts, asked=asked)
