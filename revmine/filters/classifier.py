"""Noise-comment classifier: tells reviewer comments that ask for a change in the method from the rest.

Tufano et al. (ICSE 2021) trained a classifier on manually labelled comments to remove those that ask
for no code change, comparing a random forest with a decision tree (J48) and naive Bayes and keeping the
most *precise on relevant comments*: a noise comment kept in a triplet teaches the model to change code
for no reason, so precision on the class we keep matters more than recall.

The model is one scikit-learn :class:`~sklearn.pipeline.Pipeline` (text in, ``True`` = relevant out) so
that it can be pickled whole and re-used by the filter stage or given by a user:

* word 1-2-grams, TF-IDF weighted (``?``, ``!`` and ``+`` kept as tokens); character 2-5-grams on
  request (``char_ngrams=True``: they lowered precision on the shipped set, see :func:`build`);
* hand-made counts (:class:`CommentFeatures`): length, code mentions (camelCase, snake_case, calls
  ``name(``, backtick spans, fenced and ``suggestion`` blocks), question and exclamation marks, URLs,
  whether a change-request cue is present, and the keyword rules of :mod:`.rules` as binary features.

Every feature is non-negative, so the same pipeline serves multinomial naive Bayes. Models are seeded
and the fit is deterministic for a seed. Saved models are ``joblib`` pickles: load only files you trust.
The default model (:data:`DEFAULT_MODEL`, chosen by the paper's criterion; the random forest is a close
second) is trained on ``revmine/data/review_comments_labelled.csv`` (synthetic; see
``revmine/data/LABELLING.md``) and cached under the user cache directory, keyed by the data file, this
module's and the rules' source, and the scikit-learn version, so a change to any retrains it.
"""

from __future__ import annotations

import csv
import hashlib
import io
import math
import re
import warnings
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Iterable, Sequence

import joblib
import numpy as np
import scipy.sparse as sp
import sklearn
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.ensemble import RandomForestClassifier
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics import precision_recall_fscore_support
from sklearn.model_selection import StratifiedKFold
from sklearn.naive_bayes import MultinomialNB
from sklearn.pipeline import FeatureUnion, Pipeline
from sklearn.tree import DecisionTreeClassifier

from ..cache import cache_dir
from ..errors import InputError
from ..store import atomic_path
from ..textio import read_jsonl, read_lines
from . import rules

__all__ = [
    "DEFAULT_MODEL", "MODELS", "CVScores", "CommentFeatures", "build", "compare", "cross_validate", "default_model",
    "load",
    "predict", "read_labels", "save", "train", "train_from_file",
]

#: Model names accepted by :func:`train` and :func:`cross_validate`, in the paper's order.
MODELS: tuple[str, ...] = ("random_forest", "decision_tree", "naive_bayes")
#: The most precise on relevant comments in 10-fold cross-validation on the shipped set (the paper's
#: criterion; figures in ``revmine/data/LABELLING.md``, re-run ``benchmarks/bench_classifier.py``).
DEFAULT_MODEL = "naive_bayes"
DATA_FILE = "data/review_comments_labelled.csv"
_FORMAT = "revmine-noise-classifier/1"
_LABELS = {"relevant": True, "noise": False}

_CAMEL = re.compile(r"\b[a-z]+[A-Z][A-Za-z0-9]*\b|\b[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*\b")
_SNAKE = re.compile(r"\b[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]+\b")
_CALL = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\s*\(")
_BACKTICK = re.compile(r"`[^`\n]+`")
_FENCE = re.compile(r"```")
_SUGGESTION = re.compile(r"```\s*suggestion", re.I)
_URL = re.compile(r"(?:https?://|www\.)\S+", re.I)


class CommentFeatures(BaseEstimator, TransformerMixin):
    """Counts a bag of n-grams misses: size, code mentions, questions, URLs, and the keyword rules."""

    _NAMES = ("log_chars", "log_words", "camel_case", "snake_case", "calls", "backticks", "code_blocks",
              "suggestion", "questions", "exclamations", "urls", "asks_for_change")

    def fit(self, texts: Iterable[str], y: object = None) -> "CommentFeatures":
        return self

    def transform(self, texts: Iterable[str]) -> sp.csr_matrix:
        return sp.csr_matrix(np.array([self._row(t) for t in texts], dtype=np.float64).reshape(-1, len(self._names())))

    def get_feature_names_out(self, input_features: object = None) -> np.ndarray:
        return np.array(self._names(), dtype=object)

    @classmethod
    def _names(cls) -> tuple[str, ...]:
        return cls._NAMES + tuple(f"rule_{name}" for name in rules.RULE_NAMES)

    @staticmethod
    def _row(text: str) -> list[float]:
        matched = set(rules.categories(text))
        return [
            math.log1p(len(text)),
            math.log1p(len(text.split())),
            math.log1p(len(_CAMEL.findall(text))),
            math.log1p(len(_SNAKE.findall(text))),
            math.log1p(len(_CALL.findall(text))),
            math.log1p(len(_BACKTICK.findall(text))),
            math.log1p(len(_FENCE.findall(text)) // 2),
            float(bool(_SUGGESTION.search(text))),
            math.log1p(text.count("?")),
            math.log1p(text.count("!")),
            math.log1p(len(_URL.findall(text))),
            float(rules.asks_for_change(text)),
        ] + [float(name in matched) for name in rules.RULE_NAMES]


def _estimator(model: str, seed: int, params: dict[str, object]) -> BaseEstimator:
    if model == "random_forest":
        defaults: dict[str, object] = {"n_estimators": 300, "random_state": seed, "n_jobs": -1}
        return RandomForestClassifier(**{**defaults, **params})
    if model == "decision_tree":  # J48-like: information gain, at least two instances per leaf
        return DecisionTreeClassifier(**{"criterion": "entropy", "min_samples_leaf": 2, "random_state": seed,
                                         **params})
    if model == "naive_bayes":
        return MultinomialNB(**{"alpha": 0.1, **params})
    raise ValueError(f"unknown model {model!r}; choose one of {', '.join(MODELS)}")


def build(model: str = DEFAULT_MODEL, seed: int = 0, char_ngrams: bool = False, **params: object) -> Pipeline:
    """An unfitted pipeline: features then ``model``; ``params`` override the estimator's defaults.

    Character n-grams are off by default: on the shipped set they lowered the cross-validated precision
    of all three models (RF 0.974 -> 0.960, DT 0.962 -> 0.936, NB 0.982 -> 0.972), drowning the word and
    hand-made features; they may pay off on user labels with many typos or identifiers.
    """
    parts: list[tuple[str, object]] = [
        ("words", TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True,
                                  token_pattern=r"(?u)\b\w+\b|[?!+]")),
        ("comment", CommentFeatures()),
    ]
    if char_ngrams:
        parts.insert(1, ("chars", TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 5), min_df=2,
                                                  sublinear_tf=True, max_features=20000)))
    return Pipeline([("features", FeatureUnion(parts)), ("model", _estimator(model, seed, params))])


def _relevant(labels: Iterable[object]) -> np.ndarray:
    """Labels as booleans (True = relevant); accepts booleans or the strings relevant/noise."""
    out = []
    for label in labels:
        if isinstance(label, (bool, np.bool_)):
            out.append(bool(label))
        elif isinstance(label, str) and label.strip().lower() in _LABELS:
            out.append(_LABELS[label.strip().lower()])
        else:
            raise ValueError(f"label {label!r} is neither relevant nor noise")
    return np.array(out, dtype=bool)


def train(texts: Sequence[str], labels: Sequence[object], model: str = DEFAULT_MODEL, seed: int = 0,
          **params: object) -> Pipeline:
    """Fit a pipeline on labelled comments (labels: True/"relevant" or False/"noise")."""
    y = _relevant(labels)
    if len(texts) != len(y):
        raise ValueError(f"{len(texts)} texts but {len(y)} labels")
    if y.all() or not y.any():
        raise ValueError("training needs both relevant and noise comments")
    return build(model, seed, **params).fit(list(texts), y)


def predict(model: Pipeline, texts: Iterable[str]) -> np.ndarray:
    """A boolean array, True where the comment is predicted relevant (asks for a change)."""
    texts = list(texts)
    if not texts:
        return np.zeros(0, dtype=bool)
    return np.asarray(model.predict(texts)).astype(bool)


@dataclass(frozen=True)
class CVScores:
    """Cross-validated scores of the class *relevant*, pooled over folds as Weka reports them."""

    model: str
    folds: int
    precision: float
    recall: float
    f1: float
    accuracy: float
    n: int
    relevant: int
    fold_precision: tuple[float, ...] = field(default=(), repr=False)
    fold_recall: tuple[float, ...] = field(default=(), repr=False)


def cross_validate(texts: Sequence[str], labels: Sequence[object], model: str = DEFAULT_MODEL,
                   folds: int = 10, seed: int = 0, **params: object) -> CVScores:
    """Stratified, shuffled (seeded) k-fold cross-validation, as the paper's 10-fold evaluation."""
    texts = list(texts)
    y = _relevant(labels)
    predicted = np.zeros_like(y)
    fold_p, fold_r = [], []
    splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    for train_idx, test_idx in splitter.split(np.zeros(len(y)), y):
        fitted = build(model, seed, **params).fit([texts[i] for i in train_idx], y[train_idx])
        predicted[test_idx] = predict(fitted, [texts[i] for i in test_idx])
        p, r, _, _ = precision_recall_fscore_support(y[test_idx], predicted[test_idx], average="binary",
                                                     zero_division=0)
        fold_p.append(float(p))
        fold_r.append(float(r))
    p, r, f, _ = precision_recall_fscore_support(y, predicted, average="binary", zero_division=0)
    return CVScores(model=model, folds=folds, precision=float(p), recall=float(r), f1=float(f),
                    accuracy=float((predicted == y).mean()), n=len(y), relevant=int(y.sum()),
                    fold_precision=tuple(fold_p), fold_recall=tuple(fold_r))


def compare(texts: Sequence[str], labels: Sequence[object], models: Sequence[str] = MODELS, folds: int = 10,
            seed: int = 0, **params: object) -> list[CVScores]:
    """Cross-validate each model; best first by precision on relevant comments (the paper's criterion)."""
    scores = [cross_validate(texts, labels, model=m, folds=folds, seed=seed, **params) for m in models]
    return sorted(scores, key=lambda s: (-s.precision, -s.f1, MODELS.index(s.model)))


def save(model: Pipeline, path: str | Path) -> Path:
    """Write ``model`` atomically, with the scikit-learn version it was fitted with."""
    with atomic_path(path) as tmp:
        joblib.dump({"format": _FORMAT, "sklearn": sklearn.__version__, "model": model}, tmp)
    return Path(path)


def load(path: str | Path) -> Pipeline:
    """Read a model written by :func:`save` (a pickle: only load files you trust)."""
    path = Path(path)
    if not path.is_file():
        raise InputError(path, "no such model file")
    try:
        payload = joblib.load(path)
    except Exception as exc:  # a truncated or foreign pickle can raise nearly anything
        raise InputError(path, f"not a revmine classifier model: {exc}") from exc
    if not isinstance(payload, dict) or payload.get("format") != _FORMAT:
        raise InputError(path, f"not a revmine classifier model (expected {_FORMAT})")
    if payload.get("sklearn") != sklearn.__version__:
        warnings.warn(f"{path}: model fitted with scikit-learn {payload.get('sklearn')}, running "
                      f"{sklearn.__version__}; retrain if predictions look wrong", stacklevel=2)
    return payload["model"]


def _label(value: object, path: str | Path, line: int) -> bool:
    if isinstance(value, str) and value.strip().lower() in _LABELS:
        return _LABELS[value.strip().lower()]
    raise InputError(path, f"label {value!r} is neither 'relevant' nor 'noise'", line=line, field="label")


def _text(value: object, path: str | Path, line: int) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InputError(path, "empty or missing comment text", line=line, field="text")
    return value


def _read_csv(lines: list[str], path: str | Path) -> list[tuple[str, bool]]:
    # one text again, so that a quoted field keeps its newlines (csv.reader drops them between list items)
    reader = csv.reader(io.StringIO("\n".join(lines), newline=""))
    header = next(reader, None)
    if header is None:
        raise InputError(path, "empty file; expected a header with columns text,label", line=1)
    columns = [name.strip().lower() for name in header]
    missing = [name for name in ("text", "label") if name not in columns]
    if missing:
        raise InputError(path, f"missing column(s) {', '.join(missing)} (header has {', '.join(header)})",
                         line=1)
    text_at, label_at = columns.index("text"), columns.index("label")
    rows = []
    start = reader.line_num + 1
    for record in reader:
        if any(cell.strip() for cell in record):
            if len(record) <= max(text_at, label_at):
                raise InputError(path, f"{len(record)} field(s), expected {len(columns)}", line=start)
            rows.append((_text(record[text_at], path, start), _label(record[label_at], path, start)))
        start = reader.line_num + 1
    return rows


def _read_jsonl(lines: list[str], path: str | Path) -> list[tuple[str, bool]]:
    rows = []
    for number, record in read_jsonl(Path(path), lines):
        if "text" not in record or "label" not in record:
            raise InputError(path, "expected an object with keys text and label", line=number)
        rows.append((_text(record["text"], path, number), _label(record["label"], path, number)))
    return rows


def _check_suffix(path: str | Path) -> str:
    suffix = Path(path).suffix.lower()
    if suffix not in (".csv", ".jsonl", ".ndjson"):
        raise InputError(path, "labels must be a .csv (columns text,label) or .jsonl file")
    return suffix


def _parse_labels(lines: list[str], path: str | Path) -> tuple[list[str], list[bool]]:
    suffix = _check_suffix(path)
    try:
        rows = _read_csv(lines, path) if suffix == ".csv" else _read_jsonl(lines, path)
    except csv.Error as exc:
        raise InputError(path, f"malformed CSV: {exc}") from exc
    labels = [label for _, label in rows]
    if all(labels) or not any(labels):
        raise InputError(path, f"{len(rows)} row(s) but training needs both relevant and noise comments")
    return [text for text, _ in rows], labels


def read_labels(path: str | Path) -> tuple[list[str], list[bool]]:
    """Read a labelled file: CSV with a header holding ``text,label`` or JSON Lines with those keys.

    Labels are ``relevant`` or ``noise`` (any case); other columns are ignored. Errors name the line.
    """
    path = Path(path)
    if not path.is_file():
        raise InputError(path, "no such labels file")
    _check_suffix(path)  # before reading: a file of another kind is not read at all
    return _parse_labels(read_lines(path), path)  # strict UTF-8: a bad byte is reported with its line


def train_from_file(labels_path: str | Path, out_model_path: str | Path, model: str = DEFAULT_MODEL,
                    seed: int = 0, **params: object) -> Pipeline:
    """Train on a user's labels and save the model (``revmine classifier train --labels FILE``)."""
    texts, labels = read_labels(labels_path)
    fitted = train(texts, labels, model=model, seed=seed, **params)
    save(fitted, out_model_path)
    return fitted


def _shipped_data() -> bytes:
    return resources.files("revmine").joinpath(DATA_FILE).read_bytes()


@lru_cache(maxsize=1)
def default_model() -> Pipeline:
    """:data:`DEFAULT_MODEL` trained on the shipped labelled comments (cached on disk and in memory)."""
    data = _shipped_data()
    key = hashlib.sha256()
    for part in (data, Path(__file__).read_bytes(), Path(rules.__file__).read_bytes(),
                 sklearn.__version__.encode()):
        key.update(hashlib.sha256(part).digest())
    cached = cache_dir() / "classifier" / f"noise-{DEFAULT_MODEL}-{key.hexdigest()[:20]}.joblib"
    if cached.is_file():
        try:
            return load(cached)
        except InputError:
            pass  # a corrupt cache entry is rebuilt below
    texts, labels = _parse_labels(data.decode("utf-8").split("\n"), DATA_FILE)
    model = train(texts, labels)
    try:
        save(model, cached)
    except OSError as exc:  # a read-only home must not stop the pipeline
        warnings.warn(f"could not cache the default classifier at {cached}: {exc}", stacklevel=2)
    return model
