"""Splits (no near-duplicate across splits, determinism, strategies) and the export (loadable, sized)."""

from __future__ import annotations

import json
import math
import os
import random
import re
import subprocess
import sys
import warnings
from collections import Counter
from datetime import datetime, timedelta, timezone
from itertools import product
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as pads
import pyarrow.parquet as pq
import pytest

from revmine.dataset import export
from revmine.dataset.export import ExportOptions, export_dataset
from revmine.dataset.options import PublishOptions
from revmine.dataset.split import SPLITS, SplitOptions, split_dataset
from revmine.errors import InputError
from revmine.filters.stage import FilterOptions, filter_candidates
from revmine.algorithms.near_duplicates import NearDuplicateConfig
from revmine.schema import DATASET_SCHEMA, ROUNDS_SCHEMA
from revmine.io.store import RowGroupWriter, write_table
from test_dataset_filters import candidate, table_of
from test_duplicates import brute_force_pairs, threshold_pairs

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
    """Brute force over every pair of rows in two different splits (CodeNet thresholds)."""
    for a, b in [("train", "eval"), ("train", "test"), ("eval", "test")]:
        leaks = brute_force_pairs([_bag(x) for x in splits[a]], [_bag(y) for y in splits[b]], NearDuplicateConfig())
        assert not leaks, [(splits[a][i]["id"], splits[b][j]["id"]) for i, j in leaks[:5]]


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


def test_split_keeps_same_code_with_other_comments_whole_and_together(tmp_path):
    """Each method's two near-identical triplets carry different comments: both are examples, so both
    stay, and in one split (their code would leak otherwise); their pairs are duplicates: one stays."""
    rows = planted()
    for row in rows:
        if row["kind"] == "triplet":
            row["comment_abstract"] = f"please rename VAR_1 ( change {row['change']} )"
    summary = split_dataset(table_of(rows), tmp_path, SplitOptions(seed=5))
    splits = _read_splits(tmp_path)
    assert_no_near_duplicate_across_splits(splits)
    assert summary["dropped"] == {"near_duplicate": 60}  # one pair of each method's two
    split_of: dict[str, set[str]] = {}
    for name, members in splits.items():
        for r in members:
            if r["kind"] == "triplet":
                split_of.setdefault(r["cluster_id"], set()).add(name)
    assert sum(len(r) for r in splits.values()) == 180 and len(split_of) == 60
    assert all(len(names) == 1 for names in split_of.values())


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
    assert set(dropped.column("reason").to_pylist()) == {"cross_split_near_duplicate"}


def _rounds_in_order(round_ids: list[str], path: Path) -> dict[str, datetime]:
    """A rounds.parquet at ``path`` whose rounds were created one day apart, in the order given."""
    start = datetime(2020, 1, 1, tzinfo=timezone.utc)
    rounds = [{"round_id": r, "source": "gerrit", "host": "h", "project": "p", "change": "1", "round": 1,
               "created": start + timedelta(days=k)} for k, r in enumerate(round_ids)]
    write_table(pa.Table.from_pylist(rounds, schema=ROUNDS_SCHEMA), path, ROUNDS_SCHEMA)
    return {r["round_id"]: r["created"] for r in rounds}


def test_time_split_orders_rounds(tmp_path, filtered):
    kept = pq.read_table(filtered)
    round_ids = sorted(set(kept.column("round_id").to_pylist()))
    random.Random(1).shuffle(round_ids)
    rounds_path = tmp_path / "rounds.parquet"
    when = _rounds_in_order(round_ids, rounds_path)
    split_dataset(filtered, tmp_path / "out", SplitOptions(strategy="time", rounds=rounds_path))
    splits = _read_splits(tmp_path / "out")
    assert_no_near_duplicate_across_splits(splits)
    times = {name: [when[r["round_id"]] for r in rows] for name, rows in splits.items()}
    assert max(times["train"]) < min(times["eval"]) and max(times["eval"]) < min(times["test"])
    with pytest.raises(InputError, match="rounds.parquet"):
        split_dataset(filtered, tmp_path / "x", SplitOptions(strategy="time"))


@pytest.mark.parametrize("given_clusters", [False, True])
def test_no_pair_at_the_threshold_straddles_splits(tmp_path, given_clusters):
    """2,000 planted pairs at set and multiset Jaccard 0.9-0.91, each with one row in the first third of the
    time order (train) and one in the last two thirds (eval, test), between unrelated rows: every pair
    straddles unless the split finds it. Raw rows: the old split clustered them with MinHash LSH, which
    missed a few pairs. Rows with clusters that say nothing (each row alone, as from a clusterer that missed
    them): the old split trusted them."""
    planted = threshold_pairs(2000, seed=5)
    unrelated = threshold_pairs(2000, seed=6)  # only their first documents: no two are near-duplicates

    def row(doc: list[str]) -> dict:  # m_s: the first 5 tokens (shared within a pair), m_r: the rest
        return candidate(kind="pair", m_s_abstract=" ".join(doc[:5]), m_r_abstract=" ".join(doc[5:]))
    firsts = [row(first) for first, _ in planted]
    later = [r for (_, second), (other, _) in zip(planted, unrelated) for r in (row(second), row(other))]
    table = table_of(firsts + later)
    if given_clusters:
        table = table.add_column(0, "id", table.column("change")).add_column(1, "cluster_id", table.column("change"))
    rounds_path = tmp_path / "rounds.parquet"
    _rounds_in_order([r["round_id"] for r in firsts + later], rounds_path)
    summary = split_dataset(table, tmp_path / "out",
                            SplitOptions(strategy="time", rounds=rounds_path, fractions=(1 / 3, 1 / 3, 1 / 3)))
    splits = _read_splits(tmp_path / "out")
    assert_no_near_duplicate_across_splits(splits)
    assert summary["dropped"] == {"cross_split_near_duplicate": 2000}  # every second of a pair: after train
    assert len(splits["train"]) == 2000 and len(splits["eval"]) + len(splits["test"]) == 2000


def test_split_options_are_validated():
    with pytest.raises(InputError, match="strategy"):
        SplitOptions(strategy="alphabetical")
    with pytest.raises(InputError, match="fractions"):
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
                     for p in (("src", "src1", "src2", "tgt") if kind == "triplet" else ("src", "tgt"))}
            assert {len(v) for v in lines.values()} == {table.num_rows}
            assert lines["src"] == table.column("m_s_abstract").to_pylist()
            if kind == "triplet":  # the 2-encoder input, named as in the replication package
                # each line ends with one space, as every line of the package's src2-test.txt does
                assert lines["src2"] == [m + " " for m in table.column("m_s_marked").to_pylist()]
                assert all("<START>" in line for line in lines["src2"])
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
    notes = []
    export_dataset(splits, tmp_path / "out", note=notes.append)
    assert len(notes) == 1 and "no rows in triplets: train, validation" in notes[0]
    assert (tmp_path / "out/opennmt/triplets/src1-test.txt").read_text() == "first line second third fourth\n"
    jsonl = (tmp_path / "out/jsonl/triplets/test.jsonl").read_text()
    assert len(jsonl.splitlines()) == 1 and json.loads(jsonl)["comment_abstract"].endswith("fourth")
    assert not (tmp_path / "out/data/pairs").exists()
    (splits / "split.json").write_text('{"strategy": "random",\n"seed": }\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"split\.json:2: not valid JSON"):  # a corrupt summary is named
        export_dataset(splits, tmp_path / "out2")


def offline_hf(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    """``datasets`` offline with its own cache: a local folder must load without the Hub."""
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(home))


def load_every_split(out: Path, summary: dict, cache: Path) -> dict[str, dict[str, int]]:
    """Rows of ``datasets.load_dataset(out, config, split=...)`` for every config and split the card lists;
    each split must give the rows the export wrote, with every column."""
    import datasets  # a test dependency: the export must load with the library users load it with
    import yaml  # pyyaml comes with datasets; the card's header must be valid YAML

    header = yaml.safe_load((out / "README.md").read_text().split("\n---\n")[0].removeprefix("---\n"))
    loaded: dict[str, dict[str, int]] = {}
    for config, split in [(c["config_name"], f["split"]) for c in header["configs"] for f in c["data_files"]]:
        part = datasets.load_dataset(str(out), config, split=split, cache_dir=str(cache))
        assert part.column_names == DATASET_SCHEMA.names
        loaded.setdefault(config, {})[split] = part.num_rows
    hf = {"train": "train", "eval": "validation", "test": "test"}
    assert loaded == {config: {hf[name]: n for name, n in by_split.items() if n}
                      for config, by_split in summary["sizes"].items()}
    return loaded


def run_card_code(out: Path, home: Path) -> str:
    """Run every ``python`` block of the card as written, in the export directory, in a fresh offline
    interpreter with an empty cache; return what they printed."""
    card = (out / "README.md").read_text()
    blocks = [block.split("\n```", 1)[0] for block in card.split("```python\n")[1:]]
    assert blocks
    env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "HF_HOME": str(home)}
    script = "\n".join(f"exec({block!r}, {{}})" for block in blocks)
    done = subprocess.run([sys.executable, "-c", script], cwd=out, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_export_loads_with_datasets(tmp_path, filtered, monkeypatch, no_network):
    offline_hf(monkeypatch, tmp_path / "hf")
    split_dataset(filtered, tmp_path / "splits")
    summary = export_dataset(tmp_path / "splits", tmp_path / "export")
    assert all(n for by_split in summary["sizes"].values() for n in by_split.values()) and not summary["empty_splits"]
    loaded = load_every_split(tmp_path / "export", summary, tmp_path / "hf")
    assert set(loaded) == {"triplets", "pairs"} and all(len(splits) == 3 for splits in loaded.values())
    printed = run_card_code(tmp_path / "export", tmp_path / "hf-card")
    first = pq.read_table(tmp_path / "export/data/triplets/train-00000-of-00001.parquet").column("m_s_abstract")
    assert first[0].as_py() in printed


def test_empty_split_is_left_out_of_the_card_with_a_note(tmp_path, monkeypatch, no_network):
    """Triplets in train and eval only, pairs in train only: every split with rows loads, the card snippet
    runs, the empty ones are named in a note and in the card, and their files are written, empty."""
    offline_hf(monkeypatch, tmp_path / "hf")
    rows = {"train": [candidate(), candidate(), candidate(kind="pair"), candidate(kind="pair")],
            "eval": [candidate()], "test": []}
    splits = tmp_path / "splits"
    for name, part in rows.items():
        table = table_of(part)
        ids = [f"{name}{i}" for i in range(len(part))]
        table = table.add_column(0, "id", pa.array(ids, pa.string()))
        table = table.add_column(1, "split", pa.array([name] * len(part), pa.string()))
        write_table(table.add_column(2, "cluster_id", pa.array(ids, pa.string())), splits / f"{name}.parquet",
                    DATASET_SCHEMA)
    notes = []
    summary = export_dataset(splits, tmp_path / "export", note=notes.append)
    assert notes == [f"{tmp_path / 'export' / 'README.md'}: no rows in triplets: test; pairs: validation, test: left "
                     "out of the card's configs (datasets cannot load a split with no rows)"]
    assert summary["empty_splits"] == {"triplets": ["test"], "pairs": ["eval", "test"]}
    out = tmp_path / "export"
    assert _card_data_files((out / "README.md").read_text()) == [
        "data/triplets/train-00000-of-00001.parquet", "data/triplets/validation-00000-of-00001.parquet",
        "data/pairs/train-00000-of-00001.parquet"]
    assert "**Empty splits** (no rows): triplets: test; pairs: validation, test." in (out / "README.md").read_text()
    assert load_every_split(out, summary, tmp_path / "hf") == {"triplets": {"train": 2, "validation": 1},
                                                               "pairs": {"train": 2}}
    assert pq.read_table(out / "data/pairs/test-00000-of-00001.parquet").num_rows == 0
    assert (out / "opennmt/pairs/src-eval.txt").read_text() == "" and (out / "jsonl/triplets/test.jsonl").is_file()
    run_card_code(out, tmp_path / "hf-card")

    # the first config's first split with rows is what the snippet prints: here triplets has no train rows
    train = pq.read_table(splits / "train.parquet")
    write_table(train.filter(pc.equal(train.column("kind"), "pair")), splits / "train.parquet", DATASET_SCHEMA)
    notes.clear()
    export_dataset(splits, out, note=notes.append)
    assert len(notes) == 1 and "triplets: train, test; pairs: validation, test" in notes[0]
    assert 'print(ds["validation"][0]["m_s_abstract"])' in (out / "README.md").read_text()
    run_card_code(out, tmp_path / "hf-card")
    notes.clear()
    summary = export_dataset(splits, out, ExportOptions(formats=("jsonl",)), note=notes.append)  # JSON Lines alone
    assert len(notes) == 1 and "triplets: train, test; pairs: validation, test" in notes[0]
    assert _card_data_files((out / "README.md").read_text()) == ["jsonl/triplets/eval.jsonl", "jsonl/pairs/train.jsonl"]
    assert load_every_split(out, summary, tmp_path / "hf") == {"triplets": {"validation": 1}, "pairs": {"train": 2}}
    run_card_code(out, tmp_path / "hf-card")


def test_export_is_byte_identical_for_the_same_splits(tmp_path, filtered):
    split_dataset(filtered, tmp_path / "splits")
    export_dataset(tmp_path / "splits", tmp_path / "a")
    export_dataset(tmp_path / "splits", tmp_path / "b")
    files = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(tmp_path / "b") for p in (tmp_path / "b").rglob("*") if p.is_file())
    assert all((tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes() for f in files)


def _tree(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def test_streamed_export_writes_fixed_row_groups_that_load_whole(tmp_path, filtered, monkeypatch, no_network):
    """Batches of 7 rows and row groups of 10: each Parquet file is what pyarrow writes from its whole (kind,
    split) in row groups of 10 and loads whole with datasets; the text files are those of one batch per split,
    and one batch and one row group give the bytes of writing the whole table (the export before streaming)."""
    split_dataset(filtered, tmp_path / "splits")
    options = ExportOptions(representations=("tokens",), publish=PublishOptions(pseudonyms=False))  # the rows as split, to compare bytes
    whole = export_dataset(tmp_path / "splits", tmp_path / "whole", options)
    monkeypatch.setattr(export, "BATCH_ROWS", 7)
    monkeypatch.setattr(export, "ROW_GROUP_ROWS", 10)
    streamed = export_dataset(tmp_path / "splits", tmp_path / "streamed", options)
    assert streamed == {**whole, "card": streamed["card"]}
    assert max(n for by_split in whole["sizes"].values() for n in by_split.values()) > 30  # batches, row groups
    files = _tree(tmp_path / "streamed")
    hf = {"train": "train", "eval": "validation", "test": "test"}
    for (config, kind), name in product((("triplets", "triplet"), ("pairs", "pair")), SPLITS):
        rows = pq.read_table(tmp_path / "splits" / f"{name}.parquet")
        rows = rows.filter(pc.equal(rows.column("kind"), kind)).select(DATASET_SCHEMA.names).cast(DATASET_SCHEMA)
        path = f"data/{config}/{hf[name]}-00000-of-00001.parquet"
        pq.write_table(rows, tmp_path / "one.parquet", compression="zstd")
        pq.write_table(rows, tmp_path / "groups.parquet", compression="zstd", row_group_size=10)
        assert (tmp_path / "whole" / path).read_bytes() == (tmp_path / "one.parquet").read_bytes(), path
        assert files.pop(path) == (tmp_path / "groups.parquet").read_bytes(), path
        assert pq.ParquetFile(tmp_path / "streamed" / path).num_row_groups == max(1, math.ceil(rows.num_rows / 10))
    assert files == {name: data for name, data in _tree(tmp_path / "whole").items() if not name.startswith("data/")}
    offline_hf(monkeypatch, tmp_path / "hf")
    load_every_split(tmp_path / "streamed", streamed, tmp_path / "hf")


def test_row_group_writer_writes_no_rows_as_pyarrow_does_and_nothing_on_an_error(tmp_path):
    with RowGroupWriter(tmp_path / "empty.parquet", DATASET_SCHEMA, 10):
        pass
    pq.write_table(DATASET_SCHEMA.empty_table(), tmp_path / "expected.parquet", compression="zstd")
    assert (tmp_path / "empty.parquet").read_bytes() == (tmp_path / "expected.parquet").read_bytes()
    assert pq.ParquetFile(tmp_path / "empty.parquet").num_row_groups == 1  # one empty group, as an empty split had
    rows = table_of([candidate()] * 25).add_column(0, "id", pa.array(["x"] * 25))
    rows = rows.add_column(1, "split", pa.array(["test"] * 25)).add_column(2, "cluster_id", pa.array(["x"] * 25))
    with pytest.raises(RuntimeError, match="disk full"):
        with RowGroupWriter(tmp_path / "failed.parquet", DATASET_SCHEMA, 10) as writer:
            writer.write(rows)  # two row groups written, five rows pending
            raise RuntimeError("disk full")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.parquet", "expected.parquet"]


def test_export_failing_mid_stream_leaves_the_previous_output_untouched(tmp_path, filtered, monkeypatch):
    split_dataset(filtered, tmp_path / "splits")
    out = tmp_path / "export"
    export_dataset(tmp_path / "splits", out)
    before = _tree(out)
    monkeypatch.setattr(export, "BATCH_ROWS", 7)
    formatted, format_rows = [], export.format_rows

    def fail_on_the_third_chunk(chunk, *args):
        formatted.append(chunk)
        if len(formatted) == 3:
            raise RuntimeError("disk full")
        return format_rows(chunk, *args)
    monkeypatch.setattr(export, "format_rows", fail_on_the_third_chunk)
    with pytest.raises(RuntimeError, match="disk full"):
        export_dataset(tmp_path / "splits", out)
    assert len(formatted) == 3
    assert _tree(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["export", "splits"]  # no staging folder, no temporary file


def test_failed_split_leaves_the_previous_output_untouched(tmp_path, filtered, monkeypatch):
    out = tmp_path / "splits"
    split_dataset(filtered, out, SplitOptions(seed=1))
    before = _bytes(out)

    def fail(*args, **kwargs):
        raise RuntimeError("disk full")
    monkeypatch.setattr("revmine.dataset.split.write_json", fail)  # after train/eval/test/dropped are written
    with pytest.raises(RuntimeError, match="disk full"):
        split_dataset(filtered, out, SplitOptions(seed=2))
    assert _bytes(out) == before  # not train of seed 2 beside test of seed 1
    assert [p.name for p in tmp_path.iterdir()] == ["splits"]  # no staging directory left behind


def test_output_directory_with_other_files_is_refused(tmp_path, filtered):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine")
    with pytest.raises(InputError, match="notes.txt"):  # replacing the directory would delete them
        split_dataset(filtered, mine)
    split_dataset(filtered, tmp_path / "splits")
    with pytest.raises(InputError, match="notes.txt"):
        export_dataset(tmp_path / "splits", mine)
    assert [p.name for p in mine.iterdir()] == ["notes.txt"]


def _files(out: Path) -> list[str]:
    return sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())


def _card_data_files(card: str) -> list[str]:
    return [line.split("path: ", 1)[1] for line in card.split("\n---\n")[0].splitlines() if "path: " in line]


def test_second_export_with_fewer_formats_leaves_no_stale_files(tmp_path, filtered):
    split_dataset(filtered, tmp_path / "splits")
    out = tmp_path / "export"
    export_dataset(tmp_path / "splits", out)
    assert {f.split("/")[0] for f in _files(out)} == {"README.md", "data", "opennmt", "jsonl"}

    summary = export_dataset(tmp_path / "splits", out, ExportOptions(formats=("jsonl",)))
    assert _files(out) == sorted(summary["files"])
    assert {f.split("/")[0] for f in _files(out)} == {"README.md", "jsonl"}
    card = (out / "README.md").read_text()
    paths = _card_data_files(card)
    assert len(paths) == 6 and all(p.startswith("jsonl/") and (out / p).is_file() for p in paths)
    assert "opennmt/" not in card and "data/" not in card

    export_dataset(tmp_path / "splits", out, ExportOptions(formats=("opennmt",)))
    card = (out / "README.md").read_text()
    assert _card_data_files(card) == [] and "configs:" not in card and "load_dataset" not in card
    assert {f.split("/")[0] for f in _files(out)} == {"README.md", "opennmt"}


@pytest.mark.parametrize("umask, expected", [(0o022, 0o755), (0o027, 0o750)])
def test_output_folders_get_the_permissions_mkdir_gives(tmp_path, filtered, umask, expected):
    """Others on a shared server read the split and the dataset as the umask allows (not mkdtemp's 0700)."""
    old = os.umask(umask)
    try:
        split_dataset(filtered, tmp_path / "splits")
        export_dataset(tmp_path / "splits", tmp_path / "export")
    finally:
        os.umask(old)
    assert (tmp_path / "splits").stat().st_mode & 0o777 == expected
    assert (tmp_path / "export").stat().st_mode & 0o777 == expected
    assert all(p.stat().st_mode & 0o777 == expected for p in (tmp_path / "export").rglob("*") if p.is_dir())


def test_export_command_says_empty_splits_in_one_note_silenced_by_q(tmp_path, capsys):
    """Not a Python warning with its source line: one line on stderr, none with -q."""
    from revmine.cli import main

    table = table_of([candidate()]).add_column(0, "id", pa.array(["x"])).add_column(1, "split", pa.array(["test"]))
    table = table.add_column(2, "cluster_id", pa.array(["x"]))
    for name in SPLITS:
        write_table(table if name == "test" else table.slice(0, 0), tmp_path / "splits" / f"{name}.parquet",
                    DATASET_SCHEMA)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert main(["export", "--splits", str(tmp_path / "splits"), "--out", str(tmp_path / "out")]) == 0
    assert capsys.readouterr().err == (f"{tmp_path / 'out' / 'README.md'}: no rows in triplets: train, validation: "
                                       "left out of the card's configs (datasets cannot load a split with no rows)\n")
    assert main(["-q", "export", "--splits", str(tmp_path / "splits"), "--out", str(tmp_path / "out")]) == 0
    assert capsys.readouterr().err == ""


def _card_sources(card: str) -> dict[tuple[str, str], list[int]]:
    """The card's Sources table: (source, config) -> projects, rows per split and total."""
    section = card.split("## Sources", 1)[1].split("\n## ", 1)[0]
    rows = [line.strip("|").split("|") for line in section.splitlines() if line.startswith("| ") and "---" not in line]
    return {(r[0].strip(), r[1].strip()): [int(c.replace(",", "")) for c in r[2:]] for r in rows[1:]}


def test_card_counts_sources_and_projects_per_config(tmp_path, filtered):
    """Triplets and pairs apart, each figure the splits' own count (a reviewed method gives both kinds)."""
    split_dataset(filtered, tmp_path / "splits")
    card = Path(export_dataset(tmp_path / "splits", tmp_path / "export")["card"]).read_text()
    rows = pa.concat_tables(pq.read_table(tmp_path / "splits" / f"{name}.parquet") for name in SPLITS).to_pylist()
    expected = {}
    for source, kind in {(r["source"], r["kind"]) for r in rows}:
        mine = [r for r in rows if (r["source"], r["kind"]) == (source, kind)]
        per_split = [sum(r["split"] == name for r in mine) for name in SPLITS]
        expected[(source, f"{kind}s")] = [len({r["project"] for r in mine}), *per_split, len(mine)]
    assert _card_sources(card) == expected
    for kind in ("triplet", "pair"):
        projects = Counter(r["project"] for r in rows if r["kind"] == kind)
        top = max(projects.values())
        assert f"Projects with the most {kind}s ({len(projects)} of {len(projects)}):" in card
        assert any(line.endswith(f"({top})") for line in card.split(f"most {kind}s", 1)[1].splitlines()[2:3])
    assert "Projects with the most rows" not in card
    assert "mined from Gerrit reviews" in card and "imported" not in card.split("## Sizes")[0]


def test_card_of_an_imported_dataset_says_where_its_rows_come_from(tmp_path):
    """Triplets of a published dataset: no forge, no pairs in the description, the import named."""
    splits = tmp_path / "splits"
    for name in SPLITS:
        rows = [candidate(source="tufano2021", project="unknown", round_id=f"tufano2021:unknown:{name}{i}")
                for i in range(2)]
        table = table_of(rows)
        ids = [f"{name}{i}" for i in range(2)]
        table = table.add_column(0, "id", pa.array(ids)).add_column(1, "split", pa.array([name] * 2))
        write_table(table.add_column(2, "cluster_id", pa.array(ids)), splits / f"{name}.parquet", DATASET_SCHEMA)
    card = Path(export_dataset(splits, tmp_path / "export")["card"]).read_text()
    intro = card.split("\n---\n", 1)[1].split("## Sizes")[0]
    assert "imported from the published dataset `tufano2021`" in intro and "**triplets**" in intro
    assert "Gerrit" not in intro and "GitHub" not in intro and "pairs" not in intro
    assert _card_sources(card) == {("tufano2021", "triplets"): [1, 2, 2, 2, 6]}


def test_every_output_says_eval_is_the_hubs_validation(tmp_path, filtered):
    """The rows and files say ``eval``, the card's configs ``validation``: the split summary, the export's result
    and the card each state the mapping, and the card's header points ``validation`` at the ``eval`` files."""
    summary = split_dataset(filtered, tmp_path / "splits")
    assert summary["split_names"] == {"eval": "validation"}
    assert json.loads((tmp_path / "splits" / "split.json").read_text())["split_names"] == {"eval": "validation"}
    assert set(pq.read_table(tmp_path / "splits" / "eval.parquet").column("split").to_pylist()) == {"eval"}
    result = export_dataset(tmp_path / "splits", tmp_path / "export", ExportOptions(formats=("jsonl", "opennmt")))
    assert result["split_names"] == {"eval": "validation"}
    card = (tmp_path / "export" / "README.md").read_text()
    header = card.split("\n---\n")[0].splitlines()
    assert header[header.index("  - split: validation") + 1] == "    path: jsonl/triplets/eval.jsonl"
    assert "Split names: `validation` (the Hugging Face name" in card and "call `eval`." in card
    assert "| `split` | string | train, eval or test (`eval` is the `validation` split of the configs) |" in card
    assert card.count("splits named train, eval (the configs' validation), test.") == 2


def test_the_card_shows_hostile_names_as_text(tmp_path):
    """Issue 31: the card copied the title and the project names raw into Markdown, so a project could put a
    link, an image, HTML or a table cell into it. Every punctuation is escaped (CommonMark's backslash escapes):
    undoing those escapes gives each name back exactly, and no punctuation is left unescaped."""
    evil = "x](http://evil.example) <img src=x onerror=alert(1)> | *b* `c`"
    title = "# Title\nwith [a link](http://evil.example)"
    rows = [candidate(project=evil), candidate(project="plain/project")]
    table = table_of(rows)
    ids = [f"t{i}" for i in range(len(rows))]
    for position, (name, values) in enumerate((("id", ids), ("split", ["train"] * len(rows)), ("cluster_id", ids))):
        table = table.add_column(position, name, pa.array(values, pa.string()))
    write_table(table, tmp_path / "splits" / "train.parquet", DATASET_SCHEMA)
    for name in ("eval", "test"):
        write_table(table.slice(0, 0), tmp_path / "splits" / f"{name}.parquet", DATASET_SCHEMA)
    export_dataset(tmp_path / "splits", tmp_path / "export", ExportOptions(name=title))
    body = (tmp_path / "export" / "README.md").read_text().split("\n---\n", 1)[1]
    heading = next(line for line in body.splitlines() if line.startswith("# "))
    listed = [line for line in body.splitlines() if line.startswith("- gerrit: ")]
    projects = sorted(line[len("- gerrit: "):].rsplit(" (", 1)[0] for line in listed)  # "- source: name (rows)"
    unescape = lambda text: re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text)  # noqa: E731 - CommonMark's rule
    assert unescape(heading[2:]) == " ".join(title.splitlines())
    assert sorted(map(unescape, projects)) == sorted([evil, "plain/project"])
    for text in [heading[2:], *projects]:  # once the escapes are taken out, no punctuation is left to act
        assert not re.search(r"[!-/:-@\[-`{-~]", re.sub(r"\\[!-/:-@\[-`{-~]", "", text))


def test_a_method_level_export_says_the_hunk_level_holds_nothing(tmp_path, filtered):
    """A job of the method level alone: the card's Levels table gives the rows per config, and no hunk rows."""
    split_dataset(filtered, tmp_path / "splits")
    summary = export_dataset(tmp_path / "splits", tmp_path / "export")
    sizes = {config: sum(by_split.values()) for config, by_split in summary["sizes"].items()}
    assert summary["levels"] == {"method": sizes, "hunk": {}} and all(sizes.values())
    card = (tmp_path / "export" / "README.md").read_text(encoding="utf-8")
    assert "| hunk (CodeReviewer, Li et al., ESEC/FSE 2022) | a diff hunk of a change | none | - |" in card
    assert ", ".join(f"{n:,} {config}" for config, n in sizes.items()) + " | `data/`, `opennmt/`, `jsonl/` |" in card
    assert not (tmp_path / "export" / "codereviewer").exists()
