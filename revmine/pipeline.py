"""The main job, ``revmine run JOB.toml``: mine, preprocess, filter, split, export, and optionally score.

One TOML file describes the whole run. Its ``[job]`` table and ``[[projects]]`` are the mining job of
``revmine mine --job`` (so one file serves both); the other tables configure one stage each::

    [preprocess]  max_file_bytes, timeout, idioms, batch_size, engine ("local"/"dask"), workers, address
    [filter]      max_tokens, noise_model, profile ("revmine"/"tufano2021"), skip = [...]
    [split]       strategy, fractions = [0.8, 0.1, 0.1], seed
    [export]      formats = [...], name, representations = ["tokens", "spt"]
    [score]       predictions, format, kind, profile        (optional: only when predictions are given)

Every stage writes into its own folder under the output directory and reads only the previous stage's
Parquet files. The run is resumable stage by stage: after a stage succeeds its *fingerprint* (a hash of
its settings and of the previous stage's fingerprint) is recorded in ``OUT/run.json`` (written
atomically); a re-run skips every stage whose fingerprint and outputs are unchanged, and re-runs a stage
whose settings changed together with everything after it. Mining itself checkpoints per change, so an
interrupted mining stage continues where it stopped.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from . import __version__
from .errors import InputError
from .store import write_json, write_text
from .textio import read_toml

STAGES = ("mine", "preprocess", "filter", "split", "export", "score")
_NUMBER = (int, float)
#: every setting of every table, with the type(s) its value may have
SECTIONS: dict[str, dict[str, type | tuple[type, ...]]] = {
    "job": {"out": str, "cache": str, "repos": str, "cache_mode": str, "batch_size": int, "recordings": str},
    "preprocess": {"max_file_bytes": int, "timeout": _NUMBER, "idioms": str, "batch_size": int, "engine": str,
                   "workers": int, "address": str},
    "filter": {"max_tokens": int, "noise_model": str, "profile": str, "skip": list},
    "split": {"strategy": str, "fractions": list, "seed": int},
    "export": {"formats": list, "name": str, "representations": list},
    "score": {"predictions": str, "format": str, "kind": str, "profile": str, "metrics": (str, list),
              "references": str, "beam": int, "workers": int},
}
PROJECT_KEYS = {"source", "url", "project", "repo", "api_url", "since", "until", "clone_url"}
#: settings naming files whose *contents* are part of a stage's fingerprint
FILE_SETTINGS = {"mine": ("recordings",), "preprocess": ("idioms",), "filter": ("noise_model",),
                 "score": ("predictions", "references")}
STATE_FILE = "run.json"
MINE_MARK = ".fingerprint"  # in the mining folder: which settings its checkpoints belong to


@dataclass(frozen=True)
class Job:
    """A parsed job file: where it is (relative paths are relative to it), where output goes, its tables."""

    path: Path
    out: Path
    config: dict[str, Any]

    def section(self, name: str) -> dict[str, Any]:
        return dict(self.config.get(name, {}))

    def resolve(self, value: str | None) -> Path | None:
        return None if value is None else (self.path.parent / value)


def load_job(path: str | Path, out: str | Path | None = None) -> Job:
    """Read and check a job file; unknown tables or settings are errors naming the file and field."""
    path = Path(path)
    config = read_toml(path)
    for name, value in config.items():
        if name == "projects":
            continue
        if name not in SECTIONS:
            raise InputError(path, f"unknown table [{name}]; tables are [[projects]], "
                                   + ", ".join(f"[{s}]" for s in SECTIONS), field=name)
        if not isinstance(value, dict):
            raise InputError(path, "must be a table", field=name)
        unknown = set(value) - set(SECTIONS[name])
        if unknown:
            raise InputError(path, f"unknown setting(s) {sorted(unknown)}; known: {sorted(SECTIONS[name])}",
                             field=name)
        for key, setting in value.items():
            wanted = SECTIONS[name][key]
            if not isinstance(setting, wanted) or isinstance(setting, bool) and bool not in _types(wanted):
                names = "/".join(t.__name__ for t in _types(wanted))
                raise InputError(path, f"must be {names}, not {type(setting).__name__}", field=f"{name}.{key}")
    for i, project in enumerate(config.get("projects", [])):
        unknown = set(project) - PROJECT_KEYS if isinstance(project, dict) else set()
        if unknown:
            raise InputError(path, f"unknown setting(s) {sorted(unknown)}; known: {sorted(PROJECT_KEYS)}",
                             field=f"projects[{i}]")
    from .miners.jobs import load_job as load_mining_job

    load_mining_job(path)  # the projects' own checks (sources, URLs, dates, no secrets)
    target = Path(out) if out is not None else None
    if target is None:
        job_out = config.get("job", {}).get("out")
        if job_out is None:
            raise InputError(path, "no output directory: give out= in [job] or --out", field="job.out")
        target = path.parent / job_out
    return Job(path, target, config)


def _types(wanted: type | tuple[type, ...]) -> tuple[type, ...]:
    return wanted if isinstance(wanted, tuple) else (wanted,)


def _digest(path: Path) -> str:
    """Hash of a file's bytes, or of every file under a folder (names and bytes), so edits re-run a stage."""
    h = hashlib.sha256()
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path] if path.exists() else []
    for file in files:
        h.update(str(file.relative_to(path) if path.is_dir() else file.name).encode() + b"\0")
        h.update(hashlib.sha256(file.read_bytes()).digest())
    return h.hexdigest()


def _fingerprint(job: Job, stage: str, settings: dict[str, Any], upstream: str) -> str:
    files = settings.get("job", settings)  # mining's file settings live in its [job] table
    contents = {key: _digest(job.resolve(files[key])) for key in FILE_SETTINGS.get(stage, ()) if files.get(key)}
    text = json.dumps({"stage": stage, "settings": settings, "files": contents, "upstream": upstream,
                       "revmine": __version__}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def run(job: Job, force: bool = False, progress: bool = True,
        echo: Callable[[str], None] = lambda line: print(line, file=sys.stderr)) -> dict[str, Any]:
    """Run every configured stage in order, skipping those already done with the same settings."""
    out = job.out
    out.mkdir(parents=True, exist_ok=True)
    state_path = out / STATE_FILE
    state: dict[str, Any] = {}
    if state_path.exists() and not force:
        try:
            state = json.loads(state_path.read_text())
        except ValueError:
            echo(f"{state_path} is unreadable: every stage runs again")
    stages = [s for s in STAGES if s != "score" or job.section("score").get("predictions")]
    upstream = ""
    for number, stage in enumerate(stages, start=1):
        settings = _settings(job, stage)
        fingerprint = _fingerprint(job, stage, settings, upstream)
        done = state.get(stage, {})
        outputs = [Path(p) for p in done.get("outputs", [])]
        if done.get("fingerprint") == fingerprint and outputs and all(p.exists() for p in outputs):
            echo(f"[{number}/{len(stages)}] {stage}: already done, skipped")
        else:
            echo(f"[{number}/{len(stages)}] {stage} ...")
            started = time.monotonic()
            try:
                result, outputs = RUNNERS[stage](job, settings | {"fingerprint": fingerprint, "force": force},
                                                 progress)
            except InputError as exc:
                if exc.path is not None:
                    raise
                # a setting the stage rejected: name the job file and its table (a bug's ValueError is not caught)
                raise InputError(job.path, exc.message, field=f"{stage}.{exc.field}" if exc.field else stage) from exc
            state[stage] = {"fingerprint": fingerprint, "seconds": round(time.monotonic() - started, 2),
                            "outputs": [str(p) for p in outputs], "result": result}
            for later in stages[number:]:  # anything after a re-run stage is stale
                state.pop(later, None)
            write_json(state_path, state)
            echo(f"[{number}/{len(stages)}] {stage}: done in {state[stage]['seconds']} s")
        upstream = fingerprint
    return state


def _settings(job: Job, stage: str) -> dict[str, Any]:
    if stage == "mine":
        return {"job": job.config.get("job", {}), "projects": job.config.get("projects", [])}
    return job.section(stage)


def _mine(job: Job, settings: dict[str, Any], progress: bool) -> tuple[dict, list[Path]]:
    from .miners import JobOptions, run_job

    target = job.out / "mined"
    mark = target / MINE_MARK
    if mark.exists() and (settings["force"] or mark.read_text() != settings["fingerprint"]):
        # checkpoints of other settings (another window, other projects) must not leak into this run;
        # the HTTP cache and the clones stay, they are keyed by URL and commit
        for stale in ("rounds.parquet", "state", "manifest.json", "dropped.parquet"):
            path = target / stale
            shutil.rmtree(path) if path.is_dir() else path.unlink(missing_ok=True)
    write_text(mark, settings["fingerprint"])
    manifest = run_job(job.path, target, JobOptions(progress=progress))
    return _brief(manifest.get("totals", {})), [target / "rounds.parquet", target / "dropped.parquet", target / "manifest.json"]


def _preprocess(job: Job, settings: dict[str, Any], progress: bool) -> tuple[dict, list[Path]]:
    from .preprocess.candidates import preprocess

    target = job.out / "preprocessed"
    options = {k: v for k, v in settings.items()
               if k in ("max_file_bytes", "timeout", "batch_size", "engine", "workers", "address")}
    counts = preprocess(job.out / "mined" / "rounds.parquet", target, idioms=job.resolve(settings.get("idioms")),
                        progress=progress, **options)
    return _brief(counts), [target / "candidates.parquet", target / "dropped.parquet"]


def _filter(job: Job, settings: dict[str, Any], progress: bool) -> tuple[dict, list[Path]]:
    from .filters.stage import FilterOptions, filter_candidates

    options = FilterOptions(max_tokens=settings.get("max_tokens", 100),
                            noise_model=job.resolve(settings.get("noise_model")),
                            profile=settings.get("profile", "revmine"),
                            skip=frozenset(settings.get("skip", ())))
    result = filter_candidates(job.out / "preprocessed" / "candidates.parquet", job.out / "filtered", options)
    paths = [Path(result[k]) for k in ("kept_path", "dropped_path", "report_path", "report_markdown_path")]
    return _brief(result), paths


def _split(job: Job, settings: dict[str, Any], progress: bool) -> tuple[dict, list[Path]]:
    from .dataset.split import SplitOptions, split_dataset

    target = job.out / "splits"
    options = SplitOptions(strategy=settings.get("strategy", "random"),
                           fractions=tuple(settings.get("fractions", (0.8, 0.1, 0.1))),
                           seed=settings.get("seed", 0), rounds=job.out / "mined" / "rounds.parquet")
    result = split_dataset(job.out / "filtered" / "kept.parquet", target, options)
    return _brief(result), [target / f"{name}.parquet" for name in ("train", "eval", "test")]


def _export(job: Job, settings: dict[str, Any], progress: bool) -> tuple[dict, list[Path]]:
    from .dataset.export import FORMATS, ExportOptions, export_dataset

    target = job.out / "dataset"
    options = ExportOptions(formats=tuple(settings.get("formats", FORMATS)),
                            name=settings.get("name", "Code review dataset"),
                            filter_report=job.out / "filtered" / "filter_report.parquet",
                            representations=tuple(settings.get("representations", ())))
    result = export_dataset(job.out / "splits", target, options)
    return _brief(result), [target / "README.md"]


def _score(job: Job, settings: dict[str, Any], progress: bool) -> tuple[dict, list[Path]]:
    from .metrics.score import score_file, write_run

    scored = score_file(job.resolve(settings["predictions"]), settings.get("format"),
                        job.resolve(settings.get("references")), settings.get("beam", 1),
                        profile=settings.get("profile"), metrics=settings.get("metrics"),
                        kind=settings.get("kind", "code"), workers=settings.get("workers", 1), progress=progress)
    paths = write_run(scored, job.out / "scores")
    last = scored.summary["per_k"][-1]
    return {"k": last["k"], "perfect": last["perfect"], "perfect_pct": last["perfect_pct"]}, list(paths.values())


def _brief(result: dict[str, Any]) -> dict[str, Any]:
    """The JSON-friendly numbers of a stage's result (paths are in ``outputs``)."""
    return {k: v for k, v in result.items() if isinstance(v, (int, float, str, dict)) and not k.endswith("_path")}


RUNNERS: dict[str, Callable[[Job, dict[str, Any], bool], tuple[dict, list[Path]]]] = {
    "mine": _mine, "preprocess": _preprocess, "filter": _filter, "split": _split, "export": _export, "score": _score,
}
