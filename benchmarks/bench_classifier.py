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
  the filter before the real labels (the code *and* the model of ``REFERENCE_COMMIT``, unpacked from git),
  each timed in a fresh process, the two alternating, median of 5 runs with the spread, on the 2021 split's
  comments in the same run; ``--reference-tree`` names another package tree to compare against.

Usage: python benchmarks/bench_classifier.py [--fixtures DIR] [--extra FILE ...] [--reference-tree DIR]
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import numpy as np

from revmine.filters import classifier

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT.parent / "shared" / "fixtures" / "tufano2021"
#: the last release before the real labels: its filter (code and model) is what "today's time" meant
REFERENCE_COMMIT = "11e8cbc"
THRESHOLDS = (0.3, 0.4, 0.5, 0.6)


def share(mask: np.ndarray, of: np.ndarray) -> str:
    n = int(of.sum())
    return f"{mask[of].mean():.1%} ({int(mask[of].sum())}/{n})" if n else "-"


#: run in a fresh process of the tree timed: the keyword rules and the shipped model over the 2021 split
_TIMED = """
import csv, sys, time
from revmine.filters import classifier
with open(sys.argv[1], encoding="utf-8", newline="") as fh:
    texts = [row["comment"] for row in csv.DictReader(fh)]
model = classifier.default_model()
model.predict(texts[:50]); classifier.rules_noise(texts[:50])
started = time.perf_counter()
model.predict(texts); classifier.rules_noise(texts)
print(len(texts) / (time.perf_counter() - started))
"""


def reference_tree(tmp: Path) -> Path:
    """The ``revmine`` package of :data:`REFERENCE_COMMIT`, unpacked under ``tmp``."""
    archive = subprocess.run(["git", "archive", "--format=tar", REFERENCE_COMMIT, "revmine"], cwd=ROOT,
                             capture_output=True, check=True, timeout=120).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(tmp, filter="data")
    return tmp


def rate(tree: Path, test_csv: Path) -> float:
    """Comments a second filtered by the package in ``tree`` (its ``revmine``, not the installed one)."""
    done = subprocess.run([sys.executable, "-c", _TIMED, str(test_csv.resolve())], cwd=tree, capture_output=True,
                          text=True, check=True, env={**os.environ, "PYTHONPATH": str(tree)}, timeout=600)
    return float(done.stdout.split()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fixtures", type=Path, default=FIXTURES)
    parser.add_argument("--extra", type=Path, nargs="*", default=[], help="more labelled files (held-out projects)")
    parser.add_argument("--reference-tree", type=Path, default=None,
                        help=f"a folder holding the revmine package to compare with (default: {REFERENCE_COMMIT}'s)")
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
        before_tree = args.reference_tree or reference_tree(Path(tmp))
        test_csv = args.fixtures / "test.csv"
        now, then = [], []
        for _ in range(5):
            then.append(rate(before_tree, test_csv))
            now.append(rate(ROOT, test_csv))
    print(f"\nfilter (rules + shipped model): median {statistics.median(now):,.0f} comments/s (runs {min(now):,.0f}-"
          f"{max(now):,.0f}); before the real labels ({REFERENCE_COMMIT}'s code and model): median "
          f"{statistics.median(then):,.0f} comments/s (runs {min(then):,.0f}-{max(then):,.0f}); time per comment "
          f"{statistics.median(then) / statistics.median(now):.2f}x the reference")


if __name__ == "__main__":
    main()
