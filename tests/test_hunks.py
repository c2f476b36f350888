"""Hunk rows as CodeReviewer builds them (``revmine.preprocess.hunks``) and their JSON Lines
(``revmine.dataset.codereviewer``), read back by ``revmine.interop.codereviewer.read_codereviewer``.

Expected values come from git (``git diff -U3`` and ``git apply --check`` run here on the same texts), from
hand-worked diffs, and from CodeReviewer's own header pattern (``ReviewExample.align_and_clean`` in
microsoft/CodeBERT ``CodeReviewer/code/utils.py``). Real revisions: ``../shared/fixtures/code_revisions``; a review
round is built on three consecutive revisions of one file (the older row's ``before`` is the change's base, its
``after`` the revision submitted, which is the newer row's ``before``; the newer row's ``after`` is the next
revision). The fixture has no comments: the test writes one reviewer comment on the first line the change added
(found in git's diff, not ours).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from revmine.dataset.codereviewer import write_codereviewer
from revmine.interop.codereviewer import read_codereviewer
from revmine.preprocess.hunks import diff_hunks, hunk_rows
from revmine.schema import DropReason

sys.path.insert(0, str(Path(__file__).resolve().parent))

from git_diff import GIT_HEADER, REVISIONS, git_applies, git_hunks, header_numbers  # noqa: E402

# --- hand-worked diffs ---------------------------------------------------------------------------------

TEN = "".join(f"{c}\n" for c in "abcdefghij")


def test_header_numbering_is_gits_on_hand_worked_diffs(tmp_path: Path) -> None:
    # line 5 changed: 3 context lines each side, lines 2..8 on both sides; git's function context after the header
    # is the last line above the hunk that starts with a letter (line 1, "a")
    assert [h.text for h in diff_hunks(TEN, TEN.replace("e\n", "E\n"))] == [
        "@@ -2,7 +2,7 @@ a\n b\n c\n d\n-e\n+E\n f\n g\n h"]
    # a line inserted above line 1: the old side starts at 1 with the 3 lines after it
    assert [h.text for h in diff_hunks(TEN, "X\n" + TEN)] == ["@@ -1,3 +1,4 @@\n+X\n a\n b\n c"]
    # changes with 7 unchanged lines between them (more than 2 x 3) are two hunks; with 6, one
    two = TEN.replace("b\n", "B\n").replace("j\n", "J\n")
    assert [h.header for h in diff_hunks(TEN, two)] == ["@@ -1,5 +1,5 @@", "@@ -7,4 +7,4 @@ f"]
    one = TEN.replace("b\n", "B\n").replace("i\n", "I\n")
    assert [h.header for h in diff_hunks(TEN, one)] == ["@@ -1,10 +1,10 @@"]
    # an added file, a deleted one, a one-line file: git's numbers, a count of 1 left out as git does (CodeReviewer's
    # README: "@@ -1 +1,2 @@"), no "\ No newline at end of file" line (CodeReviewer's rows have none)
    assert [h.text for h in diff_hunks(None, "x\ny")] == ["@@ -0,0 +1,2 @@\n+x\n+y"]
    assert [h.text for h in diff_hunks("x\n", "")] == ["@@ -1 +0,0 @@\n-x"]
    assert [h.header for h in diff_hunks("x\n", "y\n")] == ["@@ -1 +1 @@"]
    assert diff_hunks(TEN, TEN) == []
    # git's own edge cases: a last line gaining or losing its newline, \r kept on its line, a NUL byte (binary)
    # a byte order mark added, line ends turned to \r\n: hunks, as on GitHub (the texts are not normalised)
    edges = (("a\nb", "a\nb\n"), ("a\nb\n", "a\nb"), ("a\nb", "a\nc"), ("a\r\nb\r\n", "a\r\nc\r\n"),
             ("a\0b\nc\n", "a\0b\nd\n"), ("a\nb\n", "\ufeffa\nb\n"), (TEN, TEN.replace("\n", "\r\n")),
             ("int f()\r\n{\r\n" + TEN, "int f()\r\n{\r\n" + TEN.replace("j", "J")))
    assert [h.text for h in diff_hunks("a\nb\n", "\ufeffa\nb\n")] == ["@@ -1,2 +1,2 @@\n-a\n+\ufeffa\n b"]
    for old, new in ((TEN, TEN.replace("e\n", "E\n")), (TEN, "X\n" + TEN), (TEN, two), (TEN, one), ("", "x\ny"),
                     ("x\n", ""), ("x\n", "y\n"), *edges):
        assert [h.text for h in diff_hunks(old, new)] == git_hunks(tmp_path, old, new), (old, new)


# --- real revisions --------------------------------------------------------------------------------------

def _revisions() -> list[dict]:
    return [json.loads(line) for line in REVISIONS.read_text(encoding="utf-8").splitlines()]


def _chains(rows: list[dict]) -> list[tuple[dict, dict]]:
    """(older, newer) rows of one file where the older row's ``after`` is the newer row's ``before``."""
    older = {(r["repo"], r["path"], r["after"]): r for r in reversed(rows)}  # newest first: keep the nearest
    return [(older[key], r) for r in rows if (key := (r["repo"], r["path"], r["before"])) in older]


def test_hunks_of_real_revisions_are_gits_exactly(tmp_path: Path) -> None:
    rows = _revisions()
    assert len(rows) == 210
    differ = []
    for row in rows:
        hunks = [h.text for h in diff_hunks(row["before"], row["after"])]
        assert hunks, row["path"]
        if hunks != git_hunks(tmp_path, row["before"], row["after"]):
            differ.append((row["repo"], row["commit"], row["path"]))
    # CodeReviewer's hunks are git's (GitHub's): every one, not most (difflib's alignment gave 184/210)
    assert differ == []


def _changed_line(hunks: list[str]) -> int:
    """The submitted line a test comment goes on, from git's hunks: the first line the change adds, else (a change
    that only deletes) the line after the first deletion."""
    after_deletion = None
    for hunk in hunks:
        line = header_numbers(hunk)[2]
        for diff_line in hunk.split("\n")[1:]:
            if diff_line.startswith("+"):
                return line
            if diff_line.startswith("-") and after_deletion is None:
                after_deletion = line
            if diff_line[:1] in (" ", "+"):
                line += 1
    assert after_deletion is not None
    return after_deletion


def test_rounds_on_real_revisions_round_trip_through_codereviewer_files(tmp_path: Path) -> None:
    chains = _chains(_revisions())
    assert len(chains) == 68
    all_rows = []
    for number, (older, newer) in enumerate(chains):
        base, submitted, after = older["before"], older["after"], newer["after"]
        assert submitted == newer["before"]
        gits = git_hunks(tmp_path, base, submitted)
        added = _changed_line(gits)
        comment = {"id": f"c{number}", "author": "reviewer", "is_owner": False, "side": "REVISION", "line": added,
                   "message": f"why this line? ({number})", "in_reply_to": None}
        round_row = {"round_id": f"test:{number}", "source": "gerrit", "project": older["repo"], "change": str(number),
                     "round": 1, "path_before": older["path"], "path_after": newer["path"], "content_base": base,
                     "content_before": submitted, "content_after": after, "language": older["language"],
                     "comments": [comment]}
        rows, dropped = hunk_rows(round_row)
        assert dropped == []
        (commented,) = [r for r in rows if r["y"] == 1]
        assert commented["comment"] == comment["message"]
        assert commented["new_start"] <= added <= commented["new_end"]
        assert commented["oldf"] == base and commented["language"] == older["language"]
        # both sides are hunks git accepts against the base: the reviewed one and the revised region
        assert git_applies(tmp_path, base, [r["patch"] for r in rows])
        # (git refuses a hunk with no change: a region the next revision left as in the base is not applied)
        assert all(git_applies(tmp_path, base, [r["new_hunk"]]) for r in rows
                   if any(line[:1] in ("+", "-") for line in r["new_hunk"].split("\n")[1:]))
        assert [r["patch"] for r in rows] == gits  # one comment: one row per hunk, git's
        all_rows += rows
    paths = write_codereviewer(all_rows, tmp_path / "cr", "valid")
    commented = [r for r in all_rows if r["comment"] is not None]
    read, _ = read_codereviewer(paths["msg"])
    assert [(r["m_s"], r["comment"], r["comment_id"]) for r in read["eval"]] == \
        [(r["patch"], r["comment"], r["comment_id"]) for r in commented]
    read, _ = read_codereviewer(paths["ref"])
    assert [(r["m_s"], r["m_r"], r["comment"]) for r in read["eval"]] == \
        [(r["old"], r["new"], r["comment"]) for r in commented]
    read, _ = read_codereviewer(paths["cls"])
    assert [(r["m_s"], r["kind"]) for r in read["eval"]] == \
        [(r["patch"], "triplet" if r["y"] else "pair") for r in all_rows]
    # the fields CodeReviewer's readers take: RefineDataset old/new/comment/id, read_review_examples oldf/patch/msg/y
    needed = {"ref": {"old", "new", "comment", "id"}, "msg": {"oldf", "patch", "msg", "y"},
              "cls": {"oldf", "patch", "msg", "y"}}
    for task, fields in needed.items():
        for line in paths[task].read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            assert fields <= set(record) and GIT_HEADER.match(record.get("patch", record.get("old_hunk")))


# --- hand-worked rounds: which hunk a comment picks ------------------------------------------------------

#: base: 20 lines l1..l20; submitted: l3 changed, l15-l16 deleted; next revision: l3 changed again
BASE = "".join(f"l{n}\n" for n in range(1, 21))
SUBMITTED = BASE.replace("l3\n", "L3\n").replace("l15\nl16\n", "")
AFTER = SUBMITTED.replace("L3\n", "LL3\n")


def _round(*comments: dict) -> dict:
    return {"round_id": "r", "source": "github", "project": "p", "change": "1", "round": 1, "path_before": "f.py",
            "path_after": "f.py", "content_base": BASE, "content_before": SUBMITTED, "content_after": AFTER,
            "language": "python", "comments": list(comments)}


def _comment(cid: str, line: int, side: str = "RIGHT", **extra: object) -> dict:
    return {"id": cid, "author": "rev", "is_owner": False, "side": side, "line": line, "message": f"m{cid}",
            "in_reply_to": None, **extra}


def test_comments_pick_their_hunk_by_hand(tmp_path: Path) -> None:
    # hunk 1: base lines 1-6 (l3 changed), submitted 1-6; hunk 2: base 12-19 (l15-l16 deleted), submitted 12-17
    rows, dropped = hunk_rows(_round(
        _comment("context", 6),  # a context line of hunk 1
        _comment("deleted", 14),  # submitted line 14 is l17, right after the deleted lines: hunk 2
        _comment("same-hunk", 3),  # a second comment on hunk 1
        _comment("nowhere", 9),  # l9: in no hunk
        _comment("parent", 15, side="LEFT"),  # on the deleted line itself, on the base side
        _comment("owner", 3, is_owner=True),
        _comment("reply", 3, in_reply_to="context"),
        _comment("file", None)))
    assert [h.header for h in diff_hunks(BASE, SUBMITTED)] == ["@@ -1,6 +1,6 @@", "@@ -12,8 +12,6 @@ l11"]
    assert [(r["hunk_index"], r["comment_id"], r["y"]) for r in rows] == [
        (0, "context", 1), (0, "same-hunk", 1), (1, "deleted", 1)]
    assert [(d["comment_id"], d["reason"]) for d in dropped] == [
        ("nowhere", DropReason.OUTSIDE_HUNK), ("parent", DropReason.WRONG_SIDE), ("owner", DropReason.AUTHOR_COMMENT),
        ("reply", DropReason.REPLY), ("file", DropReason.FILE_COMMENT)]
    assert rows[0]["patch"] == "@@ -1,6 +1,6 @@\n l1\n l2\n-l3\n+L3\n l4\n l5\n l6"
    assert rows[0]["old"] == " l1\n l2\n-l3\n+L3\n l4\n l5\n l6"
    # the revised region: the same base lines 1-6 against the next revision
    assert rows[0]["new_hunk"] == "@@ -1,6 +1,6 @@\n l1\n l2\n-l3\n+LL3\n l4\n l5\n l6"
    assert rows[2]["patch"] == "@@ -12,8 +12,6 @@ l11\n l12\n l13\n l14\n-l15\n-l16\n l17\n l18\n l19"
    assert rows[2]["new"] == " l12\n l13\n l14\n-l15\n-l16\n l17\n l18\n l19"
    assert git_hunks(tmp_path, BASE, SUBMITTED) == [rows[0]["patch"], rows[2]["patch"]]
    assert git_hunks(tmp_path, BASE, AFTER)[0] == rows[0]["new_hunk"]

    paths = write_codereviewer(rows, tmp_path, "test")
    cls = [json.loads(line) for line in paths["cls"].read_text(encoding="utf-8").splitlines()]
    # two comments on one hunk: two msg and ref rows, one cls row
    assert [(r["y"], r["msg"]) for r in cls] == [(1, "mcontext"), (1, "mdeleted")]
    assert len(paths["msg"].read_text(encoding="utf-8").splitlines()) == 3


def test_a_hunk_without_reviewer_comment_is_a_negative_quality_example(tmp_path: Path) -> None:
    rows, dropped = hunk_rows(_round(_comment("owner", 3, is_owner=True)))
    assert [(r["hunk_index"], r["y"], r["comment"]) for r in rows] == [(0, 0, None), (1, 0, None)]
    paths = write_codereviewer(rows, tmp_path, "train")
    assert paths["msg"].read_text(encoding="utf-8") == paths["ref"].read_text(encoding="utf-8") == ""
    read, _ = read_codereviewer(paths["cls"])
    assert [r["kind"] for r in read["train"]] == ["pair", "pair"]


def test_a_hunk_comment_of_the_owner_a_bot_or_an_ai_reviewer_is_dropped_under_the_filter_s_name() -> None:
    """Issue 30: one vocabulary across stages. The owner's, a bot's and an AI reviewer's comments are dropped from
    triplets by the filters author_comment, bot and ai_reviewer; from hunk rows they were owner_comment,
    bot_comment and ai_reviewer_comment. Now the hunk drops carry the filters' names."""
    from revmine.filters.options import FILTER_NAMES

    rows, dropped = hunk_rows(_round(_comment("owner", 3, is_owner=True),
                                     _comment("ci", 3, author_kind="bot", author_evidence="type=Bot"),
                                     _comment("ai", 3, author_kind="ai_reviewer", author_evidence="known=x")))
    assert [(d["comment_id"], d["reason"]) for d in dropped] == [
        ("owner", "author_comment"), ("ci", "bot"), ("ai", "ai_reviewer")]
    assert {d["reason"] for d in dropped} <= set(FILTER_NAMES)

def test_a_file_absent_from_the_submitted_revision_drops_its_comments() -> None:
    rows, dropped = hunk_rows({**_round(_comment("c", 1)), "content_before": None})
    assert rows == [] and [d["reason"] for d in dropped] == [DropReason.NO_CONTENT_BEFORE]


def test_an_unknown_split_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="valid"):
        write_codereviewer([], tmp_path, "eval")
