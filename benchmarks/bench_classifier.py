"""Measure the noise filter where it is used: on projects it never saw, per category of the rubric.

Every figure is out of fold. The comments are those of
:func:`revmine.filters.classifier.default_evaluation_set` (the 1,719 comments of the 2021 test split and
the shipped real labels, ``revmine/data/comments_labelled.csv``) plus any ``--extra`` labelled files (CSV or
JSON Lines with ``text,label,category,project`` and optionally ``content`` and ``code``). Printed:

* **leave one project out**: each project of the shipped labels and of ``--extra`` is scored by the default
  design (the dropping keyword rules + a random forest) fitted on every other project, the 2021 split's
  change requests and the synthetic noise the default learns; kept change requests and removed noise per
  project and per category, at several thresholds, with and without the code-vocabulary features (RevHelper's "shares words with the
  code"), where the labels have code;
* **the 2021 split**: the share of its 1,719 comments the default filter keeps out of fold (10 folds of the
  split, each scored by a model fitted on the other nine and every labelled project) and what the shipped
  model keeps of it (what a rebuild of the published dataset sees);
* **time**: comments filtered per second by the keyword rules and the shipped model, beside the same for
  ``--previous-model`` (by default the model of the last release before the real labels, read from git),
  median of 5 runs with the spread, on the same comments in the same run.

Usage: python benchmarks/bench_classifier.py [--fixtures DIR] [--extra FILE ...] [--previous-model NPZ]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from revmine.filters import classifier

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT.parent / "shared" / "fixtures" / "tufano2021"
#: the commit whose shipped model learnt from the 2021 split and synthetic noise only
PREVIOUS_MODEL_COMMIT = "11e8cbc"
THRESHOLDS = (0.3, 0.4, 0.5, 0.6)


def share(mask: np.ndarray, of: np.ndarray) -> str:
    n = int(of.sum())
    return f"{mask[of].mean():.1%} ({int(mask[of].sum())}/{n})" if n else "-"


def previous_model(path: Path | None, tmp: Path) -> classifier.NoiseModel | None:
    if path is None:
        path = tmp / "previous.npz"
        blob = subprocess.run(["git", "show", f"{PREVIOUS_MODEL_COMMIT}:revmine/{classifier.MODEL_FILE}"],
                              cwd=ROOT, capture_output=True)
        if blob.returncode:
            return None
        path.write_bytes(blob.stdout)
    try:
        return classifier.load(path)
    except Exception as exc:  # a model of an older format: say so, time the rest
        print(f"previous model not loadable here ({exc})")
        return None


def rate(model: classifier.NoiseModel, texts: list[str], runs: int = 5) -> list[float]:
    rates = []
    for _ in range(runs):
        started = time.perf_counter()
        model.predict(texts)
        classifier.rules_noise(texts)
        rates.append(len(texts) / (time.perf_counter() - started))
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fixtures", type=Path, default=FIXTURES)
    parser.add_argument("--extra", type=Path, nargs="*", default=[], help="more labelled files (held-out projects)")
    parser.add_argument("--previous-model", type=Path, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--min-project", type=int, default=30,
                        help="projects with fewer labelled comments are left out together, as one group")
    args = parser.parse_args()

    published = classifier.published_set(args.fixtures / "test.csv")
    labelled = classifier.shipped_labels()
    for path in args.extra:
        labelled = labelled + classifier.read_labelled(path)
    if labelled.projects is None or labelled.categories is None:
        raise SystemExit("every labelled file needs project and category columns")
    always = published.subset([i for i, c in enumerate(published.categories or ())
                               if classifier.in_default_training(c)]) + classifier.synthetic_noise()
    y = np.array(labelled.labels)
    cats = np.array(labelled.categories, dtype=object)
    sizes = {p: labelled.projects.count(p) for p in set(labelled.projects)}
    projects = np.array([p if sizes[p] >= args.min_project else f"projects of < {args.min_project} comments"
                         for p in labelled.projects], dtype=object)
    labelled = classifier.LabelledSet(labelled.texts, labelled.labels, labelled.categories, projects.tolist(),
                                      labelled.codes, labelled.contents)
    by_rules = classifier.rules_noise(labelled.texts)
    with_code = labelled.codes is not None and any(c is not None for c in labelled.codes)
    print(f"{len(y)} labelled comments of {len(set(projects))} projects ({int(y.sum())} change requests); in every "
          f"training part too: {len(always.texts)} comments (the 2021 split's change requests, the synthetic noise)\n")

    variants = {"words": None}
    if with_code:
        variants["words + code"] = labelled.codes
    scores = {}
    for name, codes in variants.items():
        started = time.perf_counter()
        scores[name] = classifier.leave_one_project_out(
            labelled.texts, labelled.text_labels, labelled.projects, seed=args.seed, codes=codes,
            always=always if codes is not None else classifier.LabelledSet(always.texts, always.text_labels),
            n_estimators=classifier.DEFAULT_TREES)
        print(f"<!-- {name}: leave-one-project-out in {time.perf_counter() - started:.0f} s -->")

    print("| features | threshold | change requests kept | noise removed | "
          + " | ".join(f"{p}: kept / removed" for p in sorted(set(projects))) + " |")
    print("|---" * (4 + len(set(projects))) + "|")
    for name, s in scores.items():
        for cut in THRESHOLDS:
            kept = ~by_rules & (s > cut)
            per = " | ".join(f"{share(kept, (projects == p) & y)} / {share(~kept, (projects == p) & ~y)}"
                             for p in sorted(set(projects)))
            print(f"| {name} | {cut} | {share(kept, y)} | {share(~kept, ~y)} | {per} |")

    cut = classifier.DEFAULT_THRESHOLD
    kept = ~by_rules & (scores["words"] > cut)
    print(f"\nper category and project, words only, threshold {cut} (kept share of change requests, removed "
          "share of each noise category):\n")
    print("| project | category | comments | figure |\n|---|---|---|---|")
    for p in sorted(set(projects)):
        for c in sorted(set(cats[projects == p])):
            of = (projects == p) & (cats == c)
            figure = f"kept {share(kept, of)}" if c == classifier.CHANGE_REQUEST else f"removed {share(~kept, of)}"
            print(f"| {p} | {c} | {int(of.sum())} | {figure} |")

    # The 2021 split: 10 folds of it, every labelled project always in training.
    py = np.array(published.labels)
    trained = np.array([classifier.in_default_training(c) for c in published.categories or ()])
    oof = np.zeros(len(py))
    for train_idx, test_idx in classifier._folds(py, 10, args.seed, None):
        part = published.subset([i for i in train_idx if trained[i]]) + labelled + classifier.synthetic_noise()
        model = classifier.NoiseModel.from_pipeline(classifier.train(
            part.texts, part.text_labels, seed=args.seed, n_estimators=classifier.DEFAULT_TREES))
        oof[test_idx] = model.relevance([published.texts[i] for i in test_idx])
    rules_2021 = classifier.rules_noise(published.texts)
    every = np.ones(len(py), dtype=bool)
    shipped = classifier.default_model()
    print(f"\n2021 split, out of fold at {cut}: kept {share(~rules_2021 & (oof > cut), every)} of all comments, "
          f"{share(~rules_2021 & (oof > cut), py)} of its change requests; the shipped model keeps "
          f"{share(~rules_2021 & shipped.predict(published.texts), every)}")

    with tempfile.TemporaryDirectory() as tmp:
        before = previous_model(args.previous_model, Path(tmp))
        now = rate(shipped, published.texts)
        line = (f"\nfilter (rules + shipped model): median {statistics.median(now):,.0f} comments/s "
                f"(runs {min(now):,.0f}-{max(now):,.0f})")
        if before is not None:
            then = rate(before, published.texts)
            line += (f"; previous model: median {statistics.median(then):,.0f} comments/s (runs {min(then):,.0f}-"
                     f"{max(then):,.0f}); time per comment {statistics.median(then) / statistics.median(now):.2f}x "
                     "the previous")
        print(line)


if __name__ == "__main__":
    main()
