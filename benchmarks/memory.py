"""Peak memory of a benchmark's child process, as the benchmarks report it."""

from __future__ import annotations

import resource
from pathlib import Path


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
