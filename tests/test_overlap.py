"""``revmine overlap``: rows of a new dataset that are exact or near-duplicates of a benchmark's rows.

The criterion is the split's (CodeNet's: set Jaccard >= 0.9 and multiset Jaccard >= 0.8 on the tokens of
m_s_abstract and m_r_abstract, each token tagged with its field). The cases below are worked out by hand;
on real data the index is compared with a brute force written here with Python sets and Counters.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from revmine.cli import main
from revmine.dataset.overlap import check_overlap

WORDS = [f"t{i}" for i in range(20)]  # m_s of the benchmark row: 20 distinct tokens; m_r: "x"


def _table(rows: list[tuple[str, str, str]]) -> pa.Table:
    return pa.table({"id": [r[0] for r in rows], "m_s_abstract": [r[1] for r in rows],
                     "m_r_abstract": [r[2] for r in rows]})


def _splits(folder: Path, splits: dict[str, list[tuple[str, str, str]]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, rows in splits.items():
        pq.write_table(_table(rows), folder / f"{name}.parquet")
    return folder


def _hand_worked(tmp_path: Path) -> tuple[Path, Path]:
    base = " ".join(WORDS)
    benchmark = tmp_path / "benchmark.parquet"
    pq.write_table(_table([("b0", base, "x"), ("b1", "unrelated tokens only", "y")]), benchmark)
    new = _splits(tmp_path / "new", {
        # n0: the same tokens in the same order: exact.
        # n1: t19 -> k: 20 common distinct tokens (t0..t18 and x) of 22, set = multiset Jaccard = 20/22: near.
        "train": [("n0", base, "x"), ("n1", " ".join(WORDS[:19] + ["k"]), "x")],
        # n2: two tokens replaced: 19 common of 23 = 0.826 < 0.9: no.
        # n3: the same bag in another order: not exact, near with indices 1 and 1.
        "eval": [("n2", " ".join(WORDS[:18] + ["k", "l"]), "x"), ("n3", " ".join(reversed(WORDS)), "x")],
        # n4: the same set, t0 six more times: set 1.0, multiset 21/27 = 0.778 < 0.8: no.
        # n5: b0's tokens, each in the other field (m_s <-> m_r): tagged by field, nothing in common: no.
        "test": [("n4", base + " t0" * 6, "x"), ("n5", "x", base)],
    })
    return new, benchmark


def test_hand_worked_exact_and_near_duplicates(tmp_path: Path) -> None:
    new, benchmark = _hand_worked(tmp_path)
    summary, rows = check_overlap(new, benchmark)
    assert summary["splits"] == {"train": {"rows": 2, "exact": 1, "near": 1},
                                 "eval": {"rows": 2, "exact": 0, "near": 1},
                                 "test": {"rows": 2, "exact": 0, "near": 0}}
    found = {r["id"]: r for r in rows.to_pylist()}
    assert sorted(found) == ["n0", "n1", "n3"]
    assert (found["n0"]["match"], found["n0"]["benchmark_id"]) == ("exact", "b0")
    assert found["n1"]["match"] == "near" and found["n1"]["set_jaccard"] == pytest.approx(20 / 22)
    assert found["n1"]["multiset_jaccard"] == pytest.approx(20 / 22)
    assert (found["n3"]["match"], found["n3"]["set_jaccard"], found["n3"]["multiset_jaccard"]) == ("near", 1.0, 1.0)
    assert (found["n1"]["split"], found["n1"]["row"], found["n3"]["split"], found["n3"]["row"]) == ("train", 1, "eval", 1)


def test_drop_writes_new_without_the_overlap_and_the_card_records_it(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    new, benchmark = _hand_worked(tmp_path)
    assert main(["overlap", str(new), "--against", str(benchmark), "--drop", str(tmp_path / "clean")]) == 0
    printed = capsys.readouterr().out
    assert "| train | 2 | 1 | 1 | 2 | 100.00% |" in printed and "| test | 2 | 0 | 0 | 0 | 0.00% |" in printed
    kept = {name: pq.read_table(tmp_path / "clean" / f"{name}.parquet").column("id").to_pylist()
            for name in ("train", "eval", "test")}
    assert kept == {"train": [], "eval": ["n2"], "test": ["n4", "n5"]}
    report = json.loads((tmp_path / "clean" / "overlap.json").read_text())
    assert report["dropped"] and report["kept"] == {"train": 0, "eval": 1, "test": 2}
    assert pq.read_table(tmp_path / "clean" / "overlap.parquet").num_rows == 3


def test_card_of_an_imported_dataset_records_the_check(tufano_dir: Path, tmp_path: Path) -> None:
    # the published test split checked against its own first three rows: those, and any copy of them, go
    assert main(["import", "tufano2021", str(tufano_dir), "--out", str(tmp_path / "imported")]) == 0
    first = pq.read_table(tmp_path / "imported" / "test.parquet").slice(0, 3)
    pq.write_table(first, tmp_path / "benchmark.parquet")
    assert main(["overlap", str(tmp_path / "imported"), "--against", str(tmp_path / "benchmark.parquet"),
                 "--drop", str(tmp_path / "clean")]) == 0
    summary = json.loads((tmp_path / "clean" / "overlap.json").read_text())
    assert summary["splits"]["test"]["exact"] >= 3
    assert main(["export", "--splits", str(tmp_path / "clean"), "--out", str(tmp_path / "dataset"),
                 "--formats", "opennmt"]) == 0
    card = (tmp_path / "dataset" / "README.md").read_text()
    assert "## Contamination check" in card and "The overlapping rows were removed." in card
    removed = summary["splits"]["test"]["exact"] + summary["splits"]["test"]["near"]
    lines = (tmp_path / "dataset" / "opennmt" / "triplets" / "src-test.txt").read_text().splitlines()
    assert len(lines) == 1719 - removed


def _brute_force(queries: list[tuple[str, str]], references: list[tuple[str, str]]) -> list[bool]:
    """CodeNet's criterion pair by pair, with Python sets and Counters (no index, no shortcut)."""
    def bag(row: tuple[str, str]) -> Counter[str]:
        return Counter(f"{f}:{t}" for f, text in enumerate(row) for t in text.split())
    refs = [bag(r) for r in references]
    out = []
    for query in queries:
        q = bag(query)
        hit = False
        for r in refs:
            inter_set, union_set = len(q.keys() & r.keys()), len(q.keys() | r.keys())
            inter, union = sum((q & r).values()), sum((q | r).values())
            if inter_set / union_set >= 0.9 and inter / union >= 0.8:
                hit = True
                break
        out.append(hit)
    return out


def test_index_finds_what_brute_force_finds_on_real_methods(tufano_dir: Path, tmp_path: Path) -> None:
    src = (tufano_dir / "src-test.txt").read_text(encoding="utf-8").splitlines()
    tgt = (tufano_dir / "tgt-test.txt").read_text(encoding="utf-8").splitlines()
    rng = random.Random(1)
    references = list(zip(src[:150], tgt[:150]))
    queries = []
    for s, t in zip(src[:300], tgt[:300]):  # half of them edits of a reference, by 1 to 3 tokens
        tokens = s.split()
        for _ in range(rng.randint(1, 3)):
            tokens[rng.randrange(len(tokens))] = rng.choice(["VAR_1", "new_token", ";", "STRING_9"])
        queries.append((" ".join(tokens), t))
    pq.write_table(_table([(f"b{i}", s, t) for i, (s, t) in enumerate(references)]), tmp_path / "bench.parquet")
    pq.write_table(_table([(f"q{i}", s, t) for i, (s, t) in enumerate(queries)]), tmp_path / "new.parquet")
    summary, rows = check_overlap(tmp_path / "new.parquet", tmp_path / "bench.parquet")
    expected = _brute_force(queries, references)
    assert sum(expected) > 20  # the comparison is not vacuous
    assert sorted(rows.column("row").to_pylist()) == [i for i, hit in enumerate(expected) if hit]


def test_missing_column_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pq.write_table(pa.table({"m_s_abstract": ["a b"]}), tmp_path / "new.parquet")
    pq.write_table(_table([("b0", "a b", "c")]), tmp_path / "bench.parquet")
    assert main(["overlap", str(tmp_path / "new.parquet"), "--against", str(tmp_path / "bench.parquet")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "new.parquet [m_r_abstract]: missing column" in err[0]


def test_dask_engine_gives_the_same_result(tmp_path: Path) -> None:
    new, benchmark = _hand_worked(tmp_path)
    local = check_overlap(new, benchmark)
    on_dask = check_overlap(new, benchmark, engine="dask", workers=1)
    assert on_dask[0] == local[0] and on_dask[1].equals(local[1])
