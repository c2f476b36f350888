"""One writer per output folder: a second writer waits (or, with --no-lock-wait, stops with one line naming the
holder), two writers started together both end well, and a run after a killed one leaves no temporary."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from revmine.cli import main
from revmine.io.output_lock import TEMPORARY, lock_path, output_lock
from revmine.io.store import read_table

ROOT = Path(__file__).resolve().parents[1]
JOB = ROOT / "examples" / "job.toml"


def revmine(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "revmine.cli", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(ROOT)})


def temporaries(folder: Path) -> list[Path]:
    """revmine's temporaries (and lock files) in ``folder`` and beside it; os.walk, since a running command
    may remove a folder while it is read (its errors are ignored)."""
    inside = [Path(top) / name for top, dirs, files in os.walk(folder) for name in dirs + files
              if TEMPORARY.fullmatch(name)]
    beside = [p for p in folder.parent.iterdir() if TEMPORARY.fullmatch(p.name) or p.name.endswith(".lock")]
    return inside + beside


def test_a_second_writer_with_no_wait_stops_naming_the_holder(tmp_path, capsys):
    out = tmp_path / "mined"
    with output_lock(out, "revmine mine --job other.toml"):
        assert main(["--no-lock-wait", "mine", "--job", str(JOB), "--out", str(out)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"PID {os.getpid()}" in err[0] and "revmine mine --job other.toml" in err[0]
    assert "is writing it" in err[0] and not out.exists()


def test_a_second_writer_waits_for_the_first_then_writes(tmp_path, capsys):
    out = tmp_path / "scores"
    predictions = ROOT / "examples" / "quickstart" / "predictions_k3.txt"
    held = threading.Event()

    def hold() -> None:
        with output_lock(out, "revmine score (held by the test)"):
            held.set()
            time.sleep(1.0)
    holder = threading.Thread(target=hold)
    holder.start()
    held.wait()
    started = time.monotonic()
    assert main(["score", str(predictions), "--out", str(out)]) == 0
    waited = time.monotonic() - started
    holder.join()
    assert waited >= 0.5
    assert "waiting for PID" in capsys.readouterr().err
    assert (out / "summary.json").exists() and not lock_path(out.absolute()).exists()


def test_two_writers_started_together_both_end_well(tmp_path):
    """Two ``revmine mine`` of the bundled example on one folder at once, 5 times: both exit 0, the rows and
    drops are those of one run, the manifest says every project was mined, and nothing is left behind."""
    reference = tmp_path / "reference"
    assert main(["-q", "mine", "--job", str(JOB), "--out", str(reference)]) == 0
    want = read_table(reference / "rounds.parquet").to_pylist()
    for trial in range(5):
        out = tmp_path / f"out{trial}"
        runs = [revmine("-q", "mine", "--job", str(JOB), "--out", str(out)) for _ in range(2)]
        results = [(run.wait(120), run.stderr.read().decode()) for run in runs]
        assert [code for code, _ in results] == [0, 0], results
        assert read_table(out / "rounds.parquet").to_pylist() == want
        manifest = json.loads((out / "manifest.json").read_text())
        assert {p["status"] for p in manifest["projects"]} <= {"mined", "finished_before"}
        assert all(p["failure"] is None for p in manifest["projects"])
        assert not any("project failed" in d["detail"] for d in read_table(out / "dropped.parquet").to_pylist())
        assert not temporaries(out), trial


def test_a_run_after_a_killed_one_removes_its_temporaries(tmp_path):
    """``kill -9`` the bundled example's run as soon as a temporary of a kind not seen yet is on disk (the
    replayed forge's repositories, an atomic write, a staged folder...), until three kills have left one (a
    temporary seen may be renamed before the signal lands, so a kill can leave none: at most ten tries); the
    next run removes them all and ends with the dataset."""
    out = tmp_path / "run"
    kinds: list[str] = []
    left = 0
    for _ in range(10):
        run = revmine("-q", "run", str(JOB), "--out", str(out))
        deadline = time.monotonic() + 60
        while run.poll() is None and time.monotonic() < deadline:
            fresh = {p.name.rsplit(".", 2)[0] for p in temporaries(out) if TEMPORARY.fullmatch(p.name)} - set(kinds)
            if fresh:
                run.send_signal(signal.SIGKILL)
                kinds += sorted(fresh)
                break
        run.wait()
        assert out.exists()
        left += bool([p for p in temporaries(out) if TEMPORARY.fullmatch(p.name)])
        if left == 3:
            break
    assert kinds and [p for p in temporaries(out) if TEMPORARY.fullmatch(p.name)], "no kill left a temporary"
    rerun = revmine("run", str(JOB), "--out", str(out))
    assert rerun.wait(300) == 0, rerun.stderr.read().decode()
    assert "was stopped before it ended" in rerun.stderr.read().decode()
    assert not temporaries(out), kinds
    assert (out / "dataset" / "README.md").exists()
