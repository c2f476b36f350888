"""The whole job on Dask writes the bytes it writes in-process: example job, filter and split on real methods.

A LocalCluster of two worker processes (started and closed here) stands for a cluster; the job reaches it by
address, as ``revmine run JOB --engine dask --scheduler tcp://...`` does.
"""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import json
import logging
import math
import random
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from revmine.cli import main
from revmine.dataset import export
from revmine.dataset.export import ExportOptions, export_dataset
from revmine.dataset.split import SplitOptions, split_dataset
from revmine.runtime.engine import open_engine
from revmine.filters.stage import FilterOptions, filter_candidates
from revmine.metrics import score
from revmine.algorithms.near_duplicates import NearDuplicateConfig, near_duplicate_clusters

from test_dataset_filters import candidate, table_of

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
#: Mining recordings is not on the engine (tests/test_dask_mining.py mines a forge on it); its bookkeeping records
#: wall-clock times, the recording server's random port and absolute paths, so two runs on the same engine differ
#: there too. Its data files are compared.
MINING_BOOKKEEPING = ("mined/http_cache.sqlite", "mined/manifest.json", "mined/repos/", "mined/state/")
#: run.json holds seconds and absolute paths: compared by :func:`_record` instead; the reports (the run's and
#: the scores') show the folder and when they were made
RECORDS = (*MINING_BOOKKEEPING, "run.json", "report.html", "scores/report.html")


@pytest.fixture(scope="module")
def scheduler() -> str:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  scheduler_port=0, dashboard_address="127.0.0.1:0",
                                  silence_logs=logging.ERROR) as cluster:
        yield cluster.scheduler_address


def _digests(folder: Path, leave_out: tuple[str, ...] = ()) -> dict[str, str]:
    return {name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.rglob("*"))
            if p.is_file() and not (name := p.relative_to(folder).as_posix()).startswith(leave_out)}


def _record(out: Path) -> dict:
    """run.json without what says when and where: the seconds each stage took and the output folder."""
    state = json.loads((out / "run.json").read_text().replace(str(out), "OUT"))
    return {stage: {k: v for k, v in done.items() if k != "seconds"} for stage, done in state.items()}


def test_example_job_on_dask_writes_the_same_bytes_and_resumes_across_engines(
        tmp_path: Path, scheduler: str, no_network: None, capsys: pytest.CaptureFixture[str]) -> None:
    local, dask = tmp_path / "local", tmp_path / "dask"
    job = tmp_path / "job.toml"  # the example job, scoring the quickstart's predictions too
    job.write_text((EXAMPLES / "job.toml").read_text()
                   .replace('recordings = "mining"', f'recordings = "{(EXAMPLES / "mining").as_posix()}"')
                   + f'\n[score]\npredictions = "{(EXAMPLES / "quickstart" / "predictions_k3.txt").as_posix()}"\n')
    assert main(["run", str(job), "--out", str(local)]) == 0
    assert main(["run", str(job), "--out", str(dask), "--engine", "dask", "--scheduler", scheduler]) == 0
    files = _digests(local, RECORDS)
    assert {"dataset/README.md", "filtered/kept.parquet", "splits/test.parquet", "scores/scores.parquet",
            "scores/summary.json"} <= set(files)
    assert any(name.startswith("mined/rounds.parquet/") for name in files)  # a folder of parts
    assert files == _digests(dask, RECORDS)
    assert _record(local) == _record(dask)  # same fingerprints: the engine is not part of them
    capsys.readouterr()
    # so a job done in-process is done on Dask too: nothing runs again
    assert main(["run", str(job), "--out", str(local), "--engine", "dask", "--scheduler", scheduler]) == 0
    assert capsys.readouterr().err.count("already done, skipped") == 6


def _published_candidates(tufano_dir: Path, copies: int, seed: int = 0) -> list[dict]:
    """The 1,719 published test triplets (raw comments from test.csv), then ``copies`` rows that are one to
    three token edits of them (half as pairs), so that near-duplicate clusters of every size exist."""
    names = ("src", "tgt", "src1", "src2")
    lines = {name: (tufano_dir / f"{name}-test.txt").read_text(encoding="utf-8").splitlines() for name in names}
    with open(tufano_dir / "test.csv", newline="", encoding="utf-8") as f:
        comments = [row["comment"] for row in csv.DictReader(f)]
    rows = [candidate(m_s_abstract=m_s, m_r_abstract=m_r, comment_abstract=c, comment=raw, m_s_marked=marked)
            for m_s, m_r, c, marked, raw in zip(*(lines[n] for n in names), comments)]
    rng = random.Random(seed)
    for _ in range(copies):
        row = dict(rng.choice(rows[:len(comments)]))
        tokens = row["m_s_abstract"].split()
        for _ in range(rng.randint(1, 3)):
            tokens[rng.randrange(len(tokens))] = rng.choice(tokens)
        edited = candidate(m_s_abstract=" ".join(tokens), m_r_abstract=row["m_r_abstract"],
                           comment_abstract=row["comment_abstract"], comment=row["comment"],
                           m_s_marked=row["m_s_marked"], **({"kind": "pair"} if rng.random() < 0.5 else {}))
        rows.append(edited)
    return rows


def test_filter_and_split_of_real_methods_are_byte_identical_on_dask(tmp_path: Path, tufano_dir: Path,
                                                                     scheduler: str) -> None:
    """The real noise classifier over the published comments and the near-duplicate join over their code."""
    table = table_of(_published_candidates(tufano_dir, copies=1500))
    outputs = {}
    for name in ("local", "dask"):
        with open_engine("dask", address=scheduler) if name == "dask" else open_engine() as engine:
            engine_or_none = engine if name == "dask" else None
            filtered = filter_candidates(table, tmp_path / name / "filtered",
                                         FilterOptions(max_tokens=10_000, engine=engine_or_none))
            split_dataset(filtered["kept_path"], tmp_path / name / "splits", SplitOptions(engine=engine_or_none))
        outputs[name] = _digests(tmp_path / name)
    assert outputs["local"] == outputs["dask"]
    assert len(outputs["local"]) == 4 + 5  # kept, dropped, report (.parquet, .md); three splits, dropped, summary
    dropped = filtered["removed_by_filter"]
    assert dropped["triplet"]["noise"] > 0 and dropped["triplet"]["near_duplicate"] > 0  # both steps had work


@pytest.mark.parametrize("thresholds", [(0.9, 0.8), (0.8, 0.7), (0.7, 0.6)])
def test_partitioned_join_finds_the_clusters_of_the_in_process_one(tufano_dir: Path, scheduler: str,
                                                                   thresholds: tuple[float, float]) -> None:
    """CodeNet's and Allamanis's thresholds, and a loose one (long candidate lists, big clusters)."""
    rows = _published_candidates(tufano_dir, copies=3000, seed=1)
    docs = [row["m_s_abstract"].split() for row in rows]
    config = NearDuplicateConfig(*thresholds)
    here = near_duplicate_clusters(docs, config)
    with open_engine("dask", address=scheduler) as engine:
        there = near_duplicate_clusters(docs, config, engine)
    assert there.labels.tolist() == here.labels.tolist()
    assert here.count < len(docs) - 1000  # the planted copies did cluster
    # every pair it reports is a true near-duplicate pair, with its exact indices
    for i, j, set_j, multi_j in there.pairs[::50]:
        a, b = set(docs[i]), set(docs[j])
        assert set_j == len(a & b) / len(a | b) >= config.set_threshold


def test_engine_settings_are_checked_before_anything_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    job = tmp_path / "job.toml"
    job.write_text((EXAMPLES / "job.toml").read_text().replace("[job]", f'[job]\nout = "{(tmp_path / "out").as_posix()}"')
                   .replace('recordings = "mining"', f'recordings = "{(EXAMPLES / "mining").as_posix()}"')
                   + '\n[engine]\nengine = "spark"\n')
    assert main(["run", str(job)]) == 2
    assert "[engine.engine]" in capsys.readouterr().err
    job.write_text(job.read_text().replace('engine = "spark"', 'workers = 2'))
    assert main(["run", str(job)]) == 2  # two workers of the local engine: a silently serial run refused
    assert "[engine" in capsys.readouterr().err
    assert main(["run", str(job), "--engine", "local", "--scheduler", "tcp://127.0.0.1:8786"]) == 2
    assert "need engine 'dask'" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_score_is_byte_identical_on_dask(tmp_path: Path, tufano_dir: Path, scheduler: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """The quickstart's three-best predictions, and 150 of the published encoder's ten-best (two chunks of
    whole beams), with corpus-level metrics (BLEU, chrF, TER sum statistics over the corpus)."""
    published = tmp_path / "encoder_k10_150.txt"
    blocks = (tufano_dir / "predictions" / "1-encoder_k10_abstracted.txt").read_text(encoding="utf-8").split("\n\n")
    published.write_text("\n\n".join(blocks[:150]) + "\n", encoding="utf-8")
    assert 150 * 10 > score.ENGINE_CHUNK  # more than one call
    cases = {"quickstart": [str(EXAMPLES / "quickstart" / "predictions_k3.txt")],
             "published": [str(published), "--metrics", "bleu,chrf,ter,levenshtein,sed,treed"]}
    for name, arguments in cases.items():
        local, dask = tmp_path / name / "local", tmp_path / name / "dask"
        assert main(["score", *arguments, "--out", str(local)]) == 0
        assert main(["score", *arguments, "--out", str(dask), "--engine", "dask", "--scheduler", scheduler]) == 0
        assert _digests(local) == _digests(dask)
    summary = json.loads((tmp_path / "published" / "dask" / "summary.json").read_text())
    assert summary["examples"] == 150 and set(summary["corpus_rank1"]) == {"bleu4", "chrf", "ter"}
    assert pq.read_table(tmp_path / "published" / "dask" / "scores.parquet").num_rows == 1500
    capsys.readouterr()
    assert main(["score", cases["quickstart"][0], "--scheduler", scheduler]) == 2  # the local engine has none
    assert "needs engine 'dask'" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["filter", "split"])
def test_filter_and_split_commands_refuse_bad_engine_settings(tmp_path: Path, command: str,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "candidates.parquet"
    pq.write_table(table_of([candidate()]), source)
    flag = "--candidates" if command == "filter" else "--dataset"
    for bad, message in ((["--engine", "spark"], "--engine"), (["--workers", "0"], "--workers"),
                         (["--workers", "2"], "need engine 'dask'"),
                         (["--scheduler", "tcp://127.0.0.1:8786"], "need engine 'dask'")):
        assert main([command, flag, str(source), "--out", str(tmp_path / "out"), *bad]) == 2
        assert message in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_filter_and_split_commands_write_the_same_bytes_on_dask(tmp_path: Path, tufano_dir: Path,
                                                               scheduler: str) -> None:
    source = tmp_path / "candidates.parquet"
    pq.write_table(table_of(_published_candidates(tufano_dir, copies=300)), source)
    for name, engine in (("local", []), ("dask", ["--engine", "dask", "--scheduler", scheduler])):
        assert main(["filter", "--candidates", str(source), "--out", str(tmp_path / name / "filtered"),
                     "--max-tokens", "10000", *engine]) == 0
        assert main(["split", "--dataset", str(tmp_path / name / "filtered" / "kept.parquet"),
                     "--out", str(tmp_path / name / "splits"), *engine]) == 0
    assert _digests(tmp_path / "local") == _digests(tmp_path / "dask")
    assert len(_digests(tmp_path / "dask")) == 4 + 5
    dropped = pq.read_table(tmp_path / "dask" / "filtered" / "dropped.parquet", columns=["reason"]).column(0)
    assert {"noise", "near_duplicate"} <= set(dropped.to_pylist())  # both engine steps had work


def test_export_with_representations_is_byte_identical_on_dask(tmp_path: Path, tufano_dir: Path,
                                                               scheduler: str) -> None:
    """The fixture as ``revmine import tufano2021`` brings it, with token streams and SPTs: its chunks of rows
    are formatted on the workers, one task each, and the client writes the in-process bytes."""
    distributed = pytest.importorskip("distributed")
    assert main(["import", "tufano2021", str(tufano_dir), "--out", str(tmp_path / "imported")]) == 0
    options = ExportOptions(representations=("tokens", "spt"))
    notes: list[str] = []
    export_dataset(tmp_path / "imported", tmp_path / "local", options, note=notes.append)
    with open_engine("dask", address=scheduler) as engine, distributed.get_task_stream(engine.client) as tasks:
        export_dataset(tmp_path / "imported", tmp_path / "dask", dataclasses.replace(options, engine=engine),
                       note=notes.append)
    assert len(notes) == 2 and all("no rows in triplets: train, validation" in n for n in notes)
    files = _digests(tmp_path / "local")
    assert len(files) == 3 * (1 + 4 + 1 + 1) + 1  # per split: Parquet, 4 OpenNMT, JSON Lines, representations; card
    assert files == _digests(tmp_path / "dask")
    assert len([t for t in tasks.data if t["key"].startswith("_call")]) == math.ceil(1719 / export.BATCH_ROWS)
    # the SPT totals are summed over the chunks: methods are m_s and m_r of each of the 1,719 rows
    assert "| triplets | test | 3,438 |" in (tmp_path / "dask" / "README.md").read_text()


def test_export_command_writes_the_same_bytes_on_dask(tmp_path: Path, tufano_dir: Path, scheduler: str) -> None:
    """Triplets and pairs in every split, every format and token streams, through ``revmine export``."""
    split_dataset(table_of(_published_candidates(tufano_dir, copies=1500)), tmp_path / "splits")
    for name, engine in (("local", []), ("dask", ["--engine", "dask", "--scheduler", scheduler])):
        assert main(["export", "--splits", str(tmp_path / "splits"), "--out", str(tmp_path / name),
                     "--representations", "tokens", *engine]) == 0
    files = _digests(tmp_path / "local")
    assert len(files) == 3 * (1 + 4 + 1 + 1) + 3 * (1 + 2 + 1 + 1) + 1
    assert files == _digests(tmp_path / "dask")
    train = pq.read_table(tmp_path / "splits" / "train.parquet", columns=["kind"]).column(0).to_pylist()
    assert len(train) > 2 * export.BATCH_ROWS and set(train) == {"triplet", "pair"}  # chunks of both kinds


@pytest.mark.parametrize("bad, message", [(["--engine", "spark"], "--engine"), (["--workers", "2"], "need engine 'dask'")])
def test_export_command_refuses_bad_engine_settings(tmp_path: Path, bad: list[str], message: str,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", "--splits", str(tmp_path), "--out", str(tmp_path / "out"), *bad]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
