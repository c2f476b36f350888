"""How long the command line takes to answer when it does no work (issue 28's goal: ``revmine --help``,
``--version`` and a usage error under 0.5 s), beside starting Python itself in the same run.

    python benchmarks/bench_cli.py [--repeat 7]

Each case is a fresh process (``python -m revmine.cli ...``: what the ``revmine`` script runs), timed wall-clock; the
cases are interleaved so a noisy minute hits all of them. Reported: median and spread (min-max). The reference,
``python -c pass``, is the floor no command line can go under.

Measured 2026-11-28 on the shared 2-core machine, 7 repeats, each stage's settings in its ``options.py``:
``--help`` 0.176 s (0.123-0.199), ``--version`` 0.179 s, an unknown command 0.174 s, ``run --bogus`` 0.196 s,
``filter --bogus`` 0.208 s, ``score --bogus`` 0.209 s, ``run --help`` 0.663 s (it lists every stage's keys), beside
``python -c pass`` 0.092 s (0.071-0.098). The code before (``5f5857a``): every case 1.06-1.30 s.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: each case's command line and the exit status it must end with (a case that fails otherwise is no measure)
CASES = {
    "python -c pass (reference)": ["-c", "pass"],
    "revmine --help": ["-m", "revmine.cli", "--help"],
    "revmine --version": ["-m", "revmine.cli", "--version"],
    "revmine no-such-command": ["-m", "revmine.cli", "no-such-command"],
    "revmine run --bogus job.toml": ["-m", "revmine.cli", "run", "--bogus", "job.toml"],
    "revmine run --help": ["-m", "revmine.cli", "run", "--help"],
    "revmine filter --bogus": ["-m", "revmine.cli", "filter", "--bogus"],
    "revmine score --bogus": ["-m", "revmine.cli", "score", "--bogus"],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    times: dict[str, list[float]] = {name: [] for name in CASES}
    for _ in range(args.repeat):
        for name, argv in CASES.items():
            start = time.perf_counter()
            proc = subprocess.run([sys.executable, *argv], cwd=ROOT, capture_output=True, timeout=120)
            times[name].append(time.perf_counter() - start)
            if proc.returncode != (2 if "bogus" in name or "no-such" in name else 0):
                sys.exit(f"{name}: exit status {proc.returncode}: {proc.stderr.decode()[-300:]}")
    for name, runs in times.items():
        print(f"{name:32} {statistics.median(runs):.3f} s  ({min(runs):.3f}-{max(runs):.3f})")


if __name__ == "__main__":
    main()
