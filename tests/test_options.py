"""One Options class per stage: the job file is checked whole before any stage runs, values out of range are
refused with their range, and the flags, the job-file tables and docs/job-file.md all come from the classes."""

from __future__ import annotations

import argparse
import dataclasses
import re
from pathlib import Path

import pytest

from revmine.runtime import options
from revmine.cli import build_parser, main
from revmine.errors import InputError
from revmine.pipeline import job_file_reference, sections

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def _example_job(tmp_path: Path, old: str = "", new: str = "") -> Path:
    """The bundled example job (recordings, no network) with ``old`` replaced by ``new``."""
    text = (EXAMPLES / "job.toml").read_text().replace('recordings = "mining"',
                                                     f'recordings = "{(EXAMPLES / "mining").as_posix()}"')
    assert old in text
    job = tmp_path / "job.toml"
    job.write_text(text.replace(old, new, 1))
    return job


@pytest.mark.parametrize("old, new, field, message", [
    ("fractions = [0.8, 0.1, 0.1]", 'fractions = [0.8, "a", 0.1]', "split.fractions",
     'must be a list of 3 numbers in [0, 1], not str "a"'),
    ('strategy = "random"', 'strategy = "bogus"', "split.strategy",
     'must be one of "random", "project", "time", not "bogus"'),
    ('formats = ["parquet", "opennmt", "jsonl"]', 'formats = ["csv"]', "export.formats",
     'must be a list of strings from "parquet", "opennmt", "jsonl", "codereviewer", not "csv"'),
    ("fractions = [0.8, 0.1, 0.1]", "fractions = [0.8, 0.1, 0.2]", "split.fractions",
     "must sum to 1, not 1.1 ([0.8, 0.1, 0.2])"),
    ("max_tokens = 100", "max_tokens = -5", "filter.max_tokens", "must be an integer >= 1, not -5"),
    ("timeout = 10.0", "timeout = 0", "preprocess.timeout", "must be a number > 0, not 0.0"),
    ("batch_size = 2", "batchsize = 2", "job", "unknown setting(s) ['batchsize']; known: "
     "['batch_size', 'cache', 'cache_mode', 'concurrency', 'known_accounts', 'languages', 'max_concurrent_per_host', "
     "'out', 'recordings', 'repos', 'robot_comments', 'stall_timeout']"),
    ("[export]", "[export]\nlicence = \"MIT\"", "export",
     "unknown setting(s) ['licence']; known: ['formats', 'name', 'representations']"),
])
def test_a_bad_setting_in_any_table_stops_the_run_before_any_stage(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], old: str, new: str, field: str, message: str) -> None:
    job = _example_job(tmp_path, old, new)
    out = tmp_path / "out"
    assert main(["run", str(job), "--out", str(out)]) == 2
    assert capsys.readouterr().err == f"revmine: error: {job} [{field}]: {message}\n"
    assert not out.exists()  # not even the mining stage started


def test_mine_job_refuses_what_run_refuses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    job = _example_job(tmp_path, "batch_size = 2", "batchsize = 3")
    assert main(["mine", "--job", str(job), "--out", str(tmp_path / "mined")]) == 2
    assert f"{job} [job]: unknown setting(s) ['batchsize']" in capsys.readouterr().err
    job = _example_job(tmp_path, 'strategy = "random"', 'strategy = "bogus"')  # a later stage's table too
    assert main(["mine", "--job", str(job), "--out", str(tmp_path / "mined")]) == 2
    assert "[split.strategy]" in capsys.readouterr().err
    assert not (tmp_path / "mined").exists()


def test_a_missing_input_file_is_refused_up_front(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    job = _example_job(tmp_path, "[filter]", '[filter]\nnoise_model = "no-such-model.npz"')
    assert main(["run", str(job), "--out", str(tmp_path / "out")]) == 2
    assert f"[filter.noise_model]: no such file or folder: {tmp_path / 'no-such-model.npz'}" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["filter", "--candidates", "c.parquet", "--out", "o", "--max-tokens", "-1"],
     "argument --max-tokens: must be an integer >= 1, not -1"),
    (["agreement", "j.csv", "--score-cols", "h", "--bootstrap", "-1"],
     "argument --bootstrap: must be an integer >= 0, not -1"),
    (["split", "--dataset", "d.parquet", "--out", "o", "--fractions", "0.8,x,0.1"],
     "argument --fractions: must be a list of 3 numbers in [0, 1], not \"x\""),
    (["preprocess", "--rounds", "r.parquet", "--out", "o", "--engine", "spark"],
     'argument --engine: must be one of "local", "dask", not "spark"'),
    (["score", "p.txt", "--beam", "0"], "argument --beam: must be an integer >= 1, not 0"),
])
def test_out_of_range_flags_are_usage_errors_with_the_range(capsys: pytest.CaptureFixture[str], argv: list[str],
                                                             message: str) -> None:
    assert main(argv) == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"revmine: error: {message}"


def test_an_agreement_file_without_pairs_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "judged.csv"
    empty.write_text("prediction,reference,h1\n")
    assert main(["agreement", str(empty), "--score-cols", "h1", "--out", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err == f"revmine: error: {empty}: no judged pairs: the file has no rows\n"
    assert not (tmp_path / "out").exists()


def test_the_python_api_refuses_the_same_values() -> None:
    from revmine.dataset.split import SplitOptions
    from revmine.filters.stage import FilterOptions

    with pytest.raises(InputError, match="max_tokens: must be an integer >= 1, not -1"):
        FilterOptions(max_tokens=-1)
    with pytest.raises(InputError, match=r"fractions: must sum to 1, not 0.7 \(\[0.5, 0.1, 0.1\]\)"):
        SplitOptions(fractions=(0.5, 0.1, 0.1))
    with pytest.raises(InputError, match='skip: must be a list of strings from .*, not "nosie"'):
        FilterOptions(skip=frozenset({"nosie"}))


def _stage_parser(command: str) -> argparse.ArgumentParser:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices[command]


def test_flags_and_job_tables_have_the_same_defaults(tmp_path: Path) -> None:
    """No flag given and an empty table both give the class's defaults; a key and its flag set the same field."""
    commands = {"preprocess": "preprocess", "filter": "filter", "split": "split", "export": "export", "score": "score"}
    for table, cls in sections().items():
        defaults = cls()
        assert options.from_section(cls, {}, tmp_path / "job.toml", table) == defaults
        if table in commands:
            args = _stage_parser(commands[table]).parse_args(_required(commands[table]))
            assert options.from_args(cls, args, **_positional(cls, args)) == defaults
    parser = _stage_parser("filter")
    args = parser.parse_args([*_required("filter"), "--max-tokens", "50", "--skip", "noise,near_duplicate"])
    section = options.from_section(sections()["filter"], {"max_tokens": 50, "skip": ["noise", "near_duplicate"]},
                                   tmp_path / "job.toml", "filter")
    assert options.from_args(sections()["filter"], args) == section


def _required(command: str) -> list[str]:
    return {"preprocess": ["--rounds", "r", "--out", "o"], "filter": ["--candidates", "c", "--out", "o"],
            "split": ["--dataset", "d", "--out", "o"], "export": ["--splits", "s", "--out", "o"],
            "score": ["p.txt"]}[command]


def _positional(cls: type, args: argparse.Namespace) -> dict:
    return {"predictions": None} if "predictions" in options.specs(cls) else {}


def test_the_fingerprint_follows_the_settings(tmp_path: Path) -> None:
    from revmine.dataset.split import SplitOptions

    same = options.settings(SplitOptions()), options.settings(SplitOptions(fractions=(0.8, 0.1, 0.1), seed=0))
    assert same[0] == same[1] == {"strategy": "random", "fractions": [0.8, 0.1, 0.1], "seed": 0}
    assert options.settings(SplitOptions(seed=7)) != same[0]
    assert "rounds" not in same[0]  # set by revmine run itself, not a key of [split]


def test_docs_job_file_lists_every_table_and_key() -> None:
    text = (ROOT / "docs" / "job-file.md").read_text(encoding="utf-8")
    generated = re.search(r"<!-- generated: start -->\n(.*)<!-- generated: end -->", text, re.S)
    assert generated is not None and generated.group(1) == job_file_reference(), \
        "docs/job-file.md is out of date: paste revmine.pipeline.job_file_reference() between its markers"
    tables = dict(re.findall(r"### `\[(\w+)\]`\n(.*?)(?=### |\Z)", generated.group(1), re.S))
    for table, cls in sections().items():
        for key, spec in options.specs(cls).items():
            assert (f"| `{key}` |" in tables[table]) == spec.job, (table, key)


def test_every_default_is_allowed() -> None:
    for cls in sections().values():
        for field in dataclasses.fields(cls):
            spec = options.specs(cls).get(field.name)
            if spec is not None and not spec.required:
                options.check_value(spec, field.default)


@pytest.mark.parametrize("text, field", [
    ('[[projects]]\nsource = "github"\nrepo = "o/r"\ntoken = "ghp_TOKENINAJOBFILE0000000000000000000"\n',
     "projects[0].token"),
    ('[job]\npassword = "hunter2-IN-A-JOB"\n[[projects]]\nsource = "gerrit"\nurl = "https://g.example"\n'
     'project = "p"\n', "job.password"),
    ('[github]\ntokens = ["ghp_TOKENINAJOBFILE0000000000000000000"]\n[[projects]]\nsource = "github"\nrepo = "o/r"\n',
     "github")])
@pytest.mark.parametrize("command", [["run"], ["mine", "--job"]])
def test_credentials_in_a_job_file_get_their_own_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                      text: str, field: str, command: list[str]) -> None:
    """Issue 30: a token in a job file got "unknown setting(s)" from run and mine --job, a [github] table
    "unknown table": the line that says why and what to do instead, naming the field, never the value."""
    job = tmp_path / "job.toml"
    job.write_text(text)
    assert main([*command, str(job), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"revmine: error: {job} [{field}]: credentials do not belong in a job file")
    assert "REVMINE_CREDENTIALS" in err and "TOKENINAJOBFILE" not in err and "hunter2" not in err
    assert err.count("\n") == 1 and not (tmp_path / "out").exists()
