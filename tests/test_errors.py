"""Whose fault an error is (issue 11, section 2): the user's input is one line naming the file and field
(exit 2), the world's failure one line saying what failed and what to do (exit 1), a bug keeps its
traceback; a failed command leaves no partial output and nothing it created."""

from __future__ import annotations

import errno
import re
import os
import shutil
import socket
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from revmine.io import store
from revmine.cli import main
from revmine.errors import InputError
from revmine.schema import CANDIDATES_SCHEMA
from revmine.io.staging import command_output
from revmine.io.store import check_columns
from revmine.io.textio import MAX_LINE_BYTES, read_lines

ROOT = Path(__file__).resolve().parents[1]
QUICKSTART = ROOT / "examples" / "quickstart" / "predictions_k3.txt"


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every stage's output for the bundled example (valid inputs to break one column at a time)."""
    out = tmp_path_factory.mktemp("example") / "out"
    assert main(["run", str(ROOT / "examples" / "job.toml"), "--out", str(out)]) == 0
    return out


def one_line_error(capsys: pytest.CaptureFixture[str], argv: list[str], status: int) -> str:
    """Run the command; it must fail with ``status`` and one error line on stderr, last, with no traceback
    (argparse's usage lines or a progress line may come before it)."""
    assert main(argv) == status
    lines = capsys.readouterr().err.strip().splitlines()
    errors = [line for line in lines if "error" in line.lower()]
    assert lines[-1].startswith("revmine: error: ") and len(errors) == 1 and "Traceback" not in lines, lines
    return lines[-1]


def rewrite(source: Path, dest: Path, column: str, values: pa.Array) -> Path:
    """``source`` with one column replaced (same name, other type) written to ``dest``."""
    table = pq.read_table(source)
    pq.write_table(table.set_column(table.schema.get_field_index(column), column, values), dest)
    return dest


def tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "revmine.cli", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


# --- whose fault ----------------------------------------------------------------------------------------

def test_a_bug_keeps_its_traceback(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def broken(*args, **kwargs):
        raise ValueError("an internal inconsistency")

    monkeypatch.setattr("revmine.metrics.score.score_file", broken)
    with pytest.raises(ValueError, match="an internal inconsistency"):  # not turned into a line blaming the input
        main(["score", str(QUICKSTART), "--out", str(tmp_path / "scores")])
    assert not (tmp_path / "scores").exists()


def test_input_is_exit_2_and_the_world_exit_1_as_one_line(tmp_path: Path) -> None:
    missing = cli("score", "missing.txt", cwd=tmp_path)
    assert missing.returncode == 2
    assert missing.stderr.strip().splitlines() == [
        "revmine: error: missing.txt: cannot read: No such file or directory"]
    with socket.socket() as probe:  # a loopback port nobody listens on: the connection is refused
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    mined = cli("mine", "gerrit", "--url", f"http://127.0.0.1:{port}", "--project", "p", "--out", "X", cwd=tmp_path)
    assert mined.returncode == 1, mined.stderr
    assert len(mined.stderr.strip().splitlines()) == 1 and "Traceback" not in mined.stderr
    assert f"127.0.0.1:{port}" in mined.stderr
    assert not (tmp_path / "X").exists()  # no http_cache.sqlite, no rounds.parquet, no repos left behind


def test_a_bad_setting_is_named(capsys: pytest.CaptureFixture[str], example: Path, tmp_path: Path) -> None:
    kept = str(example / "filtered" / "kept.parquet")
    err = one_line_error(capsys, ["split", "--dataset", kept, "--out", str(tmp_path / "s"), "--fractions", "a,b"], 2)
    assert err == 'revmine: error: argument --fractions: must be a list of 3 numbers in [0, 1], not "a"'
    err = one_line_error(capsys, ["split", "--dataset", kept, "--out", str(tmp_path / "s"), "--strategy", "abc"], 2)
    assert err == 'revmine: error: argument --strategy: must be one of "random", "project", "time", not "abc"'
    assert not (tmp_path / "s").exists()


# --- the disk refusing a write ----------------------------------------------------------------------------

def test_an_output_path_that_is_a_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    blocker = tmp_path / "results"
    blocker.write_text("mine, not revmine's\n")
    for out in (blocker, blocker / "k3"):  # EEXIST (mkdir of the file) and ENOTDIR (a folder below it)
        err = one_line_error(capsys, ["score", str(QUICKSTART), "--out", str(out)], 1)
        assert err == (f"revmine: error: cannot write {out}: {blocker} is a file where a "
                       "directory is needed: remove it or choose another output path")
    err = one_line_error(capsys, ["preprocess", "--rounds", str(ROOT / "missing.parquet"), "--out", str(blocker)], 2)
    assert "missing.parquet: no such file or directory" in err  # input is checked before any output
    assert [p.name for p in tmp_path.iterdir()] == ["results"] and blocker.read_text() == "mine, not revmine's\n"


@pytest.mark.parametrize("code, advice", [(errno.EROFS, "the file system is read-only"),
                                          (errno.EACCES, "permission denied"),
                                          (errno.ENOSPC, "the disk is full")])
def test_a_disk_refusing_the_output_is_one_line(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                                                tmp_path: Path, code: int, advice: str) -> None:
    out = tmp_path / "scores"
    out.mkdir()

    def refused(*args, **kwargs):  # what creating the temporary file meets on such a disk
        raise OSError(code, os.strerror(code), str(out / ".scores.parquet.x.tmp"))

    monkeypatch.setattr(store.tempfile, "mkstemp", refused)
    err = one_line_error(capsys, ["score", str(QUICKSTART), "--out", str(out)], 1)
    assert err.startswith(f"revmine: error: cannot write {out}: {advice}")  # found by the probe, before scoring
    assert ".tmp" not in err and list(out.iterdir()) == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only directory")
def test_a_read_only_directory(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "scores"
    out.mkdir()
    out.chmod(0o555)
    try:
        err = one_line_error(capsys, ["score", str(QUICKSTART), "--out", str(out)], 1)
    finally:
        out.chmod(0o755)
    assert "permission denied: make the directory writable or choose another output path" in err
    assert list(out.iterdir()) == []


def fill_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    """Parquet writes start, leave some bytes, then meet a full disk: the error is pyarrow's own on a full
    device (errno set, no file name), as measured by writing a table to /dev/full."""
    def write_table(table, where, *args, **kwargs):
        Path(where).write_bytes(b"PAR1 half a file")
        raise OSError(errno.ENOSPC, "Error writing bytes to file. Detail: [errno 28] No space left on device")

    class ParquetWriter(store.pq.ParquetWriter):  # streamed writes meet the same full disk
        def write_table(self, table, *args, **kwargs):
            raise OSError(errno.ENOSPC, "Error writing bytes to file. Detail: [errno 28] No space left on device")

    monkeypatch.setattr(store.pq, "write_table", write_table)
    monkeypatch.setattr(store.pq, "ParquetWriter", ParquetWriter)


def test_a_full_disk_keeps_the_previous_output(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                               example: Path) -> None:
    scores = tmp_path / "scores"
    assert main(["score", str(QUICKSTART), "--out", str(scores)]) == 0
    capsys.readouterr()
    filtered = tmp_path / "filtered"
    shutil.copytree(example / "filtered", filtered)
    before = tree(tmp_path)
    with pytest.MonkeyPatch.context() as monkeypatch:
        fill_disk(monkeypatch)
        err = one_line_error(capsys, ["score", str(QUICKSTART), "--out", str(scores)], 1)
        assert err.startswith(f"revmine: error: cannot write {scores / 'scores.parquet'}: the disk is full")
        err = one_line_error(capsys, ["filter", "--candidates", str(example / "preprocessed" / "candidates.parquet"),
                                      "--out", str(filtered)], 1)
        # the first of the stage's files to reach the disk (they are written together) is named
        assert re.match(rf"revmine: error: cannot write {re.escape(str(filtered))}/(kept|dropped)\.parquet: "
                        "the disk is full", err), err
    assert ".new" not in err and ".tmp" not in err  # the user's output is named, not a temporary one
    assert tree(tmp_path) == before  # no temporary file or folder left, the earlier output intact


# --- Parquet inputs checked against their schema ------------------------------------------------------------

def test_every_parquet_input_is_checked_against_its_schema(capsys: pytest.CaptureFixture[str], example: Path,
                                                           tmp_path: Path) -> None:
    rounds, kept = example / "mined" / "rounds.parquet", example / "filtered" / "kept.parquet"
    wrong_report = tmp_path / "report.parquet"
    pq.write_table(pa.table({"filter": ["input"], "removed": [0]}), wrong_report)  # was: KeyError: 'kind'
    rounds_parts = sorted(rounds.glob("*.parquet")) if rounds.is_dir() else [rounds]
    n_rounds = pq.read_metadata(rounds_parts[0]).num_rows
    bad_rounds = rewrite(rounds_parts[0], tmp_path / "rounds.parquet", "comments",
                         pa.array(["[]"] * n_rounds))  # was: ArrowNotImplementedError
    n_kept = pq.read_metadata(kept).num_rows
    int_m_s = rewrite(example / "preprocessed" / "candidates.parquet", tmp_path / "candidates.parquet", "m_s",
                      pa.array(range(pq.read_metadata(example / "preprocessed" / "candidates.parquet").num_rows)))
    text_times = rewrite(rounds_parts[0], tmp_path / "times.parquet", "created", pa.array(["2024-01-01"] * n_rounds))
    int_maps = tmp_path / "maps.parquet"
    pq.write_table(pa.table({"abstraction_ids": pa.array(range(n_kept))}), int_maps)
    int_judged = tmp_path / "judged.parquet"
    pq.write_table(pa.table({"prediction": [1, 2], "reference": ["a", "b"], "h1": [1.0, 2.0]}), int_judged)
    preds = tmp_path / "preds.txt"
    preds.write_text("x\n" * n_kept)
    cases = [
        (["export", "--splits", str(example / "splits"), "--filter-report", str(wrong_report)],
         f"{wrong_report} [kind]: missing column (expected string)"),
        (["preprocess", "--rounds", str(bad_rounds)],
         f"{bad_rounds} [comments]: column of type string, expected list<"),
        (["filter", "--candidates", str(int_m_s)], f"{int_m_s} [m_s]: column of type int64, expected large_string"),
        (["split", "--dataset", str(kept), "--strategy", "time", "--rounds", str(text_times)],
         f"{text_times} [created]: column of type string, expected timestamp[us, tz=UTC]"),
        (["unabstract", str(preds), "--maps", str(int_maps)],
         f"{int_maps} [abstraction_ids]: column of type int64, expected string"),
        (["agreement", str(int_judged), "--score-cols", "h1"],
         f"{int_judged} [prediction]: column of type int64, expected string"),
    ]
    for argv, message in cases:
        out = tmp_path / f"out-{argv[0]}"
        err = one_line_error(capsys, [*argv, "--out", str(out)], 2)
        assert err.startswith(f"revmine: error: {message}"), err
        assert not out.exists()


def test_extra_columns_and_other_widths_are_read(example: Path) -> None:
    """What a pandas user writes (int64 for int32, string for large_string, a column of their own) is read."""
    table = pq.read_table(example / "preprocessed" / "candidates.parquet")
    table = table.set_column(table.schema.get_field_index("round"), "round", pc.cast(table["round"], pa.int64()))
    table = table.set_column(table.schema.get_field_index("m_s"), "m_s", pc.cast(table["m_s"], pa.string()))
    check_columns("candidates.parquet", table.append_column("note", pa.array(["mine"] * len(table))).schema,
                  CANDIDATES_SCHEMA)
    with pytest.raises(InputError, match=r"^candidates\.parquet \[round\]: column of type double"):
        check_columns("candidates.parquet", table.set_column(table.schema.get_field_index("round"), "round",
                                                            pc.cast(table["round"], pa.float64())).schema,
                      CANDIDATES_SCHEMA)


# --- nothing left behind ---------------------------------------------------------------------------------

def test_a_failed_command_removes_only_what_it_created(capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    with monkeypatch.context() as full:  # fails after the output folders were made
        fill_disk(full)
        one_line_error(capsys, ["score", str(QUICKSTART), "--out", str(tmp_path / "new" / "scores")], 1)
    assert not (tmp_path / "new").exists()  # both folders the command made are gone
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ORACLE : a\nPREDICTION 1 : \xff\n")
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("kept")
    one_line_error(capsys, ["score", str(bad), "--out", str(mine)], 2)
    assert tree(mine) == {"notes.txt": b"kept"}  # a folder that was there is not the command's to remove


def test_checkpointed_progress_is_kept_to_resume(tmp_path: Path) -> None:
    def has_checkpoint(out: Path) -> bool:
        return (out / "state" / "p.json").exists()

    for checkpointed in (False, True):
        out = tmp_path / f"out-{checkpointed}"
        with pytest.raises(KeyboardInterrupt), command_output(out, keep=has_checkpoint):
            (out / "state").mkdir(parents=True)
            (out / "http_cache.sqlite").write_text("")
            if checkpointed:
                (out / "state" / "p.json").write_text("{}")
            raise KeyboardInterrupt
        assert out.exists() == checkpointed


# --- size guards ----------------------------------------------------------------------------------------------

def test_a_50_mb_line_is_refused_in_bounded_memory(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["score", str(QUICKSTART), "--json"]) == 0  # imports done before memory is measured
    capsys.readouterr()
    huge = tmp_path / "preds.txt"
    with open(huge, "wb") as fh:
        fh.write(b"ORACLE : x\n")
        for _ in range(50):
            fh.write(b"PREDICTION 1 : " + b"token " * 174_762)  # 50 MB without a newline
    refs = tmp_path / "refs.txt"
    refs.write_text("x\n")
    jsonl = tmp_path / "preds.jsonl"
    jsonl.write_bytes(b'{"pred": "a", "ref": "a"}\n{"pred": "' + b"a" * (MAX_LINE_BYTES + 1) + b'", "ref": "a"}\n')
    labels = tmp_path / "labels.csv"
    labels.write_bytes(b"text,label\n" + b"x" * (MAX_LINE_BYTES + 1) + b",noise\n")
    judged = tmp_path / "judged.csv"
    judged.write_bytes(b"prediction,reference,h1\na,a,1\n" + b"x" * (2 * MAX_LINE_BYTES + 1) + b",a,2\n")
    tracemalloc.start()
    try:
        err = one_line_error(capsys, ["score", str(huge), "--out", str(tmp_path / "out")], 2)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert err.startswith(f"revmine: error: {huge}:2: line longer than 1,048,576 bytes")
    assert peak < 16 * 2**20, f"{peak / 2**20:.1f} MiB"  # a 1 MiB read block and one line, not the file
    for argv, where in ((["score", str(huge), "--format", "text", "--refs", str(refs)], f"{huge}:2"),
                        (["score", str(jsonl)], f"{jsonl}:2"),
                        (["classifier", "evaluate", "--labels", str(labels)], f"{labels}:2")):
        assert one_line_error(capsys, argv, 2).startswith(f"revmine: error: {where}: line longer than")
    err = one_line_error(capsys, ["agreement", str(judged), "--score-cols", "h1"], 2)
    assert err == (f"revmine: error: {judged}: a row too long to read in blocks of 1,048,576 bytes (the line limit, "
                   "set by REVMINE_MAX_LINE_BYTES)")  # pyarrow reads a row across two blocks at most
    assert not (tmp_path / "out").exists()


def test_the_line_limit_is_configurable(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    text = tmp_path / "lines.txt"
    text.write_text("0123456789\n" + "é" * 8 + "\n")  # 10 bytes, then 16 bytes (2 per é)
    monkeypatch.setenv("REVMINE_MAX_LINE_BYTES", "16")
    assert read_lines(text) == ["0123456789", "é" * 8]
    monkeypatch.setenv("REVMINE_MAX_LINE_BYTES", "15")
    with pytest.raises(InputError, match=r"lines\.txt:2: line longer than 15 bytes"):
        read_lines(text)
    monkeypatch.setenv("REVMINE_MAX_LINE_BYTES", "lots")
    with pytest.raises(InputError, match="^REVMINE_MAX_LINE_BYTES: expected a positive number of bytes"):
        read_lines(text)


def test_a_failed_run_keeps_the_stages_it_finished(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                                                   tmp_path: Path) -> None:
    import revmine.pipeline as pipeline

    def unreachable(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(out / "preprocessed" / "candidates.parquet"))

    out = tmp_path / "out"
    with monkeypatch.context() as broken:
        broken.setitem(pipeline.RUNNERS, "preprocess", unreachable)
        assert main(["run", str(ROOT / "examples" / "job.toml"), "--out", str(out)]) == 1
    printed = capsys.readouterr().err
    err = printed.strip().splitlines()[-1]  # after the stages' progress lines
    assert "Traceback" not in printed
    assert err.startswith(f"revmine: error: cannot write {out / 'preprocessed' / 'candidates.parquet'}: the disk is full")
    assert (out / "mined" / "rounds.parquet").exists()  # progress, kept to resume from
    assert main(["run", str(ROOT / "examples" / "job.toml"), "--out", str(out)]) == 0
    assert "[1/5] mine: already done, skipped" in capsys.readouterr().err


def test_job_and_credentials_files_have_a_size_limit(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                                                     tmp_path: Path) -> None:
    from revmine.miners.http import credentials_from_env
    from revmine.io.textio import MAX_TOML_BYTES, read_toml

    toml = tmp_path / "big.toml"
    toml.write_bytes(b"a = 1\n" + b"#" * (MAX_TOML_BYTES - 7) + b"\n")  # exactly the limit: read
    assert read_toml(toml) == {"a": 1}
    toml.write_bytes(toml.read_bytes() + b"\n")
    with pytest.raises(InputError, match=r"big\.toml: larger than 1,048,576 bytes: not a job or settings file\?"):
        read_toml(toml)
    job = tmp_path / "job.toml"
    job.write_text((ROOT / "examples" / "job.toml").read_text())
    monkeypatch.setenv("REVMINE_MAX_TOML_BYTES", "100")
    assert one_line_error(capsys, ["run", str(job), "--out", str(tmp_path / "out")], 2) == (
        f"revmine: error: {job}: larger than 100 bytes: not a job or settings file? (the limit is set by "
        "REVMINE_MAX_TOML_BYTES)")
    assert not (tmp_path / "out").exists()
    secret = tmp_path / "credentials.toml"
    secret.write_text('[github]\ntokens = ["ghp_' + "x" * 100 + '"]\n')
    secret.chmod(0o600)
    with pytest.raises(InputError) as refused:
        credentials_from_env("github", env={"REVMINE_CREDENTIALS": str(secret)})
    assert str(refused.value) == (f"{secret}: larger than 100 bytes: not a job or settings file? (the limit is set "
                                  "by REVMINE_MAX_TOML_BYTES)")


def test_an_unwritable_output_is_refused_before_the_work(capsys: pytest.CaptureFixture[str], example: Path,
                                                          tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file in the way, or a read-only disk, is the error line before any filter runs or any project is
    mined (no progress line), and leaves nothing behind."""
    import revmine.filters.stage

    ran = []
    monkeypatch.setattr(revmine.filters.stage, "filter_candidates", lambda *args, **kwargs: ran.append(args))
    blocker = tmp_path / "filtered"
    blocker.write_text("mine\n")
    candidates = str(example / "preprocessed" / "candidates.parquet")
    assert main(["filter", "--candidates", candidates, "--out", str(blocker)]) == 1
    assert capsys.readouterr().err == (f"revmine: error: cannot write {blocker}: {blocker} is a file where a "
                                       "directory is needed: remove it or choose another output path\n")

    def read_only(*args, **kwargs):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), kwargs.get("dir"))
    monkeypatch.setattr("revmine.io.staging.tempfile.mkstemp", read_only)
    assert main(["filter", "--candidates", candidates, "--out", str(tmp_path / "f")]) == 1
    assert capsys.readouterr().err == (f"revmine: error: cannot write {tmp_path / 'f'}: the file system is "
                                       "read-only: choose an output path on a writable disk\n")
    assert main(["mine", "--job", str(ROOT / "examples" / "job.toml"), "--out", str(tmp_path / "m")]) == 1
    assert capsys.readouterr().err == (f"revmine: error: cannot write {tmp_path / 'm'}: the file system is "
                                       "read-only: choose an output path on a writable disk\n")
    assert ran == [] and sorted(p.name for p in tmp_path.iterdir()) == ["filtered"]


def test_importing_from_the_folder_that_holds_a_clone_named_revmine_says_so(tmp_path: Path) -> None:
    """That folder's ``revmine`` (the clone, no ``__init__.py``) shadows the package as a namespace package:
    one clear ImportError instead of "cannot import name '__version__' from 'revmine' (unknown location)"."""
    (tmp_path / "revmine").mkdir()
    (tmp_path / "revmine" / "revmine").symlink_to(ROOT / "revmine", target_is_directory=True)
    found = subprocess.run([sys.executable, "-c", "import revmine; print(hasattr(revmine, '__file__') "
                            "and revmine.__file__ is not None)"], cwd=tmp_path, capture_output=True, text=True)
    if found.stdout.strip() == "True":
        pytest.skip("this installation finds the package itself from there (not an editable install)")
    done = subprocess.run([sys.executable, "-c", "from revmine.cli import main"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)  # what the revmine command imports first
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == (
        f"ImportError: 'revmine' is the folder {tmp_path / 'revmine'}, not the installed package: Python was started "
        "in the folder that holds a clone named revmine; start it in another folder (or rename the clone)")
