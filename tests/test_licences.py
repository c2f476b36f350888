"""Licences (revmine.miners.licences, revmine.dataset.licences): each row's licence at the commit mined, the
``[publish] licences`` allowlist, and the opt-out list, in the miners and the export.

The licence texts are real: the licence files that revmine's own dependencies ship in their wheels, and each
expected id is what that package declares (its ``License-Expression`` metadata), not what the detector says.
"""

from __future__ import annotations

import hashlib
import importlib.metadata as md
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from miners_server import T0, ForgeServer, RepoBuilder, build_forge, ghost_sha  # noqa: E402

from revmine.dataset.export import ExportOptions, export_dataset  # noqa: E402
from revmine.dataset.licences import LicenceGate, category  # noqa: E402
from revmine.dataset.options import PublishOptions  # noqa: E402
from revmine.io.store import read_table  # noqa: E402
from revmine.miners import JobOptions, mine_github  # noqa: E402
from revmine.miners.git import GitRepo  # noqa: E402
from revmine.miners.licences import NOASSERTION, LicenceReader, licence_of_text  # noqa: E402
from test_export_privacy import _splits  # noqa: E402
from test_dataset_filters import candidate  # noqa: E402
from datetime import timedelta  # noqa: E402

#: dependencies of revmine (always installed) that declare one SPDX licence and ship its text
DECLARED = ("requests-cache", "sacrebleu", "rapidfuzz", "platformdirs")


def _licence_file(dist: str) -> str:
    """The text of the licence file a package's wheel ships (LICENSE, LICENSE.txt...)."""
    files = [f for f in md.distribution(dist).files or [] if f.name.split(".")[0] in ("LICENSE", "LICENCE", "COPYING")
             and ".dist-info" in str(f)]
    assert files, f"{dist} ships no licence file"
    return files[0].read_text(encoding="utf-8")


def _declared(dist: str) -> str:
    declared = md.distribution(dist).metadata.get("License-Expression")
    assert declared, f"{dist} declares no License-Expression"
    return declared


@pytest.mark.parametrize("dist", DECLARED)
def test_licence_files_of_real_packages_give_the_licence_they_declare(dist):
    assert licence_of_text(_licence_file(dist)) == _declared(dist)


def test_a_licence_followed_by_bundled_code_s_licences_is_the_first():
    # pyarrow's wheel: Apache-2.0, then after lines of dashes the licences of the code it bundles (BSD, MIT, ...)
    text = _licence_file("pyarrow")
    assert text.count("\n----") > 5 and licence_of_text(text) == _declared("pyarrow")


def _blob_id(text: str) -> str:
    data = text.encode()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()  # git's object id of a blob


def test_a_commit_s_licence_follows_its_own_licence_files(tmp_path):
    mit, apache = _licence_file("rapidfuzz"), _licence_file("sacrebleu")
    # certifi (a dependency of requests) declares MPL-2.0; its file is a notice about the bundle it ships, no licence
    notice = _licence_file("certifi")
    rb = RepoBuilder(tmp_path / "repo.git")
    c1 = rb.commit("refs/heads/main", {"LICENSE": mit, "src/A.java": "class A {}\n"})
    c2 = rb.commit("refs/heads/main", {"LICENSE": apache}, c1)  # relicensed
    c3 = rb.commit("refs/heads/main", {"LICENSE": None, "COPYING.txt": notice}, c2)
    c4 = rb.commit("refs/heads/main", {"COPYING.txt": None}, c3)
    c5 = rb.commit("refs/heads/main", {"LICENSE-MIT": mit, "LICENSE-APACHE": apache, "docs/LICENSE": mit}, c4)
    shas = rb.finish()
    repo = GitRepo(tmp_path / "repo.git", str(tmp_path / "repo.git"), [])
    try:
        reader = LicenceReader(repo)
        assert [reader.at(shas[c]) for c in (c1, c2, c3, c4, c5)] == \
            ["MIT", "Apache-2.0", NOASSERTION, None, "Apache-2.0 AND MIT"]
        # the forge's answer holds where its file is the very blob it read, and only there
        forge = LicenceReader(repo, forge=("COPYING.txt", _blob_id(notice), "MPL-2.0"))
        assert forge.at(shas[c3]) == "MPL-2.0" and forge.at(shas[c1]) == "MIT"
    finally:
        repo.close()


def test_github_rows_carry_the_forge_s_licence_else_the_files(tmp_path):
    notice = _licence_file("certifi")  # a notice, no licence text (see above)
    forge = build_forge(tmp_path / "forge", n_changes=1, n_pulls=2, github_files={"LICENSE": notice})
    until = T0 + timedelta(days=30)
    with ForgeServer(forge) as server:
        mine_github("octo/demo", tmp_path / "files", api_url=server.github_api, until=until,
                    clone_url=str(forge.github_repo), options=JobOptions(progress=False))
        forge.github_license = {"name": "LICENSE", "path": "LICENSE", "sha": _blob_id(notice),
                                "license": {"key": "mpl-2.0", "spdx_id": "MPL-2.0"}}
        mine_github("octo/demo", tmp_path / "forge_answer", api_url=server.github_api, until=until,
                    clone_url=str(forge.github_repo), options=JobOptions(progress=False))
    assert forge.hits["github_license"] == 2  # once a project
    for out, expected in (("files", NOASSERTION), ("forge_answer", "MPL-2.0")):
        rows = read_table(tmp_path / out / "rounds.parquet", expect="rounds/4").to_pylist()
        in_git = [r["licence"] for r in rows if r["revision_before"] != ghost_sha("github-force-pushed")]
        assert in_git and set(in_git) == {expected}
        # a revision read through the REST fallback (git lacks it: force-pushed) has no tree to read: not known
        assert all(r["licence"] is None for r in rows if r["revision_before"] == ghost_sha("github-force-pushed"))


def test_permissive_means_scancode_s_permissive_and_public_domain():
    assert [category(e) for e in ("MIT", "Apache-2.0 WITH LLVM-exception", "CC0-1.0", "MIT OR GPL-3.0-only",
                                  "GPL-2.0", "MPL-2.0 AND MIT", "Elastic-2.0", NOASSERTION, None)] == \
        ["permissive", "permissive", "permissive", "permissive", "copyleft", "copyleft", "other", "none", "none"]
    gate = LicenceGate(["permissive", "GPL-2.0"])  # GPL-2.0 is the deprecated id of GPL-2.0-only
    assert [gate.reason(e) for e in ("BSD-3-Clause", "GPL-2.0-only", "GPL-3.0-only AND MIT", "Foo", None)] == \
        [None, None, "licence", "licence", "unknown_licence"]


def test_export_keeps_allowed_licences_and_says_what_the_others_are(tmp_path):
    rows = [candidate(project="a/mit", licence="MIT", change="1"), candidate(project="a/mit", licence="MIT", change="2"),
            candidate(project="b/gpl", licence="GPL-3.0-only", change="3"),
            candidate(project="c/none", licence=None, change="4"),
            candidate(project="a/mit", licence="MIT", change="5", comment_author="optedout")]
    splits = _splits(tmp_path, rows)
    optout = tmp_path / "opt-out.txt"
    optout.write_text("# people who asked\nOptedOut\n")
    everything = export_dataset(splits, tmp_path / "all", ExportOptions(formats=("parquet",)))
    assert everything["licences"]["rows"] == {"MIT": 3, "GPL-3.0-only": 1, "none": 1}
    card = (tmp_path / "all" / "README.md").read_text()
    assert "- 1 rows come from code under a copyleft licence" in card
    assert "- 1 rows come from projects where no licence was found" in card
    kept = export_dataset(splits, tmp_path / "kept", ExportOptions(
        formats=("parquet",), publish=PublishOptions(licences=("permissive",), opt_out=optout)))
    table = read_table(tmp_path / "kept" / "data" / "triplets" / "train-00000-of-00001.parquet")
    assert sorted(table.column("change").to_pylist()) == ["1", "2"]
    assert kept["withheld"] == {"licence": {"b/gpl": 1}, "unknown_licence": {"c/none": 1}, "opt_out": {"a/mit": 1}}
    assert kept["sizes"]["triplets"]["train"] == 2
    card = (tmp_path / "kept" / "README.md").read_text()
    assert "1 rows left out as `licence` (b/gpl: 1)" in card and "1 rows left out as `opt_out`" in card
    assert "optedout" not in card.lower()


def test_the_miners_leave_out_what_the_opt_out_list_names(tmp_path):
    forge = build_forge(tmp_path / "forge", n_changes=1, n_pulls=2)
    authors = {c["user"]["login"] for comments in forge.github_comments.values() for c in comments}
    owners = {p["user"]["login"] for p in forge.github_pulls.values()}
    person = sorted(authors - owners)[0]
    optout = tmp_path / "opt-out.txt"
    optout.write_text(person.upper() + "\n")
    until = T0 + timedelta(days=30)
    with ForgeServer(forge) as server:
        for out, listed in (("all", None), ("less", optout)):
            mine_github("octo/demo", tmp_path / out, api_url=server.github_api, until=until,
                        clone_url=str(forge.github_repo), options=JobOptions(progress=False, opt_out=listed))
    def comments(out: str) -> list[str]:
        rows = read_table(tmp_path / out / "rounds.parquet", expect="rounds/4").to_pylist()
        return [c["author"] for r in rows for c in r["comments"]]
    theirs = comments("all").count(person)
    assert theirs and person not in comments("less") and len(comments("less")) == len(comments("all")) - theirs
    dropped = read_table(tmp_path / "less" / "dropped.parquet").to_pylist()
    assert [d["detail"] for d in dropped if d["reason"] == "opt_out"] == \
        ["a comment by someone on the opt-out list"] * theirs
    assert person.lower() not in json.dumps(dropped, default=str).lower()


def test_codereviewer_files_follow_the_same_allowlist_opt_out_and_placeholders(tmp_path, monkeypatch):
    import pyarrow as pa
    from test_hunks import _comment, _round

    from revmine.dataset.split import SPLITS
    from revmine.io.store import write_table
    from revmine.preprocess.hunks import hunk_rows
    from revmine.schema import DATASET_SCHEMA, HUNK_DATASET_SCHEMA

    monkeypatch.setenv("REVMINE_PSEUDONYM_KEY", "k")
    rows = []
    for project, licence in (("mit/p", "MIT"), ("gpl/p", "GPL-3.0-only")):
        mined, _ = hunk_rows({**_round(_comment("a", 3, message="Ask @carol or mail carol@corp.example"),
                                       _comment("b", 3, author="OptedOut", message="mine")),
                              "project": project, "round_id": f"r:{project}"})
        rows += [{**r, "licence": licence, "split": "train", "task": None, "record": None} for r in mined]
    splits = tmp_path / "splits"
    for name in SPLITS:
        write_table(DATASET_SCHEMA.empty_table(), splits / f"{name}.parquet", DATASET_SCHEMA)
    write_table(pa.Table.from_pylist(rows, schema=HUNK_DATASET_SCHEMA), splits / "hunks.parquet", HUNK_DATASET_SCHEMA)
    optout = tmp_path / "opt-out.txt"
    optout.write_text("optedout\n")
    result = export_dataset(splits, tmp_path / "out", ExportOptions(
        formats=("codereviewer",), publish=PublishOptions(licences=("permissive",), opt_out=optout)))
    msgs = [json.loads(line) for line in (tmp_path / "out" / "codereviewer" / "msg-train.jsonl").read_text().splitlines()]
    assert [(m["proj"], m["msg"]) for m in msgs] == [("mit/p", "Ask @<user> or mail <email>")]
    by = {p: [r["comment_author"] for r in rows if r["project"] == p] for p in ("mit/p", "gpl/p")}
    # the opt-out list is asked first: the person's rows count as opt_out wherever they are
    assert result["withheld"] == {"licence": {"gpl/p": len(by["gpl/p"]) - by["gpl/p"].count("OptedOut")},
                                  "opt_out": {p: authors.count("OptedOut") for p, authors in by.items()}}


def test_an_offline_replay_reads_the_same_licences(tmp_path):
    """The licence endpoint's 404 is not kept by the cache: offline, the licence files decide, as they did."""
    forge = build_forge(tmp_path / "forge", n_changes=1, n_pulls=2, github_files={"LICENSE": _licence_file("sacrebleu")})
    cache, until = tmp_path / "cache.sqlite", T0 + timedelta(days=30)
    with ForgeServer(forge) as server:
        for out, mode in (("online", "use"), ("offline", "offline")):
            mine_github("octo/demo", tmp_path / out, api_url=server.github_api, until=until,
                        clone_url=str(forge.github_repo), options=JobOptions(progress=False, cache=cache,
                                                                             cache_mode=mode))
    rows = {out: read_table(tmp_path / out / "rounds.parquet", columns=["round_id", "licence"]).to_pylist()
            for out in ("online", "offline")}
    assert rows["online"] == rows["offline"] and "Apache-2.0" in {r["licence"] for r in rows["online"]}


def test_a_gerrit_account_is_left_out_by_whichever_identity_is_listed(tmp_path):
    """Gerrit records an account by its username; a person who listed their e-mail is left out all the same."""
    from revmine.miners import mine_gerrit

    forge = build_forge(tmp_path / "forge", n_changes=3, n_pulls=1)
    optout = tmp_path / "opt-out.txt"
    optout.write_text("Reviewer@Example.org\n")  # the look-alike's reviewer: username "reviewer"
    until = T0 + timedelta(days=30)
    with ForgeServer(forge) as server:
        for out, listed in (("all", None), ("less", optout)):
            mine_gerrit(server.gerrit_url, "demo/app", tmp_path / out, until=until, clone_url=str(forge.gerrit_repo),
                        options=JobOptions(progress=False, opt_out=listed))
    authors = {out: [c["author"] for r in read_table(tmp_path / out / "rounds.parquet").to_pylist()
                     for c in r["comments"]] for out in ("all", "less")}
    assert "reviewer" in authors["all"] and authors["less"] == [a for a in authors["all"] if a != "reviewer"]
    dropped = read_table(tmp_path / "less" / "dropped.parquet").to_pylist()
    assert sum(d["reason"] == "opt_out" for d in dropped) == authors["all"].count("reviewer")
    assert "example.org" not in json.dumps(dropped, default=str)
