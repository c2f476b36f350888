"""The GitLab miner against the look-alike GitLab (tests/gitlab_forge.py) over a real repository: rounds from
diff versions, positions, texts, drops, paging, rate limits, tokens, resume."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from datetime import timedelta
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gitlab_forge import PROJECT, PROJECT_ID, REVIEWER, TOKEN_BOT, _iso  # noqa: E402
from miners_server import T0, Fault, ForgeServer, build_forge  # noqa: E402

from revmine.errors import InputError  # noqa: E402
from revmine.io.store import read_table  # noqa: E402
from revmine.miners import JobOptions, mine_gitlab, run_job  # noqa: E402
from revmine.miners import jobs  # noqa: E402
from revmine.miners.authors import gitlab_author  # noqa: E402
from revmine.miners.gitlab import GitLabMiner  # noqa: E402
from revmine.miners.http import Client, Credentials, Limiter, credentials_from_env  # noqa: E402

N_MRS = 3
TOKEN = "glpat-Zx81nE0qTestTokenValue"


@pytest.fixture()
def server(tmp_path):
    forge = build_forge(tmp_path / "forge", n_changes=1, n_pulls=1, n_mrs=N_MRS)
    with ForgeServer(forge) as srv:
        yield srv


def opts(**kw) -> JobOptions:
    return JobOptions(progress=False, **kw)


def git_text(repo: Path, sha: str, path: str | None) -> str | None:
    """A file at a commit as git itself shows it (None: absent or no such commit)."""
    if path is None:
        return None
    proc = subprocess.run(["git", "-C", str(repo), "show", f"{sha}:{path}"], capture_output=True)
    return proc.stdout.decode() if proc.returncode == 0 else None


def mine(server, out: Path, **kw) -> dict:
    return mine_gitlab(kw.pop("project", PROJECT), out, url=server.gitlab_url,
                       clone_url=kw.pop("clone_url", str(server.forge.gitlab_repo)), options=opts(**kw))


def test_gitlab_rounds_positions_and_texts(server, tmp_path):
    forge = server.forge
    # by numeric id, without a clone URL: the project's http_url_to_repo is where git fetches from
    manifest = mine(server, tmp_path / "out", project=str(PROJECT_ID), clone_url=None)
    project = manifest["projects"][0]
    rows = read_table(tmp_path / "out" / "rounds.parquet", expect="rounds/4").to_pylist()
    assert len(rows) == forge.expected["gitlab_rows"] == project["rows"]
    by = {(int(r["change"]), r["round"], r["path_before"]): r for r in rows}
    statuses = Counter((r["path_before"].split("/")[1][:-len("1.java")], r["round"], r["file_status"]) for r in rows
                       if r["change"] == "1")
    assert statuses == {("G", 1, "modified"): 1, ("Old", 1, "renamed"): 1, ("Del", 1, "deleted"): 1,
                        ("New", 1, "unchanged"): 1, ("G", 2, "modified"): 1, ("Moved", 2, "unchanged"): 1}
    assert by[1, 1, "src/Old1.java"]["path_after"] == "src/Moved1.java"
    for k in range(1, N_MRS + 1):  # rounds are the versions, oldest first: version k's head -> version k+1's
        heads = [v["head_commit_sha"] for v in sorted(forge.gitlab_versions[k], key=lambda v: v["id"])]
        for r in (r for r in rows if r["change"] == str(k)):
            assert (r["revision_before"], r["revision_after"]) == tuple(heads[r["round"] - 1:r["round"] + 1])
            assert r["source"] == "gitlab" and r["project"] == str(PROJECT_ID) and r["owner"] == "owner"
            assert r["round_id"] == f"gitlab:{server.gitlab_url[7:].split('/')[0]}:{PROJECT_ID}:{k}:{r['round']}"
    # every round's texts are the history's: what git shows, or what the files API serves for a lost version
    for r in rows:
        before = forge.contents.get((r["revision_before"], r["path_before"])) or \
            git_text(forge.gitlab_repo, r["revision_before"], r["path_before"])
        assert r["content_before"] == before is not None
        assert r["content_after"] == git_text(forge.gitlab_repo, r["revision_after"], r["path_after"])
        base = forge.gitlab_versions[int(r["change"])][-1]["base_commit_sha"]
        lost = (r["revision_before"], r["path_before"]) in forge.contents
        assert r["content_base"] == (None if lost else git_text(forge.gitlab_repo, base, r["path_before"]))
    assert project["content_fallbacks"] == 1 and by[2, 1, "src/G2.java"]["content_before"] is not None
    # positions: the hand-built notes of tests/gitlab_forge.py, read back
    notes = {c["id"]: c for c in by[1, 1, "src/G1.java"]["comments"]}
    assert set(notes) == {"100", "101", "102", "104", "105"}  # no system, image or non-diff note
    assert (notes["100"]["side"], notes["100"]["line"], notes["100"]["start_line"], notes["100"]["end_line"]) == \
        ("RIGHT", 8, 6, 8)  # an added-line range
    assert (notes["102"]["side"], notes["102"]["line"]) == ("LEFT", 7)  # a deleted line, in the base
    assert (notes["104"]["side"], notes["104"]["start_line"], notes["104"]["end_line"]) == ("RIGHT", 6, 9)  # mixed
    assert (notes["105"]["side"], notes["105"]["line"]) == ("RIGHT", 5)  # an unchanged line
    assert notes["101"]["is_owner"] and notes["101"]["in_reply_to"] == "100" and not notes["100"]["is_owner"]
    assert [notes[i]["unresolved"] for i in ("100", "101", "102", "105")] == [False, False, True, None]
    assert all(c["outdated"] for c in notes.values()) and notes["100"]["author"] == REVIEWER["username"]
    bot = by[1, 1, "src/New1.java"]["comments"][0]
    assert (bot["author"], bot["author_kind"], bot["author_evidence"]) == \
        (TOKEN_BOT["username"], "bot", "bot=true;username=project_bot")
    assert not [r for r in rows if r["path_before"].startswith("src/New") and r["round"] == 2]  # the owner's alone
    dropped = read_table(tmp_path / "out" / "dropped.parquet", expect="mine_dropped/2").to_pylist()
    kinds = {"unknown_revision": "is not among the merge request's versions", "last_revision": "is the last one"}
    assert sorted((kind, d["change"], d["path"]) for d in dropped for kind, text in kinds.items()
                  if text in d["detail"] and d["reason"] == kind) == sorted(forge.expected["gitlab_dropped"])
    assert len(dropped) == len(forge.expected["gitlab_dropped"])
    # requests: the discussions and the versions per merge request, one listing page, the fallback, the project
    assert project["http"]["requests"] == 2 * N_MRS + 1 + 1 + 1


def test_replay_offline_and_resume_after_a_crash(server, tmp_path, monkeypatch):
    forge = server.forge
    mine(server, tmp_path / "ref", batch_size=1)
    reference = read_table(tmp_path / "ref" / "rounds.parquet").to_pylist()
    real_save, calls = jobs._Checkpoint.save, Counter()

    def crashing_save(self):
        calls["n"] += 1
        if calls["n"] == 2:  # the part of the second merge request is on disk, its checkpoint is not
            raise KeyboardInterrupt("killed")
        real_save(self)
    monkeypatch.setattr(jobs._Checkpoint, "save", crashing_save)
    with pytest.raises(KeyboardInterrupt):
        mine(server, tmp_path / "out", batch_size=1)
    monkeypatch.setattr(jobs._Checkpoint, "save", real_save)
    before = Counter(forge.hits)
    resumed = mine(server, tmp_path / "out", batch_size=1)
    rows = read_table(tmp_path / "out" / "rounds.parquet").to_pylist()
    assert sorted((r["round_id"], r["path_before"]) for r in rows) == \
        sorted((r["round_id"], r["path_before"]) for r in reference)
    assert resumed["projects"][0]["changes_skipped_resume"] == 1  # the first merge request was not mined again
    # the merge request mined before the crash is answered by the cache; the one it never reached is asked
    assert forge.hits["gitlab_discussions"] - before["gitlab_discussions"] == 1
    offline = mine(server, tmp_path / "replay", cache=tmp_path / "ref" / "http_cache.sqlite",
                   repos=tmp_path / "ref" / "repos", cache_mode="offline")
    assert offline["projects"][0]["http_this_run"].get("requests", 0) == 0
    assert read_table(tmp_path / "replay" / "rounds.parquet").to_pylist() == reference


def test_listing_pages_by_time_and_offsets_within_a_millisecond(server, tmp_path):
    forge = server.forge
    for iid in range(4, 9):  # five more merge requests, four updated in one millisecond
        forge.gitlab_mrs[iid] = {**forge.gitlab_mrs[1], "iid": iid, "id": 5000 + iid,
                                 "updated_at": _iso(T0 + timedelta(days=2 if iid < 8 else 1))}
    forge.gitlab_mrs[9] = {**forge.gitlab_mrs[1], "iid": 9, "id": 5009, "updated_at": _iso(T0 - timedelta(days=9))}
    client = Client("gitlab", cache_mode="off")
    miner = GitLabMiner(client, server.gitlab_url, PROJECT, T0 - timedelta(days=1), T0 + timedelta(days=3),
                        page_size=2)
    listed = [mr["iid"] for mr in miner.list_changes()]
    client.close()
    assert sorted(listed) == [1, 2, 3, 4, 5, 6, 7, 8] and len(set(listed)) == len(listed)  # 9 is before since
    assert listed[:4] == [7, 6, 5, 4] and listed[4] == 8  # newest first


@pytest.mark.parametrize("link", [True, False])
def test_pages_follow_link_or_x_next_page(server, tmp_path, link):
    server.forge.gitlab_no_link = not link
    client = Client("gitlab", cache_mode="off")
    url = f"{server.gitlab_url}/api/v4/projects/demo%2Fgl/merge_requests/1/discussions"
    pages = [page for page, _ in client.get_pages(url, {"per_page": 3})]
    client.close()
    assert [len(p) for p in pages] == [3, 3, 3, 3, 3] and \
        [d["id"] for p in pages for d in p] == [d["id"] for d in server.forge.gitlab_discussions[1]]


@pytest.mark.parametrize("kind", ["429-gitlab", "429-gitlab-reset"])
def test_rate_limits_wait_as_gitlab_says(server, tmp_path, kind):
    """A 429 with ``Retry-After`` waits that long; without it, until ``RateLimit-Reset`` (plus a second)."""
    server.forge.faults.append(Fault("/versions", kind, times=1, value=30))
    slept = []
    manifest = mine(server, tmp_path / "out", client_options={"sleep": slept.append})
    project = manifest["projects"][0]
    assert project["rows"] == server.forge.expected["gitlab_rows"] and project["http"]["rate_limit_waits"] == 1
    assert 28 <= slept[0] <= 32


def test_a_tokens_quota_is_read_from_gitlabs_headers(server):
    """``RateLimit-Remaining``/``Reset`` set the token's budget, which the job's threads share (no overspending)."""
    client = Client("gitlab", Credentials(tokens=[TOKEN], token_header="PRIVATE-TOKEN"), cache_mode="off")
    _, response = client.get(f"{server.gitlab_url}/api/v4/projects/{PROJECT_ID}", expect=dict)
    budget = client.limiter._budgets[Limiter.token_id(TOKEN)]
    client.close()
    assert (budget.remaining, budget.reset) == (int(response.headers["RateLimit-Remaining"]),
                                                float(response.headers["RateLimit-Reset"]))
    assert server.forge.log[-1][1]["PRIVATE-TOKEN"] == TOKEN


@pytest.mark.parametrize("env,header,value", [
    ({"GITLAB_TOKEN": TOKEN}, "PRIVATE-TOKEN", TOKEN),
    ({"GITLAB_OAUTH_TOKEN": TOKEN}, "Authorization", f"Bearer {TOKEN}"),
])
def test_tokens_are_sent_as_gitlab_wants_and_never_stored(server, tmp_path, env, header, value):
    forge = server.forge
    forge.gitlab_auth_required = True
    credentials = credentials_from_env("gitlab", env=env)
    manifest = mine(server, tmp_path / "out", credentials={"gitlab": credentials})
    assert manifest["projects"][0]["rows"] == forge.expected["gitlab_rows"]
    assert all(headers.get(header) == value for path, headers in forge.log if path.startswith("/gitlab/"))
    for path in tmp_path.joinpath("out").rglob("*"):  # cache, parts, checkpoint, manifest, clone
        if path.is_file():
            assert TOKEN.encode() not in path.read_bytes(), path
    # anonymous reads of a private project: the project fails, typed
    with pytest.raises(Exception, match="bad_credentials"):
        mine(server, tmp_path / "anonymous", ambient_credentials=False)


def test_credentials_file_and_job_file(tmp_path):
    creds = tmp_path / "creds.toml"
    creds.write_text(f'[gitlab]\ntokens = ["{TOKEN}"]\n[gitlab."gitlab.gnome.org"]\ntoken = "{TOKEN}x"\noauth = true\n')
    creds.chmod(0o600)  # a credentials file others can read is refused
    env = {"REVMINE_CREDENTIALS": str(creds)}
    assert credentials_from_env("gitlab", "gitlab.com", env=env).token_header == "PRIVATE-TOKEN"
    gnome = credentials_from_env("gitlab", "gitlab.gnome.org", env=env)
    assert gnome.tokens == [f"{TOKEN}x"] and gnome.token_header is None and TOKEN not in repr(gnome)
    job = tmp_path / "job.toml"
    job.write_text('[job]\nout = "o"\n[[projects]]\nsource = "gitlab"\nproject = "gnome/gtk"\n'
                   'url = "https://gitlab.gnome.org/"\n[[projects]]\nsource = "gitlab"\nproject = 278964\n')
    specs, _ = jobs.load_job(job)
    assert [(s.source, s.project, s.url, s.host) for s in specs] == [
        ("gitlab", "gnome/gtk", "https://gitlab.gnome.org", "gitlab.gnome.org"),
        ("gitlab", "278964", "https://gitlab.com", "gitlab.com")]
    job.write_text('[[projects]]\nsource = "gitlab"\nurl = "https://gitlab.com"\n')
    with pytest.raises(InputError, match=r"projects\[0\]\.project"):
        jobs.load_job(job)


@pytest.mark.parametrize("user,kind,evidence", [
    ({"username": "alice"}, "human", None),
    ({"username": "group_77_bot_9e1d0c"}, "bot", "username=group_bot"),  # a group access token, no bot field
    ({"username": "project_12_bot", "bot": True}, "bot", "bot=true;username=project_bot"),  # before GitLab 16
    ({"username": "project_manager"}, "human", None),
    (None, "human", None),
])
def test_gitlab_author_kinds(user, kind, evidence):
    assert gitlab_author(user, {}) == (kind, evidence)


def test_job_mixing_forges_runs_them_all(server, tmp_path):
    """One job over Gerrit, GitHub and GitLab: one schema, one manifest."""
    job = tmp_path / "job.toml"
    forge = server.forge
    job.write_text(f"""[job]
out = "out"
[[projects]]
source = "gerrit"
url = "{server.gerrit_url}"
project = "demo/app"
until = "{(T0 + timedelta(days=30)).date()}"
clone_url = "{forge.gerrit_repo}"
[[projects]]
source = "github"
repo = "octo/demo"
api_url = "{server.github_api}"
clone_url = "{forge.github_repo}"
[[projects]]
source = "gitlab"
project = "{PROJECT}"
url = "{server.gitlab_url}"
clone_url = "{forge.gitlab_repo}"
""")
    manifest = run_job(job, options=opts())
    rows = read_table(tmp_path / "out" / "rounds.parquet", expect="rounds/4").to_pylist()
    assert Counter(r["source"] for r in rows) == {"gerrit": forge.expected["gerrit_rows"],
                                                  "github": forge.expected["github_rows"],
                                                  "gitlab": forge.expected["gitlab_rows"]}
    assert [p["status"] for p in manifest["projects"]] == ["mined"] * 3


@pytest.mark.parametrize("match,kind", [("/discussions", "500"), ("/versions", "truncated"),
                                        ("/merge_requests?", "html"), ("/discussions", "reset")])
def test_faults_are_retried_and_the_rows_are_whole(server, tmp_path, match, kind):
    server.forge.faults.append(Fault(match, kind, times=2))
    manifest = mine(server, tmp_path / "out", client_options={"sleep": lambda s: None})
    project = manifest["projects"][0]
    assert project["status"] == "mined" and project["rows"] == server.forge.expected["gitlab_rows"]
    assert project["http"]["retries"] == 2


def test_command_line_mines_a_gitlab_project(server, tmp_path):
    from revmine.cli import main

    out = tmp_path / "out"
    assert main(["mine", "gitlab", "-q", "--url", server.gitlab_url, "--project", PROJECT, "--clone-url",
                 str(server.forge.gitlab_repo), "--out", str(out)]) == 0
    assert len(read_table(out / "rounds.parquet").to_pylist()) == server.forge.expected["gitlab_rows"]
