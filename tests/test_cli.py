"""The command line as users call it: `revmine score`, profiles, metric specs, agreement, errors, and what every
command does the same way (-q/-v/--json, exit statuses, standard input, help texts)."""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import sacrebleu

from revmine.cli import COMMANDS, build_parser, main
from revmine.errors import InputError, OperationError
from revmine.metrics.registry import make_metric, split_specs

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "quickstart" / "predictions_k3.txt"


def test_score_example_writes_everything(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", str(EXAMPLE), "--out", str(tmp_path), "--plot", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert [e["perfect"] for e in summary["per_k"]] == [2, 4, 4]
    assert set(summary["signatures"]) == {"bleu4", "levenshtein_tok", "levenshtein_sim_tok", "sed_ref", "sed_max", "treed"}
    assert {p.name for p in (tmp_path / "plots").iterdir()} == {f"{c}.png" for c in summary["signatures"]}
    # rank-1 BLEU of case 1, recomputed with sacrebleu (sentence_bleu, tokenize none, exp smoothing)
    hyp = "public int size ( ) { return items . size ( ) ; }"
    ref = "public int size ( ) { return items == null ? 0 : items . size ( ) ; }"
    import pyarrow.parquet as pq
    first = pq.read_table(tmp_path / "scores.parquet").slice(0, 1).to_pylist()[0]
    assert first["bleu4"] == pytest.approx(sacrebleu.sentence_bleu(hyp, [ref], tokenize="none").score / 100, abs=1e-9)


def test_profile_reproduces_the_published_median(tufano_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tufano_dir / "predictions" / "1-encoder_k3_abstracted.txt"
    assert main(["score", str(path), "--profile", "tufano2021", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["profile"]["name"] == "tufano2021"
    last = summary["per_k"][-1]
    assert last["perfect"] == 156
    # the paper's box plot for k=3 has its median at about 0.89; nltk on raw strings gives 0.8860
    assert round(last["metrics"]["bleu4_char_nltk0"]["best"]["median"], 4) == 0.8860


def test_profile_is_named_in_the_markdown_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", str(EXAMPLE), "--profile", "tufano2021"]) == 0
    assert "Profile `tufano2021` in use" in capsys.readouterr().out


def test_metric_specs() -> None:
    assert split_specs("bleu(tokenize=char, smooth=nltk0),sed(normalize=max), treed") == [
        "bleu(tokenize=char, smooth=nltk0)", "sed(normalize=max)", "treed"]
    metric = make_metric("bleu(tokenize=char, smooth=nltk0)")
    assert "tok:char" in metric.signature() and "smooth:nltk0" in metric.signature()
    with pytest.raises(InputError, match="unknown metric 'blue'"):
        make_metric("blue")
    with pytest.raises(InputError, match="not key=value"):
        make_metric("bleu(char)")
    with pytest.raises(InputError, match="metric 'sed\\(colour=red\\)'"):
        make_metric("sed(colour=red)")


def test_bad_input_is_one_line_naming_file_and_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("ORACLE       : a\nPREDICTION 1 : a\n\nPREDICTION 1 : b\n")
    assert main(["score", str(bad), "--out", str(tmp_path / "out")]) == 2
    assert f"{bad}:4: block has no ORACLE line" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("line, message", [
    ('{"prediction": ' + "[" * 100_000 + "]" * 100_000 + ', "reference": "a"}',
     "not valid JSON here: nested deeper than its reader follows"),
    ('{"prediction": "a\\ud800b", "reference": "a"}',
     "[prediction]: a lone surrogate (\\ud800) at character 1: not text"),
])
def test_jsonl_that_no_later_stage_can_take_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str,
                                                        message: str) -> None:
    """Issue 31: 100,000 nested brackets (RecursionError) and a lone surrogate (pyarrow's UnicodeEncodeError) were
    tracebacks out of revmine score."""
    bad = tmp_path / "predictions.jsonl"
    bad.write_text('{"prediction": "a b", "reference": "a b"}\n' + line + "\n", encoding="utf-8")
    assert main(["score", str(bad), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"revmine: error: {bad}:2{' ' if message.startswith('[') else ': '}{message}"]
    assert not (tmp_path / "out").exists()


def test_empty_predictions_are_scored(tmp_path: Path) -> None:
    """Issue 31: 30 empty predictions for 30 references were refused as "file is empty"; a model may predict
    nothing, and that scores: no match, a token edit distance of the whole reference."""
    references = [f"return x + {i} ;" for i in range(30)] + ["if ( a ) { b ( ) ; }"]
    (tmp_path / "refs.txt").write_text("".join(r + "\n" for r in references))
    (tmp_path / "hyps.txt").write_text("\n" * len(references))
    assert main(["score", str(tmp_path / "hyps.txt"), "--refs", str(tmp_path / "refs.txt"),
                 "--out", str(tmp_path / "out")]) == 0
    rows = pq.read_table(tmp_path / "out" / "scores.parquet").to_pylist()
    assert [(r["prediction"], r["reference"], r["exact_match"], r["levenshtein_tok"]) for r in rows] == [
        ("", ref, False, len(ref.split())) for ref in references]
    (tmp_path / "none.txt").write_text("")
    assert main(["score", str(tmp_path / "none.txt"), "--refs", str(tmp_path / "refs.txt")]) == 2  # no lines at all


def test_agreement_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [("fix the null check", "fix the null check", 5, 4), ("add a test", "add a unit test", 4, 4),
            ("rename variable", "use a constant here", 1, 2), ("use isEmpty", "use isEmpty instead", 4, 5),
            ("thanks", "remove this import", 1, 1), ("make it final", "make this field final", 4, 3)]
    csv = tmp_path / "judged.csv"
    csv.write_text("pred,ref,h1,h2\n" + "".join(f"{p},{r},{a},{b}\n" for p, r, a, b in rows))
    assert main(["agreement", str(csv), "--pred-col", "pred", "--ref-col", "ref", "--score-cols", "h1,h2",
                 "--metrics", "chrf,bleu(smooth=floor)", "--bootstrap", "200", "--json",
                 "--out", str(tmp_path)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert [r["metric"] for r in result] == ["chrf", "bleu4_floor"]
    for r in result:
        assert r["n"] == 6 and r["spearman_lo"] <= r["spearman"] <= r["spearman_hi"]
    assert (tmp_path / "agreement.parquet").exists()
    assert main(["agreement", str(csv), "--score-cols", "h1"]) == 2
    assert "missing column(s) prediction, reference" in capsys.readouterr().err


def test_bad_options_are_one_line_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["score", str(EXAMPLE), "--metrics", "foo"]) == 2
    assert capsys.readouterr().err.startswith("revmine: error: metrics: unknown metric 'foo'")
    assert main(["score", str(EXAMPLE), "--metrics", "ter, ter(normalized=true)", "--json"]) == 0
    assert set(json.loads(capsys.readouterr().out)["signatures"]) == {"ter", "ter_norm"}
    assert main(["run", str(ROOT / "examples" / "job.toml"), "--out", str(tmp_path / "run"), "--concurrency", "0"]) == 2
    assert capsys.readouterr().err == "revmine: error: concurrency: must be an integer >= 1, not 0\n"


# --- the same behaviour in every command (issue 11, section 4) ---

def _subparsers(parser: argparse.ArgumentParser, prefix: str = "revmine") -> dict[str, argparse.ArgumentParser]:
    found = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                found[f"{prefix} {name}"] = child
                found.update(_subparsers(child, f"{prefix} {name}"))
    return found


def test_every_command_takes_q_v_json_and_its_help_is_plain_text() -> None:
    commands = _subparsers(build_parser())
    assert {"revmine run", "revmine mine gerrit", "revmine classifier evaluate", "revmine agreement"} <= set(commands)
    for name, parser in commands.items():
        text = parser.format_help()
        for flag in ("-q, --quiet", "-v, --verbose", "--json"):
            assert flag in text, (name, flag)
        assert "%%" not in text and "`" not in text and ":class:" not in text and ":func:" not in text, name
    assert "95% confidence" in commands["revmine agreement"].format_help()


def test_run_help_documents_the_job_file() -> None:
    from revmine.runtime.options import specs
    from revmine.pipeline import sections

    text = " ".join(_subparsers(build_parser())["revmine run"].format_help().split())
    assert "docs/job-file.md" in text and (ROOT / "docs" / "job-file.md").exists()
    for table, cls in sections().items():
        keys = [key for key, spec in specs(cls).items() if spec.job]
        assert f"[{table}] {', '.join(keys)}" in text, table


@pytest.fixture(scope="module")
def mined(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example job's mined rounds (the recordings are served on 127.0.0.1 by the miners themselves)."""
    out = tmp_path_factory.mktemp("run")
    assert main(["-q", "run", str(ROOT / "examples" / "job.toml"), "--out", str(out)]) == 0
    return out / "mined" / "rounds.parquet"


def test_stage_commands_print_text_or_json_and_report_progress_unless_quiet(
        mined: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["preprocess", "--rounds", str(mined), "--out", str(tmp_path / "pre")]) == 0
    printed = capsys.readouterr()
    # the example's 36 mined file rows carry 46 comments (examples/mining/README.md); stderr is no terminal
    # here, so progress is a plain line
    assert "comments: 46" in printed.out.splitlines()
    assert re.search(r"^preprocess: 36/36 files \(100%\), \d+ s$", printed.err, re.M)
    assert main(["preprocess", "--rounds", str(mined), "--out", str(tmp_path / "pre"), "--json", "-q"]) == 0
    printed = capsys.readouterr()
    assert json.loads(printed.out)["comments"] == 46 and printed.err == ""
    candidates = str(tmp_path / "pre" / "candidates.parquet")
    assert main(["filter", "--candidates", candidates, "--out", str(tmp_path / "f")]) == 0
    printed = capsys.readouterr()
    assert "| **kept** |" in printed.out and "filter: 11/11 filters" in printed.err
    assert main(["filter", "--candidates", candidates, "--out", str(tmp_path / "f"), "--json", "-q"]) == 0
    filtered = json.loads(capsys.readouterr().out)
    assert filtered["kept"] == 53  # the 26 triplets and 27 pairs examples/mining/README.md works out by hand
    kept = str(tmp_path / "f" / "kept.parquet")
    assert main(["split", "--dataset", kept, "--out", str(tmp_path / "s"), "--json"]) == 0
    sizes = json.loads(capsys.readouterr().out)
    assert main(["split", "--dataset", kept, "--out", str(tmp_path / "s")]) == 0
    text = capsys.readouterr().out
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)
    assert any(line.startswith("sizes:") for line in text.splitlines()) and "sizes" in sizes
    assert main(["export", "--splits", str(tmp_path / "s"), "--out", str(tmp_path / "d"), "--json"]) == 0
    exported = json.loads(capsys.readouterr().out)
    assert sum(n for kind in exported["sizes"].values() for n in kind.values()) == 53


def test_operation_failures_exit_1_and_input_errors_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from revmine.dataset import split

    def disk_full(*args: object, **kwargs: object) -> None:
        raise OperationError("cannot write splits: no space left on device")
    monkeypatch.setattr(split, "split_dataset", disk_full)
    (tmp_path / "kept.parquet").touch()  # an input that exists: a missing one is refused first (exit 2)
    assert main(["split", "--dataset", str(tmp_path / "kept.parquet"), "--out", str(tmp_path / "s")]) == 1
    assert capsys.readouterr().err == "revmine: error: cannot write splits: no space left on device\n"
    assert main(["mine"]) == 2
    assert capsys.readouterr().err.startswith("revmine: error: revmine mine: give --job")
    assert main(["score", str(EXAMPLE), "--plot"]) == 2
    assert capsys.readouterr().err == "revmine: error: --plot needs --out\n"
    assert main(["filter", "--candidates", "c.parquet"]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == "revmine: error: the following arguments are required: --out"


class _Stdin:
    def __init__(self, data: bytes):
        self.buffer = io.BytesIO(data)


def test_dash_reads_standard_input(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    assert main(["score", str(EXAMPLE), "--json"]) == 0
    from_file = json.loads(capsys.readouterr().out)
    monkeypatch.setattr(sys, "stdin", _Stdin(EXAMPLE.read_bytes()))
    assert main(["score", "-", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["per_k"] == from_file["per_k"]
    rows = "".join(f"{p},{r},{h}\n" for p, r, h in [("a b", "a b", 5), ("a c", "a b", 3), ("x", "a b", 1),
                                                    ("a b c", "a b", 4)])
    monkeypatch.setattr(sys, "stdin", _Stdin(("prediction,reference,h\n" + rows).encode()))
    assert main(["agreement", "-", "--score-cols", "h", "--metrics", "chrf", "--bootstrap", "0", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["n"] == 4


def test_progress_off_a_terminal_is_a_line_every_few_seconds(monkeypatch: pytest.MonkeyPatch) -> None:
    from revmine.runtime import progress

    clock = iter([0.0, 4.0, 11.0, 11.0, 15.0, 25.0])  # start, updates at 4 and 11 s (a line), 15 s, the end
    monkeypatch.setattr(progress.time, "monotonic", lambda: next(clock))
    out = io.StringIO()
    with progress.Lines(total=4, desc="preprocess", unit="file", every=10, stream=out) as bar:
        for _ in range(3):
            bar.update()
    # a line when 10 s have passed since the last one (at 11 s), and one at the end
    assert out.getvalue().splitlines() == ["preprocess: 2/4 files (50%), 11 s", "preprocess: 3/4 files (75%), 25 s"]
    assert list(progress.progress_bar([1, 2], enabled=False)) == [1, 2]


# --- a closed stdout, standard input for every input file, cleaning up after a job's own output folder ---

def _revmine(args: list[str], stdout: int, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "revmine.cli", *args], stdout=stdout, stderr=subprocess.PIPE,
                          cwd=cwd, env=env, timeout=300)


def test_a_closed_stdout_ends_quietly_with_141_and_keeps_the_outputs(tmp_path: Path) -> None:
    # `revmine profiles | head -1`, without the race: the reader is gone before revmine writes
    read, write = os.pipe()
    os.close(read)
    try:
        profiles = _revmine(["profiles"], write, tmp_path)
        scored = _revmine(["-q", "score", str(EXAMPLE), "--out", str(tmp_path / "scores")], write, tmp_path)
        helped = _revmine(["run", "--help"], write, tmp_path)
    finally:
        os.close(write)
    for done in (profiles, scored):
        assert (done.returncode, done.stderr) == (141, b"")  # 128 + SIGPIPE, as `yes | head` in a shell
    assert helped.returncode in (0, 141) and helped.stderr == b""  # argparse >= 3.11 ignores the failed write
    assert json.loads((tmp_path / "scores" / "summary.json").read_text())["per_k"][0]["perfect"] == 2
    # through a real `| head -1`: the first line, and no traceback whichever side finishes first
    shell = subprocess.run(f"{sys.executable} -m revmine.cli profiles | head -1", shell=True, capture_output=True,
                           env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300, text=True)
    assert shell.stdout.startswith("tufano2021: ") and shell.stdout.count("\n") == 1 and shell.stderr == ""


@pytest.fixture
def stdin_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Standard input's copies go under tmp_path/tmp (to check they are removed), the current directory is
    tmp_path/cwd (where `run -` keeps its copy)."""
    (tmp_path / "tmp").mkdir()
    (tmp_path / "cwd").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    monkeypatch.chdir(tmp_path / "cwd")
    yield tmp_path
    assert not list((tmp_path / "tmp").iterdir()) and not list((tmp_path / "cwd").glob(".revmine-stdin-*"))


def test_dash_reads_standard_input_for_any_single_input_file(stdin_dir: Path, capsys: pytest.CaptureFixture[str],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    refs, base, system = stdin_dir / "refs.txt", stdin_dir / "a.txt", stdin_dir / "b.txt"
    refs.write_text("the cat sat on the mat\nadd a null check here\n")
    base.write_text("the cat sat on a mat\nadd null check\n")
    system.write_text("the cat sat on the mat\nadd a null check\n")
    runs = {"compare": ["compare", str(base), str(system), "--refs", "{}", "--metrics", "bleu", "--json"],
            "score": ["score", str(system), "--format", "text", "--refs", "{}", "--metrics", "chrf", "--json"]}
    for command, argv in runs.items():
        assert main([a.format(refs) for a in argv]) == 0
        from_file = json.loads(capsys.readouterr().out)
        monkeypatch.setattr(sys, "stdin", _Stdin(refs.read_bytes()))
        assert main([a.format("-") for a in argv]) == 0
        assert json.loads(capsys.readouterr().out) == from_file, command


def test_standard_input_copies_of_a_killed_command_go_with_the_next_one(stdin_dir: Path, monkeypatch: pytest.MonkeyPatch,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """A command killed while it reads standard input (``kill -9``: its ``finally`` never runs) leaves its copies;
    the next command that reads standard input removes those of processes that no longer run, no others."""
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          check=True).stdout.strip()  # a PID that has just ended
    left = [stdin_dir / "tmp" / f"revmine-stdin-{dead}-abcd1234", stdin_dir / "cwd" / f".revmine-stdin-{dead}-x.toml"]
    left[0].mkdir()
    (left[0] / "stdin.txt").write_text("the cat\n")
    left[1].write_text("[job]\n")
    alive = stdin_dir / "cwd" / f".revmine-stdin-{os.getppid()}-y.toml"  # a running process's (pytest's parent)
    alive.write_text("[job]\n")
    (stdin_dir / "refs.txt").write_text("the cat sat on a mat\n")
    monkeypatch.setattr(sys, "stdin", _Stdin(b"the cat sat on the mat\n"))
    assert main(["score", "-", "--format", "text", "--refs", str(stdin_dir / "refs.txt"), "--metrics", "chrf",
                 "--json"]) == 0
    capsys.readouterr()
    assert not any(p.exists() for p in left) and alive.exists()
    alive.unlink()


def test_a_model_and_a_parquet_file_from_standard_input(stdin_dir: Path, capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    labels = tmp_path / "labels.csv"
    labels.write_text("text,label\nPlease rename tmp to count.,relevant\nThanks!,noise\nLGTM,noise\n")
    model = ROOT / "revmine" / "data" / "noise_model.npz"
    results = []
    for given in (str(model), "-"):
        monkeypatch.setattr(sys, "stdin", _Stdin(model.read_bytes()))
        assert main(["classifier", "evaluate", "--labels", str(labels), "--noise-model", given, "--json"]) == 0
        results.append(list(json.loads(capsys.readouterr().out)["filters"].values()))
    assert results[0] == results[1]
    (tmp_path / "pred.txt").write_text("VAR_1 = VAR_2 ;\n")
    maps = tmp_path / "maps.parquet"
    pq.write_table(pa.table({"abstraction_ids": [json.dumps({"VAR_1": "total", "VAR_2": "price"})]}), maps)
    monkeypatch.setattr(sys, "stdin", _Stdin(maps.read_bytes()))
    assert main(["unabstract", str(tmp_path / "pred.txt"), "--maps", "-", "--out", str(tmp_path / "raw.txt")]) == 0
    assert (tmp_path / "raw.txt").read_text() == "total = price ;\n"


def test_only_one_argument_reads_standard_input(stdin_dir: Path, capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", _Stdin(b"a b\n"))
    assert main(["compare", "-", str(EXAMPLE), "--refs", "-"]) == 2
    err = capsys.readouterr().err.splitlines()[-1]
    assert err == "revmine: error: argument --refs: standard input (-) is already read by another argument: give a file"


@pytest.mark.parametrize(("argv", "dest"), [
    (["preprocess", "--rounds", "r.parquet", "--out", "o", "--idioms", "-"], "idioms"),
    (["filter", "--candidates", "c.parquet", "--out", "o", "--noise-model", "-"], "noise_model"),
    (["export", "--splits", "s", "--out", "o", "--filter-report", "-"], "filter_report"),
    (["unabstract", "p.txt", "--maps", "-", "--out", "o"], "maps"),
    (["classifier", "evaluate", "--labels", "l.csv", "--noise-model", "-"], "noise_model"),
    (["score", "p.txt", "--refs", "r.txt", "--refs", "-"], "references"),
    (["split", "--dataset", "k.parquet", "--out", "o", "--strategy", "time", "--rounds", "-"], "rounds"),
])
def test_every_input_file_flag_takes_dash(stdin_dir: Path, monkeypatch: pytest.MonkeyPatch, argv: list[str],
                                          dest: str) -> None:
    from revmine import cli

    monkeypatch.setattr(sys, "stdin", _Stdin(b"some bytes\n"))
    try:
        value = getattr(build_parser().parse_args(argv), dest)
        path = value[-1] if isinstance(value, list) else value  # --refs: one path per flag
        assert path.read_bytes() == b"some bytes\n"
    finally:
        cli._remove_stdin_copies()


def test_errors_in_standard_input_name_stdin(stdin_dir: Path, capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", _Stdin(b"text,label\nfine,spam\n"))
    assert main(["classifier", "evaluate", "--labels", "-"]) == 2
    assert capsys.readouterr().err == ("revmine: error: <stdin>:2 [label]: label 'spam' is neither 'relevant' "
                                       "nor 'noise'\n")
    job = (ROOT / "examples" / "job.toml").read_text().replace("max_tokens = 100", "max_tokens = 0")
    monkeypatch.setattr(sys, "stdin", _Stdin(job.encode()))
    assert main(["run", "-", "--out", str(stdin_dir / "out")]) == 2
    assert capsys.readouterr().err == ("revmine: error: <stdin> [filter.max_tokens]: must be an integer >= 1, "
                                       "not 0\n")


def test_a_job_that_fails_before_a_checkpoint_removes_its_own_out(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import revmine.miners
    import revmine.pipeline

    def unreachable(job: object, *args: object) -> None:
        out = getattr(job, "out", None) or args[0]  # run's stage runner gets the Job, run_job (path, out, options)
        Path(out, "mined", "repos").mkdir(parents=True, exist_ok=True)
        raise OperationError("cannot reach review.example.org: connection refused")

    text = (ROOT / "examples" / "job.toml").read_text()
    job = tmp_path / "job.toml"
    job.write_text(text.replace('recordings = "mining"', f'out = "built"\nrecordings = "{ROOT / "examples" / "mining"}"'))
    monkeypatch.setitem(revmine.pipeline.RUNNERS, "mine", unreachable)
    monkeypatch.setattr(revmine.miners, "run_job", unreachable)
    for argv in (["run", str(job)], ["mine", "--job", str(job)]):
        assert main(argv) == 1
        assert capsys.readouterr().err.endswith("revmine: error: cannot reach review.example.org: connection refused\n")
        assert not (tmp_path / "built").exists(), argv


def test_classifier_and_unabstract_flags_come_from_their_options(capsys: pytest.CaptureFixture[str]) -> None:
    from revmine.filters.classifier import MODELS, ClassifierOptions
    from revmine.runtime.options import specs
    from revmine.preprocess.unabstract import UnabstractOptions

    commands = _subparsers(build_parser())
    for command, cls, skipped in (("revmine classifier train", ClassifierOptions, {"--noise-model", "--folds"}),
                                  ("revmine classifier evaluate", ClassifierOptions, {"--model"}),
                                  ("revmine unabstract", UnabstractOptions, set())):
        flags = {o for a in commands[command]._actions for o in a.option_strings}
        assert {"--" + name.replace("_", "-") for name in specs(cls)} - flags == skipped, command
    assert f"{{{','.join(MODELS)}}}" in commands["revmine classifier train"].format_help()
    for argv, message in [
        (["classifier", "evaluate", "--labels", "l.csv", "--cv", "--folds", "1"],
         "argument --folds: must be an integer >= 2, not 1"),
        (["classifier", "train", "--labels", "l.csv", "--out", "m.npz", "--seed", "-1"],
         "argument --seed: must be an integer >= 0, not -1"),
        (["classifier", "train", "--labels", "l.csv", "--out", "m.npz", "--model", "svm"],
         'argument --model: must be one of "random_forest", "decision_tree", "naive_bayes", not "svm"'),
        (["unabstract", "p.txt", "--maps", "m.parquet", "--out", "o.txt", "--beam", "0"],
         "argument --beam: must be an integer >= 1, not 0"),
    ]:
        assert main(argv) == 2
        assert capsys.readouterr().err.splitlines()[-1] == f"revmine: error: {message}", argv


#: what a command line that does no work must not import (each costs 0.1-3 s; issue 28)
HEAVY = ("pyarrow", "numpy", "sklearn", "numba", "tree_sitter", "pandas", "javalang", "lizard", "requests")


@pytest.mark.parametrize("argv, status", [(["--help"], 0), (["--version"], 0), (["no-such-command"], 2),
                                          (["run", "--bogus", "job.toml"], 2), (["browse", "--port", "x", "run"], 2),
                                          *(([command, "--bogus"], 2) for command in COMMANDS)])
def test_help_version_and_usage_errors_import_no_stage(argv: list[str], status: int) -> None:
    """The flags of a command are built when it is chosen, from its stage's settings module (no stage module),
    and run's job-file tables when its help is printed: ``revmine --help`` once imported every stage (1.5 s here)
    before printing a line, and ``revmine filter --bogus`` the filter stage with pyarrow and numpy (0.6 s)."""
    code = ("import sys\nfrom revmine.cli import main\nstatus = main(sys.argv[1:])\n"
            f"print('\\n' + ' '.join(sorted(m for m in {HEAVY!r} if m in sys.modules)) + f'|{{status}}')")
    proc = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, cwd=ROOT, timeout=120)
    imported, _, got = proc.stdout.rstrip("\n").rpartition("\n")[2].partition("|")
    assert (imported, int(got)) == ("", status), proc.stderr


def test_a_chosen_command_has_every_flag_of_the_full_parser() -> None:
    """The lazy command line parses exactly as the one built whole: same flags, same defaults."""
    for name, parser in _subparsers(build_parser()).items():
        lazy = build_parser(lazy=True)
        next(a for a in lazy._actions if isinstance(a, argparse._SubParsersAction)).fill(name.split()[1])
        assert _subparsers(lazy)[name].format_help() == parser.format_help()


def test_the_sacrebleu_profile_gives_sacrebleus_numbers(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Issue 30: score's default BLEU splits on whitespace, not sacreBLEU's 13a, a trap when comparing with published
    numbers: the summary says so, and --profile sacrebleu gives sacrebleu's own corpus and sentence values."""
    from revmine.metrics.predictions import read_predictions

    assert main(["score", str(EXAMPLE)]) == 0
    assert "not sacreBLEU's default `13a`" in capsys.readouterr().out
    assert main(["score", str(EXAMPLE), "--profile", "sacrebleu", "--out", str(tmp_path), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    hyps, refs = read_predictions(EXAMPLE).flat()
    k = summary["k"]
    rank1 = hyps[::k], refs[::k]
    assert summary["corpus_rank1"]["bleu4_13a"] == pytest.approx(
        sacrebleu.corpus_bleu(rank1[0], [rank1[1]]).score / 100, abs=1e-12)
    rows = pq.read_table(tmp_path / "scores.parquet", columns=["k", "bleu4_13a"]).to_pylist()
    ours = [r["bleu4_13a"] for r in rows if r["k"] == 1]
    assert ours == pytest.approx([sacrebleu.sentence_bleu(h, [r]).score / 100 for h, r in zip(*rank1)], abs=1e-12)
