"""Rounds made of the published test split, as a researcher would find them on a review server.

Every row of the Tufano et al. 2021 test set (../shared/fixtures/tufano2021/test.csv) becomes one round:
the submitted file holds the row's ``before`` in a class, the revised file its ``after``, and one
reviewer comment sits on the lines that ``before_marked`` marks with ``START ... END``. In the *broken*
form the class also holds a field whose initialiser lacks a ``)``, and before and after the published
method a method that lacks its closing ``}`` (the one before indented like the published method, as in
one file): the file does not compile (as a patch set under review may not), but the published method
itself is intact.

A row *comes back* when the preprocess stage writes a triplet for it whose m_s and m_r are the row's
``before`` and ``after`` and whose abstractions are its ``src-test.txt`` and ``tgt-test.txt`` lines.
Used by tests/test_preprocess_stage.py and benchmarks/bench_published_rounds.py.
"""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow as pa

from revmine.preprocess.candidates import preprocess
from revmine.schema import ROUNDS_SCHEMA
from revmine.io.store import read_table, write_table

from conftest import TUFANO  # the fixture folder beside the project (tests/ is on sys.path)
HEADER = "package published;\n\npublic class Published {\n"
#: a field that does not compile (an unclosed parenthesis), above the published method
BROKEN_FIELD = "  private final int broken = (1 + 2;\n\n"
#: a method that lacks its closing brace (below the published method, the class's brace closes nothing)
BROKEN_METHOD = "\n  void unfinished() {\n    if (broken > 0) {\n      broken();\n    }\n\n"


def published_rows(limit: int | None = None) -> list[dict[str, str]]:
    """The test split's rows with their ``src-test.txt`` and ``tgt-test.txt`` lines as ``src``/``tgt``."""
    with open(TUFANO / "test.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    src = (TUFANO / "src-test.txt").read_text(encoding="utf-8").split("\n")
    tgt = (TUFANO / "tgt-test.txt").read_text(encoding="utf-8").split("\n")
    for i, row in enumerate(rows):
        row["src"], row["tgt"] = src[i], tgt[i]
    return rows[:limit]


def marked_lines(row: dict[str, str]) -> tuple[int, int]:
    """1-based first and last line of the method that ``START ... END`` marks: the lines the markers changed
    (a marker may sit inside a line, and the words START and END also occur in code)."""
    changed = [i for i, (marked, plain) in enumerate(zip(row["before_marked"].split("\n"), row["before"].split("\n")))
               if marked != plain]
    return changed[0] + 1, changed[-1] + 1


def published_rounds(rows: list[dict[str, str]], broken: bool = False) -> list[dict[str, Any]]:
    """One round per row: ``before`` then ``after`` in a class, the comment on the marked lines."""
    suffix = (BROKEN_METHOD if broken else "") + "}\n"

    def revision(method: str) -> str:
        if not broken:
            return HEADER + method + suffix
        indent = method[:len(method) - len(method.lstrip(" \t"))]
        unfinished = "".join((indent + line[2:] if line else "") + "\n" for line in BROKEN_METHOD.split("\n")[1:-1])
        return HEADER + BROKEN_FIELD + unfinished + method + suffix

    rounds = []
    for n, row in enumerate(rows):
        first, last = marked_lines(row)
        before = revision(row["before"])
        offset = before[:before.index(row["before"])].count("\n")
        rounds.append({
            "round_id": f"gerrit:published:{n}:1", "source": "gerrit", "host": "published", "project": "published",
            "change": str(n), "round": 1, "path_before": "Published.java", "path_after": "Published.java",
            "file_status": "modified", "content_before": before,
            "content_after": revision(row["after"]),
            "comments": [{"id": f"c{n}", "author": "reviewer", "is_owner": False, "path": "Published.java",
                          "side": "REVISION", "line": offset + last, "start_line": offset + first,
                          "end_line": offset + last, "message": row["comment"]}],
        })
    return rounds


def come_back(rows: list[dict[str, str]], rounds: list[dict[str, Any]], work: Path) -> tuple[int, Counter]:
    """Run the stage on ``rounds``; the rows that come back exactly, and why the others did not."""
    write_table(pa.Table.from_pylist(rounds, schema=ROUNDS_SCHEMA), work / "rounds.parquet", ROUNDS_SCHEMA)
    preprocess(work / "rounds.parquet", work / "out")
    triplets = {r["change"]: r for r in read_table(work / "out" / "candidates.parquet").to_pylist()
                if r["kind"] == "triplet"}
    dropped = {r["change"]: r["reason"] for r in read_table(work / "out" / "dropped.parquet").to_pylist()
               if r["kind"] == "comment"}
    exact, lost = 0, Counter()
    for n, row in enumerate(rows):
        found = triplets.get(str(n))
        if found is None:
            lost[dropped.get(str(n), "no row")] += 1
        elif (found["m_s"], found["m_r"]) != (row["before"], row["after"]):
            lost["other method text"] += 1
        elif (found["m_s_abstract"], found["m_r_abstract"]) != (row["src"], row["tgt"]):
            lost["abstraction differs"] += 1
        else:
            exact += 1
    return exact, lost
