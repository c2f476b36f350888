"""Measure the noise filter out-of-fold on real comments: the figures behind the default model.

Every figure is on comments the scoring model never saw. The evaluation set
(:func:`revmine.filters.classifier.default_evaluation_set`: the 1,719 published comments of the 2021 test
split, hand-labelled, plus the project's synthetic noise) is cut into 10 stratified folds; each comment is
scored by a model fitted on the other nine (on those of them its training design learns from). Printed:

* the training designs: published comments hand-labelled noise (a) learnt as noise, (b) learnt as noise
  only in the clear categories (acknowledgement, thanks, approval, short answer, reference) and left
  out otherwise, (c) left out (the default); each with every keyword rule dropping comments or only
  :data:`revmine.filters.rules.DROPPING_RULES`, at thresholds 0.3 to 0.5: kept share of all published
  comments out-of-fold (the filter may lose at most ~1.5% of them) and by the model fitted on the whole
  set (what an end-to-end run on the 2021 split sees), kept change requests, removed labelled noise,
  removed synthetic noise (the only estimate of "removes >= 90% of approvals and formatting remarks" on
  another project), overall and for approvals, formatting, acknowledgements and thanks;
* for the default filter: every category, the paper's other models, style checks (the same held-out
  comments with casing, backticks and final punctuation taken away, the kept share of short real
  requests, the shipped model on the synthetic change requests, which are in the synthetic noise's
  style), a variant trained with the synthetic change requests too, the previous default (naive Bayes on
  the synthetic set only) on the published comments;
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

from revmine.filters import classifier, rules

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT.parent / "shared" / "fixtures" / "tufano2021"
_STYLE = re.compile(r"`+|[.!?:;,]+\s*$")


def strip_style(text: str) -> str:
    """The comment without the marks that differ between writers: casing, backticks, final punctuation."""
    return _STYLE.sub("", text.replace("`", "")).lower()


CLEAR = frozenset({"acknowledgement", "thanks", "approval", "short_answer", "reference"})
#: Which comments of the evaluation set each training design learns from (by category).
DESIGNS = {
    "(a) published noise as noise": lambda category: True,
    "(b) clear published noise as noise": lambda category: (classifier.in_default_training(category)
                                                            or category[len("real:"):] in CLEAR),
    "(c) published noise left out (default)": classifier.in_default_training,
}
THRESHOLDS = (0.3, 0.35, 0.4, 0.5)
SYNTHETIC_TARGETS = ("approval", "formatting", "acknowledgement", "thanks")


def out_of_fold(texts: list[str], labels: list[bool], strata: list[str], trained: np.ndarray, model: str,
                folds: int, seed: int, **params: object) -> tuple[np.ndarray, np.ndarray]:
    """P(relevant) of every comment and of its style-stripped copy, from the fold that did not see it;
    each fold's model learns only from the comments of the other folds that ``trained`` marks."""
    y = np.array(labels)
    scores, stripped = np.zeros(len(y)), np.zeros(len(y))
    for train_idx, test_idx in classifier._folds(y, folds, seed, strata):
        train_idx = train_idx[trained[train_idx]]
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

    data = classifier.default_evaluation_set(args.fixtures / "test.csv")
    y = np.array(data.labels)
    cats = np.array(data.categories)
    real = np.char.startswith(cats, "real:")
    strata = ["real" if r else "synthetic" for r in real]
    default_trained = np.array([classifier.in_default_training(c) for c in data.categories])
    trees = {"n_estimators": classifier.DEFAULT_TREES}
    matched = [rules.categories(t) for t in data.texts]
    by_any_rule = np.array([bool(m) for m in matched])
    by_rules = classifier.rules_noise(data.texts)
    stripped_rules = classifier.rules_noise([strip_style(t) for t in data.texts])
    words = np.array([len(t.split()) for t in data.texts])
    synthetic = classifier.read_labelled(classifier._data_path(classifier.DATA_FILE))
    syn_requests = [t for t, label in zip(synthetic.texts, synthetic.labels) if label]
    print(f"evaluation set: {int(real.sum())} published comments ({int((real & ~y).sum())} hand-labelled "
          f"noise), {int((~real).sum())} synthetic noise; {args.folds}-fold out-of-fold, seed {args.seed}\n")
    for name, fires in (("every keyword rule", by_any_rule), ("the dropping rules", by_rules)):
        print(f"{name} drop {int(fires[real].sum())} published comments ({int((fires & real & y).sum())} change "
              f"requests, {int((fires & real & ~y).sum())} labelled noise)")

    print("\n| training design | rules that drop | threshold | published kept, out-of-fold | published kept by the "
          "model fitted on all | change requests kept | labelled noise removed | synthetic noise removed | "
          + " | ".join(f"synthetic {c} removed" for c in SYNTHETIC_TARGETS) + " |")
    print("|---" * (8 + len(SYNTHETIC_TARGETS)) + "|")
    default_scores = default_stripped = None
    for design, learns in DESIGNS.items():
        trained = np.array([learns(c) for c in data.categories])
        scores, stripped = out_of_fold(data.texts, data.labels, strata, trained, classifier.DEFAULT_MODEL,
                                       args.folds, args.seed, **trees)
        rows = [i for i in range(len(y)) if trained[i]]
        whole = classifier.NoiseModel.from_pipeline(classifier.train(
            [data.texts[i] for i in rows], y[rows], model=classifier.DEFAULT_MODEL, seed=0, **trees))
        in_sample = whole.relevance(data.texts)
        if learns is classifier.in_default_training:
            default_scores, default_stripped = scores, stripped
        for rule_name, dropped in (("all", by_any_rule), ("dropping", by_rules)):
            for threshold in THRESHOLDS:
                kept = ~dropped & (scores > threshold)
                per = " | ".join(f"{(~kept)[cats == f'synthetic:{c}'].mean():.1%}" for c in SYNTHETIC_TARGETS)
                print(f"| {design} | {rule_name} | {threshold} | {share(kept, real)} | "
                      f"{share(~dropped & (in_sample > threshold), real)} | {share(kept, real & y)} | "
                      f"{share(~kept, real & ~y)} | {share(~kept, ~real)} | {per} |")

    threshold = classifier.DEFAULT_THRESHOLD
    default_kept = ~by_rules & (default_scores > threshold)
    print(f"\nper category, default filter (dropping rules + random forest at {threshold}), out-of-fold:\n")
    print("| category | comments | kept |\n|---|---|---|")
    for category in sorted(set(data.categories)):
        of = cats == category
        print(f"| {category} | {int(of.sum())} | {default_kept[of].mean():.1%} |")

    print("\n| model (default design, dropping rules) | threshold | published kept | change requests kept | "
          "labelled noise removed | synthetic noise removed | short requests (<= 3 words) kept | "
          "style-stripped: requests kept | style-stripped: synthetic noise removed |")
    print("|---|---|---|---|---|---|---|---|---|")
    runs = [("random_forest", (default_scores, default_stripped), (threshold, 0.5))]
    for model in ("decision_tree", "naive_bayes"):
        started = time.perf_counter()
        runs.append((model, out_of_fold(data.texts, data.labels, strata, default_trained, model, args.folds,
                                        args.seed), (0.5,)))
        print(f"<!-- {model}: {args.folds} folds in {time.perf_counter() - started:.0f} s -->")
    for model, (scores, stripped), thresholds in runs:
        for cut in thresholds:
            kept = ~by_rules & (scores > cut)
            kept_stripped = ~stripped_rules & (stripped > cut)
            print(f"| {model} | {cut} | {share(kept, real)} | {share(kept, real & y)} | "
                  f"{share(~kept, real & ~y)} | {share(~kept, ~real)} | {share(kept, real & y & (words <= 3))} | "
                  f"{share(kept_stripped, real & y)} | {share(~kept_stripped, ~real)} |")

    full = classifier.build_default_model(args.fixtures / "test.csv")
    syn_kept = full.predict(syn_requests) & ~classifier.rules_noise(syn_requests)
    print(f"\nshipped model on the {len(syn_requests)} synthetic change requests (never seen, another style): "
          f"kept {syn_kept.mean():.2%}")
    published = [t for t, r in zip(data.texts, real) if r]
    shipped_kept = full.predict(published) & ~classifier.rules_noise(published)
    print(f"shipped model on the {len(published)} published comments (in-sample but for the labelled noise): "
          f"kept {shipped_kept.mean():.2%} ({int(shipped_kept.sum())}/{len(published)})")

    plus_texts = data.texts + syn_requests
    plus_labels = data.labels + [True] * len(syn_requests)
    plus_real = np.concatenate([real, np.zeros(len(syn_requests), bool)])
    scores, _ = out_of_fold(plus_texts, plus_labels, ["real" if r else "synthetic" for r in plus_real],
                            np.concatenate([default_trained, np.ones(len(syn_requests), bool)]),
                            "random_forest", args.folds, args.seed, **trees)
    plus_kept = ~classifier.rules_noise(plus_texts) & (scores > threshold)
    syn_noise = np.concatenate([~real, np.zeros(len(syn_requests), bool)])
    print(f"variant with the synthetic change requests in training: published kept {share(plus_kept, plus_real)}, "
          f"synthetic noise removed {share(~plus_kept, syn_noise)}")

    old = classifier.NoiseModel.from_pipeline(classifier.train(synthetic.texts, synthetic.labels, model="naive_bayes"))
    old_kept = old.predict(published) & ~np.array([bool(m) for m, r in zip(matched, real) if r])
    print(f"previous default (naive Bayes on the synthetic set) with every rule dropping: published kept "
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
