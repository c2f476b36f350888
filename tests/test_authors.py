"""Who wrote each comment (issue 25, part 1): the miners record human / bot / AI reviewer with the evidence, the
filter stage drops bots' and AI reviewers' triplets with their reason and counts them per project.

The look-alike GitHub forge serves review comments whose ``user`` objects are GitHub's recorded shape
(``login``, ``id``, ``type``...); the accounts and what each is (the expected kinds) are this file's own table,
never read back from the code under test. The real Gerrit's service user is in ``test_real_gerrit_authors.py``.
"""

from __future__ import annotations

import copy
import sys
from collections import Counter
from datetime import timedelta
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from miners_server import T0, ForgeServer, _gerrit_time, build_forge, github_comment  # noqa: E402

from revmine.errors import InputError  # noqa: E402
from revmine.filters.authors import TemplateThresholds, mask, template_accounts  # noqa: E402
from revmine.filters.stage import FilterOptions, filter_candidates  # noqa: E402
from revmine.io.filter_report import AUTHORS_KEY  # noqa: E402
from revmine.io.store import read_table  # noqa: E402
from revmine.miners import JobOptions, mine_gerrit, mine_github  # noqa: E402
from revmine.miners.authors import KNOWN_ACCOUNTS, gerrit_author, github_author, read_known_accounts  # noqa: E402
from revmine.preprocess.candidates import preprocess  # noqa: E402
from revmine.schema import ROUNDS_SCHEMA  # noqa: E402

UNTIL = T0 + timedelta(days=30)
N_PULLS = 8

#: login -> (GitHub user type, what the account is): the test's own ground truth
ACCOUNTS = {
    "reviewer": ("User", "human"),
    "bob": ("User", "human"),  # writes stock replies on every pull request
    "dependabot[bot]": ("Bot", "bot"),
    "sonarcloud[bot]": ("Bot", "bot"),
    "ci-lint": ("User", "bot"),  # an ordinary account posting one template on every pull request
    "coderabbitai[bot]": ("Bot", "ai_reviewer"),
    "gemini-code-assist[bot]": ("Bot", "ai_reviewer"),
    "copilot-pull-request-reviewer[bot]": ("Bot", "ai_reviewer"),
    "Copilot": ("Bot", "ai_reviewer"),
}
STOCK = ["Done", "LGTM", "nit: typo", "Please add a test", "Thanks!"]


def body(login: str, k: int) -> str:
    if login == "bob":
        return STOCK[k % len(STOCK)]
    if login == "ci-lint":
        return (f"Checkstyle: src/A{k}.java:{5 + k} line is longer than 100 characters (found {100 + k}). "
                f"Build https://ci.example.org/job/{4000 + k} at {k:x}f3e9a1c2b")
    if login == "reviewer":  # a person: a remark of its own on each pull request
        return ["Rename x1 to something that says what it holds", "This loop can end early once found is set",
                "Why not reuse the parser from the other module?", "The temporary is never read: inline it",
                "Guard against an empty list before indexing", "Move this constant next to the others",
                "Could this overflow when the count is large?", "Prefer a switch here, the chain is long"][k - 1]
    return f"{login} suggests: consider extracting x{k % 6} into a constant (pull request {k})"


def user(template: dict, login: str, uid: int) -> dict:
    kind, _ = ACCOUNTS[login]
    return {**template, "login": login, "id": uid, "node_id": f"U_{uid}", "type": kind,
            "url": f"https://api.github.com/users/{login}", "html_url": f"https://github.com/{login}"}


@pytest.fixture(scope="module")
def github_run(tmp_path_factory):
    """Mine, preprocess and filter the look-alike GitHub repository: every account comments on line 5 of
    ``src/A{k}.java`` at the first commit of every pull request (the method changes in the next commit)."""
    root = tmp_path_factory.mktemp("authors")
    forge = build_forge(root / "forge", n_changes=1, n_pulls=N_PULLS)
    posted = {}
    for k in range(1, N_PULLS + 1):
        c1, _, c3 = (c["sha"] for c in forge.github_commits[k])
        items = []
        for j, login in enumerate(ACCOUNTS):
            cid = k * 100 + j + 1
            c = github_comment(cid, c1, f"src/A{k}.java", login, 5, T0 + timedelta(hours=k), c3, body=body(login, k))
            c["user"] = user(c["user"], login, 50_000 + j)
            items.append(c)
            posted[str(cid)] = login
        forge.github_comments[k] = items
    with ForgeServer(forge) as srv:
        mine_github("octo/demo", root / "mined", api_url=srv.github_api, clone_url=str(forge.github_repo),
                    options=JobOptions(progress=False))
    preprocess(root / "mined" / "rounds.parquet", root / "pre")
    runs = {mode: filter_candidates(root / "pre" / "candidates.parquet", root / f"filtered-{mode}",
                                    FilterOptions(ai_reviewers=mode)) for mode in ("drop", "keep", "separate")}
    return root, posted, runs


def test_every_row_of_the_shipped_list_reads_with_its_source_and_date():
    accounts = read_known_accounts()
    assert len(accounts) >= 6
    for (forge, login), entry in accounts.items():
        assert forge in ("github", "gerrit") and entry.kind in ("bot", "ai_reviewer")
        assert entry.source.startswith("https://") and str(entry.checked) <= "2026-11-29"
    for login in ("coderabbitai[bot]", "copilot-pull-request-reviewer[bot]", "gemini-code-assist[bot]",
                  "sourcery-ai[bot]", "greptile-apps[bot]", "qodo-merge-pro[bot]", "korbit-ai[bot]",
                  "codeant-ai[bot]", "devin-ai-integration[bot]"):
        assert accounts[("github", login)].kind == "ai_reviewer"
    # user accounts (no [bot], type User) that post CI output: only the list names them
    for login in ("coveralls", "codecov-commenter", "k8s-ci-robot", "gopherbot"):
        assert accounts[("github", login)].kind == "bot"
    for login in ("zuul", "jenkins-bot", "jenkins", "qt sanity bot", "go bot", "gobot@golang.org"):
        assert accounts[("gerrit", login)].kind == "bot"


@pytest.mark.parametrize("row, field", [
    ("x[bot],github,robot,X,https://x.example,2026-11-28", "kind"),
    ("x[bot],gitea,bot,X,https://x.example,2026-11-28", "forge"),
    ("x[bot],github,bot,X,not a url,2026-11-28", "source"),
    ("x[bot],github,bot,X,https://x.example,28/11/2026", "checked"),
    (",github,bot,X,https://x.example,2026-11-28", "login"),
])
def test_a_bad_row_of_a_list_names_file_row_and_field(tmp_path, row, field):
    path = tmp_path / "bots.csv"
    path.write_text(KNOWN_ACCOUNTS.read_text(encoding="utf-8").splitlines()[0] + "\n" + row + "\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        read_known_accounts(path)
    assert str(caught.value).startswith(f"{path}:2 [{field}]")


def test_github_user_objects():
    assert github_author({"login": "octocat", "type": "User"}) == ("human", None)
    assert github_author({"login": "some-ci-app[bot]", "type": "Bot"}) == ("bot", "type=Bot;login=[bot]")
    assert github_author({"login": "dependabot[bot]", "type": "Bot"}) == \
        ("bot", "type=Bot;login=[bot];list=bot:Dependabot")
    assert github_author({"login": "renamed-app", "type": "Bot"}) == ("bot", "type=Bot")
    kind, evidence = github_author({"login": "coderabbitai[bot]", "type": "Bot"})
    assert kind == "ai_reviewer" and evidence.startswith("type=Bot;login=[bot];list=ai_reviewer:")
    assert github_author({"login": "Copilot", "type": "Bot"})[0] == "ai_reviewer"
    assert github_author(None) == ("human", None)  # a deleted account


def test_user_accounts_that_post_ci_output_are_bots_only_by_the_list():
    """Coveralls, Codecov's commenter, Prow and gopherbot comment from ordinary user accounts (``type: "User"``, no
    ``[bot]``, as their pull-request pages show them): the list is the only sign; a look-alike login is a person."""
    for login in ("coveralls", "codecov-commenter", "k8s-ci-robot", "gopherbot"):
        kind, evidence = github_author({"login": login, "type": "User"})
        assert kind == "bot" and evidence.startswith("list=bot:"), login
    assert github_author({"login": "Coveralls", "type": "User"})[0] == "bot"  # logins are case-insensitive
    for login in ("coveralls-fan", "my-k8s-ci-robot", "gopherbotanist"):
        assert github_author({"login": login, "type": "User"}) == ("human", None), login


def test_gerrit_account_infos():
    assert gerrit_author({"_account_id": 1, "username": "alice", "name": "Alice"}) == ("human", None)
    assert gerrit_author({"_account_id": 2, "username": "ci", "tags": ["SERVICE_USER"]}) == ("bot", "tags=SERVICE_USER")
    # CI accounts of public instances, as their AccountInfos were recorded (LibreOffice, Qt, Go): the list names them
    # by full name, e-mail or username; Go's also carries the Service Users tag
    jenkins = {"_account_id": 1000855, "name": "Jenkins", "username": "ci"}
    sanity = {"name": "Qt Sanity Bot", "email": "qt_sanitybot@qt-project.org", "username": "qt_sanity_bot"}
    go_bot = {"_account_id": 5976, "name": "Go Bot", "email": "gobot@golang.org", "tags": ["SERVICE_USER"]}
    for account in (jenkins, sanity, {"_account_id": 9, "name": "Qt Sanity Bot"}, {"username": "jenkins-bot"}):
        kind, evidence = gerrit_author(account)
        assert kind == "bot" and evidence.startswith("list=bot:"), account
    kind, evidence = gerrit_author(go_bot)
    assert kind == "bot" and evidence.startswith("tags=SERVICE_USER;list=bot:")
    # people whose names merely contain a CI account's name are people
    for person in ({"name": "Sam Jenkins", "username": "sjenkins", "email": "sam.jenkins@example.org"},
                   {"name": "Zuul Developer", "username": "zuuldev"},
                   {"name": "Go Botha", "email": "gb@example.org"}):
        assert gerrit_author(person) == ("human", None), person


def test_masking_keeps_the_words_and_hides_what_varies():
    assert mask("See https://x.org/a/1 at 3f9e2a7c1 in src/Foo.java line 12") == \
        "see <url> at <hash> in <path> line <num>"


def test_the_template_check_catches_a_template_account_and_spares_stock_replies():
    template = "Checkstyle: {path}:{n} line is longer than 100 characters (found {m}). See https://ci.example/{n}"
    comments = [("p", "ci", str(k), f"ci{k}", template.format(path=f"src/F{k}.java", n=k, m=100 + k)) for k in range(6)]
    comments += [("p", "bob", str(k), f"bob{k}", STOCK[k % len(STOCK)]) for k in range(40)]  # short stock replies
    comments += [("p", "carol", str(k), f"carol{k}", "Please add a unit test that covers the empty input case here")
                 for k in range(5)]  # one long remark pasted on five changes...
    words = ["limit", "cache", "parser", "buffer", "timeout", "retry", "index", "lock", "queue", "schema"]
    comments += [("p", "carol", str(k), f"carol-other{k}", f"Why does the {words[k % 10]} need the {words[(k + 3) % 10]}"
                  f" here, rather than {words[(k * 7 + 1) % 10]} or {words[(k + 5) % 10]} as {words[(k * 3) % 10]} does?")
                 for k in range(20)]  # ...among many remarks of her own
    found = template_accounts(comments)
    assert set(found) == {("p", "ci")}
    assert found[("p", "ci")].startswith("template: 6 of its 6 comments")
    # below the change threshold, a template is not one yet
    assert template_accounts(comments[:4]) == {}
    # and thresholds are checked
    with pytest.raises(InputError, match="min_share"):
        TemplateThresholds(min_share=0)


def test_comments_carry_the_kind_the_forge_shows(github_run):
    root, posted, _ = github_run
    rows = read_table(root / "mined" / "rounds.parquet", expect="rounds/4").to_pylist()
    seen = {c["id"]: c for r in rows for c in r["comments"]}
    assert set(seen) == set(posted)
    for cid, login in posted.items():
        github_type, what = ACCOUNTS[login]
        expected = {"Bot": "bot", "User": "human"}[github_type] if what != "ai_reviewer" else "ai_reviewer"
        assert seen[cid]["author_kind"] == expected, (login, seen[cid]["author_evidence"])
        if github_type == "Bot":
            assert "type=Bot" in seen[cid]["author_evidence"]


def test_the_filter_drops_bots_and_ai_reviewers_and_no_human(github_run):
    root, posted, runs = github_run
    candidates = read_table(root / "pre" / "candidates.parquet").to_pylist()
    triplets = [r for r in candidates if r["kind"] == "triplet"]
    assert {r["comment_id"] for r in triplets} == set(posted)  # every comment is linked to run()
    dropped = {r["comment_id"]: r for r in read_table(root / "filtered-drop" / "dropped.parquet").to_pylist()
               if r["kind"] == "triplet"}
    machine = [cid for cid, login in posted.items() if ACCOUNTS[login][1] != "human"]
    human = [cid for cid, login in posted.items() if ACCOUNTS[login][1] == "human"]
    caught = [cid for cid in machine if dropped.get(cid, {}).get("reason") == ACCOUNTS[posted[cid]][1]]
    assert len(caught) / len(machine) >= 0.99, sorted(set(machine) - set(caught))
    assert not [cid for cid in human if dropped.get(cid, {}).get("reason") in ("bot", "ai_reviewer")]
    template = next(r for cid, r in dropped.items() if posted[cid] == "ci-lint")
    assert template["reason"] == "bot" and "template:" in template["detail"]
    # counted per project in the report (its metadata, its Markdown) and the stage's result
    report = pq.read_schema(root / "filtered-drop" / "filter_report.parquet").metadata
    import json
    authors = {a["author_kind"]: a for a in json.loads(report[AUTHORS_KEY.encode()])}
    assert authors["ai_reviewer"]["comments"] == 4 * N_PULLS and authors["ai_reviewer"]["dropped"] == 4 * N_PULLS
    assert authors["bot"]["comments"] == 3 * N_PULLS and authors["bot"]["dropped"] == 3 * N_PULLS
    assert authors["human"]["comments"] == 2 * N_PULLS and authors["human"]["dropped"] == 0
    markdown = (root / "filtered-drop" / "filter_report.md").read_text(encoding="utf-8")
    assert "## Who commented" in markdown and "| github | octo/demo |" in markdown
    # the accounts only the template check found (the forge's bots here post templates too, but are named)
    assert [t["author"] for t in runs["drop"]["template_accounts"]] == ["ci-lint"] and "`ci-lint`" in markdown
    assert runs["drop"]["removed_by_filter"]["triplet"]["ai_reviewer"] == 4 * N_PULLS
    # the card nests the report as the export reads it (read_table keeps the metadata)
    from revmine.io.filter_report import report_markdown
    from revmine.schema import FILTER_REPORT_SCHEMA
    card_part = report_markdown(read_table(root / "filtered-drop" / "filter_report.parquet",
                                           expect=FILTER_REPORT_SCHEMA), level=2)
    assert "### Who commented" in card_part
    assert "| github | octo/demo | 16; 16 | 24; 24 | 32; 32 | 56 |" in card_part  # human, bot, ai_reviewer, dropped


def test_ai_reviewers_kept_or_separated(github_run):
    root, posted, runs = github_run
    ai = {cid for cid, login in posted.items() if ACCOUNTS[login][1] == "ai_reviewer"}
    kept_dropped = read_table(root / "filtered-keep" / "dropped.parquet").to_pylist()
    assert not [r for r in kept_dropped if r["reason"] == "ai_reviewer"]
    separate = read_table(root / "filtered-separate" / "ai_reviewers" / "candidates.parquet",
                          expect="candidates/5").to_pylist()
    assert {r["comment_id"] for r in separate} == ai
    # a dataset of their own: the separated file goes through the filter stage like any candidates file
    summary = filter_candidates(root / "filtered-separate" / "ai_reviewers" / "candidates.parquet",
                                root / "ai-filtered", FilterOptions(ai_reviewers="keep"))
    assert summary["candidates"] == len(ai)
    assert "ai_reviewers_path" not in runs["drop"] and "ai_reviewers_path" in runs["separate"]


def test_the_tufano2021_profile_runs_no_author_filter(github_run):
    root, _, _ = github_run
    summary = filter_candidates(root / "pre" / "candidates.parquet", root / "f2021", FilterOptions(profile="tufano2021"))
    assert "bot" not in summary["removed_by_filter"].get("triplet", {})
    report = read_table(root / "f2021" / "filter_report.parquet").to_pylist()
    assert {r["ran"] for r in report if r["filter"] in ("bot", "ai_reviewer")} == {False}


def test_rounds_of_the_previous_version_read_with_no_kind(tmp_path):
    comment = {"id": "c1", "author": "a", "is_owner": False, "path": "A.java", "side": "RIGHT", "line": 1,
               "start_line": 1, "end_line": 1, "start_character": None, "end_character": None, "message": "m",
               "in_reply_to": None, "created": None, "unresolved": None, "outdated": False}
    old_comment = pa.struct([f for f in ROUNDS_SCHEMA.field("comments").type.value_type
                             if f.name not in ("author_kind", "author_evidence")])
    fields = [pa.field("comments", pa.list_(old_comment)) if f.name == "comments" else f for f in ROUNDS_SCHEMA]
    old = pa.schema(fields, metadata={b"revmine.schema": b"rounds/2"})
    row = {f.name: None for f in ROUNDS_SCHEMA}
    row.update(round_id="r", source="github", host="h", project="p", change="1", round=1, comments=[comment])
    pq.write_table(pa.Table.from_pylist([row], schema=old), tmp_path / "rounds.parquet")
    table = read_table(tmp_path / "rounds.parquet", expect=ROUNDS_SCHEMA)
    got = table.column("comments").to_pylist()[0][0]
    assert got["author_kind"] is None and got["author_evidence"] is None and got["message"] == "m"


def test_a_bad_kind_in_candidates_names_row_and_field(github_run, tmp_path):
    root, _, _ = github_run
    table = read_table(root / "pre" / "candidates.parquet")
    kinds = table.column("comment_author_kind").to_pylist()
    kinds[2] = "robot"
    table = table.set_column(table.schema.get_field_index("comment_author_kind"), "comment_author_kind",
                             pa.array(kinds, pa.string()))
    pq.write_table(table, tmp_path / "candidates.parquet")
    with pytest.raises(InputError, match=r"candidates.parquet:3 \[comment_author_kind\]"):
        filter_candidates(tmp_path / "candidates.parquet", tmp_path / "out")


def test_gerrit_service_user_and_robot_comments_on_the_look_alike(tmp_path):
    """The look-alike Gerrit: a service user's comment (AccountInfo ``tags``), a robot comment (``/robotcomments``,
    mined when asked) and a comment by a CI account the shipped list names (Qt's sanity bot, its AccountInfo as
    Qt's Gerrit sent it: no tag) are a bot's; the humans' stay human, a "Jenkins" in a person's name included."""
    forge = build_forge(tmp_path / "forge", n_changes=1, n_pulls=1)
    comments = forge.gerrit_comments[1]["src/Foo1.java"]
    service = {"_account_id": 3000, "name": "CI", "username": "ci-bot", "email": "ci@example.org",
               "tags": ["SERVICE_USER"]}
    comments.append({**copy.deepcopy(comments[0]), "id": "svc1", "message": "Build failed", "author": service})
    sanity = {"_account_id": 1000049, "name": "Qt Sanity Bot", "email": "qt_sanitybot@qt-project.org",
              "username": "qt_sanity_bot"}
    comments.append({**copy.deepcopy(comments[0]), "id": "qt1", "author": sanity,
                     "message": "Apparently pushing a Work In Progress"})
    person = {"_account_id": 3200, "name": "Sam Jenkins", "username": "sjenkins", "email": "sam@example.org"}
    comments.append({**copy.deepcopy(comments[0]), "id": "sam1", "author": person,
                     "message": "Rename this helper, it does more than parse"})
    forge.gerrit_robot_comments[1] = {"src/Foo1.java": [{
        **copy.deepcopy(comments[0]), "id": "rob1", "message": "Unused variable", "robot_id": "checkstyle",
        "robot_run_id": "run-1", "author": {"_account_id": 2000, "username": "reviewer"},
        "updated": _gerrit_time(T0)}]}
    with ForgeServer(forge) as srv:
        mine_gerrit(srv.gerrit_url, "demo/app", tmp_path / "out", until=UNTIL, clone_url=str(forge.gerrit_repo),
                    options=JobOptions(progress=False, robot_comments=True))
        mine_gerrit(srv.gerrit_url, "demo/app", tmp_path / "plain", until=UNTIL, clone_url=str(forge.gerrit_repo),
                    options=JobOptions(progress=False))
    rows = read_table(tmp_path / "out" / "rounds.parquet", expect="rounds/4").to_pylist()
    kinds = {c["id"]: (c["author_kind"], c["author_evidence"]) for r in rows for c in r["comments"]}
    assert kinds["svc1"] == ("bot", "tags=SERVICE_USER")
    assert kinds["rob1"] == ("bot", "robot_comment:checkstyle")
    assert kinds["qt1"][0] == "bot" and kinds["qt1"][1].startswith("list=bot:Qt Sanity Bot")
    assert kinds["c1a"][0] == "human" and kinds["sam1"] == ("human", None)
    plain = read_table(tmp_path / "plain" / "rounds.parquet").to_pylist()
    assert "rob1" not in {c["id"] for r in plain for c in r["comments"]}  # not asked: not mined
    preprocess(tmp_path / "out" / "rounds.parquet", tmp_path / "pre")
    filter_candidates(tmp_path / "pre" / "candidates.parquet", tmp_path / "filtered")
    fate = {r["comment_id"]: r["reason"] for r in read_table(tmp_path / "filtered" / "dropped.parquet").to_pylist()
            if r["kind"] == "triplet"}
    assert fate["svc1"] == "bot" and fate["rob1"] == "bot" and fate["qt1"] == "bot"
    assert fate.get("c1a") not in ("bot", "ai_reviewer") and fate.get("sam1") not in ("bot", "ai_reviewer")
    assert Counter(fate.values())["bot"] == 3


def test_the_run_report_shows_who_commented(github_run, tmp_path):
    """The run report's "Who commented": the comments mined per kind and the triplets dropped, per project."""
    import json
    import shutil

    from revmine.report.run import run_report_data, write_run_report

    root, posted, _ = github_run
    out = tmp_path / "run"
    shutil.copytree(root / "mined", out / "mined")
    shutil.copytree(root / "filtered-drop", out / "filtered")
    (out / "run.json").write_text(json.dumps({}), encoding="utf-8")
    rows = {a["author_kind"]: a for a in run_report_data(out)["authors"]["rows"]}
    posted_by_kind = Counter(ACCOUNTS[login][1] for login in posted.values())
    assert {kind: a["mined"] for kind, a in rows.items()} == dict(posted_by_kind)
    assert {kind: a["dropped"] for kind, a in rows.items()} == {"human": 0, "bot": posted_by_kind["bot"],
                                                                "ai_reviewer": posted_by_kind["ai_reviewer"]}
    page = write_run_report(out).read_text(encoding="utf-8")
    assert 'id="authors"' in page and 'data-kind="ai_reviewer"' in page


def test_hunk_rows_take_no_bot_or_ai_reviewer_comment(github_run, tmp_path):
    """CodeReviewer's hunk rows have no filter stage: the preprocess drops bots' and AI reviewers' comments there,
    with the reason and the evidence, as it drops the owner's."""
    root, posted, _ = github_run
    preprocess(root / "mined" / "rounds.parquet", tmp_path / "pre", levels=("method", "hunk"))
    hunks = read_table(tmp_path / "pre" / "hunks.parquet").to_pylist()
    on_hunks = {r["comment_id"] for r in hunks if r["y"] == 1}
    forge_marked = {cid for cid, login in posted.items() if ACCOUNTS[login][0] == "Bot"}
    assert on_hunks and not on_hunks & forge_marked
    dropped = {r["comment_id"]: r for r in read_table(tmp_path / "pre" / "dropped.parquet").to_pylist()
               if r["kind"] == "hunk_comment"}
    for cid in forge_marked:
        want = "ai_reviewer" if ACCOUNTS[posted[cid]][1] == "ai_reviewer" else "bot"  # as the filters name them
        assert dropped[cid]["reason"] == want and "type=Bot" in dropped[cid]["detail"]


def test_the_published_2021_comments_make_no_template_account(tufano_dir):
    """People's comments (the 1,719 of the 2021 test split) never make an account a template, even all under
    one account: the template check cannot cost the 2021 rebuild a row."""
    from tufano_forge import read_rows

    rows = read_rows(tufano_dir)
    assert len(rows) == 1719
    assert template_accounts([("demo", "one", str(r.index), f"c{r.index}", r.comment) for r in rows]) == {}


def test_a_jobs_own_list_names_a_gerrit_ci_account(tmp_path):
    """``[job] known_accounts``: a Gerrit instance's CI account, an ordinary account there, listed by the job."""
    forge = build_forge(tmp_path / "forge", n_changes=1, n_pulls=1)
    comments = forge.gerrit_comments[1]["src/Foo1.java"]
    ci = {"_account_id": 3100, "name": "Zuul", "username": "zuul", "email": "zuul@example.org"}
    comments.append({**copy.deepcopy(comments[0]), "id": "zuul1", "message": "Build succeeded.", "author": ci})
    listed = tmp_path / "our-bots.csv"
    listed.write_text(KNOWN_ACCOUNTS.read_text(encoding="utf-8").splitlines()[0] + "\n"
                      "zuul,gerrit,bot,Zuul CI,https://zuul-ci.org/docs/zuul/,2026-11-28\n", encoding="utf-8")
    with ForgeServer(forge) as srv:
        mine_gerrit(srv.gerrit_url, "demo/app", tmp_path / "out", until=UNTIL, clone_url=str(forge.gerrit_repo),
                    options=JobOptions(progress=False, known_accounts=listed))
        listed.write_text(KNOWN_ACCOUNTS.read_text(encoding="utf-8").splitlines()[0] + "\n"
                          "zuul,gerrit,bot,Zuul CI,https://zuul-ci.org/docs/zuul/,yesterday\n", encoding="utf-8")
        with pytest.raises(InputError, match=r"our-bots.csv:2 \[checked\]"):
            mine_gerrit(srv.gerrit_url, "demo/app", tmp_path / "again", until=UNTIL, clone_url=str(forge.gerrit_repo),
                        options=JobOptions(progress=False, known_accounts=listed))
    rows = read_table(tmp_path / "out" / "rounds.parquet", expect="rounds/4").to_pylist()
    kinds = {c["id"]: (c["author_kind"], c["author_evidence"]) for r in rows for c in r["comments"]}
    assert kinds["zuul1"] == ("bot", "list=bot:Zuul CI") and kinds["c1a"] == ("human", None)


def test_the_bot_accounts_of_real_labelled_reviews_are_told_apart() -> None:
    """Every account of revmine/data/comments_labelled.csv a labeller marked a bot (its login ends in [bot] or
    it is Copilot: GitHub Apps, whose user objects say type Bot), as GitHub's REST API would show it, is a bot or
    an AI reviewer; those whose reviews are AI code reviews are AI reviewers."""
    import csv

    from revmine.miners.authors import github_author

    csv.field_size_limit(sys.maxsize)
    labelled = Path(__file__).resolve().parents[1] / "revmine" / "data" / "comments_labelled.csv"
    with open(labelled, encoding="utf-8", newline="") as fh:
        logins = {row["bot_account"] for row in csv.DictReader(fh) if row["bot_account"]}
    kinds = {login: github_author({"login": login, "type": "Bot"})[0] for login in logins}
    assert len(logins) >= 12 and set(kinds.values()) <= {"bot", "ai_reviewer"}
    # the services that wrote AI code reviews in those rows (read one by one when labelling)
    reviewers = {"coderabbitai[bot]", "copilot-pull-request-reviewer[bot]", "Copilot", "cursor[bot]",
                 "gemini-code-assist[bot]", "ellipsis-dev[bot]", "cubic-dev-ai[bot]", "sourcery-ai[bot]",
                 "greptile-apps[bot]", "claude[bot]", "chatgpt-codex-connector[bot]", "matter-code-review[bot]",
                 "graphite-app[bot]"}
    assert {login for login, kind in kinds.items() if kind == "ai_reviewer"} == reviewers & logins
