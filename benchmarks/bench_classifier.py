"""Cross-validate the noise-comment classifiers on the shipped labelled set and check for shortcuts.

Prints, for the class *relevant*: precision / recall / F1 of random forest, J48-like decision tree and
naive Bayes (stratified 10-fold, seeded, as Tufano et al. 2021), the model chosen by precision, and two
baselines that a template artefact would make look good: a classifier on comment length alone and the
keyword rules alone. Also times training and prediction.

Usage: python benchmarks/bench_classifier.py [--labels FILE] [--folds 10] [--seed 0]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from sklearn.metrics import precision_recall_fscore_support
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.tree import DecisionTreeClassifier

from revmine.filters import classifier, rules

DEFAULT_LABELS = Path(__file__).resolve().parents[1] / "revmine" / "data" / "review_comments_labelled.csv"


def _row(name: str, y: np.ndarray, predicted: np.ndarray) -> str:
    p, r, f, _ = precision_recall_fscore_support(y, predicted, average="binary", zero_division=0)
    return f"| {name} | {p:.3f} | {r:.3f} | {f:.3f} | {(predicted == y).mean():.3f} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--labels", type=Path, default=DEFAULT_LABELS)
    parser.add_argument("--folds", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    texts, labels = classifier.read_labels(args.labels)
    y = np.array(labels)
    print(f"{len(y)} comments, {int(y.sum())} relevant, {int((~y).sum())} noise; "
          f"stratified {args.folds}-fold, seed {args.seed}\n")
    print("| model | precision (relevant) | recall (relevant) | F1 (relevant) | accuracy |")
    print("|---|---|---|---|---|")
    started = time.perf_counter()
    scores = classifier.compare(texts, labels, folds=args.folds, seed=args.seed)
    cv_seconds = time.perf_counter() - started
    for s in sorted(scores, key=lambda s: classifier.MODELS.index(s.model)):
        print(f"| {s.model} | {s.precision:.3f} (fold sd {np.std(s.fold_precision):.3f}) | {s.recall:.3f} "
              f"(fold sd {np.std(s.fold_recall):.3f}) | {s.f1:.3f} | {s.accuracy:.3f} |")

    folds = StratifiedKFold(n_splits=args.folds, shuffle=True, random_state=args.seed)
    lengths = np.array([[len(t), len(t.split())] for t in texts])
    by_length = cross_val_predict(DecisionTreeClassifier(criterion="entropy", min_samples_leaf=5,
                                                         random_state=args.seed), lengths, y, cv=folds)
    print(_row("baseline: length only (chars, words; decision tree)", y, by_length))
    print(_row("baseline: keyword rules only (relevant = no rule fires)", y,
               np.array([not rules.is_noise_by_rules(t) for t in texts])))
    print(f"\nchosen by precision on relevant: {scores[0].model}")
    print(f"cross-validation of the three models: {cv_seconds:.1f} s")

    started = time.perf_counter()
    model = classifier.train(texts, labels, model=scores[0].model, seed=args.seed)
    fit_seconds = time.perf_counter() - started
    started = time.perf_counter()
    classifier.predict(model, texts * 4)
    rate = 4 * len(texts) / (time.perf_counter() - started)
    print(f"fit {scores[0].model} on all rows: {fit_seconds:.1f} s; predict: {rate:,.0f} comments/s")


if __name__ == "__main__":
    main()
