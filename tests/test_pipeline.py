"""The main job on the bundled example, end to end and offline: outputs, resume, determinism, errors."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pyarrow.dataset as ds
import pytest

from revmine.cli import main
from revmine.errors import InputError
from revmine.pipeline import load_job, recorded_settings, run
from test_split_export import load_every_split, offline_hf, run_card_code

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _digest(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_example_job_end_to_end(tmp_path: Path, no_network: None, capsys: pytest.CaptureFixture[str],
                                monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "run"
    assert main(["run", str(EXAMPLES / "job.toml"), "--out", str(out), "--concurrency", "3"]) == 0
    printed = capsys.readouterr()
    assert f"dataset: {out / 'dataset'}" in printed.out
    state = json.loads((out / "run.json").read_text())
    # issue 30: `run --concurrency` was refused, and run printed no count; both from the files here
    assert json.loads((out / "mined" / "manifest.json").read_text())["options"]["concurrency"] == 3
    files = {kind: {split: ds.dataset(out / "dataset" / "data" / kind / f"{split}-00000-of-00001.parquet").count_rows()
                    for split in ("train", "validation", "test")} for kind in ("triplets", "pairs")}
    assert printed.out.splitlines()[:2] == [
        f"{sum(n.values())} {kind} (" + ", ".join(f"{split} {k}" for split, k in n.items()) + ")"
        for kind, n in files.items()]
    assert set(state) == {"mine", "preprocess", "filter", "split", "export"}
    # examples/mining/README.md works the mined rounds out by hand: 36 file rows carrying 46 comments, and
    # the rows that the filters keep: 26 triplets and 27 pairs
    assert state["mine"]["result"]["rows"] == 36
    assert state["preprocess"]["result"]["comments"] == 46
    kept = state["filter"]["result"]["kept"]
    sizes = state["export"]["result"]["sizes"]
    assert {kind: sum(by_split.values()) for kind, by_split in sizes.items()} == {"triplets": 26, "pairs": 27}
    assert sum(n for kind in sizes.values() for n in kind.values()) == kept
    assert all(n > 0 for kind in sizes.values() for n in kind.values())  # every split of both kinds has rows
    for kind, by_split in sizes.items():  # the Hugging Face layout loads with pyarrow.dataset
        for split, n in by_split.items():
            name = "validation" if split == "eval" else split
            table = ds.dataset(out / "dataset" / "data" / kind / f"{name}-00000-of-00001.parquet").to_table()
            assert table.num_rows == n
            assert {"id", "split", "cluster_id", "m_s_abstract", "m_r_abstract"} <= set(table.column_names)
    report = (out / "filtered" / "filter_report.md").read_text()
    assert "| **kept** |" in report
    # the counts reconcile: changes are not rounds (35 changes, 34 review rounds, 36 file rows), and the report's
    # author_comment / not_linked include the comments the preprocess stage dropped, which run.json says apart
    rounds = ds.dataset(out / "mined" / "rounds.parquet").to_table(columns=["round_id"]).column(0).to_pylist()
    mined = state["mine"]["result"]
    assert mined["review_rounds"] == len(set(rounds)) == 34 and mined["changes_done"] == 35 and len(rounds) == 36
    assert "mine: 35 changes, 34 review rounds (" in printed.err
    table = ds.dataset(out / "filtered" / "filter_report.parquet").to_table().to_pylist()
    in_report = {r["filter"]: r["removed"] for r in table if (r["kind"], r["source"]) == ("triplet", "all")}
    dropped = ds.dataset(out / "preprocessed" / "dropped.parquet").to_table().to_pylist()
    comments = [r for r in dropped if r["kind"] == "comment"]
    by_stage = state["filter"]["result"]["removed_by_filter"]["triplet"]
    added = state["filter"]["result"]["report_adds_from_preprocess"]
    assert added == {"author_comment": sum(bool(r["comment_is_owner"]) for r in comments),
                     "not_linked": sum(not r["comment_is_owner"] for r in comments)}
    assert in_report["author_comment"] == by_stage["author_comment"] + added["author_comment"]
    assert in_report["not_linked"] == by_stage.get("not_linked", 0) + added["not_linked"]
    assert f"{len(comments)} comments the preprocess stage dropped" in report
    assert "## Filter report" in (out / "dataset" / "README.md").read_text()
    # every config and split loads with `datasets` (offline), and the card's loading code runs as written
    offline_hf(monkeypatch, tmp_path / "hf")
    loaded = load_every_split(out / "dataset", state["export"]["result"], tmp_path / "hf")
    assert {config: len(splits) for config, splits in loaded.items()} == {"triplets": 3, "pairs": 3}
    run_card_code(out / "dataset", tmp_path / "hf-card")


def test_rerun_skips_done_stages_and_settings_changes_rerun_the_rest(tmp_path: Path, no_network: None) -> None:
    job_file = tmp_path / "job.toml"
    text = (EXAMPLES / "job.toml").read_text().replace('recordings = "mining"',
                                                       f'recordings = "{(EXAMPLES / "mining").as_posix()}"')
    job_file.write_text(text)
    lines: list[str] = []
    run(load_job(job_file, tmp_path / "a"), progress=False, echo=lines.append)
    first = _digest(tmp_path / "a" / "dataset")
    lines.clear()
    run(load_job(job_file, tmp_path / "a"), progress=False, echo=lines.append)
    assert all("already done, skipped" in line for line in lines)
    job_file.write_text(text.replace("seed = 0", "seed = 7"))
    lines.clear()
    run(load_job(job_file, tmp_path / "a"), progress=False, echo=lines.append)
    skipped = [line.split("]")[1].split(":")[0].strip() for line in lines if "skipped" in line]
    assert skipped == ["mine", "preprocess", "filter"]
    # same job, same seed, another folder: byte-identical dataset
    job_file.write_text(text)
    run(load_job(job_file, tmp_path / "b"), progress=False, echo=lines.append)
    assert _digest(tmp_path / "b" / "dataset") == first


def test_filter_profile_in_the_job_file_reruns_the_filter_and_is_reported(tmp_path: Path, no_network: None) -> None:
    job_file = _example_job(tmp_path)
    lines: list[str] = []
    run(load_job(job_file, tmp_path / "out"), progress=False, echo=lines.append)
    job_file.write_text(job_file.read_text().replace("[filter]\n", '[filter]\nprofile = "tufano2021"\n'))
    lines.clear()
    state = run(load_job(job_file, tmp_path / "out"), progress=False, echo=lines.append)
    skipped = [line.split("]")[1].split(":")[0].strip() for line in lines if "skipped" in line]
    assert skipped == ["mine", "preprocess"]
    assert state["filter"]["result"]["profile"] == "tufano2021"
    assert "Noise filter: profile tufano2021" in (tmp_path / "out" / "filtered" / "filter_report.md").read_text()
    assert "Noise filter: profile tufano2021" in (tmp_path / "out" / "dataset" / "README.md").read_text()
    job_file.write_text(job_file.read_text().replace('"tufano2021"', '"tufano"'))
    with pytest.raises(InputError, match=r'\[filter\.profile\]: must be one of "revmine", "tufano2021", not "tufano"'):
        load_job(job_file, tmp_path / "out")


def test_bad_job_files_name_the_field(tmp_path: Path) -> None:
    bad = tmp_path / "job.toml"
    bad.write_text('[job]\nout = "x"\n[[projects]]\nsource = "github"\nrepo = "a/b"\n[filtre]\nmax_tokens = 3\n')
    with pytest.raises(InputError, match=r"job\.toml \[filtre\]: unknown table"):
        load_job(bad)
    bad.write_text('[job]\nout = "x"\n[filter]\nmax_token = 3\n')
    with pytest.raises(InputError, match=r"\[filter\]: unknown setting\(s\) \['max_token'\]"):
        load_job(bad)
    bad.write_text("[job\n")
    with pytest.raises(InputError, match="not valid TOML"):
        load_job(bad)


def test_score_stage_runs_when_predictions_are_given(tmp_path: Path, no_network: None) -> None:
    job_file = tmp_path / "job.toml"
    job_file.write_text((EXAMPLES / "job.toml").read_text().replace(
        'recordings = "mining"', f'recordings = "{(EXAMPLES / "mining").as_posix()}"')
        + f'\n[score]\npredictions = "{(EXAMPLES / "quickstart" / "predictions_k3.txt").as_posix()}"\n'
          'profile = "tufano2021"\n')
    state = run(load_job(job_file, tmp_path / "out"), progress=False, echo=lambda line: None)
    # examples/quickstart/README.md: 4 of the 6 cases are perfect at k=3
    assert state["score"]["result"] == {"k": 3, "perfect": 4, "perfect_pct": 66.67}
    summary = json.loads((tmp_path / "out" / "scores" / "summary.json").read_text())
    assert summary["profile"]["name"] == "tufano2021"


def _example_job(tmp_path: Path, extra: str = "") -> Path:
    job_file = tmp_path / "job.toml"
    job_file.write_text((EXAMPLES / "job.toml").read_text().replace(
        'recordings = "mining"', f'recordings = "{(EXAMPLES / "mining").as_posix()}"') + extra)
    return job_file


def test_settings_are_type_checked_with_their_field(tmp_path: Path) -> None:
    job_file = _example_job(tmp_path)
    job_file.write_text(job_file.read_text().replace("max_tokens = 100", 'max_tokens = "100"'))
    with pytest.raises(InputError, match=r'\[filter\.max_tokens\]: must be an integer >= 1, not str "100"'):
        load_job(job_file, tmp_path / "out")
    job_file.write_text(_example_job(tmp_path).read_text().replace('repo = "example/inventory"',
                                                                   'repo = "example/inventory"\nuntill = "2024-01-01"'))
    with pytest.raises(InputError, match=r"\[projects\[2\]\]: unknown setting\(s\) \['untill'\]"):
        load_job(job_file, tmp_path / "out")
    job_file.write_text(_example_job(tmp_path).read_text().replace('strategy = "random"', 'strategy = "alphabet"'))
    with pytest.raises(InputError, match=r'job\.toml \[split\.strategy\]: must be one of "random", "project", "time"'):
        load_job(job_file, tmp_path / "out")


def test_edited_input_files_and_changed_projects_rerun_their_stages(tmp_path: Path, no_network: None) -> None:
    predictions = tmp_path / "preds.txt"
    predictions.write_text((EXAMPLES / "quickstart" / "predictions_k3.txt").read_text())
    job_file = _example_job(tmp_path, f'\n[score]\npredictions = "{predictions.as_posix()}"\n')
    lines: list[str] = []
    run(load_job(job_file, tmp_path / "out"), progress=False, echo=lines.append)
    predictions.write_text(predictions.read_text().replace("PREDICTION 1 : public String getName ( ) { return this . name ; }",
                                                           "PREDICTION 1 : public String getName ( ) { return name ; }"))
    lines.clear()
    state = run(load_job(job_file, tmp_path / "out"), progress=False, echo=lines.append)
    assert [line for line in lines if "skipped" not in line and "done in" not in line] == ["[6/6] score ..."]
    assert state["score"]["result"]["perfect"] == 5  # the edited case 3 is now perfect at rank 1
    # drop the GitHub project: its rounds must not survive in the mined folder
    job_file.write_text(job_file.read_text().split("[[projects]]\nsource = \"github\"")[0]
                        + "[preprocess]" + job_file.read_text().split("[preprocess]", 1)[1])
    state = run(load_job(job_file, tmp_path / "out"), progress=False, echo=lambda line: None)
    rows = ds.dataset(tmp_path / "out" / "mined" / "rounds.parquet").to_table().column("source").to_pylist()
    assert set(rows) == {"gerrit"} and state["mine"]["result"]["rows"] == len(rows)


def test_the_real_forge_template_is_a_valid_job(tmp_path: Path) -> None:
    job = load_job(EXAMPLES / "many-projects.toml", tmp_path)
    assert len(job.config["projects"]) == 4 and job.section("split")["strategy"] == "time"


def test_the_stage_commands_build_the_same_dataset_as_the_main_job(tmp_path: Path, no_network: None,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    run_dir = tmp_path / "run"
    assert main(["run", str(EXAMPLES / "job.toml"), "--out", str(run_dir)]) == 0
    steps = [["preprocess", "--rounds", str(run_dir / "mined" / "rounds.parquet"), "--out", str(tmp_path / "pre")],
             ["filter", "--candidates", str(tmp_path / "pre" / "candidates.parquet"), "--out", str(tmp_path / "f")],
             ["split", "--dataset", str(tmp_path / "f" / "kept.parquet"), "--out", str(tmp_path / "s"),
              "--rounds", str(run_dir / "mined" / "rounds.parquet")],
             ["export", "--splits", str(tmp_path / "s"), "--out", str(tmp_path / "d"),
              "--filter-report", str(tmp_path / "f" / "filter_report.parquet"),
              "--name", "revmine example: code review triplets and pairs"]]
    for step in steps:
        assert main(step) == 0, step
    assert "| **kept** |" in capsys.readouterr().out  # the filter command prints its report
    assert _digest(tmp_path / "d") == _digest(run_dir / "dataset")


def test_a_rerun_repairs_a_mining_manifest_that_contradicts_the_rows(tmp_path: Path, no_network: None) -> None:
    """A manifest saying a project failed with 0 changes while its rows and checkpoint are all there (what two
    writers racing left, issue 18) is not "already done": the re-run mines again, asking nothing of the forge
    for finished projects, and the manifest says again what the checkpoints hold; the dataset is unchanged."""
    job_file = _example_job(tmp_path)
    out = tmp_path / "out"
    run(load_job(job_file, out), progress=False, echo=lambda line: None)
    dataset = _digest(out / "dataset")
    path = out / "mined" / "manifest.json"
    manifest = json.loads(path.read_text())
    truth = [(p["slug"], p["changes_done"], p["rows"], len(p["dropped"])) for p in manifest["projects"]]
    wrong = manifest["projects"][0]
    wrong.update(status="failed", failure={"kind": "git_error", "reason": "git init failed"}, changes_done=0, rows=0)
    path.write_text(json.dumps(manifest))
    lines: list[str] = []
    run(load_job(job_file, out), progress=False, echo=lines.append)
    assert not any(line.startswith("[1/") and "skipped" in line for line in lines)
    repaired = json.loads(path.read_text())["projects"]
    assert [(p["slug"], p["changes_done"], p["rows"], len(p["dropped"])) for p in repaired] == truth
    assert all(p["status"] == "finished_before" and p["failure"] is None for p in repaired)
    assert _digest(out / "dataset") == dataset


def test_run_json_records_settings_without_a_password() -> None:
    """Issue 30: run.json holds each stage's settings; a scheduler address with a password keeps it out."""
    from revmine.preprocess.candidates import PreprocessOptions

    recorded = recorded_settings(PreprocessOptions(engine="dask", address="tls://alice:s3cret@scheduler:8786"))
    assert recorded["address"] == "tls://scheduler:8786" and "s3cret" not in json.dumps(recorded)
    assert recorded["max_file_bytes"] == PreprocessOptions().max_file_bytes and recorded["levels"] == ["method"]
