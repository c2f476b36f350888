"""Who commented, against a real Gerrit 3.10 (tests/gerrit_server.py): a service user (an account the test puts in
the "Service Users" group) posts comments, a robot comment is posted, and a human posts comments, all on the
method patch set 2 rewrites. The kinds expected are the test's own (who posted what), never the miner's output;
then the filter stage must drop the service user's and the robot's triplets as ``bot`` and keep the human's out
of that step. Like the other real-Gerrit tests, this one fails, not skips, when the server cannot start (only
the documented opt-out skips).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gerrit_reviews import SRC, Comment, Reviews, create_project, java_class, method  # noqa: E402
from gerrit_server import ADMIN, GerritServer  # noqa: E402

from revmine.cli import main  # noqa: E402
from revmine.filters.stage import FilterOptions, filter_candidates  # noqa: E402
from revmine.io.store import read_table  # noqa: E402
from revmine.preprocess.candidates import preprocess  # noqa: E402

PROJECT = "bots"
PATH = f"{SRC}/Calc.java"


@pytest.fixture(scope="module")
def posted(real_gerrit: GerritServer, tmp_path_factory: pytest.TempPathFactory) -> tuple[GerritServer, dict[str, str]]:
    """A change of two patch sets on ``Calc.add``; returns the server and {message: who posted it}."""
    server = real_gerrit
    reviews = Reviews(server, tmp_path_factory.mktemp("reviews"))
    owner = reviews.account("oona", "Oona Owner")
    human = reviews.account("hugo", "Hugo Human")
    service = reviews.account("ci-runner", "CI Runner")
    server.rest("PUT", "/groups/Service%20Users/members/ci-runner", auth=ADMIN)
    create_project(server, PROJECT)
    ws = reviews.workspace(PROJECT, owner)
    ws.start()
    ws.write(PATH, java_class("Calc", method("add", "int s = a + b;", "return s;")))
    ws.commit("Base")
    reviews.merge(reviews.new_change(ws), ADMIN)
    ws.start()
    ws.write(PATH, java_class("Calc", method("add", "int s = a + b;", "s = s + 0;", "return s;")))
    ws.commit("Calc: a no-op")
    change = reviews.new_change(ws)
    who = {}
    reviews.comment(human, change, 1, [Comment("H1: drop the no-op", PATH, line=6),
                                       Comment("H2: name the sum", PATH, line=5)])
    who.update({"H1: drop the no-op": "human", "H2: name the sum": "human"})
    reviews.comment(service, change, 1, [Comment("S1: build 812 failed in Calc.java:6", PATH, line=6),
                                         Comment("S2: coverage 40% on Calc.add", PATH, line=5)])
    who.update({"S1: build 812 failed in Calc.java:6": "service", "S2: coverage 40% on Calc.add": "service"})
    sha = change.patch_sets[0].sha
    server.rest("POST", f"/changes/{change.number}/revisions/{sha}/review", {"robot_comments": {PATH: [
        {"robot_id": "checkstyle", "robot_run_id": "run-1", "line": 6, "message": "R1: statement has no effect"}]}},
        auth=human.auth)
    who["R1: statement has no effect"] = "robot"
    ws.write(PATH, java_class("Calc", method("add", "return a + b;")))
    reviews.new_patch_set(ws, change, "Calc: simpler add")
    return server, who


def test_service_user_and_robot_comments_are_a_bots_and_dropped(posted, tmp_path):
    server, who = posted
    out = tmp_path / "mined"
    assert main(["-q", "mine", "gerrit", "--url", server.url, "--project", PROJECT, "--out", str(out),
                 "--robot-comments", "true"]) == 0
    rows = read_table(out / "rounds.parquet", expect="rounds/4").to_pylist()
    comments = {c["message"]: c for r in rows for c in r["comments"]}
    assert set(comments) == set(who)
    for message, poster in who.items():
        kind, evidence = comments[message]["author_kind"], comments[message]["author_evidence"]
        if poster == "human":
            assert (kind, evidence) == ("human", None), message
        elif poster == "service":
            assert kind == "bot" and "tags=SERVICE_USER" in evidence, message
        else:
            assert kind == "bot" and evidence.startswith("robot_comment:checkstyle"), message
    preprocess(out / "rounds.parquet", tmp_path / "pre")
    filter_candidates(tmp_path / "pre" / "candidates.parquet", tmp_path / "filtered", FilterOptions())
    triplets = {r["comment_id"]: r["comment"] for r in read_table(tmp_path / "pre" / "candidates.parquet").to_pylist()
                if r["kind"] == "triplet"}
    assert set(triplets.values()) == set(who)  # every comment is on add()'s lines
    fate = {r["comment"]: r["reason"] for r in read_table(tmp_path / "filtered" / "dropped.parquet").to_pylist()
            if r["kind"] == "triplet"}
    for message, poster in who.items():
        if poster == "human":
            assert fate.get(message) not in ("bot", "ai_reviewer"), message
        else:
            assert fate.get(message) == "bot", message


def test_without_the_setting_robot_comments_are_not_asked_for(posted, tmp_path):
    server, who = posted
    out = tmp_path / "mined"
    assert main(["-q", "mine", "gerrit", "--url", server.url, "--project", PROJECT, "--out", str(out)]) == 0
    rows = read_table(out / "rounds.parquet", expect="rounds/4").to_pylist()
    assert {c["message"] for r in rows for c in r["comments"]} == {m for m, p in who.items() if p != "robot"}
