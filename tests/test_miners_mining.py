"""Both miners end to end against the local forge: rounds, statuses, drops, paging, replay, resume."""

from __future__ import annotations

import copy
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from datetime import timedelta
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from miners_server import T0, Fault, ForgeServer, _gerrit_time, _iso, build_forge, ghost_sha  # noqa: E402

from revmine.errors import InputError  # noqa: E402
from revmine.miners import JobOptions, mine_gerrit, mine_github, run_job  # noqa: E402
from revmine.miners import jobs  # noqa: E402
from revmine.miners.gerrit import GerritMiner  # noqa: E402
from revmine.miners.github import GitHubMiner  # noqa: E402
from revmine.miners.http import Client, Credentials, check_url, host_of  # noqa: E402
from revmine.miners.jobs import MiningFailed, manifest_holds  # noqa: E402
from revmine.io.store import read_table  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
UNTIL = T0 + timedelta(days=30)


@pytest.fixture()
def server(tmp_path):
    forge = build_forge(tmp_path / "forge", n_changes=12, n_pulls=4)
    with ForgeServer(forge) as srv:
        yield srv


def opts(**kw) -> JobOptions:
    return JobOptions(progress=False, **kw)


def keys(out: Path) -> list[tuple[str, str]]:
    table = read_table(out / "rounds.parquet", expect="rounds/4", columns=["round_id", "path_before"])
    return sorted(zip(table.column("round_id").to_pylist(), table.column("path_before").to_pylist()))


def drops(out: Path) -> list[tuple]:
    """The run's drops, in the order written."""
    return [tuple(d.values()) for d in read_table(out / "dropped.parquet", expect="mine_dropped/2").to_pylist()]


def test_gerrit_rounds(server, tmp_path):
    forge = server.forge
    m = mine_gerrit(server.gerrit_url, "demo/app", tmp_path / "out", until=UNTIL,
                    clone_url=str(forge.gerrit_repo), options=opts())
    rows = read_table(tmp_path / "out" / "rounds.parquet", expect="rounds/4").to_pylist()
    assert len(rows) == forge.expected["gerrit_rows"]
    status = Counter(r["file_status"] for r in rows)
    assert status == {"modified": 2, "renamed": 2, "deleted": 2}
    renamed = next(r for r in rows if r["file_status"] == "renamed")
    assert renamed["path_after"].startswith("src/Renamed") and renamed["content_after"]
    first = next(r for r in rows if r["change"] == "1")
    assert first["round"] == 1 and "x1 = 2" in first["content_before"] and "x1 = 3" in first["content_after"]
    c = {x["id"]: x for x in first["comments"]}
    assert set(c) == {"c1a", "c1b"}  # PS2 comment and README comment are not part of the round
    assert (c["c1a"]["start_line"], c["c1a"]["end_line"], c["c1a"]["start_character"], c["c1a"]["end_character"]) == (5, 6, 8, 20)
    assert c["c1b"]["is_owner"] and c["c1b"]["in_reply_to"] == "c1a" and c["c1a"]["side"] == "REVISION"
    project = m["projects"][0]
    vanished = [d for d in project["dropped"] if "gone from git" in d["detail"]]
    assert {d["reason"] for d in vanished} == {"unreachable"}
    assert len(vanished) == forge.expected["gerrit_dropped"]
    # every change with two patch sets has a reviewer's "LGTM" on patch set 2, its last: no round, counted
    last = {(str(n), next(sha for sha, rev in c["revisions"].items() if rev["_number"] == 2))
            for n, c in forge.gerrit_changes.items() if len(c["revisions"]) == 2}
    no_revision = [d for d in project["dropped"] if d not in vanished]
    assert {(d["change"], d["detail"].split()[2]) for d in no_revision} == last and len(no_revision) == len(last)
    assert all(d["detail"].endswith("is the last one: no revised code after the comments") and d["round_id"] is None
               and d["path"].endswith(".java") and d["reason"] == "last_revision" for d in no_revision)
    dropped = read_table(tmp_path / "out" / "dropped.parquet", expect="mine_dropped/2").to_pylist()
    assert [(d["source"], d["reason"], d["detail"]) for d in dropped] == \
        [("gerrit", d["reason"], d["detail"]) for d in project["dropped"]]
    assert project["dropped_by_reason"] == {"last_revision": len(last), "unreachable": forge.expected["gerrit_dropped"]}
    # requests per change: one listing page for all + one comments request per multi-patch-set change
    assert project["http"]["requests"] / project["changes_done"] <= 3
    assert m["versions"]["revmine"] and m["totals"]["rows"] == len(rows)


def test_github_rounds_with_outdated_and_force_pushed(server, tmp_path):
    forge = server.forge
    m = mine_github("octo/demo", tmp_path / "out", api_url=server.github_api,
                    clone_url=str(forge.github_repo), options=opts())
    rows = read_table(tmp_path / "out" / "rounds.parquet").to_pylist()
    assert len(rows) == forge.expected["github_rows"]
    pr1 = {(r["round"], r["path_before"]): r for r in rows if r["change"] == "1"}
    a = pr1[(1, "src/A1.java")]
    commits = [c["sha"] for c in forge.github_commits[1]]
    assert (a["revision_before"], a["revision_after"], a["file_status"]) == (commits[0], commits[1], "modified")
    assert pr1[(1, "src/B1.java")]["revision_after"] == commits[2]  # untouched later: the final head
    ghost = pr1[(4, "src/A1.java")]  # force-pushed commit, read through the contents API
    assert ghost["comments"][0]["outdated"] and ghost["comments"][0]["line"] == 3
    assert "x1 = 9" in ghost["content_before"]
    # the head is in git although the commented commit is not: its content must not shift to the ghost's
    assert (ghost["revision_after"], ghost["file_status"]) == (commits[2], "modified")
    assert "x1 = 3" in ghost["content_after"]
    # a reviewer's comment on the pull request's last commit has no revised code: no round, a counted drop
    assert not [r for r in rows if r["revision_before"] == r["revision_after"]]
    dropped = read_table(tmp_path / "out" / "dropped.parquet", expect="mine_dropped/2").to_pylist()
    assert [(d["source"], d["project"], d["change"], d["path"], d["round_id"], d["reason"], d["detail"])
            for d in dropped] == [
        ("github", "octo/demo", change, path, None, "last_revision",
         f"reviewed revision {sha} is the last one: no revised code after the comments")
        for change, path, sha in forge.expected["github_last_commit"]]
    p = m["projects"][0]
    assert p["dropped_by_reason"] == {"last_revision": len(forge.expected["github_last_commit"])}
    assert p["content_fallbacks"] == 1
    # two a pull request, the listing, the licence endpoint (once a project) and the fallbacks
    assert p["http"]["requests"] <= 2 * p["changes_done"] + 1 + 1 + p["content_fallbacks"]
    assert server.forge.hits["github_license"] == 1


def test_replay_offline_from_cache(server, tmp_path):
    forge = server.forge
    cache = tmp_path / "cache.sqlite"
    mine_gerrit(server.gerrit_url, "demo/app", tmp_path / "a", until=UNTIL, clone_url=str(forge.gerrit_repo),
                options=opts(cache=cache))
    n = len(forge.log)
    m = mine_gerrit(server.gerrit_url, "demo/app", tmp_path / "b", until=UNTIL, clone_url=str(forge.gerrit_repo),
                    options=opts(cache=cache, cache_mode="offline"))
    assert len(forge.log) == n and m["projects"][0]["http"].get("requests", 0) == 0
    assert keys(tmp_path / "a") == keys(tmp_path / "b")


def test_gerrit_keyset_paging_with_moving_order(server, tmp_path):
    forge = server.forge
    for i in (7, 8, 9):  # three changes share an instant: more than a page -> offsets inside it
        forge.gerrit_changes[i]["updated"] = forge.gerrit_changes[6]["updated"]
    seen_pages = []

    def bump(path: str) -> None:  # after the first page, the newest change moves again (stays in window)
        if path.startswith("/gerrit/changes/?"):
            seen_pages.append(path)
            if len(seen_pages) == 2:
                forge.gerrit_changes[12]["updated"] = _gerrit_time(T0 + timedelta(days=1))
    forge.hooks.append(bump)
    client = Client("gerrit", cache_mode="off")
    miner = GerritMiner(client, server.gerrit_url, "demo/app", T0 - timedelta(days=1), UNTIL, page_size=2)
    numbers = [c["_number"] for c in miner.list_changes()]
    assert sorted(numbers) == list(range(1, 13)) and len(seen_pages) > 3


def test_gerrit_pages_cut_short_by_the_servers_query_limit(server):
    """A real Gerrit answers at most its query limit (the queryLimit capability) whatever ``n`` asks, the last
    change flagged ``_more_changes`` (seen on Gerrit 3.10 and 3.13, tests/test_real_gerrit.py): every change
    is still listed once, over pages of the server's size."""
    forge = server.forge
    forge.gerrit_query_limit = 5
    miner = GerritMiner(Client("gerrit", cache_mode="off"), server.gerrit_url, "demo/app", T0 - timedelta(days=1),
                        UNTIL, page_size=100)
    numbers = [c["_number"] for c in miner.list_changes()]
    assert sorted(numbers) == sorted(forge.gerrit_changes) and len(numbers) > 2 * forge.gerrit_query_limit
    assert forge.hits["gerrit_list"] >= -(-len(numbers) // forge.gerrit_query_limit)


@pytest.mark.parametrize("bumps", [[1], [1, 2]])
def test_github_pages_changing_between_requests(server, bumps):
    """A pull request not listed yet is updated while we page (it jumps above the pages read), and
    with ``[1, 2]`` another one is updated while the listing is read again: none lost, none repeated."""
    forge = server.forge
    pages = Counter()

    def bump(path: str) -> None:  # page 2 of each pass: pull request bumps[pass] jumps to the top
        if "/pulls?" in path and "&page=2" in path:
            pages["page2"] += 1
            if pages["page2"] <= len(bumps):
                forge.github_pulls[bumps[pages["page2"] - 1]]["updated_at"] = _iso(T0 + timedelta(days=pages["page2"]))
    forge.hooks.append(bump)
    miner = GitHubMiner(Client("github", cache_mode="off"), "octo/demo", None, None, server.github_api, page_size=2)
    numbers = [p["number"] for p in miner.list_changes()]
    assert pages["page2"] >= len(bumps)
    assert sorted(numbers) == [1, 2, 3, 4]


def test_github_listing_one_page_is_read_once(server):
    """A listing of one page is a consistent snapshot: it is not read again."""
    miner = GitHubMiner(Client("github", cache_mode="off"), "octo/demo", None, None, server.github_api)
    assert sorted(p["number"] for p in miner.list_changes()) == [1, 2, 3, 4]
    assert server.forge.hits["github_pulls"] == 1


def test_github_pull_request_with_more_commits_than_the_api_lists(tmp_path):
    """/pulls/{n}/commits stops at 250 commits: the rest come from git (round number, next commit)."""
    forge = build_forge(tmp_path / "forge", n_changes=1, n_pulls=1, long_pull=254)
    with ForgeServer(forge) as srv:
        m = mine_github("octo/demo", tmp_path / "out", api_url=srv.github_api, clone_url=str(forge.github_repo),
                        options=opts())
    long = [r for r in read_table(tmp_path / "out" / "rounds.parquet").to_pylist() if r["change"] == "2"]
    commits = [c["sha"] for c in forge.github_commits[2]]
    assert [(r["round"], r["revision_before"], r["revision_after"], r["file_status"]) for r in long] == [
        (252, commits[251], commits[252], "modified")]
    assert m["totals"]["dropped"] == 0


def test_job_toml_errors(tmp_path):
    job = tmp_path / "job.toml"
    job.write_text('[[projects]]\nsource = "github"\nrepo = "o/n"\ntoken = "ghp_x"\n')
    with pytest.raises(InputError, match=r"projects\[0\]\.token") as err:
        run_job(job, tmp_path / "out")
    assert "ghp_x" not in str(err.value)
    job.write_text('[[projects]]\nsource = "gitea"\n')
    with pytest.raises(InputError, match=r"job.toml \[projects\[0\]\.source\]"):
        run_job(job, tmp_path / "out")
    job.write_text('[[projects]]\nsource = "github"\nrepo = "o/n"\nsince = "last tuesday"\n')
    with pytest.raises(InputError, match=r"since"):
        run_job(job, tmp_path / "out")


MARK = "PW-MARKER-7f3a9c"


@pytest.mark.parametrize("field,url", [
    ("url", f"http://bob:{MARK}@127.0.0.1:9/gerrit"),
    ("url", f"http://{MARK}@127.0.0.1:9/gerrit"),
    ("clone_url", f"http://x-access-token:{MARK}@127.0.0.1:9/octo/demo.git"),
    ("api_url", f"http://127.0.0.1:9/api/v3?access_token={MARK}"),
])
def test_urls_carrying_credentials_are_refused(tmp_path, field, url):
    """A secret in a URL would reach rows, checkpoint, manifest and cache: refused before anything runs."""
    out, gerrit = tmp_path / "out", "http://127.0.0.1:9/gerrit"
    mine = {"url": lambda: mine_gerrit(url, "demo/app", out, options=opts()),
            "clone_url": lambda: mine_gerrit(gerrit, "demo/app", out, clone_url=url, options=opts()),
            "api_url": lambda: mine_github("octo/demo", out, api_url=url, options=opts())}[field]
    with pytest.raises(InputError, match=rf"\[{field}\]") as err:
        mine()
    assert MARK not in str(err.value) and not out.exists()
    job = tmp_path / "job.toml"
    project = {"url": 'source = "gerrit"\nproject = "demo/app"',
               "clone_url": f'source = "gerrit"\nproject = "demo/app"\nurl = "{gerrit}"',
               "api_url": 'source = "github"\nrepo = "o/n"'}[field]
    job.write_text(f'[[projects]]\n{project}\n{field} = "{url}"\n')
    with pytest.raises(InputError, match=rf"projects\[0\]\.{field}\]") as err:
        run_job(job, out)
    assert MARK not in str(err.value) and not out.exists()


def test_accounts_in_ssh_urls_are_allowed_and_hosts_never_hold_user_info():
    check_url("ssh://git@github.com/octo/demo.git", "clone_url")
    check_url("git@github.com:octo/demo.git", "clone_url")
    with pytest.raises(InputError, match="clone_url"):
        check_url(f"ssh://git:{MARK}@github.com/octo/demo.git", "clone_url")
    assert host_of(f"https://u:{MARK}@Review.Example.org:8443/r") == "review.example.org:8443"
    miner = GerritMiner(Client("gerrit", cache_mode="off"), f"http://u:{MARK}@h.org/r", "p", T0, UNTIL)
    assert miner.host == "h.org"


@pytest.mark.parametrize("online,offline", [("creds", None), (None, "creds")])
def test_gerrit_cache_replays_with_or_without_credentials(server, tmp_path, online, offline):
    """Gerrit's authenticated /a/ paths are wire-only: a cache written with credentials replays without
    them, and the other way round."""
    creds = {"gerrit": Credentials(user="bob", password=MARK)}
    cache = tmp_path / "cache.sqlite"
    forge = server.forge
    mine_gerrit(server.gerrit_url, "demo/app", tmp_path / "a", until=UNTIL, clone_url=str(forge.gerrit_repo),
                options=opts(cache=cache, credentials=creds if online else {}))
    assert all(p.startswith("/gerrit/a/") == bool(online) for p, _ in forge.log)
    n = len(forge.log)
    m = mine_gerrit(server.gerrit_url, "demo/app", tmp_path / "b", until=UNTIL, clone_url=str(forge.gerrit_repo),
                    options=opts(cache=cache, cache_mode="offline", credentials=creds if offline else {}))
    assert len(forge.log) == n and m["projects"][0]["http"].get("requests", 0) == 0
    assert keys(tmp_path / "a") == keys(tmp_path / "b")
    assert MARK.encode() not in b"".join(f.read_bytes() for f in tmp_path.glob("cache.sqlite*"))


def _set(obj: dict, dotted: str, value: object) -> None:
    *path, last = dotted.split(".")
    for key in path:
        obj = obj[key]
    obj[last] = value


@pytest.mark.parametrize("source,target,dotted,value,url_part,message", [
    ("github", "pull", "updated_at", "garbage", "/pulls?", "updated_at is not a date"),
    ("github", "pull", "head", "deadbeef", "/pulls?", "head is 'deadbeef', expected dict"),
    ("github", "comment", "original_line", "12", "/pulls/1/comments?per_page", "original_line is '12'"),
    ("github", "comment", "id", "not-an-int", "/pulls/1/comments?per_page", "id is 'not-an-int'"),
    ("gerrit", "change", "owner", "bob", "/changes/?", "owner is 'bob', expected dict"),
    ("gerrit", "change", "revisions", [], "/changes/?", "revisions is [], expected dict"),
    ("gerrit", "comment", "author", "bob", "/changes/demo%2Fapp~1/comments", "author is 'bob'"),
    ("gerrit", "comment", "range.start_line", "5", "/changes/demo%2Fapp~1/comments", "start_line is '5'"),
])
def test_wrong_field_types_name_the_url_and_are_not_cached(server, tmp_path, source, target, dotted, value,
                                                           url_part, message):
    forge = server.forge
    obj = {("github", "pull"): forge.github_pulls[1], ("github", "comment"): forge.github_comments[1][0],
           ("gerrit", "change"): forge.gerrit_changes[1],
           ("gerrit", "comment"): forge.gerrit_comments[1]["src/Foo1.java"][0]}[source, target]
    good = copy.deepcopy(obj)
    _set(obj, dotted, value)

    def mine(out: Path) -> dict:
        if source == "github":
            return mine_github("octo/demo", out, api_url=server.github_api, clone_url=str(forge.github_repo),
                               options=opts(cache=tmp_path / "cache.sqlite"))
        return mine_gerrit(server.gerrit_url, "demo/app", out, until=UNTIL, clone_url=str(forge.gerrit_repo),
                           options=opts(cache=tmp_path / "cache.sqlite"))
    with pytest.raises(MiningFailed) as err:
        mine(tmp_path / "bad")
    assert message in str(err.value) and url_part in str(err.value)
    assert [p["failure"]["kind"] for p in err.value.failed] == ["forge_error"]
    obj.clear()
    obj.update(good)  # the forge answers correctly now: the bad answer must not be replayed from the cache
    expected = forge.expected[f"{source}_rows"]
    assert mine(tmp_path / "good")["totals"]["rows"] == expected


def _write_job(tmp_path: Path, server) -> Path:
    job = tmp_path / "job.toml"
    job.write_text(f"""
[job]
batch_size = 2
[[projects]]
source = "gerrit"
url = "{server.gerrit_url}"
project = "demo/app"
until = "{UNTIL.isoformat()}"
clone_url = "{server.forge.gerrit_repo}"
[[projects]]
source = "github"
repo = "octo/demo"
api_url = "{server.github_api}"
clone_url = "{server.forge.github_repo}"
""")
    return job


def test_crash_between_part_and_checkpoint(server, tmp_path, monkeypatch):
    job = _write_job(tmp_path, server)
    reference = run_job(job, tmp_path / "ref", opts())
    real_save, calls = jobs._Checkpoint.save, Counter()

    def crashing_save(self):
        calls["n"] += 1
        if calls["n"] == 3:  # the part of batch 3 is on disk, its checkpoint is not
            raise KeyboardInterrupt("killed")
        real_save(self)
    monkeypatch.setattr(jobs._Checkpoint, "save", crashing_save)
    with pytest.raises(KeyboardInterrupt):
        run_job(job, tmp_path / "out", opts())
    monkeypatch.setattr(jobs._Checkpoint, "save", real_save)
    resumed = run_job(job, tmp_path / "out", opts())
    got = keys(tmp_path / "out")
    assert got == keys(tmp_path / "ref") and len(set(got)) == len(got)
    assert resumed["totals"]["rows"] == reference["totals"]["rows"]
    assert drops(tmp_path / "out") == drops(tmp_path / "ref") and len(drops(tmp_path / "ref")) > 2
    assert resumed["totals"]["dropped"] == reference["totals"]["dropped"]


def test_kill_9_and_resume(server, tmp_path):
    job = _write_job(tmp_path, server)
    run_job(job, tmp_path / "ref", opts())
    expected = keys(tmp_path / "ref")
    forge = server.forge
    forge.delay["/comments"] = 0.05
    script = ("import sys; from revmine.miners import run_job, JobOptions; "
              "run_job(sys.argv[1], sys.argv[2], JobOptions(progress=False))")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = tmp_path / "out"
    killed = 0
    for kill_after in (3, 9, 14):  # kill at several points: mid-Gerrit, mid-GitHub
        start = forge.hits["gerrit_comments"] + forge.hits["github_comments"]
        proc = subprocess.Popen([sys.executable, "-c", script, str(job), str(out)], env=env)
        deadline = time.monotonic() + 20
        while proc.poll() is None and time.monotonic() < deadline:
            if forge.hits["gerrit_comments"] + forge.hits["github_comments"] - start >= kill_after:
                os.kill(proc.pid, signal.SIGKILL)
                break
            time.sleep(0.005)
        killed += proc.wait() == -signal.SIGKILL
    forge.delay.clear()
    assert killed >= 2
    final = run_job(job, out, opts())
    got = keys(out)
    assert got == expected and len(set(got)) == len(got)
    # a project a killed run finished is not asked again; the others are listed whole, their done changes skipped
    assert all(p["changes_done"] == p["changes_listed_this_run"] if p["status"] == "mined"
               else p["status"] == "finished_before" and p["changes_listed_this_run"] == 0 for p in final["projects"])
    # no drop twice, none missing, in the order of an uninterrupted run; none in the checkpoints
    assert drops(out) == drops(tmp_path / "ref") and len(drops(out)) > 2
    assert all("dropped" not in json.loads(f.read_text()) for f in (out / "state").glob("*.json"))


def test_change_deleted_after_listing_is_a_typed_drop(server, tmp_path):
    """A change that answers 404 once listed (deleted meanwhile) makes no row and one drop naming it."""
    forge = server.forge
    del forge.gerrit_comments[1]
    m = mine_gerrit(server.gerrit_url, "demo/app", tmp_path / "out", until=UNTIL, clone_url=str(forge.gerrit_repo),
                    options=opts())
    gone = [d for d in read_table(tmp_path / "out" / "dropped.parquet").to_pylist() if d["change"] == "1"]
    assert [(d["round_id"], d["path"]) for d in gone] == [(None, None)] and "HTTP 404" in gone[0]["detail"]
    assert m["projects"][0]["dropped_by_reason"]["change_gone"] == 1
    assert "1" not in {r["change"] for r in read_table(tmp_path / "out" / "rounds.parquet").to_pylist()}


def test_undecodable_answers_while_mining_are_retried(server, tmp_path):
    """A gateway's HTML page or a body cut short, on a listing and on a change, costs a retry, not the run."""
    forge = server.forge
    mine_gerrit(server.gerrit_url, "demo/app", tmp_path / "ref", until=UNTIL, clone_url=str(forge.gerrit_repo),
                options=opts(cache_mode="off"))
    forge.faults += [Fault("/changes/?", "html"), Fault("demo%2Fapp~3/comments", "truncated", times=2)]
    slept: list[float] = []
    m = mine_gerrit(server.gerrit_url, "demo/app", tmp_path / "out", until=UNTIL, clone_url=str(forge.gerrit_repo),
                    options=opts(client_options={"sleep": slept.append}))
    assert keys(tmp_path / "out") == keys(tmp_path / "ref") and drops(tmp_path / "out") == drops(tmp_path / "ref")
    assert m["projects"][0]["http"]["retries"] == 3 and len(slept) == 3
    forge.faults.append(Fault("demo%2Fapp~2/comments", "html", times=10))
    with pytest.raises(MiningFailed, match=r"demo%2Fapp~2/comments: expected JSON, got an HTML page.*"
                                           r"4 times; giving up"):
        mine_gerrit(server.gerrit_url, "demo/app", tmp_path / "bad", until=UNTIL, clone_url=str(forge.gerrit_repo),
                    options=opts(client_options={"sleep": slept.append, "max_retries": 3}))


def test_gerrit_content_endpoint_without_its_encoding_header(server, tmp_path):
    """A revision gone from git is read through Gerrit's content endpoint even when the X-FYI-Content-Encoding
    header is missing (a proxy dropped it): the round is mined, not dropped."""
    forge = server.forge
    change = forge.gerrit_changes[4]  # kind 4: patch set 2 exists neither in git nor on the forge
    ghost = next(sha for sha, rev in change["revisions"].items() if rev["_number"] == 2)
    forge.contents[(ghost, "src/Foo4.java")] = "package demo;\n\npublic class Foo4 { }\n"
    forge.faults.append(Fault("/content", "nofyi", times=100))
    m = mine_gerrit(server.gerrit_url, "demo/app", tmp_path / "out", until=UNTIL, clone_url=str(forge.gerrit_repo),
                    options=opts())
    row = next(r for r in read_table(tmp_path / "out" / "rounds.parquet").to_pylist() if r["change"] == "4")
    assert row["revision_after"] == ghost and row["content_after"] == forge.contents[(ghost, "src/Foo4.java")]
    assert row["file_status"] == "modified"
    # change 10 is of the same kind, with no content on the forge either: asked too, still dropped
    project = m["projects"][0]
    assert project["content_fallbacks"] == forge.hits["gerrit_content"] == forge.expected["gerrit_dropped"] == 2
    assert project["dropped_by_reason"]["unreachable"] == 1
    assert not any("X-FYI-Content-Encoding" in h for h in forge.sent)


def test_checkpoint_of_another_version_is_refused(server, tmp_path):
    forge = server.forge
    out = tmp_path / "out"
    mine_gerrit(server.gerrit_url, "demo/app", out, until=UNTIL, clone_url=str(forge.gerrit_repo), options=opts())
    state = next((out / "state").glob("*.json"))
    data = json.loads(state.read_text())
    state.write_text(json.dumps({**data, "version": 1, "dropped": []}))
    with pytest.raises(InputError, match=r"\.json \[version\]: checkpoint version 1 is not 2"):
        mine_gerrit(server.gerrit_url, "demo/app", out, until=UNTIL, clone_url=str(forge.gerrit_repo), options=opts())


def test_a_listing_of_no_change_is_a_warning_not_a_finish(server, tmp_path):
    """Issue 31: a Gerrit answering no changes for a window where it had changes before (or a window with none)
    was marked finished, so no later run asked again and nothing said so. Now: status empty, a warning, asked
    again by the next run."""
    forge = server.forge
    out = tmp_path / "out"
    mined = mine_gerrit(server.gerrit_url, "demo/app", out, until=UNTIL, clone_url=str(forge.gerrit_repo),
                        options=opts())
    listed = mined["projects"][0]["changes_done"]
    assert listed == len(forge.gerrit_changes) and mined["projects"][0]["warning"] is None
    state = next((out / "state").glob("*.json"))
    record = json.loads(state.read_text())
    state.write_text(json.dumps({**record, "finished": False}))  # a run stopped after its last batch
    saved, forge.gerrit_changes = forge.gerrit_changes, {}  # the forge now answers no change for the window
    try:
        again = mine_gerrit(server.gerrit_url, "demo/app", out, until=UNTIL, clone_url=str(forge.gerrit_repo),
                            options=opts(cache_mode="off"))["projects"][0]
    finally:
        forge.gerrit_changes = saved
    assert again["status"] == "empty" and again["changes_listed_this_run"] == 0
    assert f"where it listed {listed} before: not marked finished" in again["warning"]
    assert json.loads(state.read_text())["finished"] is False and manifest_holds(out)

    none = mine_gerrit(server.gerrit_url, "demo/app", tmp_path / "none", since="2001-01-01", until="2001-02-01",
                       clone_url=str(forge.gerrit_repo), options=opts())["projects"][0]
    assert none["status"] == "empty" and none["warning"].startswith("the forge listed no change for 2001-01-01")
    asked = forge.hits.copy()
    second = mine_gerrit(server.gerrit_url, "demo/app", tmp_path / "none", since="2001-01-01", until="2001-02-01",
                         clone_url=str(forge.gerrit_repo), options=opts(cache_mode="off"))["projects"][0]
    assert second["status"] == "empty" and second["http_this_run"].get("requests", 0) > 0  # asked again
    assert forge.hits != asked


def test_a_revision_read_through_the_content_endpoint_that_is_not_utf8_is_bad_encoding(server, tmp_path):
    """Issue 31: Gerrit's content endpoint (a revision gone from git) was decoded with replacement, U+FFFD into
    the rows; it is a bad_encoding drop, as a file read from git is."""
    forge = server.forge
    change = forge.gerrit_changes[4]  # kind 4: patch set 2 exists neither in git nor on the forge
    ghost = next(sha for sha, rev in change["revisions"].items() if rev["_number"] == 2)
    forge.contents[(ghost, "src/Foo4.java")] = b"package demo;\n\npublic class Foo4 { String s = \"\xe9\"; }\n"
    m = mine_gerrit(server.gerrit_url, "demo/app", tmp_path / "out", until=UNTIL, clone_url=str(forge.gerrit_repo),
                    options=opts())
    assert not [r for r in read_table(tmp_path / "out" / "rounds.parquet").to_pylist() if r["change"] == "4"]
    bad = [d for d in m["projects"][0]["dropped"] if d["change"] == "4" and d["reason"] != "last_revision"]
    at = forge.contents[(ghost, "src/Foo4.java")].index(b"\xe9")
    assert [(d["reason"], d["detail"]) for d in bad] == [
        ("bad_encoding", f"src/Foo4.java at {ghost}: invalid UTF-8 at byte {at}")]
    assert m["projects"][0]["dropped_by_reason"]["bad_encoding"] == 1


def test_a_force_pushed_commit_read_through_the_contents_api_that_is_binary_is_bad_encoding(server, tmp_path):
    """Issue 31: GitHub's contents API (a commit force-pushed away) was decoded with replacement too."""
    forge = server.forge
    ghost = ghost_sha("github-force-pushed")
    forge.contents[(ghost, "src/A1.java")] = b"\x00\x01\x02 not text"
    m = mine_github("octo/demo", tmp_path / "out", api_url=server.github_api, clone_url=str(forge.github_repo),
                    options=opts())
    rows = read_table(tmp_path / "out" / "rounds.parquet").to_pylist()
    assert len(rows) == forge.expected["github_rows"] - 1 and not [r for r in rows if r["revision_before"] == ghost]
    assert [(d["reason"], d["detail"]) for d in m["projects"][0]["dropped"] if ghost in d["detail"]] == [
        ("bad_encoding", f"src/A1.java at {ghost}: binary (a NUL byte at byte 0)")]
