"""Build the example's git repositories from repos/*/history.toml, to look at them with git.

Mining does not need this (the job runner builds them itself); it is for reading the history:
``python examples/mining/make_repo.py DEST`` then ``git -C DEST/calc.git log --all --stat``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from revmine.miners.replay import build_repos

if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for url, path in build_repos(Path(__file__).resolve().parent, sys.argv[1]).items():
        print(f"{path}  (answers for {url})")
