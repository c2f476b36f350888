"""The GitHub miner through GraphQL (``api = "graphql"``) against the look-alike GitHub, whose ``/graphql``
(tests/github_graphql_forge.py) answers from the data its REST endpoints serve: the rows equal REST's, long
threads, many threads and many commits are paged, the points are GitHub's and planned, rate limits are waited."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from miners_server import T0, Fault, ForgeServer, build_forge, github_comment, github_pull  # noqa: E402

from revmine.errors import InputError  # noqa: E402
from revmine.io.store import read_table  # noqa: E402
from revmine.miners import JobOptions, mine_github, run_job  # noqa: E402
from revmine.miners.github import GitHubMiner  # noqa: E402
from revmine.miners.jobs import MiningFailed  # noqa: E402
from revmine.pipeline import load_job  # noqa: E402
from revmine.miners.http import Client, Credentials  # noqa: E402

N_PULLS, LONG_PULL = 4, 105  # the long pull request: 105 commits, more than a GraphQL page of 100
LONG_THREAD, MANY_THREADS = 105, 25  # comments in one thread of PR 3; threads of PR 4 (a listing brings 20)


def sha_of(repo: Path, ref: str) -> list[str]:
    return subprocess.run(["git", "-C", str(repo), "rev-list", "--reverse", ref, "^refs/heads/main"],
                          capture_output=True, text=True, check=True, timeout=60).stdout.split()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The forge of tests/miners_server.py plus what only GraphQL pages or says differently: a multi-line
    comment, a bot's comment, a resolved thread, a thread of 105 comments, a pull request with 25 threads."""
    forge = build_forge(tmp_path_factory.mktemp("forge"), n_changes=1, n_pulls=N_PULLS, long_pull=LONG_PULL)
    c1, _, c3 = sha_of(forge.github_repo, "refs/pull/3/head")
    when = T0

    def comment(cid: int, login: str, path: str, line: int, **kw) -> dict:
        return github_comment(cid, c1, path, login, line, when, c3, **kw)

    extra = [comment(350, "reviewer", "src/A3.java", 6, start_line=3),  # multi-line
             comment(351, "lint-bot[bot]", "src/B3.java", 2)]
    extra[1]["user"]["type"] = "Bot"
    extra.append(comment(352, "reviewer", "src/B3.java", 7))
    extra += [comment(3000 + i, "owner" if i % 2 else "reviewer", "src/B3.java", 7, reply=352)
              for i in range(LONG_THREAD - 1)]
    forge.github_comments[3] += extra
    forge.github_resolved |= {301, 352}
    c1, _, c3 = sha_of(forge.github_repo, "refs/pull/4/head")
    forge.github_comments[4] += [github_comment(4000 + i, c1, "src/B4.java", "reviewer", 1 + i % 6, when, c3,
                                                outdated=i % 3 == 0) for i in range(MANY_THREADS)]
    with ForgeServer(forge) as srv:
        yield srv


def mine(server, out: Path, api: str, **kw) -> dict:
    return mine_github("octo/demo", out, api_url=server.github_api, clone_url=str(server.forge.github_repo),
                       options=JobOptions(progress=False, cache_mode="off", **kw), api=api)


def root_of(forge, number: int, cid: int) -> int:
    """The first comment of ``cid``'s thread, following its replies up (computed from the REST data)."""
    by_id = {c["id"]: c for c in forge.github_comments[number]}
    while by_id[cid].get("in_reply_to_id") in by_id:
        cid = by_id[cid]["in_reply_to_id"]
    return cid


def test_graphql_rows_equal_rest_rows_and_cost_fewer_requests(server, tmp_path):
    forge = server.forge
    before = len(forge.log)
    rest = mine(server, tmp_path / "rest", "rest")
    rest_requests = len(forge.log) - before
    before, points_before = len(forge.log), len(forge.graphql_points)
    graphql = mine(server, tmp_path / "graphql", "graphql")
    graphql_requests = len(forge.log) - before - 2  # both miners read the licence and a lost file through REST
    a = sorted(read_table(tmp_path / "rest" / "rounds.parquet").to_pylist(), key=lambda r: r["round_id"])
    b = sorted(read_table(tmp_path / "graphql" / "rounds.parquet").to_pylist(), key=lambda r: r["round_id"])
    assert len(a) == len(b) == rest["projects"][0]["rows"] == forge.expected["github_rows"]
    kinds = set()
    for x, y in zip(a, b):
        assert {k: v for k, v in x.items() if k != "comments"} == {k: v for k, v in y.items() if k != "comments"}
        assert len(x["comments"]) == len(y["comments"])
        for c, g in zip(x["comments"], y["comments"]):
            assert c["unresolved"] is None  # REST cannot say; GraphQL says it from the thread
            assert g["unresolved"] == (root_of(forge, int(x["change"]), int(c["id"])) not in forge.github_resolved)
            assert {**c, "unresolved": None} == {**g, "unresolved": None}
            kinds.add((c["author_kind"], c["author_evidence"]))
    comments = {c["id"]: c for r in b for c in r["comments"]}
    assert kinds == {("human", None), ("bot", "type=Bot;login=[bot]")}
    assert comments["351"]["author"] == "lint-bot[bot]"  # GraphQL's Bot.login has no [bot]: added back
    assert (comments["350"]["start_line"], comments["350"]["end_line"]) == (3, 6)
    assert sum(c["in_reply_to"] == "352" for c in comments.values()) == LONG_THREAD - 1  # the thread, paged
    assert any(c["outdated"] for c in comments.values())
    # what the server saw: one listing page (100 pull requests, 20 threads each: (1 + 100 + 100 + 100 * 20) / 100
    # = 22 points) and one follow-up of 1 point each for PR 4's threads 21-25, PR 3's long thread's comments
    # 101-105 and the long pull request's commits 101-105
    assert graphql_requests == 4 and sorted(forge.graphql_points[points_before:]) == [1, 1, 1, 22]
    assert graphql["projects"][0]["http"]["graphql_points"] == 25
    queries = [q["query"] for q in forge.graphql_log[-4:]]
    assert sum("node(id:" in q for q in queries) == 1 and sum("reviewThreads(first: 100" in q for q in queries) == 1
    pulls = N_PULLS + 1
    # REST: the listing, then each pull request's comments and (reviewed) commits, 100 a page: PR 3's 112 comments
    # and the long pull request's 105 commits take two pages each
    assert rest_requests - 2 == 1 + pulls + pulls + 2
    assert graphql_requests < rest_requests / 2


def test_pages_are_planned_against_the_points_left(tmp_path):
    """35 points a token: a first page of 100 pull requests costs 22, so with 13 left the next asks for as many as
    they pay for: (1 + 2n + 20n) / 100 rounds to at most 13 for n <= 61. With none left, the listing's next pass
    (it took two pages, see github.py) waits for the window to renew the points (1 s here): never refused."""
    forge = build_forge(tmp_path / "forge", n_changes=1, n_pulls=1)
    for n in range(2, 106):
        forge.github_pulls[n] = github_pull(n, "a" * 40, "b" * 40, T0)
    forge.graphql_quota, forge.graphql_window = 35, 1.0
    with ForgeServer(forge) as srv:
        client = Client("github", Credentials(tokens=["ghp_test"]), cache_mode="off")
        miner = GitHubMiner(client, "octo/demo", None, None, srv.github_api, api="graphql")
        forge.graphql_window_start = time.time()
        listed = [p["number"] for p in miner.list_changes()]
    assert sorted(listed) == list(range(1, 106))
    firsts = [q["variables"]["first"] for q in forge.graphql_log]
    assert firsts[:3] == [100, 61, 1] and forge.graphql_points[:2] == [22, 13]
    assert forge.hits["graphql_rate_limited"] == 0 and client.stats["rate_limit_waits"] == 1
    assert client.stats["graphql_points"] == sum(forge.graphql_points)


def test_a_rate_limited_query_is_waited_for_and_asked_again(server, tmp_path):
    forge = server.forge
    forge.faults.append(Fault("/github/graphql", "graphql-ratelimited", times=1, value=1))
    limited = forge.hits["graphql_rate_limited"]
    project = mine(server, tmp_path / "out", "graphql")["projects"][0]
    assert forge.hits["graphql_rate_limited"] == limited + 1
    assert project["http"]["rate_limit_waits"] == 1 and project["status"] == "mined"
    assert project["rows"] == forge.expected["github_rows"]


def test_an_answer_of_the_wrong_shape_fails_the_project_naming_the_endpoint(server, tmp_path):
    server.forge.faults.append(Fault("/github/graphql", "wrongtype", times=1))
    with pytest.raises(MiningFailed) as caught:
        mine(server, tmp_path / "out", "graphql")
    assert str(caught.value) == (f"mining github octo/demo failed (forge_error): {server.github_api}/graphql: "
                                 "the answer: data is missing, expected dict")


def test_a_bad_api_value_is_one_error_line(tmp_path):
    job = tmp_path / "job.toml"
    job.write_text('[job]\nout = "out"\n\n[[projects]]\nsource = "github"\nrepo = "octo/demo"\napi = "soap"\n')
    with pytest.raises(InputError) as caught:
        run_job(job)
    assert str(caught.value) == f"{job} [projects[0].api]: must be 'rest' or 'graphql', not 'soap'"
    assert not (tmp_path / "out").exists()
    job.write_text(job.read_text().replace('"soap"', '"graphql"'))
    assert load_job(job).out == tmp_path / "out"  # revmine run knows the key
