"""The revmine command line: one sub-command per stage.

Every command takes -q (no progress, no notes on stderr), -v (more detail, and the traceback of an error)
and --json (the result as JSON on stdout instead of text); "-" for any one input file reads standard input
(named <stdin> in errors). Exit status: 0 done, 2 a usage or input error, 1 an operation that failed (a
forge, git, the disk), each reported as one line "revmine: error: ..."; 141 (128 + SIGPIPE, what a shell
reports for a Unix tool whose reader went away, so `set -o pipefail` scripts treat revmine alike) when
stdout was closed before the result was printed, quietly: the command's files are complete by then.
Anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import importlib.util
import inspect
import json
import math
import os
import shutil
import sys
import tempfile
import traceback
import warnings
from pathlib import Path
from typing import Any, Callable, Iterator

from .errors import InputError, OperationError
from .package import __version__
from .runtime.options import add_arguments, from_args, specs


class _Usage(Exception):
    """A command line that cannot run as given (exit status 2)."""


class _Parser(argparse.ArgumentParser):
    """argparse with revmine's error line: usage, then "revmine: error: ...", exit status 2; and help text that
    is only worked out when help is printed (``more_help``: the job file's tables need every stage's settings)."""

    more_help: Callable[[], str] | None = None

    def format_help(self) -> str:
        if self.more_help is not None:
            self.description = f"{self.description}\n\n{self.more_help()}"
            self.more_help = None
        return super().format_help()

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        print(f"revmine: error: {message}", file=sys.stderr)
        sys.exit(2)


def _common() -> argparse.ArgumentParser:
    """The flags of every command (defaults suppressed so that a sub-command does not reset them)."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS,
                        help="no progress and no notes on stderr (errors are still reported)")
    common.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS,
                        help="more detail on stderr, and the traceback of an error")
    common.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                        help="print the result as JSON on stdout (default: text)")
    common.add_argument("--no-lock-wait", action="store_true", default=argparse.SUPPRESS,
                        help="when another revmine is writing the same output, fail at once instead of waiting")
    return common


COMMON = _common()


def _flag(args: argparse.Namespace, name: str) -> bool:
    return bool(getattr(args, name, False))


def _progress(args: argparse.Namespace) -> bool:
    return not _flag(args, "quiet")


def _note(args: argparse.Namespace, line: str) -> None:
    """An informational line on stderr (silenced by -q)."""
    if not _flag(args, "quiet"):
        print(line, file=sys.stderr)


def _emit(args: argparse.Namespace, result: Any, text: str | Callable[[], str] | None = None) -> None:
    """Set a command's result: JSON with --json, else ``text`` (default: the result as indented lines).
    :func:`main` prints it once the command's outputs are complete, so a closed stdout cannot cost them."""
    if _flag(args, "json"):
        args.printed = json.dumps(_finite(result), indent=2, default=str, allow_nan=False)
    else:
        args.printed = text() if callable(text) else text if text is not None else "\n".join(_lines(result))


def _finite(value: Any) -> Any:
    """JSON has no NaN or infinity: an undefined number (a correlation without resamples) is null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def _lines(value: Any, indent: str = "") -> list[str]:
    """A JSON-like result as ``key: value`` lines, nested tables indented."""
    lines = []
    for key, item in value.items():
        if isinstance(item, dict) and item:
            lines += [f"{indent}{key}:", *_lines(item, indent + "  ")]
        elif isinstance(item, (list, tuple)) and not any(isinstance(v, (dict, list)) for v in item):
            lines.append(f"{indent}{key}: {', '.join(map(str, item))}")
        elif not isinstance(item, (dict, list, tuple)):
            lines.append(f"{indent}{key}: {item}")
    return lines


#: the files standard input was saved to during this command (at most one; removed when it ends)
_STDIN_COPIES: list[Path] = []
#: how an error or a result names standard input, instead of the file it was saved to
STDIN_NAME = "<stdin>"


def _stdin_copy(suffix: str) -> Path:
    """Standard input saved to a file (``suffix`` unless it is recognisably Parquet or JSON Lines), for
    readers that need a path; a second "-" on one command line is a usage error: there is one stdin."""
    if _STDIN_COPIES:
        raise argparse.ArgumentTypeError("standard input (-) is already read by another argument: give a file")
    data = sys.stdin.buffer.read()
    if data.startswith(b"PAR1"):
        suffix = ".parquet"
    elif data.lstrip()[:1] == b"{" and suffix != ".toml":
        suffix = ".jsonl"
    _remove_orphaned_stdin_copies()
    prefix = f"revmine-stdin-{os.getpid()}-"
    if suffix == ".toml":  # a job file: its relative paths are relative to the current directory, as for a file there
        handle, name = tempfile.mkstemp(prefix=f".{prefix}", suffix=suffix, dir=Path.cwd())
        os.close(handle)
        path = Path(name)
    else:
        path = Path(tempfile.mkdtemp(prefix=prefix)) / f"stdin{suffix}"
    _STDIN_COPIES.append(path)
    path.write_bytes(data)
    return path


def _remove_orphaned_stdin_copies() -> None:
    """Remove the standard-input copies of commands that were killed (their PID is in the name and no
    longer runs): the ``finally`` that removes a command's own copy does not run after ``kill -9``."""
    for found in [*Path(tempfile.gettempdir()).glob("revmine-stdin-*"), *Path.cwd().glob(".revmine-stdin-*")]:
        pid = found.name.lstrip(".").split("-")[2]
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(found, ignore_errors=True) if found.is_dir() else found.unlink(missing_ok=True)
        except PermissionError:  # another user's process, alive
            pass


def _remove_stdin_copies() -> None:
    for path in _STDIN_COPIES:
        if path.name.startswith(".revmine-stdin-"):  # a job file's copy, in the current directory
            path.unlink(missing_ok=True)
        else:  # the copy and the temporary folder made for it
            shutil.rmtree(path.parent, ignore_errors=True)
    _STDIN_COPIES.clear()


def _named(text: str) -> str:
    """``text`` (an error, a result) with the copies of standard input named ``<stdin>``."""
    for path in _STDIN_COPIES:
        for shown in (str(path.resolve()), str(path), path.name if path.name.startswith(".revmine-stdin-") else ""):
            text = text.replace(shown, STDIN_NAME) if shown else text
    return text


def _input(suffix: str) -> Callable[[str], Path]:
    """An argparse type for an input file: a path, or "-" for standard input (``suffix`` unless it is
    recognisably Parquet or JSON Lines)."""
    def convert(text: str) -> Path:
        return _stdin_copy(suffix) if text == "-" else Path(text)
    return convert


class _Commands(argparse._SubParsersAction):
    """The sub-commands, each listed with its one-line help but given its flags only when it is chosen.

    Why: a command's flags come from its stage's Options class, and importing the stages (pyarrow, numpy,
    tree-sitter, the miners) took about 1.5 s, which ``revmine --help``, ``--version`` and every usage error
    paid before doing anything; now a command imports only its own stage's settings module (``options.py``).
    """

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.pending: dict[str, Callable[[argparse._SubParsersAction], None]] = {}

    def defer(self, name: str, add: Callable[[argparse._SubParsersAction], None]) -> None:
        self.add_parser(name, parents=[COMMON], help=COMMANDS[name][1])  # what _command finds when ``add`` runs
        self.pending[name] = add

    def fill(self, name: str) -> None:
        """Give ``name`` its flags (its ``_add_*`` function), once."""
        add = self.pending.pop(name, None)
        if add is not None:
            add(self)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        self.fill(values[0])
        super().__call__(parser, namespace, values, option_string)


def _command(sub: argparse._SubParsersAction, name: str, **kwargs: Any) -> argparse.ArgumentParser:
    """A sub-command with the common flags and its help line from :data:`COMMANDS`. A new command is made here,
    takes its settings from its stage's Options class (:func:`add_arguments`, :func:`from_args`) and prints its
    result with :func:`_emit`."""
    parser = sub.choices.get(name) or sub.add_parser(name, parents=[COMMON], help=COMMANDS[name][1])
    for key, value in kwargs.items():  # description, formatter_class, more_help
        setattr(parser, key, value)
    return parser


def _stage_command(sub: argparse._SubParsersAction, name: str, options: type, source: tuple[str, str],
                   run: Callable[[argparse.Namespace], int], out_help: str = "output directory",
                   stdin: bool = True, **texts: Any) -> argparse.ArgumentParser:
    """A stage's command: its input (``source``: flag and help; with ``stdin``, - reads a Parquet file from
    standard input), ``--out``, and the flags of its Options class."""
    flag, help = source
    p = _command(sub, name, **texts)
    p.add_argument(flag, type=_input(".parquet") if stdin else Path, required=True, help=help)
    p.add_argument("--out", type=Path, required=True, help=out_help)
    add_arguments(p, options, stdin=_stdin_copy)
    p.set_defaults(func=run, stage_input=flag.lstrip("-").replace("-", "_"))
    return p


def _check_stage_input(args: argparse.Namespace) -> None:
    """A stage's input is refused before its output is checked (:func:`revmine.io.staging.check_writable`): the
    user's mistake first, in the stage's own words."""
    source = getattr(args, getattr(args, "stage_input", ""), None)
    if source is not None and not source.exists():
        raise InputError(source, "no such file or directory")


def _known_metrics() -> str:
    from .metrics.registry import METRICS

    return f"Known metrics: {', '.join(METRICS)}."


def _add_score(sub: argparse._SubParsersAction) -> None:
    from .metrics.options import ScoreOptions

    p = _command(sub, "score",
                 description="Score predictions (Tufano blocks, parallel text, JSON Lines or Parquet). Prints the "
                             "summary; with --out also writes scores.parquet, summary.json and summary.md there.",
                 more_help=_known_metrics)
    p.add_argument("predictions", type=_input(".txt"), help="predictions file (- for standard input)")
    add_arguments(p, ScoreOptions, stdin=_stdin_copy)
    p.add_argument("--out", type=Path, help="output directory (default: print the summary only)")
    p.add_argument("--plot", action="store_true", help="write box plots per k (PNG) to OUT/plots")
    p.add_argument("--report", action="store_true", help="write OUT/report.html (tables, distributions, the plots)")
    p.set_defaults(func=_run_score)


def _run_score(args: argparse.Namespace) -> int:
    from .metrics.options import ScoreOptions
    from .metrics.score import score_with, summary_markdown, write_run

    for flag in ("plot", "report"):
        if getattr(args, flag) and args.out is None:
            raise _Usage(f"--{flag} needs --out")
    if args.plot and importlib.util.find_spec("matplotlib") is None:
        raise _Usage("--plot needs matplotlib: pip install 'revmine[plots]'")
    run = score_with(from_args(ScoreOptions, args, predictions=args.predictions), progress=_progress(args),
                     out=args.out)
    if args.out is not None:
        paths = write_run(run, args.out, plot=args.plot)
        if args.report:
            from .report import write_score_report

            paths["report"] = write_score_report(args.out)
        _note(args, f"wrote {', '.join(str(p) for p in paths.values())}")
    _emit(args, run.summary, lambda: summary_markdown(run.summary))
    return 0


def _add_profiles(sub: argparse._SubParsersAction) -> None:
    p = _command(sub, "profiles")
    p.set_defaults(func=_run_profiles)


def _run_profiles(args: argparse.Namespace) -> int:
    from .metrics.profiles import PROFILES

    result = {p.name: {"description": p.description, "metrics": {m.column: m.signature() for m in p.metrics()}}
              for p in PROFILES.values()}

    def text() -> str:
        return "\n".join(f"{name}: {p['description']}\n" + "\n".join(f"    {c}: {sig}" for c, sig in p["metrics"].items())
                         for name, p in result.items())
    _emit(args, result, text)
    return 0


def _add_agreement(sub: argparse._SubParsersAction) -> None:
    from .metrics.options import AgreementOptions

    p = _command(sub, "agreement",
                 description="Compute every selected NL metric per (prediction, reference) pair and its "
                             "Spearman, Kendall and Pearson correlation with the mean human score, with "
                             "bootstrap 95% confidence intervals.")
    p.add_argument("judgements", type=_input(".csv"),
                   help="CSV or Parquet file with predictions, references, human scores (- for standard input)")
    add_arguments(p, AgreementOptions, stdin=_stdin_copy)
    p.add_argument("--out", type=Path, help="write agreement.parquet here")
    p.set_defaults(func=_run_agreement)


def _run_agreement(args: argparse.Namespace) -> int:
    from .metrics.agreement import agreement, read_judgements
    from .metrics.options import AgreementOptions
    from .metrics.registry import select_metrics
    from .schema import AGREEMENT_SCHEMA
    from .io.store import write_table

    opts = from_args(AgreementOptions, args)
    judged = read_judgements(args.judgements, opts.pred_col, opts.ref_col, list(opts.score_cols))
    metrics, profile = select_metrics(opts.profile, list(opts.metrics) if opts.metrics else None, "nl")
    extra = profile.agreement_options() if profile else {}
    table = agreement(judged.predictions, judged.references, judged.scores, metrics, n_boot=opts.bootstrap,
                      seed=opts.seed, **extra)
    if args.out is not None:
        write_table(table, args.out / "agreement.parquet" if args.out.suffix != ".parquet" else args.out,
                    AGREEMENT_SCHEMA)
    rows = table.to_pylist()

    def text() -> str:
        lines = ["| metric | n | spearman [95% CI] | kendall [95% CI] | pearson [95% CI] |", "|---|---|---|---|---|"]
        for r in rows:
            cells = [f"{r[c]:.3f} [{r[c + '_lo']:.3f}, {r[c + '_hi']:.3f}]" for c in ("spearman", "kendall", "pearson")]
            lines.append(f"| {r['metric']} | {r['n']} | " + " | ".join(cells) + " |")
        return "\n".join(lines)
    _emit(args, rows, text)
    return 0


def _job_file_help() -> str:
    """The tables and keys of a job file, for revmine run --help (docs/job-file.md has the details)."""
    import textwrap

    from .pipeline import PROJECT_KEYS, REFERENCE, sections

    lines = [f"The job file (TOML): [job] and [[projects]] say what to mine (each project: "
             f"{', '.join(sorted(PROJECT_KEYS))}); one table per stage configures that stage:", ""]
    for name, cls in sections().items():
        lines.append(textwrap.fill(", ".join(key for key, spec in specs(cls).items() if spec.job), 96,
                                   initial_indent=f"  [{name}] ".ljust(15), subsequent_indent=" " * 15))
    lines += ["", f"Relative paths are relative to the job file. The whole file is checked before any stage runs. "
                  f"Every key with its allowed values and default: {REFERENCE}; an example: examples/job.toml."]
    return "\n".join(textwrap.fill(line, 96) if not line.startswith("  ") else line for line in lines)


def _add_run(sub: argparse._SubParsersAction) -> None:
    p = _command(sub, "run",
                 formatter_class=argparse.RawDescriptionHelpFormatter,
                 description="Run a whole job file. Resumable: stages already done with the same settings are "
                             "skipped on a re-run.", more_help=_job_file_help)
    p.add_argument("job", type=_input(".toml"), help="job file (TOML; - for standard input)")
    p.add_argument("--out", type=Path, help="output directory (default: the job's [job] out)")
    p.add_argument("--force", action="store_true", help="re-run every stage")
    from .runtime.engine import EngineOptions

    add_arguments(p, EngineOptions)  # --engine, --workers, --scheduler: over the job's [engine]
    p.add_argument("--concurrency", type=int, help="projects and requests mined at once, over the job's [job] "
                                                  "concurrency (checked as it is; the work waits on the network)")
    p.set_defaults(func=_run_run)


def _run_run(args: argparse.Namespace) -> int:
    from .runtime.engine import EngineOptions
    from .pipeline import load_job, run, with_settings

    job = load_job(args.job, args.out)
    engine = {name: getattr(args, name) for name in specs(EngineOptions) if hasattr(args, name)}
    job = with_settings(job, "engine", **engine) if engine else job
    if getattr(args, "concurrency", None) is not None:
        job = with_settings(job, "job", concurrency=args.concurrency)
    verbose = _flag(args, "verbose")

    def echo(line: str) -> None:
        _note(args, line)
    state = run(job, force=args.force, progress=_progress(args), echo=echo)
    out = job.out
    paths = {"dataset": out / "dataset", "card": out / "dataset" / "README.md",
             "filter_report": out / "filtered" / "filter_report.md",
             "dropped": [out / stage / "dropped.parquet" for stage in ("mined", "preprocessed", "filtered", "splits")],
             "run_record": out / "run.json", "report": out / "report.html"}
    if "score" in state:
        paths["scores"] = out / "scores" / "summary.md"

    def text() -> str:
        lines = [*_dataset_counts(state.get("export", {}).get("result", {})),
                 f"dataset: {paths['dataset']} (card: {paths['card']})", f"filter report: {paths['filter_report']}",
                 "dropped rows, with reasons: " + ", ".join(map(str, paths["dropped"]))]
        if "scores" in paths:
            lines.append(f"scores: {paths['scores']}")
        lines += [f"run record: {paths['run_record']}", f"report: {paths['report']}"]
        if verbose:
            lines += [""] + _lines({stage: done["result"] for stage, done in state.items()})
        return "\n".join(lines)
    _emit(args, {"stages": state, "paths": paths}, text)
    return 0


def _dataset_counts(export: dict[str, Any]) -> list[str]:
    """What the dataset holds, as the README's first command promises it: ``26 triplets (train 21, validation 2,
    test 3)``, the pairs likewise, and the hunk level's hunks and comments when the job made them."""
    names, sizes = export.get("split_names", {}), export.get("sizes", {})  # run.json's keys come sorted
    lines = [f"{sum(per.values()):,} {config} ("
             + ", ".join(f"{names.get(split, split)} {per[split]:,}" for split in ("train", "eval", "test")
                         if split in per) + ")"
             for config in ("triplets", "pairs") if (per := sizes.get(config))]
    hunk = export.get("levels", {}).get("hunk") or {}
    if hunk:
        lines.append(f"{hunk['hunks']:,} hunks with {hunk['comments']:,} reviewer comments on them (hunk level)")
    return lines


def _add_mine(sub: argparse._SubParsersAction) -> None:
    from .miners.settings import MineOptions

    p = _command(sub, "mine",
                 description="Mine review rounds (discussion over REST, file contents from a local git "
                             "clone). Resumable: re-run the same command to continue a stopped job. "
                             "Tokens come from GITHUB_TOKEN(S), GERRIT_USER/GERRIT_PASSWORD, GITLAB_TOKEN(S) or the "
                             "file named by REVMINE_CREDENTIALS, never from the command line.")
    p.add_argument("--job", type=_input(".toml"), help="batch job file (TOML) listing many projects; checked "
                                                        "whole, as revmine run does (- for standard input)")
    p.add_argument("--out", type=Path, help="output directory (for --job: overrides the job's out)")
    platforms = p.add_subparsers(dest="platform", parser_class=_Parser)
    gerrit = platforms.add_parser("gerrit", parents=[COMMON], help="one Gerrit project")
    gerrit.add_argument("--url", required=True, help="Gerrit base URL, e.g. https://review.example.org")
    gerrit.add_argument("--project", required=True)
    github = platforms.add_parser("github", parents=[COMMON], help="one GitHub repository")
    github.add_argument("--repo", required=True, help="OWNER/NAME")
    github.add_argument("--api-url", default="https://api.github.com", help="API base (GitHub Enterprise, tests)")
    github.add_argument("--api", choices=("rest", "graphql"), default="rest",
                        help="where pull requests and review comments come from: REST (2 requests a pull request) "
                             "or GraphQL (many pull requests a query, charged in points)")
    gitlab = platforms.add_parser("gitlab", parents=[COMMON], help="one GitLab project")
    gitlab.add_argument("--project", required=True, help="GROUP/NAME or the project's numeric id")
    gitlab.add_argument("--url", default="https://gitlab.com", help="the instance, e.g. https://gitlab.gnome.org")
    for q in (p, gerrit, github, gitlab):
        add_arguments(q, MineOptions, stdin=_stdin_copy)
        q.add_argument("--no-wait", action="store_true", default=argparse.SUPPRESS,
                       help="fail instead of sleeping when a rate limit is hit")
    for q in (gerrit, github, gitlab):
        q.add_argument("--since", help="only changes updated on or after this date (YYYY-MM-DD)")
        q.add_argument("--until", help="only changes updated before this date")
        q.add_argument("--clone-url", help="where to clone the repository from (default: derived from the URL)")
        q.add_argument("--out", type=Path, required=True, help="output directory")
    p.set_defaults(func=_run_mine)


def _run_mine(args: argparse.Namespace) -> int:
    from .miners import JobOptions, mine_gerrit, mine_github, mine_gitlab, run_job
    from .miners.settings import MineOptions

    given = from_args(MineOptions, args)  # checked; a flag not given is absent from args (so None below)
    options = JobOptions(cache=given.cache, repos=given.repos, cache_mode=getattr(args, "cache_mode", None),
                         batch_size=getattr(args, "batch_size", None), progress=_progress(args),
                         wait_on_rate_limit=not _flag(args, "no_wait"), concurrency=given.concurrency,
                         max_concurrent_per_host=getattr(args, "max_concurrent_per_host", None),
                         languages=getattr(args, "languages", None),
                         robot_comments=getattr(args, "robot_comments", None), known_accounts=given.known_accounts,
                         stall_timeout=getattr(args, "stall_timeout", None))
    if args.job is not None:
        from .pipeline import load_job

        if args.platform:
            raise _Usage("give either --job or a platform (gerrit/github/gitlab), not both")
        job = load_job(args.job, args.out)  # the whole file, every table, as revmine run checks it
        manifest = run_job(args.job, job.out, options)
    elif args.platform == "gerrit":
        manifest = mine_gerrit(args.url, args.project, args.out, args.since, args.until,
                               clone_url=args.clone_url, options=options)
    elif args.platform == "github":
        manifest = mine_github(args.repo, args.out, args.since, args.api_url, args.until,
                               clone_url=args.clone_url, options=options, api=args.api)
    elif args.platform == "gitlab":
        manifest = mine_gitlab(args.project, args.out, args.since, args.url, args.until,
                               clone_url=args.clone_url, options=options)
    else:
        raise _Usage("revmine mine: give --job JOB.toml, or gerrit ..., github ... or gitlab ...")

    def text() -> str:
        lines = [f"{p['slug']}: {p['rows']} rows from {p['changes_done']} changes, {len(p['dropped'])} dropped"
                 + (f"; warning: {p['warning']}" if p.get("warning") else "") for p in manifest["projects"]]
        return "\n".join(lines + [f"rounds: {manifest['output']}", *_lines({"totals": manifest["totals"]})])
    _emit(args, manifest, text)
    return 0


def _add_preprocess(sub: argparse._SubParsersAction) -> None:
    from .preprocess.options import PreprocessOptions

    _stage_command(sub, "preprocess", PreprocessOptions,
                   ("--rounds", "rounds.parquet (file or directory of parts; - for standard input)"), _run_preprocess,
                   description="Extract Java methods (Lizard), link comments to methods, abstract code and "
                               "comments as src2abs did for the 2021 dataset. Writes candidates.parquet and "
                               "dropped.parquet (every dropped input with its reason).")


def _run_preprocess(args: argparse.Namespace) -> int:
    import dataclasses

    from .preprocess.candidates import PreprocessOptions, preprocess

    options = from_args(PreprocessOptions, args)
    counts = preprocess(args.rounds, args.out, progress=_progress(args), **dataclasses.asdict(options))
    _emit(args, counts)
    return 0


def _add_unabstract(sub: argparse._SubParsersAction) -> None:
    from .preprocess.options import UnabstractOptions

    p = _command(sub, "unabstract",
                 description="Replace TYPE_n, METHOD_n, VAR_n and literal ids in abstracted predictions "
                             "(one per line, --beam lines per example) with the original names, using "
                             "each example's abstraction map (a column of a candidates or dataset "
                             "Parquet file, row i for example i). Ids a map does not know stay as they "
                             "are and are counted.")
    p.add_argument("predictions", type=_input(".txt"), help="abstracted predictions, one per line (- for stdin)")
    add_arguments(p, UnabstractOptions, stdin=_stdin_copy)
    p.add_argument("--out", type=Path, required=True, help="where to write the source-code predictions")
    p.set_defaults(func=_run_unabstract)


def _run_unabstract(args: argparse.Namespace) -> int:
    from .preprocess.unabstract import UnabstractOptions, unabstract_file

    result = unabstract_file(args.predictions, args.out, from_args(UnabstractOptions, args))
    _emit(args, {"out": str(result.out), "predictions": result.predictions, "unknown_ids": result.unknown_ids},
          f"wrote {result.predictions} predictions to {result.out}; {result.unknown_ids} id(s) not in their map "
          "left as they are")
    return 0


def _add_classifier(sub: argparse._SubParsersAction) -> None:
    from .filters.classifier_options import ClassifierOptions

    p = _command(sub, "classifier")
    actions = p.add_subparsers(dest="action", required=True, parser_class=_Parser)
    train = actions.add_parser("train", parents=[COMMON], help="train a model on labelled comments and save it")
    evaluate = actions.add_parser(
        "evaluate", parents=[COMMON], help="what the noise filter keeps and removes on labelled comments",
        description="Kept share of change requests (label relevant), removed share of noise, per category when "
                    "the file has a category column, and precision/recall of the class relevant: for the default "
                    "filter (keyword rules + the shipped model, or --noise-model) and, with --cv, out-of-fold for "
                    "models trained on the file itself.")
    add_arguments(train, ClassifierOptions, skip=("noise_model", "folds"), stdin=_stdin_copy)
    train.add_argument("--out", type=Path, required=True, help="where to save the model (.npz)")
    add_arguments(evaluate, ClassifierOptions, skip=("model",), stdin=_stdin_copy)
    evaluate.add_argument("--cv", action="store_true", help="also cross-validate each model on the file")
    evaluate.add_argument("--by-project", action="store_true",
                          help="also leave one project out (the file's project column): the default design "
                               "(keyword rules + random forest) trained on the other projects' comments, scored "
                               "on the project left out; figures per project")
    p.set_defaults(func=_run_classifier)


def _share(part: int, whole: int) -> str:
    return f"{part / whole:.1%} ({part}/{whole})" if whole else "-"


def _run_classifier(args: argparse.Namespace) -> int:
    import dataclasses

    from .filters import classifier

    opts = from_args(classifier.ClassifierOptions, args)
    labelled = opts.labels
    if args.action == "train":
        classifier.train_from_file(labelled, args.out, model=opts.model, seed=opts.seed)
        _emit(args, {"model": opts.model, "labels": str(labelled), "out": str(args.out)},
              f"saved a {opts.model} model trained on {labelled} to {args.out}")
        return 0
    data = classifier.read_labelled(labelled)
    model = classifier.load(opts.noise_model) if opts.noise_model else classifier.default_model()
    by_rules = classifier.rules_noise(data.texts)
    kept = {"dropping keyword rules": ~by_rules,
            f"rules + {'model ' + opts.noise_model.name if opts.noise_model else 'default model'}":
                ~by_rules & model.predict(data.texts, data.codes if model.uses_code else None)}
    if args.cv:
        classifier.check_trainable(labelled, data, folds=opts.folds, seed=opts.seed)
        for name in classifier.MODELS:
            scores = classifier.out_of_fold(data.texts, data.labels, model=name, folds=opts.folds, seed=opts.seed)
            kept[f"rules + {name} ({opts.folds}-fold)"] = ~by_rules & (scores > 0.5)
    per_project: dict[str, classifier.FilterScores] = {}
    if args.by_project:
        lopo = classifier.evaluate_by_project(labelled, data, seed=opts.seed)
        kept["rules + random_forest (leave one project out)"] = lopo
        for project in sorted(set(data.projects or ())):
            rows = [i for i, p in enumerate(data.projects or ()) if p == project]
            per_project[project] = classifier.filter_scores([data.labels[i] for i in rows], lopo[rows],
                                                            None if data.categories is None else
                                                            [data.categories[i] for i in rows])
    results = {name: classifier.filter_scores(data.labels, k, data.categories) for name, k in kept.items()}

    def text() -> str:
        lines = [f"{labelled}: {len(data.texts)} comments, {sum(data.labels)} change requests (relevant), "
                 f"{len(data.labels) - sum(data.labels)} noise", "",
                 "| filter | kept change requests | removed noise | precision | recall |", "|---|---|---|---|---|"]
        for name, r in results.items():
            lines.append(f"| {name} | {_share(r.kept_relevant, r.relevant)} | {_share(r.removed_noise, r.noise)} "
                         f"| {r.precision:.3f} | {r.recall:.3f} |")
        if data.categories is not None:
            labels: dict[str, set[bool]] = {}
            for category, label in zip(data.categories, data.labels):
                labels.setdefault(category, set()).add(label)
            lines += ["", "| category | label | " + " | ".join(results) + " |", "|---|---|" + "---|" * len(results)]
            for category in next(iter(results.values())).categories:
                noise = labels[category] == {False}  # a noise category reports what is removed, any other what is kept
                cells = []
                for r in results.values():
                    n, k = r.categories[category]
                    cells.append(f"removed {_share(n - k, n)}" if noise else f"kept {_share(k, n)}")
                label = {frozenset({True}): "relevant", frozenset({False}): "noise"}.get(frozenset(labels[category]),
                                                                                          "both")
                lines.append(f"| {category} | {label} | " + " | ".join(cells) + " |")
        if per_project:
            lines += ["", "leave one project out, per project (each scored by a model that never saw it):", "",
                      "| project | comments | kept change requests | removed noise | precision |", "|---|---|---|---|---|"]
            for project, r in per_project.items():
                lines.append(f"| {project} | {r.relevant + r.noise} | {_share(r.kept_relevant, r.relevant)} | "
                             f"{_share(r.removed_noise, r.noise)} | {r.precision:.3f} |")
        return "\n".join(lines)
    result = {"comments": len(data.texts), "relevant": int(sum(data.labels)),
              "filters": {name: dataclasses.asdict(r) | {"precision": r.precision, "recall": r.recall}
                          for name, r in results.items()},
              "projects": {name: dataclasses.asdict(r) | {"precision": r.precision, "recall": r.recall}
                           for name, r in per_project.items()}}
    _emit(args, result, text)
    return 0


def _add_filter(sub: argparse._SubParsersAction) -> None:
    from .filters.options import FilterOptions

    p = _stage_command(sub, "filter", FilterOptions,
                       ("--candidates", "candidates.parquet of revmine preprocess (- for standard input)"), _run_filter,
                       out_help="output directory (not the preprocess one)",
                       description="The 2021 dataset's filters (author comments, unlinked, unchanged, too long, new "
                                   "identifiers, several comments, noise comments, exact and near duplicates). Writes "
                                   "kept.parquet, dropped.parquet and filter_report.{parquet,md}; prints the report.")
    _add_engine_arguments(p)


def _run_filter(args: argparse.Namespace) -> int:
    from .filters.stage import FilterOptions, filter_candidates

    with _stage_engine(args) as engine:
        result = filter_candidates(args.candidates, args.out, from_args(FilterOptions, args, engine=engine),
                                   progress=_progress(args))
    _emit(args, result, lambda: Path(result["report_markdown_path"]).read_text(encoding="utf-8"))
    return 0


def _add_split(sub: argparse._SubParsersAction) -> None:
    from .dataset.options import SplitOptions

    p = _stage_command(sub, "split", SplitOptions,
                       ("--dataset", "kept.parquet of revmine filter, or candidates (- for standard input)"), _run_split,
                       description="Seeded, deterministic split; whole near-duplicate clusters go to one split.")
    _add_engine_arguments(p)


def _run_split(args: argparse.Namespace) -> int:
    from .dataset.split import SplitOptions, split_dataset

    with _stage_engine(args) as engine:
        result = split_dataset(args.dataset, args.out, from_args(SplitOptions, args, engine=engine))
    _emit(args, result)
    return 0


def _add_engine_arguments(p: argparse.ArgumentParser) -> None:
    """--engine, --workers, --scheduler: where a stage whose Options take an ``engine`` runs its work."""
    from .runtime.engine import EngineOptions

    add_arguments(p, EngineOptions)


@contextlib.contextmanager
def _stage_engine(args: argparse.Namespace) -> Iterator[Any]:
    """The engine the flags of :func:`_add_engine_arguments` ask for, open for the command; None for local
    (the stage's own in-process path)."""
    from .runtime.engine import EngineOptions

    settings = from_args(EngineOptions, args)
    if settings.engine == "local":
        yield None
        return
    with settings.open() as engine:
        yield engine


def _add_export(sub: argparse._SubParsersAction) -> None:
    from .dataset.options import ExportOptions, PublishOptions

    p = _stage_command(sub, "export", ExportOptions, ("--splits", "directory with train/eval/test.parquet"),
                       _run_export, stdin=False)
    add_arguments(p.add_argument_group("what may be published (a job file's [publish])"), PublishOptions)
    _add_engine_arguments(p)


def _run_export(args: argparse.Namespace) -> int:
    from .dataset.export import ExportOptions, export_dataset
    from .dataset.options import PublishOptions

    with _stage_engine(args) as engine:
        options = from_args(ExportOptions, args, engine=engine, publish=from_args(PublishOptions, args))
        result = export_dataset(args.splits, args.out, options,
                                note=functools.partial(_note, args))
    _emit(args, result)
    return 0


def _add_import(sub: argparse._SubParsersAction) -> None:
    p = _command(sub, "import",
                 description="Import the 2021 replication package (raw_data_splitted/*.csv with the "
                             "abstracted src/src1/src2/tgt files) or CodeReviewer's JSON Lines into "
                             "OUT/{train,eval,test}.parquet (the publisher's split: revmine export, "
                             "overlap) and OUT/candidates.parquet (revmine filter, split).")
    p.add_argument("format", choices=["tufano2021", "codereviewer"], help="the dataset's format")
    p.add_argument("source", type=Path, help="the package's folder, or a CodeReviewer .jsonl file or folder")
    p.add_argument("--out", type=Path, required=True, help="output directory (replaced whole)")
    p.add_argument("--task", choices=["cls", "msg", "ref"],
                   help="CodeReviewer task, when the file names do not start with it")
    p.set_defaults(func=_run_import)


def _run_import(args: argparse.Namespace) -> int:
    from .interop.importer import import_dataset

    _emit(args, import_dataset(args.format, args.source, args.out, args.task))
    return 0


def _add_overlap(sub: argparse._SubParsersAction) -> None:
    p = _command(sub, "overlap",
                 description="Report, per split of NEW, its rows that are exact or near-duplicates (the "
                             "split's criterion) of BENCHMARK's rows. NEW and BENCHMARK are splits folders "
                             "or Parquet files. --drop writes NEW without them (export then records the "
                             "check in the dataset card).")
    p.add_argument("new", type=Path, help="the new dataset: a splits folder or a Parquet file")
    p.add_argument("--against", type=Path, required=True, help="the benchmark: a splits folder or a Parquet file")
    p.add_argument("--benchmark-splits", help="comma-separated splits of the benchmark folder (default: all)")
    p.add_argument("--engine", default="local", help="local (default) or dask (pip install 'revmine[dask]')")
    p.add_argument("--workers", type=int, help="Dask worker processes of a local cluster (default: the cores)")
    p.add_argument("--scheduler", help="address of a running Dask scheduler (or REVMINE_DASK_SCHEDULER)")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--report", type=Path, help="write overlap.json and overlap.parquet into this folder")
    out.add_argument("--drop", type=Path, help="write NEW without the overlapping rows (and the report) here")
    p.set_defaults(func=_run_overlap)


def _run_overlap(args: argparse.Namespace) -> int:
    from .dataset.overlap import OverlapOptions, check_overlap, drop_overlap, overlap_markdown, write_report

    splits = tuple(s.strip() for s in args.benchmark_splits.split(",") if s.strip()) if args.benchmark_splits else None
    summary, rows = check_overlap(args.new, args.against, OverlapOptions(benchmark_splits=splits),
                                  engine=args.engine, workers=args.workers, address=args.scheduler)
    if args.drop is not None:
        summary = drop_overlap(args.new, args.drop, summary, rows)
        _note(args, f"wrote {args.drop} without the overlapping rows")
    elif args.report is not None:
        write_report(args.report, summary, rows)
    _emit(args, summary, lambda: overlap_markdown(summary))
    return 0


def _add_compare(sub: argparse._SubParsersAction) -> None:
    p = _command(sub, "compare",
                 description="Score two systems' predictions on the same references and test the "
                             "difference: paired bootstrap resampling and/or approximate randomisation, "
                             "as sacrebleu's --paired-bs and --paired-ar (same seed, same p-values).")
    p.add_argument("baseline", type=_input(".txt"), help="system A (the baseline): one hypothesis per line "
                                                           "(- for standard input)")
    p.add_argument("system", type=_input(".txt"), help="system B: one hypothesis per line, same order (-: stdin)")
    p.add_argument("--refs", type=_input(".txt"), action="append", required=True,
                   help="references, one per line; repeat for several references per hypothesis (-: stdin)")
    p.add_argument("--metrics", default="bleu, chrf, ter", help="metric specs (default: bleu, chrf, ter)")
    p.add_argument("--test", choices=["bs", "ar", "both"], default="bs",
                   help="bs: paired bootstrap (default), ar: approximate randomisation, or both")
    p.add_argument("--samples", type=int, help="resamples (default 1000 for bs, 10000 for ar)")
    p.add_argument("--seed", type=int, default=12345, help="random seed (default 12345, sacrebleu's)")
    p.set_defaults(func=_run_compare)


def _run_compare(args: argparse.Namespace) -> int:
    from .metrics.options import split_specs
    from .metrics.registry import make_metrics
    from .metrics.significance import approximate_randomization, paired_bootstrap
    from .runtime.progress import progress_bar
    from .io.textio import read_lines

    baseline, system = read_lines(args.baseline), read_lines(args.system)
    if not baseline:
        raise InputError(args.baseline, "no hypotheses: the file is empty")
    if len(system) != len(baseline):
        raise InputError(args.system, f"{len(system)} lines but the baseline {args.baseline} has {len(baseline)}")
    streams = [read_lines(path) for path in args.refs]
    for path, stream in zip(args.refs, streams):
        if len(stream) != len(baseline):
            raise InputError(path, f"{len(stream)} references for {len(baseline)} hypotheses")
    sets = [list(refs) for refs in zip(*streams)]
    tests = {"bs": [paired_bootstrap], "ar": [approximate_randomization],
             "both": [paired_bootstrap, approximate_randomization]}[args.test]
    kw = {"seed": args.seed} | ({"n_samples": args.samples} if args.samples else {})
    metrics = make_metrics(split_specs(args.metrics))
    samples = sum(args.samples or inspect.signature(test).parameters["n_samples"].default for test in tests)
    with progress_bar(total=len(metrics) * samples, desc="compare", unit="resample",
                      enabled=_progress(args)) as bar:
        results = [test(metric, baseline, system, sets, **kw, progress=bar.update) for metric in metrics
                   for test in tests]

    def text() -> str:
        lines = [f"| metric | test | A: {args.baseline.name} | B: {args.system.name} | p-value | B: mean ± 95% CI |",
                 "|---|---|---|---|---|---|"]
        for r in results:
            ci = f"{r.system_mean:.4f} ± {r.system_ci:.4f}" if r.system_ci is not None else ""
            lines.append(f"| {r.metric} | {r.test} ({r.n_samples}) | {r.baseline:.4f} | {r.system:.4f} "
                         f"| {r.p_value:.4f} | {ci} |")
        return "\n".join(lines + ["", "signatures: " + "; ".join(dict.fromkeys(r.signature for r in results))])
    _emit(args, [r.as_dict() for r in results], text)
    return 0


def _add_report(sub: argparse._SubParsersAction) -> None:
    p = _command(sub, "report",
                 description="Write OUT/report.html, one self-contained page (no network): for a revmine run "
                             "folder the funnel from forge to dataset, drop reasons with examples, a sample of "
                             "triplets, token lengths, splits and clusters, stages and settings; for a revmine "
                             "score folder the per-k tables, distributions and plots. revmine run writes it too.")
    p.add_argument("out", type=Path, help="the output folder of revmine run (or revmine score --out)")
    p.set_defaults(func=_run_report)


def _run_report(args: argparse.Namespace) -> int:
    from .report import write_folder_report

    path = write_folder_report(args.out)
    _emit(args, {"report": str(path)}, str(path))
    return 0


def _add_browse(sub: argparse._SubParsersAction) -> None:
    p = _command(sub, "browse",
                 description="Serve a page on http://127.0.0.1:PORT/ (no network) to page through every split of the "
                             "run's triplets, pairs and hunks, search their texts and filter by column; it reads a "
                             "page at a time, so a million rows are as quick as a hundred. Ctrl-C stops it.")
    p.add_argument("run", type=Path, help="the output folder of revmine run (it has splits/)")
    p.add_argument("--port", type=int, default=None, help="the port (default 8765; 0: any free port)")
    p.set_defaults(func=_run_browse)


def _run_browse(args: argparse.Namespace) -> int:
    from .report.browser import DEFAULT_PORT, make_server

    port = DEFAULT_PORT if args.port is None else args.port
    try:
        server = make_server(args.run, port)
    except OSError as exc:
        raise OperationError(f"cannot listen on 127.0.0.1:{port}: {exc.strerror or exc} (try --port 0)") from exc
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    with server:  # what it serves is said before it serves (--json: one JSON line)
        _stdout_guard(functools.partial(print, flush=True), json.dumps({"run": str(args.run), "url": url})
                      if _flag(args, "json") else f"browsing {args.run} at {url} (Ctrl-C stops)")
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
    return 0


#: each command: the function that adds its flags, and its line in ``revmine --help``
COMMANDS: dict[str, tuple[Callable[[argparse._SubParsersAction], None], str]] = {
    "run": (_add_run, "the main job: mine, preprocess, filter, split, export (and score)"),
    "mine": (_add_mine, "mine review rounds from Gerrit or GitHub into rounds.parquet"),
    "preprocess": (_add_preprocess, "review rounds -> candidate triplets and pairs"),
    "filter": (_add_filter, "candidates -> kept rows, dropped rows with reasons, filter report"),
    "split": (_add_split, "split filtered rows into train/eval/test without leakage"),
    "export": (_add_export, "write the splits as a Hugging Face dataset folder, OpenNMT text, JSON Lines"),
    "score": (_add_score, "score model predictions against references"),
    "profiles": (_add_profiles, "list the reproduction profiles and what each does differently"),
    "agreement": (_add_agreement, "correlate NL metrics with human scores"),
    "unabstract": (_add_unabstract, "map abstracted predictions back to source code"),
    "classifier": (_add_classifier, "train or evaluate the noise-comment classifier on your labels"),
    "compare": (_add_compare, "is system B better than A? paired significance tests (as sacrebleu)"),
    "import": (_add_import, "bring a published dataset into revmine's schemas"),
    "overlap": (_add_overlap, "rows of a new dataset that a benchmark already has (contamination check)"),
    "report": (_add_report, "write report.html for a run folder (or a score folder)"),
    "browse": (_add_browse, "browse every row of a run in a web page on 127.0.0.1"),
}


def build_parser(lazy: bool = False) -> argparse.ArgumentParser:
    """revmine's command line; ``lazy``: each command gets its flags only when the command line chooses it
    (what :func:`main` does; :class:`_Commands` says why), else all at once (to list or document them)."""
    parser = _Parser(prog="revmine", description=__doc__.splitlines()[0], parents=[COMMON])
    parser.add_argument("--version", action="version", version=f"revmine {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser, action=_Commands)
    for name, (add, _) in COMMANDS.items():
        if lazy:
            sub.defer(name, add)
        else:
            add(sub)
    return parser


def _resumable(out: Path) -> bool:
    """A failed run or mine that checkpointed progress keeps its output folder, to resume from it (a run's
    mining checkpoints are in ``mined/state``)."""
    return (out / "run.json").exists() or any(out.glob("state/*.json")) or any(out.glob("*/state/*.json"))


def _writes_a_folder(args: argparse.Namespace) -> bool:
    """Whether ``--out`` names a folder (most commands) or a file (unabstract, classifier train, agreement's
    ``.parquet``): what :func:`revmine.io.staging.check_writable` checks before the work."""
    if args.command in ("unabstract", "classifier"):
        return False
    return not (args.command == "agreement" and args.out is not None and args.out.suffix == ".parquet")


def _output(args: argparse.Namespace) -> Path | None:
    """The folder a command writes: ``--out``, or for a job file without it (run, mine --job), the job's
    ``[job] out`` as :func:`revmine.pipeline.load_job` resolves it (relative to the job file)."""
    out = getattr(args, "out", None)
    if out is not None or getattr(args, "job", None) is None:
        return out
    from .pipeline import load_job

    return load_job(args.job).out  # the whole file checked first, as the command itself does


def main(argv: list[str] | None = None) -> int:
    """Run a command: usage and input errors exit 2, failed operations 1, each one line (-v: traceback);
    a closed standard output (``revmine ... | head``) ends it quietly with 141, a shell's status for SIGPIPE."""
    try:
        return _main(argv)
    except _StdoutClosed:  # a BrokenPipeError elsewhere (a command's own pipe) is a bug and keeps its traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nothing more to flush at exit
        return 141
    finally:
        _remove_stdin_copies()


def _main(argv: list[str] | None) -> int:
    try:
        args = _stdout_guard(build_parser(lazy=True).parse_args, argv)
    except SystemExit as stop:  # a usage error (2, already reported), --help or --version (0)
        _stdout_guard(sys.stdout.flush)
        return stop.code if isinstance(stop.code, int) else 0 if stop.code is None else 2
    from .io.staging import command_output  # after parsing: --help and bad options need no pyarrow

    try:
        _check_stage_input(args)
        with command_output(_output(args), keep=_resumable, command=" ".join(["revmine", *(argv or sys.argv[1:])]),
                            wait=not _flag(args, "no_lock_wait"), say=functools.partial(_note, args),
                            directory=_writes_a_folder(args)), warnings.catch_warnings():
            warnings.showwarning = _warning_line  # Python's filters decide which warnings show, this how
            _WARNED.clear()
            status = args.func(args)
    except (InputError, OperationError, _Usage) as exc:  # anything else is a bug: it keeps its traceback
        if os.environ.get("REVMINE_DEBUG"):
            raise
        if _flag(args, "verbose"):
            traceback.print_exc()
        print(f"revmine: error: {_named(str(exc))}", file=sys.stderr)
        return 1 if isinstance(exc, OperationError) else 2
    if getattr(args, "printed", None) is not None:
        _stdout_guard(print, _named(args.printed))
    _stdout_guard(sys.stdout.flush)
    return status


#: the warnings a command has shown (a metric scored batch by batch warns of each batch)
_WARNED: set[str] = set()


def _warning_line(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                  file: Any = None, line: str | None = None) -> None:
    """A warning as a user reads it: ``revmine: warning: ...`` on one line of stderr, once per text, not the source
    line that raised it. Why not the "once" filter: it forgets what it showed whenever a module imported later
    adds a filter (numpy, numba do), and a warning came twice."""
    if str(message) not in _WARNED:
        _WARNED.add(str(message))
        print(f"revmine: warning: {message}", file=sys.stderr)


class _StdoutClosed(Exception):
    """Standard output was closed by its reader."""


def _stdout_guard(write: Callable[..., Any], *args: Any) -> Any:
    """``write(*args)``, a write to standard output: its BrokenPipeError is a closed stdout, not a bug."""
    try:
        return write(*args)
    except BrokenPipeError as exc:
        raise _StdoutClosed from exc


if __name__ == "__main__":
    sys.exit(main())
