"""Peak memory of a benchmark's child process, as the benchmarks report it, and the revision compared with."""

from __future__ import annotations

import contextlib
import resource
import statistics
import subprocess
from pathlib import Path
from typing import Callable, Iterator


def peak_mib() -> float:
    """Peak resident set size of the calling process (``VmHWM``), in MiB. Not ``ru_maxrss``: Linux keeps that
    across ``execve``, so a child started by a parent holding the corpus would report at least the parent's
    size (measured here: a 14 MiB child of a 400 MiB parent reports 413 MiB)."""
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # no /proc: the best there is


@contextlib.contextmanager
def baseline_worktree(root: Path, revision: str, where: Path) -> Iterator[Path]:
    """A detached ``git worktree`` of ``revision`` at ``where`` (the code to compare with, run via PYTHONPATH),
    removed afterwards."""
    subprocess.run(["git", "-C", str(root), "worktree", "add", "--detach", str(where), revision],
                   check=True, capture_output=True)
    try:
        yield where
    finally:
        subprocess.run(["git", "-C", str(root), "worktree", "remove", "--force", str(where)], capture_output=True)


def growth_line(peaks: dict[int, list[float]], seconds: list[float], unit: str) -> str:
    """Peak MiB per size as median (min-max) of the runs, the growth in bytes per ``unit`` from the smallest
    size to the largest (what the corpus size costs), and the median seconds at the largest size."""
    small, large = min(peaks), max(peaks)
    median = {n: statistics.median(p) for n, p in peaks.items()}
    growth = (median[large] - median[small]) * 2 ** 20 / (large - small)
    return ("; ".join(f"{n:,}: {median[n]:,.0f} ({min(p):,.0f}-{max(p):,.0f})" for n, p in sorted(peaks.items()))
            + f"; growth {growth:,.0f} bytes/{unit}; {statistics.median(seconds):.1f} s at {large:,}")


def runs_by_revision(revisions: dict[str, Path], sizes: list[int], repeat: int,
                     run: Callable[[Path, int, str], dict]) -> dict[tuple[str, int], list[dict]]:
    """``run(code root, size, tag)`` for every revision and size, ``repeat`` rounds interleaved (so load on a shared
    machine falls on both revisions alike); ``tag`` names the run's own output folder."""
    runs: dict[tuple[str, int], list[dict]] = {}
    for r in range(repeat):
        for name, root in revisions.items():
            for size in sizes:
                runs.setdefault((name, size), []).append(run(root, size, f"{name.split()[0]}-{size}-{r}"))
    return runs
