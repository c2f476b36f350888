"""Why the miners read file contents with ``git cat-file --batch-command`` and not with pydriller.

A review round needs the text of each touched Java file before and after a revision. pydriller
(``Repository(..., only_commits=...)``, ``ModifiedFile.source_code_before`` / ``source_code``) gives the
same texts through GitPython, which diffs every commit and starts git processes per object; revmine's
``GitRepo.read_many`` asks one long-lived ``cat-file`` process for all blobs in one round trip.
This script builds a repository of N commits (each changes one Java file), reads the before/after text
of every commit both ways, checks they agree, and prints the median of several runs with the spread.
Needs pydriller, which revmine does not depend on (``pip install pydriller``).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from revmine.miners.git import GitRepo
from revmine.miners.replay import fast_import, fast_import_commit


def java(k: int, version: int) -> bytes:
    body = "\n".join(f"        int x{i} = {i * version + k};" for i in range(40))
    return f"package demo;\n\npublic class C{k} {{\n    void run() {{\n{body}\n    }}\n}}\n".encode()


def build(repo: Path, commits: int, files: int) -> list[tuple[str, str, str]]:
    """A linear history; returns (parent, commit, path) per commit after the first."""
    stream = [fast_import_commit(1, "refs/heads/main", "A <a@x>", 1_700_000_000, "init",
                                 {f"src/C{k}.java": java(k, 0) for k in range(files)})]
    for n in range(2, commits + 2):
        k = n % files
        stream.append(fast_import_commit(n, "refs/heads/main", "A <a@x>", 1_700_000_000 + n, f"c{n}",
                                         {f"src/C{k}.java": java(k, n)}, parent=n - 1))
    marks = fast_import(repo, stream)
    subprocess.run(["git", "-C", str(repo), "symbolic-ref", "HEAD", "refs/heads/main"], check=True)
    return [(marks[n - 1], marks[n], f"src/C{n % files}.java") for n in range(2, commits + 2)]


def with_cat_file(repo: Path, changes: list[tuple[str, str, str]]) -> list[tuple[str, str]]:
    git = GitRepo(repo, url=str(repo), refspecs=[])
    try:
        texts, _ = git.read_many([(sha, path) for parent, commit, path in changes for sha in (parent, commit)])
    finally:
        git.close()
    return [(texts[2 * i], texts[2 * i + 1]) for i in range(len(changes))]


def with_pydriller(repo: Path, changes: list[tuple[str, str, str]]) -> list[tuple[str, str]]:
    from pydriller import Repository

    out = []
    for commit in Repository(str(repo), only_commits=[c for _, c, _ in changes]).traverse_commits():
        for modified in commit.modified_files:
            out.append((modified.source_code_before, modified.source_code))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commits", type=int, default=300)
    parser.add_argument("--files", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo.git"
        changes = build(repo, args.commits, args.files)
        assert with_cat_file(repo, changes) == with_pydriller(repo, changes), "the two readers disagree"
        times: dict[str, list[float]] = {"revmine cat-file": [], "pydriller": []}
        for _ in range(args.repeat):
            for name, read in (("revmine cat-file", with_cat_file), ("pydriller", with_pydriller)):
                start = time.perf_counter()
                read(repo, changes)
                times[name].append(time.perf_counter() - start)
    print(f"before/after texts of {len(changes)} commits, {args.repeat} runs (identical texts both ways)")
    for name, runs in times.items():
        print(f"  {name:17s} median {statistics.median(runs):7.3f} s  (min {min(runs):.3f}, max {max(runs):.3f})"
              f"  {len(changes) / statistics.median(runs):9.0f} commits/s")
    ratio = statistics.median(times["pydriller"]) / statistics.median(times["revmine cat-file"])
    print(f"pydriller takes {ratio:.1f}x revmine's time")


if __name__ == "__main__":
    main()
