"""Miners benchmark against the local forge (tests/miners_server.py): requests per change and replay speed.

Goals (issue 4): <= 3 HTTP requests per change for Gerrit, <= 2 per pull request plus pagination for
GitHub (contents from git), and >= 200 review rounds/s when replaying from the cache.
Run: ``python benchmarks/bench_miners.py [--changes 300] [--pulls 200]``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from miners_server import T0, ForgeServer, build_forge  # noqa: E402

from revmine.miners import JobOptions, mine_gerrit, mine_github  # noqa: E402


def _run(kind: str, server, forge, out: Path, cache: Path, mode: str) -> dict:
    opts = JobOptions(progress=False, cache=cache, cache_mode=mode, batch_size=100)
    if kind == "gerrit":
        return mine_gerrit(server.gerrit_url, "demo/app", out, until=T0.replace(year=2024),
                           clone_url=str(forge.gerrit_repo), options=opts)
    return mine_github("octo/demo", out, api_url=server.github_api, clone_url=str(forge.github_repo), options=opts)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--changes", type=int, default=300)
    ap.add_argument("--pulls", type=int, default=200)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        forge = build_forge(root / "forge", n_changes=args.changes, n_pulls=args.pulls)
        with ForgeServer(forge) as server:
            for kind, goal in (("gerrit", "<= 3 per change"), ("github", "<= 2 per PR + pagination")):
                cache = root / f"{kind}.sqlite"
                first = _run(kind, server, forge, root / f"{kind}-online", cache, "use")["projects"][0]
                t = time.perf_counter()
                replay = _run(kind, server, forge, root / f"{kind}-replay", cache, "offline")["projects"][0]
                seconds = time.perf_counter() - t
                rounds = replay["rows"]
                req = first["http"].get("requests", 0)
                print(f"{kind}: {first['changes_done']} changes, {first['rows']} round rows, {req} HTTP requests "
                      f"-> {req / first['changes_done']:.2f} per change (goal {goal}), "
                      f"{req / max(first['rows'], 1):.2f} per round row; "
                      f"REST content fallbacks {first['content_fallbacks']}")
                print(f"{kind}: replay from cache (offline, incl. git clone): {rounds} rows in {seconds:.2f}s "
                      f"= {rounds / seconds:.0f} rounds/s (goal >= 200/s); "
                      f"network requests during replay: {replay['http'].get('requests', 0)}")


if __name__ == "__main__":
    main()
