"""The bundled mining example (examples/mining) mined offline from its recorded forge."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent))

from revmine.miners import JobOptions, run_job  # noqa: E402
from revmine.miners.replay import serve_recordings  # noqa: E402
from revmine.io.store import read_table  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "mining"


def mine(out: Path) -> tuple[dict, list[dict]]:
    manifest = run_job(EXAMPLE / "job.toml", out, JobOptions(progress=False))
    return manifest, read_table(out / "rounds.parquet", expect="rounds/4").to_pylist()


#: examples/mining/repos/textkit/reviews.toml: changes 201-224, one class each, reviewed once on patch set 1.
TEXTKIT = ["Padding", "Words", "Names", "Repeat", "Blank", "Capitalize", "Joiner", "Truncate", "Reverse", "Users",
           "Csv", "Frequencies", "Acronym", "Ranges", "Emails", "Tags", "Template", "Plural", "Versions", "Query",
           "Durations", "Inbox", "Keywords", "Hex"]


def test_example_mined_offline_gives_the_rounds_worked_out_by_hand(tmp_path, no_network):
    manifest, rows = mine(tmp_path / "out")
    by_project = Counter(r["project"] for r in rows)
    rounds = Counter(r["project"] for r in {r["round_id"]: r for r in rows}.values())
    assert rounds == {"example/calc": 6, "example/textkit": 24, "example/inventory": 4}
    assert by_project == {"example/calc": 7, "example/textkit": 24, "example/inventory": 5}
    assert sum(len(r["comments"]) for r in rows) == 19 + 24 + 3
    status = Counter((r["change"], r["round"], r["path_before"].rsplit("/", 1)[-1], r["file_status"]) for r in rows)
    assert status == Counter({**{(str(201 + k), 1, f"{name}.java", "modified"): 1 for k, name in enumerate(TEXTKIT)},
        ("101", 1, "Calculator.java", "modified"): 1, ("101", 2, "Calculator.java", "modified"): 1,
        ("102", 1, "Tokenizer.java", "modified"): 1, ("102", 1, "Parser.java", "unchanged"): 1,
        ("104", 1, "Tokenizer.java", "renamed"): 1,
        ("106", 1, "Calculator.java", "modified"): 1, ("106", 2, "Calculator.java", "modified"): 1,
        ("7", 1, "Inventory.java", "modified"): 1, ("7", 1, "Item.java", "modified"): 1,
        ("7", 2, "Inventory.java", "unchanged"): 1, ("8", 1, "Inventory.java", "modified"): 1,
        ("9", 1, "Item.java", "modified"): 1})
    tokenizer = next(r for r in rows if r["change"] == "102" and r["path_before"].endswith("Tokenizer.java"))
    comment = tokenizer["comments"][0]
    assert comment["message"] == "use isEmpty() instead" and comment["author"] == "bob"
    assert "input.length() == 0" in tokenizer["content_before"].split("\n")[comment["line"] - 1]
    assert "input.isEmpty()" in tokenizer["content_after"]
    item = next(r for r in rows if r["change"] == "7" and r["path_before"].endswith("Item.java"))
    assert item["comments"][0]["outdated"] and "private final String name;" in item["content_after"]
    replies = [c for r in rows for c in r["comments"] if c["in_reply_to"]]
    assert len(replies) == 6 + 3 and all(c["is_owner"] for c in replies)
    assert {r["host"] for r in rows} == {"review.example.org", "github.example.org"}  # not the replay port
    assert manifest["totals"]["dropped"] == 3 and manifest["totals"]["content_fallbacks"] == 0
    # every recorded exchange once, and GitHub's licence endpoint once (not recorded: the replay answers 404, so
    # the licence files are read, and the example's repositories have none)
    assert manifest["totals"]["http_requests"] == 40 + 1

    again, _ = mine(tmp_path / "out")  # run again: every project finished, none is asked again
    assert [(p["status"], p["http_this_run"]) for p in again["projects"]] == [("finished_before", {})] * 3


def test_comments_on_the_last_revision_make_no_round_and_are_counted(tmp_path, no_network):
    """calc 103 (LGTM on its last patch set), textkit 224 (thanks on its last patch set) and inventory 8 (a
    request on the pull request's last commit): nothing was revised after them."""
    manifest, rows = mine(tmp_path / "out")
    dropped = read_table(tmp_path / "out" / "dropped.parquet", expect="mine_dropped/2").to_pylist()
    last = {"calc": "3567a6083d0d2ab1ebd0d6da5ac6912e1c5e10bf", "textkit": "45c638c7d83294a09367fdc6215ee771a621db46",
            "inventory": "b989d79ca461fdfaf57a4b787258695722ffe8f3"}  # the heads: history.toml, recordings
    assert [(d["project"], d["change"], d["path"].rsplit("/", 1)[-1], d["round_id"], d["reason"], d["detail"])
            for d in dropped] == [
        ("example/calc", "103", "Parser.java", None, "last_revision",
         f"reviewed revision {last['calc']} is the last one: no revised code after the comments"),
        ("example/textkit", "224", "Hex.java", None, "last_revision",
         f"reviewed revision {last['textkit']} is the last one: no revised code after the comments"),
        ("example/inventory", "8", "Inventory.java", None, "last_revision",
         f"reviewed revision {last['inventory']} is the last one: no revised code after the comments")]
    assert not [r for r in rows if r["revision_before"] in last.values()]
    assert [p["dropped_by_reason"] for p in manifest["projects"]] == [{"last_revision": 1}] * 3
    assert [p["dropped_by_detail"] for p in manifest["projects"]] == [
        {"reviewed revision <sha> is the last one: no revised code after the comments": 1}] * 3
    assert read_table(tmp_path / "out" / "rounds.parquet").num_rows == len(rows)


def test_mining_names_a_drop_s_reason_in_the_vocabulary_and_reads_older_files(tmp_path, no_network):
    """Issue 30: mining's dropped.parquet held the sentence in ``reason``, where every other stage holds a code of
    one vocabulary (``detail`` the sentence). A ``mine_dropped/1`` file is read with ``reason`` not_recorded and its
    sentence as ``detail``; a run begun before, whose drop parts hold the sentence in ``reason`` and the code in
    ``kind``, finishes with the same dropped.parquet as a run of today."""
    import pyarrow.parquet as pq

    from revmine.io.store import Parts
    from revmine.miners.base import DropReason
    from revmine.schema import MINE_DROPPED_SCHEMA, SCHEMA_KEY

    out = tmp_path / "out"
    mine(out)
    now = pq.read_table(out / "dropped.parquet")
    assert now.schema.metadata[SCHEMA_KEY] == b"mine_dropped/2"
    assert set(now.column("reason").to_pylist()) == {DropReason.LAST_REVISION.value}
    assert all("is the last one" in d for d in now.column("detail").to_pylist())
    old = now.drop_columns(["reason"]).rename_columns(
        ["reason" if n == "detail" else n for n in now.drop_columns(["reason"]).column_names])
    pq.write_table(old.replace_schema_metadata({SCHEMA_KEY: b"mine_dropped/1"}), tmp_path / "old.parquet")
    read = read_table(tmp_path / "old.parquet", expect=MINE_DROPPED_SCHEMA)
    assert read.column_names == MINE_DROPPED_SCHEMA.names
    assert read.column("detail").to_pylist() == now.column("detail").to_pylist()
    assert set(read.column("reason").to_pylist()) == {"not_recorded"}
    batches = Parts(tmp_path / "old.parquet").iter_batches(2, ["reason", "project"])
    assert [r["reason"] for b in batches for r in b.to_pylist()] == ["not_recorded"] * len(now)
    for part in (out / "state" / "dropped").glob("*.parquet"):  # the parts of a run begun by the older revmine
        table = pq.read_table(part)
        pq.write_table(table.rename_columns(["kind" if n == "reason" else "reason" if n == "detail" else n
                                             for n in table.column_names]), part)
    (out / "dropped.parquet").unlink()
    mine(out)
    assert pq.read_table(out / "dropped.parquet").equals(now)

def test_example_replays_with_credentials_in_the_environment(tmp_path, monkeypatch, no_network):
    """A recorded forge needs no credentials: the user's (which would send Gerrit to /a/) are not used."""
    monkeypatch.setenv("GERRIT_USER", "u")
    monkeypatch.setenv("GERRIT_PASSWORD", "p-secret")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_secret")
    manifest, rows = mine(tmp_path / "out")
    assert len(rows) == 36 and manifest["totals"]["dropped"] == 3


def test_example_is_deterministic(tmp_path):
    key = lambda r: (r["round_id"], r["path_before"])  # noqa: E731
    first = sorted(mine(tmp_path / "a")[1], key=key)
    second = sorted(mine(tmp_path / "b")[1], key=key)
    assert first == second


def test_recordings_quote_only_commits_the_histories_build(tmp_path):
    text = "".join(p.read_text() for p in (EXAMPLE / "recordings").glob("*.json"))
    quoted = set(re.findall(r'"([0-9a-f]{40})"', text))
    with serve_recordings(EXAMPLE) as forge:
        known = set()
        for repo in forge.repos.values():
            out = subprocess.run(["git", "-C", str(repo), "rev-list", "--all"], capture_output=True, text=True, check=True)
            known.update(out.stdout.split())
    assert quoted and quoted <= known, quoted - known


def test_textkit_recordings_are_what_make_recordings_writes():
    """recordings/textkit.json is generated from repos/textkit (reviews.toml, history.toml, the Java files)."""
    spec = importlib.util.spec_from_file_location("make_recordings", EXAMPLE / "make_recordings.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.recordings("textkit") == json.loads((EXAMPLE / "recordings" / "textkit.json").read_text())


def test_recorded_server_404_and_etag():
    with serve_recordings(EXAMPLE) as forge:
        url = forge.url + "/github.example.org/api/v3/repos/example/inventory/pulls/7/comments?per_page=100"
        first = requests.get(url, timeout=5)
        assert first.status_code == 200 and len(first.json()) == 4
        again = requests.get(url, headers={"If-None-Match": first.headers["ETag"]}, timeout=5)
        assert again.status_code == 304
        missing = requests.get(forge.url + "/review.example.org/changes/example%2Fcalc~999/comments", timeout=5)
        assert missing.status_code == 404 and "no recording" in json.loads(missing.text)["message"]


def test_command_line_settings_win_over_the_job_file(tmp_path, no_network, capsys):
    from revmine.cli import main

    def options(*flags: str) -> dict:
        out = tmp_path / str(len(list(tmp_path.iterdir())))
        assert main(["mine", "--job", str(EXAMPLE / "job.toml"), "--out", str(out), "--json", "-q", *flags]) == 0
        manifest = json.loads(capsys.readouterr().out)
        return {key: manifest["options"][key] for key in ("batch_size", "cache_mode")}

    # examples/mining/job.toml gives batch_size = 2 and no cache_mode: the flag wins, else the job's, else the default
    assert options("--batch-size", "5", "--cache-mode", "off") == {"batch_size": 5, "cache_mode": "off"}
    assert options() == {"batch_size": 2, "cache_mode": "use"}
