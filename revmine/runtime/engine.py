"""Map a function over batches, in input order, in-process or on Dask: how a stage scales out.

A stage keeps its own reading and writing (Parquet, through :mod:`revmine.io.store`) and hands only the pure,
per-batch work to an engine::

    with open_engine("dask", workers=4) as engine:
        for result in engine.map(process_batch, source.iter_batches(64), idioms, limits):
            writer.write(result)

or, for one pass, ``for result in map_batches(process_batch, batches, idioms, limits, engine="dask")``.

Engines
    ``local`` (the default) calls the function in this process, one batch after the other: exactly the
    loop a stage would write itself, with no extra dependency, thread or copy.

    ``dask`` runs the calls on a ``dask.distributed`` cluster (``pip install revmine[dask]``). With no
    address, a :class:`~distributed.LocalCluster` of ``workers`` processes (one thread each, since the
    stages' work is pure-Python CPU time and holds the GIL) is started on 127.0.0.1 (random ports, so
    runs side by side do not collide) and stopped when the engine closes; ``workers`` defaults to the CPU
    count. Worker processes are spawned: a script that uses this engine needs the usual
    ``if __name__ == "__main__":`` guard.

    An existing cluster is used instead when given a scheduler address: the ``address`` argument, else the
    ``REVMINE_DASK_SCHEDULER`` environment variable, else Dask's own ``scheduler-address`` setting
    (``DASK_SCHEDULER_ADDRESS``); ``workers`` is then ignored. Its workers need revmine installed (the same
    version); they need no access to the stage's files, since batches travel to them and results back, and
    only this process reads and writes Parquet.

Guarantees, whatever the engine
    - Results come back in the order of the input, so a stage writes byte-identical files either way.
    - Memory is bounded: at most ``window`` batches are submitted and not yet consumed (default: twice the
      cluster's worker threads). Input is pulled lazily, never read ahead of the window.
    - Extra positional arguments (an idiom list, limits, a model) are shared: sent once to every worker
      (``scatter(..., broadcast=True)``), not once per batch.
    - An exception in a call is raised here, from the consuming loop, with its original type; the
      batches still pending are cancelled. Leaving the loop early cancels them too.

The function must be importable by the workers (a module-level function of an installed package) and
its arguments and results picklable; per-process state (a cache) belongs in the worker, e.g. a module
global, never in the driver.
"""

from __future__ import annotations

import logging
import os
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Protocol, Sequence, TypeVar

from ..errors import InputError
from .options import check, option

__all__ = ["ADDRESS_ENV", "ENGINES", "DaskEngine", "Engine", "EngineOptions", "LocalEngine", "check_engine",
           "chunks", "map_batches", "open_engine"]

T = TypeVar("T")
R = TypeVar("R")

ENGINES = ("local", "dask")
ADDRESS_ENV = "REVMINE_DASK_SCHEDULER"


class Engine(Protocol):
    name: str

    def map(self, fn: Callable[..., R], items: Iterable[T], *args: Any) -> Iterator[R]:
        """``fn(item, *args)`` for every item, yielded in the order of ``items``."""

    def close(self) -> None: ...

    def __enter__(self) -> "Engine": ...

    def __exit__(self, *exc: object) -> None: ...


class LocalEngine:
    """In this process, one call after the other."""

    name = "local"

    def map(self, fn: Callable[..., R], items: Iterable[T], *args: Any) -> Iterator[R]:
        for item in items:
            yield fn(item, *args)

    def close(self) -> None:
        pass

    def __enter__(self) -> "LocalEngine":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class DaskEngine:
    """On a dask.distributed cluster: a LocalCluster of ``workers`` processes, or the one at ``address``."""

    name = "dask"

    def __init__(self, workers: int | None = None, address: str | None = None, window: int | None = None):
        try:
            import dask
            from distributed import Client, LocalCluster
        except ImportError as exc:
            raise ImportError("engine 'dask' needs dask.distributed: pip install 'revmine[dask]' "
                              "(or 'dask[distributed]')") from exc
        if window is not None and window < 1:
            raise ValueError(f"window must be at least 1, not {window}")
        address = address or os.environ.get(ADDRESS_ENV) or dask.config.get("scheduler-address", None)
        self.cluster = None
        if address:
            self.client = Client(address, set_as_default=False)
        else:
            workers = workers or os.cpu_count() or 1
            self.cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                        host="127.0.0.1", scheduler_port=0,
                                        dashboard_address="127.0.0.1:0", silence_logs=logging.ERROR)
            try:
                self.client = Client(self.cluster, set_as_default=False)
            except BaseException:
                self.cluster.close()
                raise
        self.address = self.client.scheduler.address
        self._window = window

    @property
    def window(self) -> int:
        """Batches in flight at most: the given window, else twice the worker threads (at least 2)."""
        if self._window is not None:
            return self._window
        return max(2, 2 * sum(self.client.nthreads().values()))

    def map(self, fn: Callable[..., R], items: Iterable[T], *args: Any) -> Iterator[R]:
        shared = [self.client.scatter([_Opaque(arg)], broadcast=True, hash=False)[0] for arg in args]
        window, source = self.window, iter(items)
        pending: deque = deque()

        def submit_next() -> bool:
            """Submit the next item, if any; whether one was."""
            for item in source:
                pending.append(self.client.submit(_call, fn, _Opaque(item), *shared, pure=False))
                return True
            return False

        try:
            while len(pending) < window and submit_next():
                pass
            while pending:
                head = pending.popleft()
                result = head.result()
                head.release()
                submit_next()  # keep the window full while the caller consumes this result
                yield result
        finally:
            if pending:
                self.client.cancel(list(pending))
            pending.clear()
            for future in shared:
                future.release()

    def close(self) -> None:
        try:
            self.client.close()
        finally:
            if self.cluster is not None:
                self.cluster.close()

    def __enter__(self) -> "DaskEngine":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Opaque:
    """A value Dask moves as one pickle: left bare, a list or dict of 20,000 tuples is walked item by
    item (looking for futures inside), 2 s where pickling takes 0.05 s."""

    __slots__ = ("value",)

    def __init__(self, value: Any):
        self.value = value

    def __reduce__(self) -> tuple:
        return _Opaque, (self.value,)


def _call(fn: Callable[..., R], item: _Opaque, *args: _Opaque) -> R:
    """``fn(item, *args)`` on a worker, unwrapped."""
    return fn(item.value, *(arg.value for arg in args))


def open_engine(engine: str = "local", workers: int | None = None, address: str | None = None,
                window: int | None = None) -> LocalEngine | DaskEngine:
    """The engine called ``engine`` (one of :data:`ENGINES`); close it, or use it as a context manager.

    ``workers``, ``address`` and ``window`` are Dask's; asking for more than one worker on the local engine
    is an error rather than a silently serial run.
    """
    check_engine(engine, workers, address)
    return LocalEngine() if engine == "local" else DaskEngine(workers=workers, address=address, window=window)


def check_engine(engine: str, workers: int | None = None, address: str | None = None) -> None:
    """Refuse an engine request that cannot run as asked (before any work, so a job file fails up front)."""
    if workers is not None and workers < 1:
        raise InputError.setting("workers", f"must be at least 1, not {workers}")
    if engine not in ENGINES:
        raise InputError.setting("engine", f"unknown engine {engine!r}: choose one of {', '.join(ENGINES)}")
    if engine == "local" and ((workers or 1) > 1 or address):
        raise InputError.setting("engine", "workers and a scheduler address need engine 'dask'; "
                                           "the local engine is one process")


def map_batches(fn: Callable[..., R], items: Iterable[T], *args: Any, engine: str = "local",
                workers: int | None = None, address: str | None = None, window: int | None = None) -> Iterator[R]:
    """``fn(item, *args)`` for every item, in input order, on an engine opened for this pass and closed after."""
    with open_engine(engine, workers=workers, address=address, window=window) as runner:
        yield from runner.map(fn, items, *args)


@dataclass(frozen=True)
class EngineOptions:
    """Where a whole job runs (a job file's ``[engine]``, ``revmine run --engine/--workers/--scheduler``).

    Not part of any stage's fingerprint: every stage writes the same bytes on every engine, so a job
    started in-process may be resumed on a cluster and the other way round.
    """

    engine: str = option("local", "local (this process) or dask (pip install 'revmine[dask]'): every stage "
                                  "that can (mine, preprocess, filter, split, export, score) runs its work there", choices=ENGINES)
    workers: int | None = option(None, "Dask worker processes of a local cluster (default: the cores)", type=int,
                                 min=1)
    scheduler: str | None = option(None, "address of a running Dask scheduler, e.g. tcp://10.0.0.5:8786 "
                                         "(or REVMINE_DASK_SCHEDULER)", type=str)

    def __post_init__(self) -> None:
        check(self)
        check_engine(self.engine, self.workers, self.scheduler)

    def open(self) -> LocalEngine | DaskEngine:
        return open_engine(self.engine, workers=self.workers, address=self.scheduler)


def chunks(items: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    """``items`` in consecutive slices of ``size`` (the last one shorter): the unit of work sent to a worker."""
    for start in range(0, len(items), size):
        yield items[start:start + size]
