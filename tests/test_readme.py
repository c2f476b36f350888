"""The README's commands run as written: every ``revmine`` command of its shell blocks whose inputs are
here (the bundled examples) exits 0, its outputs sent to a temporary folder. Commands that
need a forge, a cluster or the reader's own files (``OWNER/NAME``, ``hyps.txt``, ``my-projects.toml``)
cannot run here; every path into this repository that a command names must exist."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
#: flags whose value is an output the command writes (sent to the test's folder)
OUTPUTS = ("--out", "--report", "--drop")


def commands() -> list[list[str]]:
    """Every ``revmine`` command of the README's ``bash`` blocks, comments removed."""
    found = []
    for block in re.findall(r"```bash\n(.*?)```", README.read_text(encoding="utf-8"), re.S):
        for line in block.splitlines():
            line = line.split(" # ")[0].split("  #")[0].strip()
            line = line.split("&& ", 1)[1] if line.startswith("pip install") and "&& " in line else line
            if line.startswith("revmine "):
                found.append(shlex.split(line))
    return found


#: flags whose value is not a path
SETTINGS = ("--profile", "--metrics", "--beam", "--seed", "--engine", "--workers", "--kind", "--pred-field",
            "--ref-field", "--normalize", "--test", "--repo", "--url", "--project", "--task", "--format",
            "--scheduler", "--representations")
#: words that name a sub-command, not a file
WORDS = ("gerrit", "github", "tufano2021", "codereviewer", "train", "evaluate")


def inputs(argv: list[str]) -> list[str]:
    """The arguments that name files or folders the command reads: positional ones and flags' values."""
    paths = []
    for i, arg in enumerate(argv[2:], start=2):
        before = argv[i - 1]
        if arg.startswith("-") or before in OUTPUTS or before in SETTINGS or arg in WORDS:
            continue
        paths.append(arg)
    return paths


def offline(path: Path) -> bool:
    """A job file that asks no forge: its projects are served from recordings (``[job] recordings``)."""
    if path.suffix != ".toml":
        return True
    import tomllib

    job = tomllib.loads(path.read_text(encoding="utf-8"))
    return "recordings" in job.get("job", {}) or not job.get("projects")


def runnable(argv: list[str]) -> bool:
    """Every input is here, and nothing goes to a forge or a cluster of the reader's."""
    paths = [ROOT / path for path in inputs(argv)]
    asks_a_forge = argv[1] == "mine" and argv[2] in ("gerrit", "github")
    return all(p.exists() for p in paths) and all(offline(p) for p in paths if p.is_file()) \
        and "--scheduler" not in argv and not asks_a_forge


def test_the_readme_commands_that_can_run_here_exit_0(tmp_path: Path) -> None:
    cmds = commands()
    ready = [argv for argv in cmds if runnable(argv)]
    assert ["revmine", "run", "examples/job.toml", "--out", "out/example"] in ready  # the set-up command
    assert any(argv[1] == "score" for argv in ready)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for k, argv in enumerate(ready):  # outputs relative to the clone, as a reader types them
        argv = [os.path.relpath(tmp_path / f"{k}" / arg, ROOT) if i and argv[i - 1] in OUTPUTS else arg
                for i, arg in enumerate(argv)]
        proc = subprocess.run([sys.executable, "-m", "revmine.cli", *argv[1:]], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, f"{' '.join(argv)}: {proc.stderr[-2000:]}"


def test_the_readme_names_no_missing_file_of_the_project() -> None:
    """Paths into this repository that the README's commands name exist (examples, docs, benchmarks), and none
    points outside a clone (``../shared/...`` existed only beside the developers' clone)."""
    named = {path for argv in commands() for path in inputs(argv)}
    missing = sorted(path for path in named if path.startswith(("examples/", "docs/", "benchmarks/"))
                     and not (ROOT / path).exists())
    assert named and not missing
    assert not [path for path in named if path.startswith("..")]
