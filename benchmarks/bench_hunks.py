"""Time per hunk of revmine's hunk rows (``revmine.preprocess.hunks``) on real revisions, before and after hunks
became ``git diff -U3``'s byte for byte (issue 29: git's header with its function context, no end-of-file note),
next to git itself, and how many files' hunks equal git's.

Texts: the 210 real revisions of ``../shared/fixtures/code_revisions`` and the 16 PHP and Ruby ones of
``tests/data/php_ruby_revisions`` (before -> after of each). Three ways, each timed over every file, median and
spread (min-max) of ``--runs`` runs, per hunk:

* ``after``: :func:`revmine.preprocess.hunks.diff_hunks` of this tree;
* ``before``: the same function as it was at ``--before`` (default: the commit before issue 29's change),
  loaded from git's history into this process;
* ``git``: ``git diff --no-index -U3`` in a subprocess per file (the reference the tests compare with).

"equal to git" counts the files whose hunks equal git's output byte for byte (header included, ``\\ No newline
at end of file`` lines left out as CodeReviewer's rows have none).

    PYTHONPATH=. python3 benchmarks/bench_hunks.py [--runs 5] [--before 9ce0992]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

from revmine.preprocess.hunks import diff_hunks

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from git_diff import REVISIONS, git_hunks  # noqa: E402

PHP_RUBY = ROOT / "tests" / "data" / "php_ruby_revisions" / "revisions.jsonl"


def load_before(commit: str) -> types.ModuleType:
    """``revmine/preprocess/hunks.py`` at ``commit``, as a module of this revmine (its imports are relative)."""
    source = subprocess.run(["git", "show", f"{commit}:revmine/preprocess/hunks.py"], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout
    module = types.ModuleType("revmine.preprocess.hunks_before")
    module.__package__ = "revmine.preprocess"
    sys.modules[module.__name__] = module  # dataclasses look their module up
    exec(compile(source, f"{commit}:hunks.py", "exec"), module.__dict__)
    return module


def timed(run, pairs: list[tuple[str, str]], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        for old, new in pairs:
            run(old, new)
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    options.add_argument("--runs", type=int, default=5)
    options.add_argument("--before", default="9ce0992", help="the commit whose diff_hunks is 'before'")
    args = options.parse_args()
    rows = [json.loads(line) for path in (REVISIONS, PHP_RUBY) for line in path.read_text(encoding="utf-8").splitlines()]
    pairs = [(row["before"], row["after"]) for row in rows]
    before = load_before(args.before)
    with tempfile.TemporaryDirectory() as tmp:
        gits = [git_hunks(Path(tmp), old, new) for old, new in pairs]
        hunks = sum(map(len, gits))
        equal = {"after": sum([h.text for h in diff_hunks(o, n)] == g for (o, n), g in zip(pairs, gits)),
                 "before": sum([h.text for h in before.diff_hunks(o, n)] == g for (o, n), g in zip(pairs, gits))}
        results = {"after": timed(diff_hunks, pairs, args.runs), "before": timed(before.diff_hunks, pairs, args.runs),
                   "git": timed(lambda o, n: git_hunks(Path(tmp), o, n), pairs, max(1, args.runs // 2))}
    print(f"{len(pairs)} files ({sum(r['language'] in ('php', 'ruby') for r in rows)} PHP/Ruby), {hunks} hunks; "
          f"files whose hunks equal git diff -U3 byte for byte: after {equal['after']}/{len(pairs)}, "
          f"before {equal['before']}/{len(pairs)}")
    for name, times in results.items():
        per_hunk = [t / hunks * 1e6 for t in times]
        print(f"{name:6} median {statistics.median(per_hunk):8.1f} us/hunk  (min {min(per_hunk):.1f}, "
              f"max {max(per_hunk):.1f}; {len(times)} runs)")


if __name__ == "__main__":
    main()
