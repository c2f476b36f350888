"""The ``revmine`` command line: one sub-command per stage.

Errors in the user's input (:class:`revmine.errors.InputError`) are printed as one line naming the file
and line, with exit status 2; failures of the outside world (:class:`revmine.errors.OperationError`: network,
git, disk) as one line with exit status 1; anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
from pathlib import Path

from . import __version__
from .errors import InputError, OperationError


def _add_score(sub: argparse._SubParsersAction) -> None:
    from .metrics.profiles import PROFILES
    from .metrics.registry import METRICS

    p = sub.add_parser("score", help="score model predictions against references",
                       description="Score predictions (Tufano blocks, parallel text, JSON Lines or Parquet). "
                                   "Writes scores.parquet, summary.json and summary.md to --out.")
    p.add_argument("predictions", type=Path, help="predictions file")
    p.add_argument("--format", choices=["tufano", "text", "jsonl", "parquet"], help="input format (default: detect)")
    p.add_argument("--refs", type=Path, action="append",
                   help="references file, one per line (format text); repeat for several references")
    p.add_argument("--beam", type=int, default=1, help="predictions per example (format text)")
    p.add_argument("--pred-field", help="prediction field (jsonl, parquet)")
    p.add_argument("--ref-field", help="reference field (jsonl, parquet)")
    p.add_argument("--id-field", help="example id field (jsonl, parquet)")
    p.add_argument("--kind", choices=["code", "nl"], default="code",
                   help="default metric set: code (BLEU, edit distances, TREED) or nl (comments, messages)")
    p.add_argument("--metrics", help=f"comma-separated metric names, overriding --kind (with --profile: added to "
                                     f"the profile's); known: {', '.join(METRICS)}")
    p.add_argument("--profile", choices=sorted(PROFILES),
                   help="reproduce a publication's pipeline exactly (see `revmine profiles`)")
    p.add_argument("--out", type=Path, help="output directory (default: print the summary only)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON on stdout")
    p.add_argument("--plot", action="store_true", help="write box plots per k (PNG) to OUT/plots")
    p.add_argument("--workers", type=int, default=1,
                   help="processes to score in (worth it for slow metrics such as TER on large files)")
    p.add_argument("--ci", type=int, default=0, metavar="N",
                   help="95%% bootstrap confidence intervals of the means in the summary, N resamples")
    p.set_defaults(func=_run_score)


def _run_score(args: argparse.Namespace) -> int:
    from .metrics.score import score_file, summary_markdown, write_run

    if args.plot and args.out is None:
        raise InputError.setting("--plot", "needs --out")
    if args.plot and importlib.util.find_spec("matplotlib") is None:
        raise InputError.setting("--plot", "needs matplotlib: pip install 'revmine[plots]'")
    run = score_file(args.predictions, args.format, args.refs, args.beam, args.pred_field, args.ref_field,
                     args.id_field, args.profile, args.metrics, args.kind, args.workers,
                     progress=not args.json and sys.stderr.isatty(), ci=args.ci)
    if args.out is not None:
        paths = write_run(run, args.out, plot=args.plot)
        if not args.json:
            print(f"wrote {', '.join(str(p) for p in paths.values())}", file=sys.stderr)
    if args.json:
        json.dump(run.summary, sys.stdout, indent=2, allow_nan=False)
        print()
    else:
        print(summary_markdown(run.summary))
    return 0


def _add_profiles(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("profiles", help="list the reproduction profiles and what each does differently")
    p.set_defaults(func=_run_profiles)


def _run_profiles(args: argparse.Namespace) -> int:
    from .metrics.profiles import PROFILES

    for profile in PROFILES.values():
        print(f"{profile.name}: {profile.description}")
        for metric in profile.metrics():
            print(f"    {metric.column}: {metric.signature()}")
    return 0


def _add_agreement(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("agreement", help="correlate NL metrics with human scores",
                       description="Compute every selected NL metric per (prediction, reference) pair and its "
                                   "Spearman, Kendall and Pearson correlation with the mean human score, with "
                                   "bootstrap 95%% confidence intervals.")
    p.add_argument("judgements", type=Path, help="CSV or Parquet file with predictions, references, human scores")
    p.add_argument("--pred-col", default="prediction")
    p.add_argument("--ref-col", default="reference")
    p.add_argument("--score-cols", required=True, help="comma-separated human score columns (averaged)")
    p.add_argument("--metrics", help="comma-separated metric names (default: the nl set; with --profile: "
                                     "added to the profile's)")
    p.add_argument("--profile", help="a profile's metrics and post-processing (e.g. cmg2022)")
    p.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples (default 1000)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=Path, help="write agreement.parquet here")
    p.add_argument("--json", action="store_true", help="print the result as JSON on stdout")
    p.set_defaults(func=_run_agreement)


def _run_agreement(args: argparse.Namespace) -> int:
    from .metrics.agreement import agreement, read_judgements
    from .metrics.registry import select_metrics
    from .schema import AGREEMENT_SCHEMA
    from .store import write_table

    judged = read_judgements(args.judgements, args.pred_col, args.ref_col,
                             [c.strip() for c in args.score_cols.split(",") if c.strip()])
    metrics, profile = select_metrics(args.profile, args.metrics, "nl")
    options = profile.agreement_options() if profile else {}
    table = agreement(judged.predictions, judged.references, judged.scores, metrics, n_boot=args.bootstrap, seed=args.seed, **options)
    if args.out is not None:
        write_table(table, args.out / "agreement.parquet" if args.out.suffix != ".parquet" else args.out,
                    AGREEMENT_SCHEMA)
    rows = table.to_pylist()
    if args.json:
        json.dump(rows, sys.stdout, indent=2)
        print()
    else:
        print("| metric | n | spearman [95% CI] | kendall [95% CI] | pearson [95% CI] |")
        print("|---|---|---|---|---|")
        for r in rows:
            cells = [f"{r[c]:.3f} [{r[c + '_lo']:.3f}, {r[c + '_hi']:.3f}]" for c in ("spearman", "kendall", "pearson")]
            print(f"| {r['metric']} | {r['n']} | " + " | ".join(cells) + " |")
    return 0


def _add_run(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="the main job: mine, preprocess, filter, split, export (and score)",
                       description="Run a whole job file (see revmine/pipeline.py). Resumable: stages already "
                                   "done with the same settings are skipped on a re-run.")
    p.add_argument("job", type=Path, help="job file (TOML)")
    p.add_argument("--out", type=Path, help="output directory (default: the job's [job] out)")
    p.add_argument("--force", action="store_true", help="re-run every stage")
    p.set_defaults(func=_run_run)


def _run_run(args: argparse.Namespace) -> int:
    from .pipeline import load_job, run

    job = load_job(args.job, args.out)
    state = run(job, force=args.force, progress=sys.stderr.isatty())
    out = job.out
    print(f"dataset: {out / 'dataset'} (card: {out / 'dataset' / 'README.md'})")
    print(f"filter report: {out / 'filtered' / 'filter_report.md'}")
    print("dropped rows, with reasons: " + ", ".join(str(out / stage / "dropped.parquet")
                                                     for stage in ("mined", "preprocessed", "filtered", "splits")))
    if "score" in state:
        print(f"scores: {out / 'scores' / 'summary.md'}")
    print(f"run record: {out / 'run.json'}")
    return 0


def _add_mine(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("mine", help="mine review rounds from Gerrit or GitHub into rounds.parquet",
                       description="Mine review rounds (discussion over REST, file contents from a local git "
                                   "clone). Resumable: re-run the same command to continue a stopped job. "
                                   "Tokens come from GITHUB_TOKEN(S), GERRIT_USER/GERRIT_PASSWORD or the "
                                   "file named by REVMINE_CREDENTIALS, never from the command line.")
    p.add_argument("--job", type=Path, help="batch job file (TOML) listing many projects")
    p.add_argument("--out", type=Path, help="output directory (for --job: overrides the job's out)")
    _mining_options(p)
    platforms = p.add_subparsers(dest="platform")
    gerrit = platforms.add_parser("gerrit", help="one Gerrit project")
    gerrit.add_argument("--url", required=True, help="Gerrit base URL, e.g. https://review.example.org")
    gerrit.add_argument("--project", required=True)
    github = platforms.add_parser("github", help="one GitHub repository")
    github.add_argument("--repo", required=True, help="OWNER/NAME")
    github.add_argument("--api-url", default="https://api.github.com", help="API base (GitHub Enterprise, tests)")
    for q in (gerrit, github):
        q.add_argument("--since", help="only changes updated on or after this date (YYYY-MM-DD)")
        q.add_argument("--until", help="only changes updated before this date")
        q.add_argument("--clone-url", help="where to clone the repository from (default: derived from the URL)")
        q.add_argument("--out", type=Path, required=True, help="output directory")
        _mining_options(q)
    p.set_defaults(func=_run_mine)


def _mining_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--cache", type=Path, default=argparse.SUPPRESS,
                   help="HTTP cache file (default OUT/http_cache.sqlite)")
    p.add_argument("--offline", action="store_true", default=argparse.SUPPRESS,
                   help="replay from the cache only; a request not in it is an error")
    p.add_argument("--no-cache", action="store_true", default=argparse.SUPPRESS, help="do not cache responses")
    p.add_argument("--no-wait", action="store_true", default=argparse.SUPPRESS,
                   help="fail instead of sleeping when a rate limit is hit")


def _run_mine(args: argparse.Namespace) -> int:
    from .miners import JobOptions, mine_gerrit, mine_github, run_job

    opt = vars(args)
    options = JobOptions(cache=opt.get("cache"), progress=sys.stderr.isatty(),
                         cache_mode="offline" if opt.get("offline") else "off" if opt.get("no_cache") else "use",
                         wait_on_rate_limit=not opt.get("no_wait"))
    if args.job is not None:
        if args.platform:
            raise InputError.setting("revmine mine", "give either --job or a platform (gerrit/github), not both")
        manifest = run_job(args.job, args.out, options)
    elif args.platform == "gerrit":
        manifest = mine_gerrit(args.url, args.project, args.out, args.since, args.until,
                               clone_url=args.clone_url, options=options)
    elif args.platform == "github":
        manifest = mine_github(args.repo, args.out, args.since, args.api_url, args.until,
                               clone_url=args.clone_url, options=options)
    else:
        raise InputError.setting("revmine mine", "give --job JOB.toml, or `gerrit ...` or `github ...`")
    json.dump(manifest, sys.stdout, indent=2, default=str)
    print()
    return 0


def _add_preprocess(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("preprocess", help="review rounds -> candidate triplets and pairs",
                       description="Extract Java methods (Lizard), link comments to methods, abstract code and "
                                   "comments as src2abs did for the 2021 dataset. Writes candidates.parquet and "
                                   "dropped.parquet (every dropped input with its reason).")
    p.add_argument("--rounds", type=Path, required=True, help="rounds.parquet (file or directory of parts)")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--idioms", type=Path, help="idiom list, one per line (default: the 2021 dataset's)")
    p.add_argument("--batch-size", type=int, default=64, help="rounds per batch (memory bound)")
    p.add_argument("--max-file-bytes", type=int, default=1_000_000, help="larger files are dropped")
    p.add_argument("--timeout", type=float, default=10.0, help="seconds allowed per file")
    p.add_argument("--engine", default="local", help="local (default) or dask (pip install 'revmine[dask]')")
    p.add_argument("--workers", type=int, help="Dask worker processes of a local cluster (default: the cores)")
    p.add_argument("--scheduler", help="address of a running Dask scheduler (or REVMINE_DASK_SCHEDULER)")
    p.set_defaults(func=_run_preprocess)


def _run_preprocess(args: argparse.Namespace) -> int:
    from .preprocess.candidates import preprocess

    counts = preprocess(args.rounds, args.out, idioms=args.idioms, batch_size=args.batch_size,
                        max_file_bytes=args.max_file_bytes, timeout=args.timeout, progress=sys.stderr.isatty(),
                        engine=args.engine, workers=args.workers, address=args.scheduler)
    json.dump(counts, sys.stdout, indent=2, default=str)
    print()
    return 0


def _add_unabstract(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("unabstract", help="map abstracted predictions back to source code",
                       description="Replace TYPE_n, METHOD_n, VAR_n and literal ids in abstracted predictions "
                                   "(one per line, --beam lines per example) with the original names, using "
                                   "each example's abstraction map (a column of a candidates or dataset "
                                   "Parquet file, row i for example i). Ids a map does not know stay as they "
                                   "are and are counted.")
    p.add_argument("predictions", type=Path, help="abstracted predictions, one per line")
    p.add_argument("--maps", type=Path, required=True, help="Parquet file with one abstraction map per example")
    p.add_argument("--map-column", help="JSON column holding the maps (default: abstraction_ids, the exact "
                                        "inverse, else abstraction_map)")
    p.add_argument("--beam", type=int, default=1, help="consecutive prediction lines per example")
    p.add_argument("--out", type=Path, required=True, help="where to write the source-code predictions")
    p.set_defaults(func=_run_unabstract)


def _run_unabstract(args: argparse.Namespace) -> int:
    from .preprocess.unabstract import unabstract_file

    result = unabstract_file(args.predictions, args.maps, args.out, beam=args.beam, map_column=args.map_column)
    print(f"wrote {result.predictions} predictions to {result.out}; {result.unknown_ids} id(s) not in their map "
          "left as they are", file=sys.stderr)
    return 0


# Parsers are built without importing the stages (scikit-learn alone takes a second): choices that live in
# a stage are checked by the stage, whose InputError becomes a one-line error.
def _add_classifier(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("classifier", help="train or evaluate the noise-comment classifier on your labels")
    actions = p.add_subparsers(dest="action", required=True)
    train = actions.add_parser("train", help="train a model on labelled comments and save it")
    evaluate = actions.add_parser(
        "evaluate", help="what the noise filter keeps and removes on labelled comments",
        description="Kept share of change requests (label relevant), removed share of noise, per category when "
                    "the file has a category column, and precision/recall of the class relevant: for the default "
                    "filter (keyword rules + the shipped model, or --noise-model) and, with --cv, out-of-fold for "
                    "models trained on the file itself.")
    for q in (train, evaluate):
        q.add_argument("--labels", type=Path, required=True, help="CSV or JSON Lines with columns text,label "
                                                                   "(label: relevant or noise; optional category)")
        q.add_argument("--seed", type=int, default=0)
    train.add_argument("--model", help="random_forest, decision_tree or naive_bayes (default: random_forest)")
    train.add_argument("--out", type=Path, required=True, help="where to save the model (.npz)")
    evaluate.add_argument("--noise-model", type=Path, help="a model saved by `revmine classifier train` "
                                                           "(default: the shipped one)")
    evaluate.add_argument("--cv", action="store_true", help="also cross-validate each model on the file")
    evaluate.add_argument("--folds", type=int, default=10)
    p.set_defaults(func=_run_classifier)


def _share(part: int, whole: int) -> str:
    return f"{part / whole:.1%} ({part}/{whole})" if whole else "-"


def _run_classifier(args: argparse.Namespace) -> int:
    from .filters import classifier

    if args.action == "train":
        model = args.model or classifier.DEFAULT_MODEL
        classifier.train_from_file(args.labels, args.out, model=model, seed=args.seed)
        print(f"saved a {model} model trained on {args.labels} to {args.out}", file=sys.stderr)
        return 0
    data = classifier.read_labelled(args.labels)
    model = classifier.load(args.noise_model) if args.noise_model else classifier.default_model()
    by_rules = classifier.rules_noise(data.texts)
    kept = {"dropping keyword rules": ~by_rules,
            f"rules + {'model ' + args.noise_model.name if args.noise_model else 'default model'}":
                ~by_rules & model.predict(data.texts)}
    if args.cv:
        classifier.check_trainable(args.labels, data, folds=args.folds, seed=args.seed)
        for name in classifier.MODELS:
            scores = classifier.out_of_fold(data.texts, data.labels, model=name, folds=args.folds, seed=args.seed)
            kept[f"rules + {name} ({args.folds}-fold)"] = ~by_rules & (scores > 0.5)
    results = {name: classifier.filter_scores(data.labels, k, data.categories) for name, k in kept.items()}
    print(f"{args.labels}: {len(data.texts)} comments, {sum(data.labels)} change requests (relevant), "
          f"{len(data.labels) - sum(data.labels)} noise\n")
    print("| filter | kept change requests | removed noise | precision | recall |\n|---|---|---|---|---|")
    for name, r in results.items():
        print(f"| {name} | {_share(r.kept_relevant, r.relevant)} | {_share(r.removed_noise, r.noise)} "
              f"| {r.precision:.3f} | {r.recall:.3f} |")
    if data.categories is not None:
        labels: dict[str, set[bool]] = {}
        for category, label in zip(data.categories, data.labels):
            labels.setdefault(category, set()).add(label)
        print("\n| category | label | " + " | ".join(results) + " |\n|---|---|" + "---|" * len(results))
        for category in next(iter(results.values())).categories:
            noise = labels[category] == {False}  # a noise category reports what is removed, any other what is kept
            cells = []
            for r in results.values():
                n, k = r.categories[category]
                cells.append(f"removed {_share(n - k, n)}" if noise else f"kept {_share(k, n)}")
            label = {frozenset({True}): "relevant", frozenset({False}): "noise"}.get(frozenset(labels[category]), "both")
            print(f"| {category} | {label} | " + " | ".join(cells) + " |")
    return 0


def _add_filter(sub: argparse._SubParsersAction) -> None:
    from .filters.stage import PROFILES

    p = sub.add_parser("filter", help="candidates -> kept rows, dropped rows with reasons, filter report",
                       description="The 2021 dataset's filters (author comments, unlinked, unchanged, too long, "
                                   "new identifiers, several comments, noise comments, exact and near "
                                   "duplicates). Writes kept.parquet, dropped.parquet and filter_report.{parquet,md}.")
    p.add_argument("--candidates", type=Path, required=True, help="candidates.parquet of `revmine preprocess`")
    p.add_argument("--out", type=Path, required=True, help="output directory (not the preprocess one)")
    p.add_argument("--max-tokens", type=int, default=100, help="longest abstracted m_s / m_r kept (default 100)")
    p.add_argument("--noise-model", type=Path, help="a model saved by `revmine classifier train`")
    p.add_argument("--profile", choices=sorted(PROFILES), default="revmine",
                   help="noise rules: " + "; ".join(f"{name}: {what}" for name, what in PROFILES.items())
                        + " (default revmine; tufano2021 runs no classifier unless --noise-model is given)")
    p.add_argument("--skip", default="", help="comma-separated filters not to run")
    p.set_defaults(func=_run_filter)


def _run_filter(args: argparse.Namespace) -> int:
    from .filters.stage import FilterOptions, filter_candidates

    options = FilterOptions(max_tokens=args.max_tokens, noise_model=args.noise_model, profile=args.profile,
                            skip=frozenset(s.strip() for s in args.skip.split(",") if s.strip()))
    result = filter_candidates(args.candidates, args.out, options)
    print(Path(result["report_markdown_path"]).read_text(encoding="utf-8"))
    return 0


def _add_split(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("split", help="split filtered rows into train/eval/test without leakage",
                       description="Seeded, deterministic split; whole near-duplicate clusters go to one split.")
    p.add_argument("--dataset", type=Path, required=True, help="kept.parquet of `revmine filter` (or candidates)")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--strategy", default="random", help="random (default), project or time")
    p.add_argument("--fractions", default="0.8,0.1,0.1", help="train,eval,test fractions (default 0.8,0.1,0.1)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--rounds", type=Path, help="rounds.parquet (the times the `time` strategy orders by)")
    p.set_defaults(func=_run_split)


def _run_split(args: argparse.Namespace) -> int:
    from .dataset.split import SplitOptions, split_dataset

    try:
        fractions = tuple(float(f) for f in args.fractions.split(","))
    except ValueError:
        raise InputError.setting("--fractions", f"expected three numbers, got {args.fractions!r}") from None
    result = split_dataset(args.dataset, args.out, SplitOptions(strategy=args.strategy, fractions=fractions,
                                                                  seed=args.seed, rounds=args.rounds))
    json.dump(result, sys.stdout, indent=2, default=str)
    print()
    return 0


def _add_export(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("export", help="write the splits as a Hugging Face dataset folder, OpenNMT text, JSON Lines")
    p.add_argument("--splits", type=Path, required=True, help="directory with train/eval/test.parquet")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--formats", help="comma-separated, from parquet, opennmt, jsonl (default: all)")
    p.add_argument("--name", default="Code review dataset", help="the dataset card's title")
    p.add_argument("--filter-report", type=Path, help="filter_report.parquet, for the card's Filters section")
    p.add_argument("--representations", help="comma-separated, from tokens, spt: token streams and simplified parse "
                   "trees (Project CodeNet) of each method, in representations/")
    p.set_defaults(func=_run_export)


def _run_export(args: argparse.Namespace) -> int:
    from .dataset.export import FORMATS, ExportOptions, export_dataset

    formats = tuple(f.strip() for f in args.formats.split(",") if f.strip()) if args.formats else FORMATS
    representations = tuple(r.strip() for r in (args.representations or "").split(",") if r.strip())
    options = ExportOptions(formats=formats, name=args.name, filter_report=args.filter_report,
                            representations=representations)
    json.dump(export_dataset(args.splits, args.out, options), sys.stdout, indent=2, default=str)
    print()
    return 0


def _add_compare(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("compare", help="is system B better than A? paired significance tests (as sacrebleu)",
                       description="Score two systems' predictions on the same references and test the "
                                   "difference: paired bootstrap resampling and/or approximate randomisation, "
                                   "as sacrebleu's --paired-bs and --paired-ar (same seed, same p-values).")
    p.add_argument("baseline", type=Path, help="system A (the baseline): one hypothesis per line")
    p.add_argument("system", type=Path, help="system B: one hypothesis per line, same order")
    p.add_argument("--refs", type=Path, action="append", required=True,
                   help="references, one per line; repeat for several references per hypothesis")
    p.add_argument("--metrics", default="bleu, chrf, ter", help="metric specs (default: bleu, chrf, ter)")
    p.add_argument("--test", choices=["bs", "ar", "both"], default="bs",
                   help="bs: paired bootstrap (default), ar: approximate randomisation, or both")
    p.add_argument("--samples", type=int, help="resamples (default 1000 for bs, 10000 for ar)")
    p.add_argument("--seed", type=int, default=12345, help="random seed (default 12345, sacrebleu's)")
    p.add_argument("--json", action="store_true", help="print the results as JSON on stdout")
    p.set_defaults(func=_run_compare)


def _run_compare(args: argparse.Namespace) -> int:
    from .metrics.registry import make_metrics, split_specs
    from .metrics.significance import approximate_randomization, paired_bootstrap
    from .textio import read_lines

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
    results = [test(metric, baseline, system, sets, **kw)
               for metric in make_metrics(split_specs(args.metrics)) for test in tests]
    if args.json:
        json.dump([r.as_dict() for r in results], sys.stdout, indent=2)
        print()
        return 0
    print(f"| metric | test | A: {args.baseline.name} | B: {args.system.name} | p-value | B: mean ± 95% CI |")
    print("|---|---|---|---|---|---|")
    for r in results:
        ci = f"{r.system_mean:.4f} ± {r.system_ci:.4f}" if r.system_ci is not None else ""
        print(f"| {r.metric} | {r.test} ({r.n_samples}) | {r.baseline:.4f} | {r.system:.4f} | {r.p_value:.4f} | {ci} |")
    print("\nsignatures: " + "; ".join(dict.fromkeys(r.signature for r in results)))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="revmine", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"revmine {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for add in (_add_run, _add_mine, _add_preprocess, _add_filter, _add_split, _add_export, _add_score, _add_profiles,
                _add_agreement, _add_unabstract, _add_classifier, _add_compare):
        add(sub)
    return parser


def _resumable(out: Path) -> bool:
    """A failed run or mine that checkpointed progress keeps its output folder, to resume from it (a run's
    mining checkpoints are in ``mined/state``)."""
    return (out / "run.json").exists() or any(out.glob("state/*.json")) or any(out.glob("*/state/*.json"))


def main(argv: list[str] | None = None) -> int:
    """Run a command; user errors and failures of the outside world are one line (REVMINE_DEBUG=1: traceback)."""
    args = build_parser().parse_args(argv)
    from .staging import command_output  # after parsing: --help and bad options need no pyarrow

    try:
        with command_output(getattr(args, "out", None), keep=_resumable):
            return args.func(args)
    except (InputError, OperationError) as exc:  # anything else is a bug: it keeps its traceback
        if os.environ.get("REVMINE_DEBUG"):
            raise
        print(f"revmine: error: {exc}", file=sys.stderr)
        return 2 if isinstance(exc, InputError) else 1


if __name__ == "__main__":
    sys.exit(main())
