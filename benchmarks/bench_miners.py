"""Miners benchmark against the local forge (tests/miners_server.py, tests/gitlab_forge.py): requests per
change, online speed at a forge's latency, and replay speed, for Gerrit, GitHub and GitLab in one run.

Goals (issue 4): <= 3 HTTP requests per change for Gerrit, <= 2 per pull request plus pagination for
GitHub (contents from git), and >= 200 review rounds/s when replaying from the cache. Issue 27: GitLab's
requests per merge request and rounds/s at 100 ms a request, beside Gerrit's and GitHub's.

What is measured, per forge:
1. ``--online`` runs against the local server answering each request after ``--latency`` seconds (100 ms),
   one change at a time, each into a fresh output and response cache (the bare clone is shared: made by the
   first run, which is not timed twice over); requests per change and online rounds/s (median and range)
   come from these runs;
2. ``--repeat`` offline replays, each into a fresh output directory, reading the responses from that
   cache and the contents from that clone: the whole job (listing, comments, git reads, Parquet parts,
   checkpoints, manifest) is timed, the online run and the forge's construction are not. This is the
   figure compared with the goal (median of the repeats; the machine may be shared, so the best is shown
   too);
3. one "cold" replay that also clones the repository anew (from a local path), shown for reference.

The look-alikes differ in what a change holds (a GitLab merge request has six commented files over two
rounds, a GitHub pull request two or three, a Gerrit change at most one), so rounds/s at a latency says
how many requests a round costs; requests per change says what a token's quota buys.

A *round* is one distinct ``round_id`` (Gerrit: a patch set and its successor; GitHub: a commented
commit); a round has one row per commented Java file. Rounds/s = rounds produced / seconds, where the
seconds include the changes that yield no round (the synthetic Gerrit project has, by design, one change
in six with a single patch set, one with only owner comments and one whose next patch set vanished, so
half its changes produce no round).

Run: ``python benchmarks/bench_miners.py [--changes 300] [--pulls 200] [--mrs 100] [--repeat 5] [--online 3]
[--latency 0.1]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # measure this tree, not whatever is installed
from miners_server import T0, Forge, ForgeServer, build_forge  # noqa: E402

from revmine.miners import JobOptions, mine_gerrit, mine_github, mine_gitlab  # noqa: E402
from revmine.io.store import read_table  # noqa: E402

GOAL_ROUNDS_PER_S = 200
GOAL_REQUESTS = {"gerrit": "<= 3 per change", "github": "<= 2 per PR + pagination",
                 "gitlab": "<= 2 per MR + pagination"}


def _run(kind: str, server: ForgeServer, forge: Forge, out: Path, cache: Path, repos: Path, mode: str) -> dict:
    """One mining job; returns its project summary from the manifest."""
    opts = JobOptions(progress=False, cache=cache, repos=repos, cache_mode=mode, batch_size=100)
    if kind == "gerrit":
        manifest = mine_gerrit(server.gerrit_url, "demo/app", out, until=T0.replace(year=2024),
                               clone_url=str(forge.gerrit_repo), options=opts)
    elif kind == "github":
        manifest = mine_github("octo/demo", out, api_url=server.github_api, clone_url=str(forge.github_repo),
                               options=opts)
    else:
        manifest = mine_gitlab("demo/gl", out, url=server.gitlab_url, clone_url=str(forge.gitlab_repo), options=opts)
    return manifest["projects"][0]


def _timed(kind: str, server: ForgeServer, forge: Forge, out: Path, cache: Path, repos: Path) -> tuple[float, dict]:
    start = time.perf_counter()
    summary = _run(kind, server, forge, out, cache, repos, "offline")
    return time.perf_counter() - start, summary


def _rounds(out: Path) -> int:
    return len(set(read_table(out / "rounds.parquet", columns=["round_id"]).column("round_id").to_pylist()))


def bench(kind: str, server: ForgeServer, forge: Forge, root: Path, repeat: int, online: int, latency: float) -> None:
    repos = root / f"{kind}-repos"
    _run(kind, server, forge, root / f"{kind}-clone", root / f"{kind}-clone.sqlite", repos, "use")  # the clone
    forge.latency, timed, summaries = latency, [], []
    for i in range(online):  # each into a fresh output and cache: every request goes to the forge
        start = time.perf_counter()
        summaries.append(_run(kind, server, forge, root / f"{kind}-online{i}", root / f"{kind}-cache{i}.sqlite",
                              repos, "use"))
        timed.append(time.perf_counter() - start)
    forge.latency = 0.0
    cache, first = root / f"{kind}-cache0.sqlite", summaries[0]  # replayed below
    changes, req = first["changes_done"], first["http_this_run"].get("requests", 0)
    rounds = _rounds(root / f"{kind}-online0")
    print(f"{kind}: {changes} changes -> {rounds} rounds ({first['rows']} file rows), "
          f"{len(first['dropped'])} dropped, REST content fallbacks {first['content_fallbacks']}")
    print(f"{kind}: online: {req} HTTP requests = {req / changes:.2f} per change (goal {GOAL_REQUESTS[kind]}), "
          f"{req / max(rounds, 1):.2f} per round")
    speeds = sorted(rounds / s for s in timed)
    print(f"{kind}: online at {latency * 1000:.0f} ms a request, one change at a time ({online} runs): median "
          f"{statistics.median(timed):.2f}s = {statistics.median(speeds):.1f} rounds/s (range {speeds[0]:.1f}-"
          f"{speeds[-1]:.1f}), {changes / statistics.median(timed):.1f} changes/s")
    runs = [_timed(kind, server, forge, root / f"{kind}-replay{i}", cache, repos) for i in range(repeat)]
    seconds = [s for s, _ in runs]
    assert all(_rounds(root / f"{kind}-replay{i}") == rounds for i in range(repeat)), "replay lost rounds"
    assert all(s["http_this_run"].get("requests", 0) == 0 for _, s in runs), "replay went to the network"
    median = rounds / statistics.median(seconds)
    verdict = "met" if median >= GOAL_ROUNDS_PER_S else "NOT met"
    print(f"{kind}: replay (offline, cache + existing clone, {repeat} runs): median {statistics.median(seconds):.3f}s "
          f"= {median:.0f} rounds/s, best {rounds / min(seconds):.0f} rounds/s "
          f"| goal >= {GOAL_ROUNDS_PER_S} rounds/s: {verdict} "
          f"| {changes / statistics.median(seconds):.0f} changes/s, {first['rows'] / statistics.median(seconds):.0f} rows/s")
    cold, _ = _timed(kind, server, forge, root / f"{kind}-cold", cache, root / f"{kind}-repos-cold")
    print(f"{kind}: cold replay incl. a new local clone (reference only): {cold:.3f}s = {rounds / cold:.0f} rounds/s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--changes", type=int, default=300)
    ap.add_argument("--pulls", type=int, default=200)
    ap.add_argument("--mrs", type=int, default=100, help="GitLab merge requests")
    ap.add_argument("--repeat", type=int, default=5, help="offline replays per forge")
    ap.add_argument("--online", type=int, default=3, help="online runs per forge at --latency")
    ap.add_argument("--latency", type=float, default=0.1, help="seconds the forge waits before each answer")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        forge = build_forge(root / "forge", n_changes=args.changes, n_pulls=args.pulls, n_mrs=args.mrs)
        with ForgeServer(forge) as server:
            for kind in ("gerrit", "github", "gitlab"):
                bench(kind, server, forge, root, args.repeat, args.online, args.latency)


if __name__ == "__main__":
    main()
