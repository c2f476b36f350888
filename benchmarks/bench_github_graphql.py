"""GitHub through REST against GitHub through GraphQL on the same look-alike forge (tests/miners_server.py, whose
``/graphql`` is tests/github_graphql_forge.py): requests and points per pull request, and pull requests mined
per token-hour.

Goal (issue 27): GraphQL mines at least 3x the pull requests per token-hour REST does. A token has 5,000 REST
requests and 5,000 GraphQL points an hour (docs.github.com, "Rate limits for the REST API" and "... for the
GraphQL API"), two separate budgets. So REST mines 5000 / (requests per pull request) pull requests an hour;
GraphQL mines 5000 / (points per pull request), unless the REST requests it still makes (the licence, a file
git lost) run out first: the smaller of the two. The points are what the forge charged, computed as GitHub
documents (tests/github_graphql_forge.py), and what the miner read from the answers (``graphql_points``).

Each run mines the whole repository once per API into a fresh output with no cache (every request goes to the
forge), counting what the forge saw. The counts do not vary between runs (the median and the range show they
do not); the seconds, next to them, do (the machine is shared).

Measured (2026-11-29, 200 pull requests, 3 runs): REST 2.02 requests a pull request, 2,469 pull requests a
token-hour; GraphQL 0.015 queries and 0.330 points a pull request plus 0.01 REST requests, 15,152 a token-hour:
6.1x (goal 3x), 401 rows each way; 2.5 s a REST run, 1.2 s a GraphQL one (no latency).

Run: ``python benchmarks/bench_github_graphql.py [--pulls 200] [--repeat 3]``.
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
from miners_server import ForgeServer, build_forge  # noqa: E402

from revmine.miners import JobOptions, mine_github  # noqa: E402

HOURLY = 5000  # REST requests, and GraphQL points, a token has an hour
GOAL = 3.0


def run(server: ForgeServer, out: Path, api: str) -> dict:
    """One job through ``api``: requests (REST and GraphQL), points, rows and seconds."""
    forge = server.forge
    before, points = len(forge.log), len(forge.graphql_points)
    start = time.perf_counter()
    manifest = mine_github("octo/demo", out, api_url=server.github_api, clone_url=str(forge.github_repo),
                           options=JobOptions(progress=False, cache_mode="off", batch_size=100), api=api)
    seconds = time.perf_counter() - start
    asked = [path for path, _ in forge.log[before:]]
    graphql = sum(path.startswith("/github/graphql") for path in asked)
    project = manifest["projects"][0]
    return {"rest": len(asked) - graphql, "graphql": graphql, "points": sum(forge.graphql_points[points:]),
            "read_points": project["http"].get("graphql_points", 0), "rows": project["rows"],
            "pulls": project["changes_done"], "seconds": seconds}


def per_hour(r: dict) -> float:
    """Pull requests a token mines an hour (module docstring)."""
    rest = HOURLY / (r["rest"] / r["pulls"]) if r["rest"] else float("inf")
    points = HOURLY / (r["points"] / r["pulls"]) if r["points"] else float("inf")
    return min(rest, points)


def show(name: str, values: list[float], fmt: str = "{:.2f}") -> str:
    return f"{name} {fmt.format(statistics.median(values))} [{fmt.format(min(values))}-{fmt.format(max(values))}]"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pulls", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        forge = build_forge(root / "forge", n_changes=1, n_pulls=args.pulls)
        runs: dict[str, list[dict]] = {"rest": [], "graphql": []}
        with ForgeServer(forge) as server:
            for i in range(args.repeat):
                for api in runs:
                    runs[api].append(run(server, root / f"{api}-{i}", api))
    rest, graphql = runs["rest"], runs["graphql"]
    assert all(r["rows"] == rest[0]["rows"] for r in rest + graphql), "the two APIs mined different rows"
    assert all(r["read_points"] == r["points"] for r in graphql), "the miner read other costs than charged"
    print(f"{args.pulls} pull requests, {rest[0]['rows']} rows each way, {args.repeat} runs (median [range])")
    for api, rs in runs.items():
        print(f"{api:8s} " + "; ".join([
            show("REST requests/PR", [r["rest"] / r["pulls"] for r in rs]),
            show("GraphQL queries/PR", [r["graphql"] / r["pulls"] for r in rs], "{:.3f}"),
            show("points/PR", [r["points"] / r["pulls"] for r in rs], "{:.3f}"),
            show("PRs/token-hour", [per_hour(r) for r in rs], "{:.0f}"),
            show("s/run", [r["seconds"] for r in rs])]))
    ratio = statistics.median(per_hour(r) for r in graphql) / statistics.median(per_hour(r) for r in rest)
    print(f"GraphQL mines {ratio:.1f}x the pull requests per token-hour REST does (goal >= {GOAL:.0f}x): "
          f"{'met' if ratio >= GOAL else 'NOT met'}")


if __name__ == "__main__":
    main()
