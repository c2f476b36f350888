"""A job's politeness held by a Dask cluster, for projects mined on several workers at once.

Why: each worker mines whole projects with its own clients, but the limits are the job's, not a worker's:
two workers on one host must not send more than ``max_concurrent_per_host`` requests to it together, nor
overspend one token. So the request slots are :class:`distributed.Semaphore` leases held by the scheduler
(per host, and for the job), and the token budgets are one plain :class:`~revmine.miners.http.Limiter`
living in a Dask Actor, asked without waiting (:meth:`~revmine.miners.http.Limiter.try_take`) and polled
while only answers in flight can tell. Only tokens' digests travel: the tokens stay in the workers'
environment.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable, ContextManager

from .http import held

#: Seconds between two asks for a token's quota while the requests in flight on it are unanswered.
POLL = 0.02


class ClusterLimiter:
    """The interface of :class:`~revmine.miners.http.Limiter`, its state on the cluster (``run``: the job's
    unique name, prefixing its semaphores; ``budgets``: the Actor holding the job's token budgets).

    Built on a worker in its task's thread: Dask's handles bind to the worker there, and the clients'
    threads then use them."""

    def __init__(self, run: str, budgets: Any, concurrency: int | None, per_host: int):
        from distributed import get_worker

        worker = get_worker()
        self._rpc, self._loop = worker.scheduler, worker.loop
        self.run, self.per_host = run, per_host
        self._budgets = budgets
        budgets._io_loop  # noqa: B018 - binds the Actor's handle to this worker
        self._total = self._semaphore("job", concurrency) if concurrency else None
        self._hosts: dict[str, Any] = {}
        self._lock = threading.Lock()

    def _semaphore(self, what: str, leases: int) -> Any:
        from distributed import Semaphore

        return Semaphore(leases, name=f"revmine-{self.run}-{what}", scheduler_rpc=self._rpc, loop=self._loop)

    def slot(self, host: str) -> ContextManager[None]:
        """Hold one of ``host``'s request slots, then one of the job's (in that order, as in-process)."""
        with self._lock:
            if host not in self._hosts:
                self._hosts[host] = self._semaphore(f"host-{host}", self.per_host)
            return held(self._hosts[host], self._total)

    def close(self) -> None:
        """Stop this worker's handles refreshing their leases (the semaphores themselves are the job's,
        shared by its workers: :func:`semaphore_closer` removes them from the scheduler when the job ends)."""
        for semaphore in [*self._hosts.values(), *([self._total] if self._total else [])]:
            semaphore.refresh_callback.stop()

    def take(self, tokens: list[str], start: int, now: Callable[[], float]) -> tuple[int | None, int]:
        while (taken := self._budgets.try_take(tokens, start, now()).result()) is None:
            time.sleep(POLL)
        return taken

    def reset_at(self, token: str) -> tuple[float, int]:
        return self._budgets.reset_at(token).result()

    def renew(self, token: str, renewals: int | None = None) -> None:
        self._budgets.renew(token, renewals).result()

    def settle(self, token: str, remaining: int | None = None, reset: float | None = None,
               metered: bool | None = None) -> None:
        self._budgets.settle(token, remaining, reset, metered).result()

    def exhaust(self, token: str, reset: float) -> None:
        self._budgets.exhaust(token, reset).result()

    def any_usable(self, tokens: list[str], now: float) -> bool:
        return self._budgets.any_usable(tokens, now).result()


def semaphore_closer(prefix: str) -> Callable[..., list[str]]:
    """A function for ``Client.run_on_scheduler`` that removes the job's semaphores (named ``prefix``...),
    which would otherwise stay registered on a long-lived shared scheduler, and returns their names. Nested,
    so that it travels by value: a scheduler need not have revmine installed."""
    def close(dask_scheduler: Any = None) -> list[str]:
        semaphores = dask_scheduler.extensions["semaphores"]
        names = sorted(name for name in semaphores.max_leases if name.startswith(prefix))
        for name in names:
            semaphores.close(name=name)
        return names
    return close
