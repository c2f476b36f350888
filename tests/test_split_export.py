"""Splits (no near-duplicate across splits, determinism, strategies) and the export (loadable, sized)."""

from __future__ import annotations

import json
import random
from collections import Counter
from datetime import datetime, timedelta, timezone
from itertools import product
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.dataset as pads
import pyarrow.parquet as pq
import pytest

from revmine.dataset.export import ExportOptions, export_dataset
from revmine.dataset.split import SPLITS, SplitOptions, split_dataset
from revmine.errors import InputError
from revmine.filters.dataset import FilterOptions, filter_candidates
from revmine.filters.duplicates import jaccard
from revmine.schema import DATASET_SCHEMA, ROUNDS_SCHEMA
from revmine.store import write_table
from test_dataset_filters import candidate, table_of

VOCAB = [f"VAR_{k}" for k in range(1, 60)] + ["(", ")", "{", "}", ";", "=", "+", "return", "if", "null"]


def _method(rng: random.Random) -> list[str]:
    return ["public", "void", "METHOD_1", "(", ")", "{", *rng.sample(VOCAB, 30), "}"]


def planted(n_methods: int = 60, seed: int = 3) -> list[dict]:
    """Methods in 6 projects; every method also has a near-duplicate (one token changed) in another
    project and round, and a pair beside its triplet: clusters that a careless split would cut."""
    rng = random.Random(seed)
    rows = []
    for m in range(n_methods):
        tokens = _method(rng)
        edited = list(tokens)
        edited[8] = "VAR_99"
        for copy, (variant, kind) in enumerate(product((tokens, edited), ("triplet", "pair"))):
            project = f"p{(m + copy // 2) % 6}"
            change = f"{m}{copy // 2}"
            rows.append(candidate(kind=kind, project=project, change=change,
                                  round_id=f"gerrit:h:{project}:{change}:1", m_s_abstract=" ".join(variant),
                                  m_r_abstract=" ".join(variant[:-2] + ["}"])))
    return rows


def _bag(row: dict) -> Counter:
    return Counter([f"0\x1f{t}" for t in row["m_s_abstract"].split()] + [f"1\x1f{t}" for t in row["m_r_abstract"].split()])


def _read_splits(out: Path) -> dict[str, list[dict]]:
    return {name: pq.read_table(out / f"{name}.parquet").to_pylist() for name in SPLITS}


def assert_no_near_duplicate_across_splits(splits: dict[str, list[dict]]) -> None:
    for a, b in [("train", "eval"), ("train", "test"), ("eval", "test")]:
        for x, y in product(splits[a], splits[b]):
            set_j, multi_j = jaccard(_bag(x), _bag(y))
            assert not (set_j >= 0.9 and multi_j >= 0.8), (x["id"], y["id"])


@pytest.fixture(scope="module")
def filtered(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("filtered")
    never = FilterOptions(is_noise=lambda texts: np.zeros(len(texts), dtype=bool))
    return Path(filter_candidates(table_of(planted()), out, never)["kept_path"])


def test_random_split_keeps_clusters_whole(tmp_path, filtered):
    summary = split_dataset(filtered, tmp_path)
    splits = _read_splits(tmp_path)
    assert all(splits.values())
    assert_no_near_duplicate_across_splits(splits)
    clusters = {name: {r["cluster_id"] for r in rows} for name, rows in splits.items()}
    assert not (clusters["train"] & clusters["eval"] or clusters["train"] & clusters["test"]
                or clusters["eval"] & clusters["test"])
    total = sum(len(rows) for rows in splits.values())
    assert total == 120  # the filter kept one triplet and one pair per cluster
    assert abs(len(splits["train"]) - 0.8 * total) <= 4
    assert summary["dropped"] == {}


def test_split_of_raw_candidates_finds_and_removes_near_duplicates(tmp_path):
    summary = split_dataset(table_of(planted()), tmp_path, SplitOptions(seed=5))
    splits = _read_splits(tmp_path)
    assert_no_near_duplicate_across_splits(splits)
    assert summary["dropped"] == {"near_duplicate": 120}
    for rows in splits.values():  # within a split: one row per cluster and kind
        keys = [(r["cluster_id"], r["kind"]) for r in rows]
        assert len(keys) == len(set(keys))


def _bytes(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.iterdir())}


def test_split_is_deterministic_and_seeded(tmp_path, filtered):
    split_dataset(filtered, tmp_path / "a", SplitOptions(seed=1))
    split_dataset(filtered, tmp_path / "b", SplitOptions(seed=1))
    shuffled = pq.read_table(filtered).to_pylist()
    random.Random(0).shuffle(shuffled)
    split_dataset(pa.Table.from_pylist(shuffled), tmp_path / "c", SplitOptions(seed=1))
    split_dataset(filtered, tmp_path / "d", SplitOptions(seed=2))
    assert _bytes(tmp_path / "a") == _bytes(tmp_path / "b") == _bytes(tmp_path / "c")
    assert _bytes(tmp_path / "a")["train.parquet"] != _bytes(tmp_path / "d")["train.parquet"]


def test_project_split_keeps_projects_apart_and_drops_straddling_clusters(tmp_path, filtered):
    summary = split_dataset(filtered, tmp_path, SplitOptions(strategy="project", seed=0))
    splits = _read_splits(tmp_path)
    projects = {name: {r["project"] for r in rows} for name, rows in splits.items()}
    assert not (projects["train"] & projects["eval"] or projects["train"] & projects["test"]
                or projects["eval"] & projects["test"])
    assert_no_near_duplicate_across_splits(splits)
    assert summary["dropped"]["cross_split_near_duplicate"] > 0  # clusters span projects by construction
    dropped = pq.read_table(summary["dropped_path"])
    assert set(dropped.column("filter").to_pylist()) == {"cross_split_near_duplicate"}


def test_time_split_orders_rounds(tmp_path, filtered):
    kept = pq.read_table(filtered)
    start = datetime(2020, 1, 1, tzinfo=timezone.utc)
    round_ids = sorted(set(kept.column("round_id").to_pylist()))
    random.Random(1).shuffle(round_ids)
    rounds = [{"round_id": r, "source": "gerrit", "host": "h", "project": "p", "change": "1", "round": 1,
               "created": start + timedelta(days=k)} for k, r in enumerate(round_ids)]
    rounds_path = write_table(pa.Table.from_pylist(rounds, schema=ROUNDS_SCHEMA), tmp_path / "rounds.parquet",
                              ROUNDS_SCHEMA)
    split_dataset(filtered, tmp_path / "out", SplitOptions(strategy="time", rounds=rounds_path))
    when = {r["round_id"]: r["created"] for r in rounds}
    splits = _read_splits(tmp_path / "out")
    assert_no_near_duplicate_across_splits(splits)
    times = {name: [when[r["round_id"]] for r in rows] for name, rows in splits.items()}
    assert max(times["train"]) < min(times["eval"]) and max(times["eval"]) < min(times["test"])
    with pytest.raises(InputError, match="rounds.parquet"):
        split_dataset(filtered, tmp_path / "x", SplitOptions(strategy="time"))


def test_split_options_are_validated():
    with pytest.raises(ValueError, match="strategy"):
        SplitOptions(strategy="alphabetical")
    with pytest.raises(ValueError, match="fractions"):
        SplitOptions(fractions=(0.8, 0.1, 0.2))


def test_export_loads_with_expected_sizes_and_columns(tmp_path, filtered):
    report = filtered.parent / "filter_report.parquet"
    split_dataset(filtered, tmp_path / "splits")
    summary = export_dataset(tmp_path / "splits", tmp_path / "export", ExportOptions(filter_report=report))
    sizes = {name: len(rows) for name, rows in _read_splits(tmp_path / "splits").items()}
    out = tmp_path / "export"
    hf = {"train": "train", "eval": "validation", "test": "test"}
    for config, kind in (("triplets", "triplet"), ("pairs", "pair")):
        for name in SPLITS:
            table = pads.dataset(out / f"data/{config}/{hf[name]}-00000-of-00001.parquet").to_table()
            assert table.schema.names == DATASET_SCHEMA.names
            assert set(table.column("kind").to_pylist()) <= {kind}
            assert table.num_rows == summary["sizes"][config][name]
            lines = {p: (out / f"opennmt/{config}/{p}-{name}.txt").read_text().split("\n")[:-1]
                     for p in (("src", "src1", "tgt") if kind == "triplet" else ("src", "tgt"))}
            assert {len(v) for v in lines.values()} == {table.num_rows}
            assert lines["src"] == table.column("m_s_abstract").to_pylist()
            jsonl = [json.loads(line) for line in (out / f"jsonl/{config}/{name}.jsonl").read_text().splitlines()]
            assert [r["id"] for r in jsonl] == table.column("id").to_pylist()
    everything = pads.dataset(out / "data", format="parquet").to_table()
    assert everything.num_rows == sum(sizes.values())
    card = (out / "README.md").read_text()
    assert card.startswith("---\n") and "config_name: triplets" in card and "split: validation" in card
    assert "| near_duplicate |" in card and "load_dataset" in card and "## Licence" in card


def test_export_flattens_texts_to_one_line(tmp_path):
    row = candidate(comment_abstract="first line\nsecond\u2028third\r\nfourth")
    table = table_of([row]).add_column(0, "id", pa.array(["x"])).add_column(1, "split", pa.array(["test"]))
    table = table.add_column(2, "cluster_id", pa.array(["x"]))
    splits = tmp_path / "splits"
    for name in SPLITS:
        write_table(table if name == "test" else table.slice(0, 0), splits / f"{name}.parquet", DATASET_SCHEMA)
    export_dataset(splits, tmp_path / "out")
    assert (tmp_path / "out/opennmt/triplets/src1-test.txt").read_text() == "first line second third fourth\n"
    jsonl = (tmp_path / "out/jsonl/triplets/test.jsonl").read_text()
    assert len(jsonl.splitlines()) == 1 and json.loads(jsonl)["comment_abstract"].endswith("fourth")
    assert not (tmp_path / "out/data/pairs").exists()


def test_export_loads_with_datasets_when_installed(tmp_path, filtered):
    datasets = pytest.importorskip("datasets")
    split_dataset(filtered, tmp_path / "splits")
    summary = export_dataset(tmp_path / "splits", tmp_path / "export")
    loaded = datasets.load_dataset(str(tmp_path / "export"), "pairs")
    assert {name: loaded[name].num_rows for name in loaded} == {
        "train": summary["sizes"]["pairs"]["train"], "validation": summary["sizes"]["pairs"]["eval"],
        "test": summary["sizes"]["pairs"]["test"]}


def test_export_is_byte_identical_for_the_same_splits(tmp_path, filtered):
    split_dataset(filtered, tmp_path / "splits")
    export_dataset(tmp_path / "splits", tmp_path / "a")
    export_dataset(tmp_path / "splits", tmp_path / "b")
    files = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(tmp_path / "b") for p in (tmp_path / "b").rglob("*") if p.is_file())
    assert all((tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes() for f in files)
