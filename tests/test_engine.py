"""revmine.runtime.engine: ordered, bounded maps in-process and on a dask.distributed cluster started here on
loopback."""

from __future__ import annotations

import logging
import sys
import time

import pytest

from revmine.errors import InputError
from revmine.runtime.engine import ADDRESS_ENV, LocalEngine, map_batches, open_engine


@pytest.fixture(autouse=True)
def no_ambient_scheduler(monkeypatch: pytest.MonkeyPatch) -> None:
    """A developer's own scheduler setting must not send these tests to their cluster."""
    monkeypatch.delenv(ADDRESS_ENV, raising=False)
    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS", raising=False)


def scaled(item: int, factor: int) -> int:
    return item * factor


def late_for_small(item: int, factor: int) -> int:
    """Early items finish last, so completion order is the reverse of input order."""
    time.sleep(0.02 * (6 - item) if item < 6 else 0)
    return item * factor


def fails_on_three(item: int) -> int:
    if item == 3:
        raise KeyError("three")
    return item


class Counted:
    """An input that records how far it has been read."""

    def __init__(self, n: int):
        self.n, self.pulled = n, 0

    def __iter__(self):
        for i in range(self.n):
            self.pulled += 1
            yield i


# -- local ------------------------------------------------------------------------------------------------------


def test_local_engine_is_a_plain_lazy_loop():
    items = Counted(5)
    results = map_batches(scaled, items, 10)
    assert items.pulled == 0
    assert next(results) == 0 and items.pulled == 1  # nothing read ahead
    assert list(results) == [10, 20, 30, 40]
    with open_engine() as engine:
        assert isinstance(engine, LocalEngine) and engine.name == "local"


def test_engine_arguments_are_checked():
    with pytest.raises(InputError, match="unknown engine 'spark'"):
        open_engine("spark")
    with pytest.raises(InputError, match="need engine 'dask'"):
        open_engine("local", workers=4)
    with pytest.raises(InputError, match="need engine 'dask'"):
        open_engine("local", address="tcp://127.0.0.1:8786")
    with pytest.raises(InputError, match="at least 1"):
        open_engine("dask", workers=0)
    open_engine("local", workers=1).close()


def test_dask_engine_without_dask_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    with pytest.raises(ImportError, match=r"revmine\[dask\]"):
        open_engine("dask", workers=1)


# -- dask -------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cluster():
    """Two worker processes on 127.0.0.1; this module's functions travel by value (workers cannot import tests)."""
    distributed = pytest.importorskip("distributed")
    cloudpickle = pytest.importorskip("cloudpickle")
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  scheduler_port=0, dashboard_address="127.0.0.1:0",
                                  silence_logs=logging.ERROR) as local:
        yield local
    cloudpickle.unregister_pickle_by_value(sys.modules[__name__])


def test_dask_results_come_in_input_order(cluster):
    with open_engine("dask", address=cluster.scheduler_address) as engine:
        assert engine.name == "dask" and engine.cluster is None  # the given cluster, not a new one
        assert list(engine.map(late_for_small, range(8), 3)) == [i * 3 for i in range(8)]
        assert list(engine.map(scaled, [], 3)) == []
        assert list(engine.map(scaled, range(3), 2)) == [0, 2, 4]  # an engine serves several maps


def test_dask_reads_the_input_a_window_at_a_time(cluster):
    items = Counted(20)
    in_flight = []
    with open_engine("dask", address=cluster.scheduler_address, window=3) as engine:
        for consumed, result in enumerate(engine.map(late_for_small, items, 1), start=1):
            in_flight.append(items.pulled - consumed)  # submitted, not yet handed out
            assert result == consumed - 1
    assert max(in_flight) == 3 and items.pulled == 20
    with pytest.raises(ValueError, match="window"):
        open_engine("dask", address=cluster.scheduler_address, window=0)


def test_dask_default_window_is_twice_the_worker_threads(cluster):
    with open_engine("dask", address=cluster.scheduler_address) as engine:
        assert engine.window == 4


def test_dask_errors_surface_with_their_type(cluster):
    with open_engine("dask", address=cluster.scheduler_address) as engine:
        seen = []
        with pytest.raises(KeyError, match="three"):
            for result in engine.map(fails_on_three, range(10)):
                seen.append(result)
        assert seen == [0, 1, 2]
        assert list(engine.map(scaled, range(3), 1)) == [0, 1, 2]  # the engine is still usable


def test_scheduler_address_from_the_environment(cluster, monkeypatch):
    monkeypatch.setenv(ADDRESS_ENV, cluster.scheduler_address)
    assert list(map_batches(scaled, range(4), 5, engine="dask")) == [0, 5, 10, 15]
    with open_engine("dask", workers=8) as engine:  # an address wins over starting a cluster
        assert engine.cluster is None and engine.address == cluster.scheduler_address
