"""Measure the noise filter out-of-fold on real comments: the figures behind the default model.

Every figure is on comments the scoring model never saw. The default training set
(:func:`revmine.filters.classifier.default_training_set`: the 1,719 published comments of the 2021 test
split, hand-labelled, plus the project's synthetic noise) is cut into 10 stratified folds; each comment is
scored by a model fitted on the other nine. Printed, for the default filter (keyword rules + model at its
threshold) and for each model of the paper:

* kept share of all published comments (the target: >= 97%), of the change requests among them, and
  removed share of the published comments hand-labelled noise;
* removed share of the synthetic noise (the only estimate we have of "removes >= 90% of approvals and
  formatting remarks" on another project), per category;
* style checks: the same held-out comments with casing, backticks and final punctuation taken away, the
  kept share of short real requests (<= 3 words), and a model fitted on the whole default set scoring
  the synthetic change requests, which it never saw and which are written in the synthetic noise's style;
* a variant trained with the synthetic change requests too, the rules alone, and the previous default
  (naive Bayes on the synthetic set only) on the published comments;
* the time to fit the default model and to filter comments (median of 3 runs, with the spread).

Usage: python benchmarks/bench_classifier.py [--fixtures DIR] [--folds 10] [--seed 0]
"""

from __future__ import annotations

import argparse
import re
import statistics
import time
from pathlib import Path

import numpy as np

from revmine.filters import classifier

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT.parent / "shared" / "fixtures" / "tufano2021"
_STYLE = re.compile(r"`+|[.!?:;,]+\s*$")


def strip_style(text: str) -> str:
    """The comment without the marks that differ between writers: casing, backticks, final punctuation."""
    return _STYLE.sub("", text.replace("`", "")).lower()


def out_of_fold(texts: list[str], labels: list[bool], strata: list[str], model: str, folds: int, seed: int,
                **params: object) -> tuple[np.ndarray, np.ndarray]:
    """P(relevant) of every comment and of its style-stripped copy, from the fold that did not see it."""
    y = np.array(labels)
    scores, stripped = np.zeros(len(y)), np.zeros(len(y))
    for train_idx, test_idx in classifier._folds(y, folds, seed, strata):
        fitted = classifier.NoiseModel.from_pipeline(
            classifier.train([texts[i] for i in train_idx], y[train_idx], model=model, seed=seed, **params))
        scores[test_idx] = fitted.relevance([texts[i] for i in test_idx])
        stripped[test_idx] = fitted.relevance([strip_style(texts[i]) for i in test_idx])
    return scores, stripped


def share(mask: np.ndarray, of: np.ndarray) -> str:
    return f"{mask[of].mean():.2%} ({int(mask[of].sum())}/{int(of.sum())})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fixtures", type=Path, default=FIXTURES)
    parser.add_argument("--folds", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    data = classifier.default_training_set(args.fixtures / "test.csv")
    y = np.array(data.labels)
    cats = np.array(data.categories)
    real = np.char.startswith(cats, "real:")
    strata = ["real" if r else "synthetic" for r in real]
    by_rules = classifier.rules_noise(data.texts)
    stripped_rules = classifier.rules_noise([strip_style(t) for t in data.texts])
    words = np.array([len(t.split()) for t in data.texts])
    synthetic = classifier.read_labelled(classifier._data_path(classifier.DATA_FILE))
    syn_requests = [t for t, label in zip(synthetic.texts, synthetic.labels) if label]
    print(f"default training set: {int(real.sum())} published comments ({int((real & ~y).sum())} hand-labelled "
          f"noise), {int((~real).sum())} synthetic noise; {args.folds}-fold out-of-fold, seed {args.seed}\n")

    print(f"keyword rules alone drop {int(by_rules[real].sum())} published comments "
          f"({int((by_rules & real & y).sum())} change requests, {int((by_rules & real & ~y).sum())} labelled noise)\n")

    runs = [("random_forest", {"n_estimators": classifier.DEFAULT_TREES}, (classifier.DEFAULT_THRESHOLD, 0.5)),
            ("decision_tree", {}, (0.5,)), ("naive_bayes", {}, (0.5,))]
    print("| model | threshold | published kept | change requests kept | labelled noise removed "
          "| synthetic noise removed | short requests (<= 3 words) kept | style-stripped: requests kept "
          "| style-stripped: synthetic noise removed |")
    print("|---|---|---|---|---|---|---|---|---|")
    default_kept = None
    for model, params, thresholds in runs:
        started = time.perf_counter()
        scores, stripped = out_of_fold(data.texts, data.labels, strata, model, args.folds, args.seed, **params)
        seconds = time.perf_counter() - started
        for threshold in thresholds:
            kept = ~by_rules & (scores > threshold)
            kept_stripped = ~stripped_rules & (stripped > threshold)
            if model == classifier.DEFAULT_MODEL and threshold == classifier.DEFAULT_THRESHOLD:
                default_kept = kept
            print(f"| {model} | {threshold} | {share(kept, real)} | {share(kept, real & y)} | "
                  f"{share(~kept, real & ~y)} | {share(~kept, ~real)} | {share(kept, real & y & (words <= 3))} | "
                  f"{share(kept_stripped, real & y)} | {share(~kept_stripped, ~real)} |")
        print(f"<!-- {model}: {args.folds} folds in {seconds:.0f} s -->")

    print("\nper category, default filter (rules + random forest at the default threshold), out-of-fold:\n")
    print("| category | comments | kept |\n|---|---|---|")
    for category in sorted(set(data.categories)):
        of = cats == category
        print(f"| {category} | {int(of.sum())} | {default_kept[of].mean():.1%} |")

    full = classifier.build_default_model(args.fixtures / "test.csv")
    syn_kept = full.predict(syn_requests) & ~classifier.rules_noise(syn_requests)
    print(f"\nshipped model on the {len(syn_requests)} synthetic change requests (never seen, another style): "
          f"kept {syn_kept.mean():.2%}")

    plus = classifier.LabelledSet(data.texts + syn_requests, data.labels + [True] * len(syn_requests),
                                  data.categories + ["synthetic:change_request"] * len(syn_requests))
    plus_real = np.concatenate([real, np.zeros(len(syn_requests), bool)])
    scores, _ = out_of_fold(plus.texts, plus.labels, ["real" if r else "synthetic" for r in plus_real],
                            "random_forest", args.folds, args.seed, n_estimators=classifier.DEFAULT_TREES)
    plus_kept = ~classifier.rules_noise(plus.texts) & (scores > classifier.DEFAULT_THRESHOLD)
    plus_y = np.array(plus.labels)
    syn_noise = np.char.startswith(np.array(plus.categories), "synthetic:") & ~plus_y
    print(f"variant with the synthetic change requests in training: published kept {share(plus_kept, plus_real)}, "
          f"synthetic noise removed {share(~plus_kept, syn_noise)}")

    old = classifier.NoiseModel.from_pipeline(classifier.train(synthetic.texts, synthetic.labels, model="naive_bayes"))
    published = [t for t, r in zip(data.texts, real) if r]
    old_kept = old.predict(published) & ~classifier.rules_noise(published)
    print(f"previous default (naive Bayes on the synthetic set) with today's rules: published kept "
          f"{old_kept.mean():.2%} ({int(old_kept.sum())}/{len(published)})")

    fits, filters = [], []
    for _ in range(3):
        started = time.perf_counter()
        classifier.build_default_model(args.fixtures / "test.csv")
        fits.append(time.perf_counter() - started)
        model = classifier.load(ROOT / "revmine" / classifier.MODEL_FILE)
        started = time.perf_counter()
        model.predict(published)
        classifier.rules_noise(published)
        filters.append(len(published) / (time.perf_counter() - started))
    print(f"\nfit the default model: median {statistics.median(fits):.1f} s (runs {min(fits):.1f}-{max(fits):.1f}); "
          f"filter (rules + shipped model): median {statistics.median(filters):,.0f} comments/s "
          f"(runs {min(filters):,.0f}-{max(filters):,.0f})")


if __name__ == "__main__":
    main()
