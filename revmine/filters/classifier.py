"""Noise-comment classifier: tells reviewer comments that ask for a change in the method from the rest.

Tufano et al. (ICSE 2021) trained a classifier on manually labelled comments to remove those that ask
for no code change, comparing a random forest with a decision tree (J48) and naive Bayes. The model is
one scikit-learn :class:`~sklearn.pipeline.Pipeline` while training (text in, ``True`` = relevant out):

* word 1-2-grams, TF-IDF weighted (``?``, ``!`` and ``+`` kept as tokens); character 2-5-grams on
  request (``char_ngrams=True``);
* hand-made counts (:class:`CommentFeatures`): length, code mentions (camelCase, snake_case, calls
  ``name(``, backtick spans, fenced and ``suggestion`` blocks), question and exclamation marks, URLs,
  whether a change-request cue is present, and the keyword rules of :mod:`.rules` as binary features; with
  ``codes`` given, how much of the comment's vocabulary is the code's (RevHelper, MSR 2017).

Inputs are :class:`Comment` pairs (text, code); plain texts are comments without code. A Gerrit change
message is read without its header (:func:`.rules.message_body`).

A fitted pipeline is saved as a :class:`NoiseModel`: vocabularies, IDF weights, tree arrays or naive
Bayes log-probabilities in one ``.npz`` (JSON settings inside, no pickle). Pickles of scikit-learn
estimators may not load, or may load wrongly, under another scikit-learn release, and users install
whichever release pip serves; arrays and a JSON vocabulary read the same everywhere.

The **default model** (:func:`default_model`) is shipped in ``revmine/data/noise_model.npz`` and loaded,
never retrained at run time. ``scripts/build_noise_model.py`` rebuilds it byte for byte from
:func:`default_training_set`: real comments labelled against the rubric (``docs/comment-rubric.md``): the
2021 test split's change requests (``../shared``, labels by row in ``tufano2021_test_labels.csv``; its
other comments are learnt as neither class) and the licensed GitHub comments of ``comments_labelled.csv``
(learnt as what their text says), plus the synthetic noise of the categories the rubric calls noise. In the
default filter the model decides together with the keyword rules of :data:`.rules.DROPPING_RULES`; the
other rules are only its features. Projects are judged left out of training
(:func:`leave_one_project_out`, ``revmine classifier evaluate --by-project``).
Figures per project and category, and why this design: ``revmine/data/LABELLING.md``.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import re
import sys
import zipfile
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Iterable, Mapping, NamedTuple, Sequence

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.ensemble import RandomForestClassifier
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.metrics import precision_recall_fscore_support
from sklearn.model_selection import StratifiedKFold
from sklearn.naive_bayes import MultinomialNB
from sklearn.pipeline import FeatureUnion, Pipeline
from sklearn.preprocessing import normalize
from sklearn.tree import DecisionTreeClassifier

from ..errors import InputError
from ..io.store import atomic_path
from ..io.textio import read_jsonl, read_lines
from ..lang.stopwords import default_stopwords
from . import rules
from .classifier_options import DEFAULT_MODEL, MODELS, ClassifierOptions

__all__ = [
    "CATEGORIES", "CHANGE_REQUEST", "DEFAULT_MODEL", "DEFAULT_THRESHOLD", "MODELS", "ClassifierOptions", "CVScores",
    "Comment", "CommentFeatures", "FilterScores", "LabelledSet", "NoiseModel", "build", "check_trainable",
    "code_overlap", "comments", "compare", "cross_validate", "default_evaluation_set", "default_model",
    "default_training_set", "evaluate_by_project", "filter_scores", "in_default_training", "leave_one_project_out",
    "load", "out_of_fold", "predict", "published_set", "read_labelled", "read_labels", "save", "shipped_labels",
    "synthetic_noise", "train", "train_from_file",
]

#: A comment is relevant when the model gives it a probability above this. Below 0.5 because a change
#: request removed is lost for good (0.5 keeps 98.55% of the published comments out-of-fold, no margin on
#: 98.5%); not lower because at 0.35 the filter removes 88.8% of synthetic formatting remarks (LABELLING.md).
DEFAULT_THRESHOLD = 0.4
#: Trees of the default forest: 100, not the 300 of user models, because out-of-fold they gave the same
#: figures at a third of the file size and prediction time (LABELLING.md).
DEFAULT_TREES = 100
LABELS_FILE = "data/comments_labelled.csv"
#: Synthetic noise written for an earlier model (``scripts/make_labelled_comments.py``): real labelled noise
#: of licensed sources is still scarce (LABELLING.md), so the default model keeps learning these noise rows
SYNTHETIC_FILE = "data/review_comments_labelled.csv"
#: but not those of the categories the rubric counts as change requests (formatting, documentation, tests)
#: or that real reviews use as requests ("Is this really necessary?" names what to change).
SYNTHETIC_NOT_NOISE = frozenset({"clarification", "formatting", "documentation", "add_tests"})
MODEL_FILE = "data/noise_model.npz"
PUBLISHED_LABELS_FILE = "data/tufano2021_test_labels.csv"
#: The project name of the 2021 split's comments in the default training and evaluation sets.
PUBLISHED_PROJECT = "tufano2021"
#: Whether the default model reads the code a comment sits on (chosen by measurement: LABELLING.md).
DEFAULT_CODE_FEATURES = False
_FORMAT = "revmine-noise-classifier/2"
_LABELS = {"relevant": True, "noise": False}

_CAMEL = re.compile(r"\b[a-z]+[A-Z][A-Za-z0-9]*\b|\b[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*\b")
_SNAKE = re.compile(r"\b[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]+\b")
_CALL = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\s*\(")
_BACKTICK = re.compile(r"`[^`\n]+`")
_FENCE = re.compile(r"```")
_SUGGESTION = re.compile(r"```\s*suggestion", re.I)
_URL = re.compile(r"(?:https?://|www\.)\S+", re.I)


class CommentFeatures(BaseEstimator, TransformerMixin):
    """Counts a bag of n-grams misses: size, code mentions, questions, URLs, and the keyword rules.

    With ``code=True`` it also measures how much of the comment's vocabulary is the code's (RevHelper,
    Rahman, Roy and Kula, MSR 2017: useful comments share words with the code they sit on): the share of
    the comment's content words found among the code's identifier parts, and how many of its tokens are
    whole identifiers of the code. Inputs are :class:`Comment` pairs; a comment without code scores 0 on both.
    """

    _NAMES = ("log_chars", "log_words", "camel_case", "snake_case", "calls", "backticks", "code_blocks",
              "suggestion", "questions", "exclamations", "urls", "asks_for_change")
    _CODE_NAMES = ("code_word_share", "code_identifiers")

    def __init__(self, code: bool = False) -> None:
        self.code = code

    def fit(self, comments: Iterable["Comment"], y: object = None) -> "CommentFeatures":
        return self

    def transform(self, comments: Iterable["Comment"]) -> sp.csr_matrix:
        rows = [self._row(rules.message_body(c.text)) + (list(code_overlap(c.text, c.code)) if self.code else [])
                for c in map(_as_comment, comments)]
        return sp.csr_matrix(np.array(rows, dtype=np.float64).reshape(-1, len(self.names(self.code))))

    def get_feature_names_out(self, input_features: object = None) -> np.ndarray:
        return np.array(self.names(self.code), dtype=object)

    @classmethod
    def names(cls, code: bool = False) -> tuple[str, ...]:
        return cls._NAMES + tuple(f"rule_{name}" for name in rules.RULE_NAMES) + (cls._CODE_NAMES if code else ())

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


class Comment(NamedTuple):
    """What the classifier reads of one comment: its text and, when known, the code it sits on."""

    text: str
    code: str | None = None


def comments(texts: Iterable[str], codes: Iterable[str | None] | None = None) -> list[Comment]:
    """Texts (and codes, aligned) as :class:`Comment` pairs."""
    texts = list(texts)
    codes = [None] * len(texts) if codes is None else list(codes)
    if len(codes) != len(texts):
        raise ValueError(f"{len(texts)} texts but {len(codes)} codes")
    return [Comment(t, c) for t, c in zip(texts, codes)]


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def _parts(identifier: str) -> list[str]:
    """camelCase, PascalCase, snake_case and ALLCAPS parts of an identifier, lower-cased."""
    return [p.lower() for p in _PART.findall(identifier)]


def code_overlap(text: str, code: str | None) -> tuple[float, float]:
    """(share of the comment's content words among the code's identifier parts, log1p of the comment's
    tokens that are whole identifiers of the code); (0, 0) without code."""
    if not code:
        return 0.0, 0.0
    identifiers = set(_IDENTIFIER.findall(code))
    vocabulary = {part for name in identifiers for part in _parts(name)}
    stop = default_stopwords()
    tokens = _IDENTIFIER.findall(text)
    words = {w for token in tokens for w in _parts(token) if len(w) > 2 and w not in stop}
    shared = sum(w in vocabulary for w in words) / len(words) if words else 0.0
    return shared, math.log1p(sum(len(t) > 2 and t in identifiers for t in set(tokens)))


def _as_comment(value: "Comment | str") -> Comment:
    """A fitted pipeline also takes plain texts, as before it read code: a text is a comment without code."""
    return value if isinstance(value, Comment) else Comment(value)


def _comment_text(comment: "Comment | str") -> str:
    """The n-gram vectorisers' preprocessor: the text lower-cased, as their default one does, and of a Gerrit
    change message its body (:func:`.rules.message_body`: "Patch Set 3: Code-Review+2" is not the reviewer's words)."""
    return rules.message_body(_as_comment(comment).text).lower()


def _estimator(model: str, seed: int, params: dict[str, object]) -> BaseEstimator:
    if model == "random_forest":
        defaults: dict[str, object] = {"n_estimators": 300, "random_state": seed, "n_jobs": -1}
        return RandomForestClassifier(**{**defaults, **params})
    if model == "decision_tree":  # J48-like: information gain, at least two instances per leaf
        return DecisionTreeClassifier(**{"criterion": "entropy", "min_samples_leaf": 2, "random_state": seed,
                                         **params})
    if model == "naive_bayes":
        return MultinomialNB(**{"alpha": 0.1, **params})
    raise InputError.setting("model", f"unknown model {model!r}; choose one of {', '.join(MODELS)}")


def _words() -> TfidfVectorizer:
    """Word uni- and bigrams seen in at least two comments (one-off words are names, typos)."""
    return TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True, token_pattern=r"(?u)\b\w+\b|[?!+]",
                           preprocessor=_comment_text)


def build(model: str = DEFAULT_MODEL, seed: int = 0, char_ngrams: bool = False, code: bool = False,
          **params: object) -> Pipeline:
    """An unfitted pipeline of :class:`Comment` in, relevant out: features then ``model``; ``params``
    override the estimator's defaults; ``code`` adds the code-vocabulary features of :class:`CommentFeatures`.

    Character n-grams are off by default: on the shipped set they lowered the cross-validated precision
    of all three models (RF 0.974 -> 0.960, DT 0.962 -> 0.936, NB 0.982 -> 0.972), drowning the word and
    hand-made features; they may pay off on user labels with many typos or identifiers.
    """
    parts: list[tuple[str, object]] = [("words", _words()), ("comment", CommentFeatures(code=code))]
    if char_ngrams:
        parts.insert(1, ("chars", TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 5), min_df=2,
                                                  sublinear_tf=True, max_features=20000,
                                                  preprocessor=_comment_text)))
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
          codes: Sequence[str | None] | None = None, **params: object) -> Pipeline:
    """Fit a pipeline on labelled comments (labels: True/"relevant" or False/"noise"); with ``codes`` (the
    code each comment sits on, None where unknown) the model also learns the code-vocabulary features."""
    y = _relevant(labels)
    if len(texts) != len(y):
        raise ValueError(f"{len(texts)} texts but {len(y)} labels")
    if y.all() or not y.any():
        raise ValueError("training needs both relevant and noise comments")
    return build(model, seed, code=codes is not None, **params).fit(comments(texts, codes), y)


def predict(model: "Pipeline | NoiseModel", texts: Iterable[str],
            codes: Iterable[str | None] | None = None) -> np.ndarray:
    """A boolean array, True where the comment is predicted relevant (asks for a change)."""
    pairs = comments(texts, codes)
    if not pairs:
        return np.zeros(0, dtype=bool)
    if isinstance(model, NoiseModel):
        return model.predict([c.text for c in pairs], [c.code for c in pairs])
    return np.asarray(model.predict(pairs)).astype(bool)


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


def _folds(y: np.ndarray, folds: int, seed: int, strata: Sequence[object] | None) -> list[tuple[np.ndarray, np.ndarray]]:
    """Stratified, shuffled (seeded) folds; ``strata`` (e.g. label and source) refine the stratification."""
    key = y if strata is None else np.array([f"{int(a)}|{b}" for a, b in zip(y, strata)])
    return list(StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed).split(np.zeros(len(y)), key))


def cross_validate(texts: Sequence[str], labels: Sequence[object], model: str = DEFAULT_MODEL,
                   folds: int = 10, seed: int = 0, **params: object) -> CVScores:
    """Stratified, shuffled (seeded) k-fold cross-validation, as the paper's 10-fold evaluation."""
    pairs = comments(texts)
    y = _relevant(labels)
    predicted = np.zeros_like(y)
    fold_p, fold_r = [], []
    for train_idx, test_idx in _folds(y, folds, seed, None):
        fitted = build(model, seed, **params).fit([pairs[i] for i in train_idx], y[train_idx])
        predicted[test_idx] = predict(fitted, [pairs[i].text for i in test_idx])
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


def out_of_fold(texts: Sequence[str], labels: Sequence[object], model: str = DEFAULT_MODEL, folds: int = 10,
                seed: int = 0, strata: Sequence[object] | None = None, **params: object) -> np.ndarray:
    """P(relevant) of every comment from a model fitted on the other folds (never on the comment itself)."""
    y = _relevant(labels)
    return _held_out(comments(texts), y, _folds(y, folds, seed, strata), model, seed, None, **params)


def leave_one_project_out(texts: Sequence[str], labels: Sequence[object], projects: Sequence[str],
                          model: str = DEFAULT_MODEL, seed: int = 0, codes: Sequence[str | None] | None = None,
                          always: "LabelledSet | None" = None, **params: object) -> np.ndarray:
    """P(relevant) of every comment from a model fitted on the other projects' comments only.

    This is how the filter meets a project nobody has cleaned: nothing of that project was learnt, not its
    identifiers, its reviewers' habits nor its bots. ``always`` (comments of no project of the file, e.g.
    the 2021 split's change requests) joins every training part.
    """
    y = _relevant(labels)
    names = np.asarray(list(projects), dtype=object)
    if len(names) != len(y):
        raise ValueError(f"{len(y)} labels but {len(names)} projects")
    parts = [(np.flatnonzero(names != p), np.flatnonzero(names == p)) for p in sorted(set(names.tolist()))]
    if len(parts) < 2:
        raise ValueError("leaving one project out needs comments of at least two projects")
    return _held_out(comments(texts, codes), y, parts, model, seed, always, code=codes is not None, **params)


def _held_out(pairs: list[Comment], y: np.ndarray, parts: Sequence[tuple[np.ndarray, np.ndarray]], model: str,
              seed: int, always: "LabelledSet | None", **params: object) -> np.ndarray:
    """P(relevant) of each comment of every part's test side, from a model fitted on its training side
    (plus ``always``)."""
    extra = [] if always is None else comments(always.texts, always.codes)
    extra_y = np.zeros(0, dtype=bool) if always is None else _relevant(always.text_labels)
    scores = np.zeros(len(y))
    for train_idx, test_idx in parts:
        fitted = NoiseModel.from_pipeline(build(model, seed, **params).fit(
            [pairs[i] for i in train_idx] + extra, np.concatenate([y[train_idx], extra_y])))
        scores[test_idx] = fitted.relevance([pairs[i].text for i in test_idx], [pairs[i].code for i in test_idx])
    return scores


@dataclass(frozen=True)
class FilterScores:
    """What a noise filter keeps and removes on labelled comments (class *relevant* = change request)."""

    relevant: int
    kept_relevant: int
    noise: int
    removed_noise: int
    #: category -> (comments, kept); empty when the file has no category column
    categories: Mapping[str, tuple[int, int]] = field(default_factory=dict)

    @property
    def kept_relevant_share(self) -> float:
        return self.kept_relevant / self.relevant if self.relevant else math.nan

    @property
    def removed_noise_share(self) -> float:
        return self.removed_noise / self.noise if self.noise else math.nan

    @property
    def precision(self) -> float:
        """Of the comments kept, the share that ask for a change."""
        kept = self.kept_relevant + self.noise - self.removed_noise
        return self.kept_relevant / kept if kept else math.nan

    @property
    def recall(self) -> float:
        """Of the change requests, the share kept (= :attr:`kept_relevant_share`)."""
        return self.kept_relevant_share


def filter_scores(labels: Sequence[object], kept: Sequence[bool],
                  categories: Sequence[str] | None = None) -> FilterScores:
    """Count kept change requests and removed noise, overall and per category."""
    y = _relevant(labels)
    k = np.asarray(kept, dtype=bool)
    if k.shape != y.shape:
        raise ValueError(f"{len(y)} labels but {len(k)} decisions")
    per: dict[str, tuple[int, int]] = {}
    for category, keep in zip(categories or (), k.tolist()):
        n, m = per.get(category, (0, 0))
        per[category] = (n + 1, m + int(keep))
    return FilterScores(relevant=int(y.sum()), kept_relevant=int((y & k).sum()), noise=int((~y).sum()),
                        removed_noise=int((~y & ~k).sum()), categories=dict(sorted(per.items())))


def rules_noise(texts: Iterable[str]) -> np.ndarray:
    """True where the default filter's keyword rules remove the comment (:func:`.rules.drops`)."""
    return np.array([rules.drops(t) for t in texts], dtype=bool)


class NoiseModel:
    """A fitted classifier as plain data: feature settings, vocabularies and arrays, evaluated with numpy.

    Why not the scikit-learn objects: rebuilding fitted estimators from arrays relies on private
    structures (a tree's node records) that change between releases, and pickles tie the file to the
    release that wrote it. The arithmetic is short and is checked against scikit-learn in the tests:
    TF-IDF is ``CountVectorizer`` with the fixed vocabulary, then ``1 + log(tf)``, times IDF, L2-normed,
    as ``TfidfVectorizer`` does; trees compare float32 features with ``<=`` as scikit-learn's trees do and
    average the leaves' class shares over the forest; naive Bayes adds log-probabilities.
    """

    def __init__(self, meta: Mapping[str, object], arrays: Mapping[str, np.ndarray]) -> None:
        self.meta = dict(meta)
        self.arrays = {name: np.asarray(a) for name, a in arrays.items()}
        self.threshold = float(self.meta["threshold"])  # type: ignore[arg-type]
        self._vectorizers: dict[str, CountVectorizer] = {}
        #: whether the model reads the code a comment sits on (:class:`CommentFeatures` with ``code=True``)
        self.uses_code = False
        for spec in self.meta["features"]:  # type: ignore[union-attr]
            if spec["kind"] == "tfidf":
                self._vectorizers[spec["name"]] = CountVectorizer(
                    vocabulary={term: i for i, term in enumerate(spec["vocabulary"])}, analyzer=spec["analyzer"],
                    ngram_range=tuple(spec["ngram_range"]), token_pattern=spec["token_pattern"],
                    lowercase=spec["lowercase"], preprocessor=_comment_text, dtype=np.float64)
            elif tuple(spec["columns"]) == CommentFeatures.names(code=True):
                self.uses_code = True
            elif tuple(spec["columns"]) != CommentFeatures.names():
                raise ValueError("the model's comment features differ from this revmine's keyword rules; "
                                 "rebuild it (scripts/build_noise_model.py or `revmine classifier train`)")
        if self.meta["estimator"] == "forest":
            starts = self.arrays["tree_start"]
            owner = np.repeat(starts[:-1], np.diff(starts))  # the first node of each node's tree
            right = self.arrays["tree_right"].astype(np.int64)
            self._leaf = right < 0
            # Trees are stored depth first: a node's left child is the next node. Indices made global.
            self._left = np.where(self._leaf, -1, np.arange(len(right)) + 1)
            self._right = np.where(self._leaf, -1, right + owner)
            # The trees split on a third of the columns: the rest are never densified (columns renumbered).
            feature = np.where(self._leaf, 0, self.arrays["tree_feature"]).astype(np.int64)
            self._columns, self._feature = np.unique(feature, return_inverse=True)

    @classmethod
    def from_pipeline(cls, pipeline: Pipeline, threshold: float = 0.5,
                      provenance: Mapping[str, object] | None = None) -> "NoiseModel":
        """The portable form of a pipeline made by :func:`build` and fitted."""
        estimator = pipeline.named_steps["model"]
        if [bool(c) for c in estimator.classes_] != [False, True]:
            raise ValueError("expected a classifier fitted on the classes noise (False) and relevant (True)")
        meta: dict[str, object] = {"format": _FORMAT, "threshold": float(threshold),
                                   "provenance": dict(provenance or {}), "features": []}
        arrays: dict[str, np.ndarray] = {}
        for name, part in pipeline.named_steps["features"].transformer_list:
            if isinstance(part, TfidfVectorizer):
                meta["features"].append({  # type: ignore[union-attr]
                    "name": name, "kind": "tfidf", "analyzer": part.analyzer, "ngram_range": list(part.ngram_range),
                    "token_pattern": part.token_pattern, "lowercase": part.lowercase,
                    "sublinear_tf": part.sublinear_tf, "norm": part.norm,
                    "vocabulary": sorted(part.vocabulary_, key=part.vocabulary_.__getitem__)})
                arrays[f"{name}_idf"] = np.asarray(part.idf_, dtype=np.float64)
            else:
                meta["features"].append({"name": name, "kind": "comment", "columns": list(part.names(part.code))})  # type: ignore[union-attr]
        if isinstance(estimator, MultinomialNB):
            meta["estimator"] = "naive_bayes"
            arrays["nb_feature_log_prob"] = estimator.feature_log_prob_
            arrays["nb_class_log_prior"] = estimator.class_log_prior_
        else:  # a forest, or one tree as a forest of one
            meta["estimator"] = "forest"
            trees = [t.tree_ for t in getattr(estimator, "estimators_", [estimator])]
            values = []
            for tree in trees:
                inner = tree.children_left >= 0
                if not np.array_equal(tree.children_left[inner], np.flatnonzero(inner) + 1):
                    raise ValueError("expected trees built depth first (left child = next node)")
                value = tree.value[:, 0, :].astype(np.float64)
                total = value.sum(axis=1)
                total[total == 0] = 1.0
                # One number per node: an inner node's split threshold, a leaf's share of relevant comments.
                values.append(np.where(inner, tree.threshold, value[:, 1] / total))
            n_features = sum(len(spec.get("vocabulary", spec.get("columns", ())))  # type: ignore[union-attr]
                             for spec in meta["features"])  # type: ignore[union-attr]
            arrays["tree_start"] = np.concatenate([[0], np.cumsum([t.node_count for t in trees])]).astype(np.int64)
            arrays["tree_right"] = np.concatenate([t.children_right for t in trees]).astype(np.int32)
            arrays["tree_feature"] = np.concatenate([np.maximum(t.feature, -1) for t in trees]).astype(
                np.int16 if n_features < 2**15 else np.int32)
            arrays["tree_value"] = np.concatenate(values)
        return cls(meta, arrays)

    def features(self, texts: Sequence[str], codes: Sequence[str | None] | None = None) -> sp.csr_matrix:
        """The feature matrix the estimator was fitted on (same columns as the pipeline's FeatureUnion)."""
        blocks = []
        for spec in self.meta["features"]:  # type: ignore[union-attr]
            if spec["kind"] == "comment":
                blocks.append(CommentFeatures(code=self.uses_code).transform(comments(texts, codes)))
                continue
            counts = self._vectorizers[spec["name"]].transform(texts).tocsr()
            if spec["sublinear_tf"]:
                np.log(counts.data, counts.data)
                counts.data += 1.0
            counts.data *= self.arrays[f"{spec['name']}_idf"][counts.indices]
            blocks.append(normalize(counts, norm=spec["norm"], copy=False) if spec["norm"] else counts)
        return sp.hstack(blocks, format="csr")

    def relevance(self, texts: Iterable[str], codes: Iterable[str | None] | None = None) -> np.ndarray:
        """P(relevant) of each comment (``codes``: the code each sits on, read by a model that uses code)."""
        texts = list(texts)
        if not texts:
            return np.zeros(0)
        x = self.features(texts, None if codes is None else list(codes))
        if self.meta["estimator"] == "naive_bayes":
            joint = x @ self.arrays["nb_feature_log_prob"].T + self.arrays["nb_class_log_prior"]
            return 1.0 / (1.0 + np.exp(joint[:, 0] - joint[:, 1]))
        return np.concatenate([self._forest(x[i:i + 512]) for i in range(0, x.shape[0], 512)])

    def _forest(self, x: sp.csr_matrix) -> np.ndarray:
        """Every tree walked for every comment at once, one level a step. Only the walks not yet at a leaf
        take the next step: the trees learnt from real comments are deep (leaves down to level 296), and stepping
        every walk to the deepest leaf made the filter 2.6x slower per comment than the model before the real
        labels; this way it costs the sum of the paths' lengths (the forest 3.3x faster on the 2021 split)."""
        dense = x[:, self._columns].astype(np.float32).toarray()  # scikit-learn's trees split on float32 features
        value = self.arrays["tree_value"]
        starts = self.arrays["tree_start"][:-1]
        node = np.repeat(starts, dense.shape[0])  # tree by tree, each tree's walk of every comment
        row = np.tile(np.arange(dense.shape[0]), len(starts))
        walking = np.flatnonzero(~self._leaf[node])
        while walking.size:
            at = node[walking]
            goes_left = dense[row[walking], self._feature[at]] <= value[at]
            node[walking] = step = np.where(goes_left, self._left[at], self._right[at])
            walking = walking[~self._leaf[step]]
        return value[node].reshape(len(starts), dense.shape[0]).mean(axis=0)

    def predict(self, texts: Iterable[str], codes: Iterable[str | None] | None = None) -> np.ndarray:
        """True where the comment is relevant: P(relevant) above the model's threshold."""
        return self.relevance(texts, codes) > self.threshold


def save(model: "Pipeline | NoiseModel", path: str | Path, threshold: float = 0.5,
         provenance: Mapping[str, object] | None = None) -> Path:
    """Write ``model`` atomically as a ``.npz`` that any numpy reads without pickle.

    The file is byte-for-byte reproducible: entries in name order, stored (not compressed, so that
    the bytes do not depend on the zlib build), with a fixed timestamp.
    """
    if not isinstance(model, NoiseModel):
        model = NoiseModel.from_pipeline(model, threshold=threshold, provenance=provenance)
    meta = json.dumps(model.meta, sort_keys=True, ensure_ascii=True, separators=(",", ":")).encode("ascii")
    entries = {**model.arrays, "meta": np.frombuffer(meta, dtype=np.uint8)}
    with atomic_path(path) as tmp, zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_STORED) as archive:
        for name in sorted(entries):
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, np.ascontiguousarray(entries[name]), allow_pickle=False)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            archive.writestr(info, buffer.getvalue())
    return Path(path)


def load(path: str | Path) -> NoiseModel:
    """Read a model written by :func:`save` (no pickle: a file from anyone is safe to load)."""
    path = Path(path)
    if not path.is_file():
        raise InputError(path, "no such model file")
    try:
        with np.load(path, allow_pickle=False) as archive:
            arrays = {name: archive[name] for name in archive.files}
        meta = json.loads(arrays.pop("meta").tobytes().decode("ascii"))
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, UnicodeDecodeError) as exc:
        raise InputError(path, f"not a revmine classifier model ({type(exc).__name__}: {exc})") from exc
    if not isinstance(meta, dict) or meta.get("format") != _FORMAT:
        raise InputError(path, f"not a revmine classifier model (expected format {_FORMAT})")
    try:
        return NoiseModel(meta, arrays)
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(path, f"unusable classifier model: {exc}") from exc


def _label(value: object, path: str | Path, line: int) -> bool:
    if isinstance(value, str) and value.strip().lower() in _LABELS:
        return _LABELS[value.strip().lower()]
    raise InputError(path, f"label {value!r} is neither 'relevant' nor 'noise'", line=line, field="label")


def _text(value: object, path: str | Path, line: int) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InputError(path, "empty or missing comment text", line=line, field="text")
    return value


#: Optional columns of a labels file, kept when every row has them (``code`` may be empty on some rows).
OPTIONAL_COLUMNS = ("category", "project", "code", "content")
#: The rubric's category of a comment that asks for a change (``docs/comment-rubric.md``); every other is noise.
CHANGE_REQUEST = "change_request"
#: The rubric's categories, the change request first.
CATEGORIES = (CHANGE_REQUEST, "praise", "acknowledgement", "question", "discussion", "author_reply", "bot_output")

_Row = tuple[str, bool, dict[str, "str | None"]]


def _read_csv(lines: list[str], path: str | Path) -> list[_Row]:
    # one text again, so that a quoted field keeps its newlines (csv.reader drops them between list items)
    csv.field_size_limit(sys.maxsize)  # a code column holds whole methods
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
    optional = {name: columns.index(name) for name in OPTIONAL_COLUMNS if name in columns}
    rows = []
    start = reader.line_num + 1
    for record in reader:
        if any(cell.strip() for cell in record):
            if len(record) < len(columns):
                raise InputError(path, f"{len(record)} field(s), expected {len(columns)}", line=start)
            rows.append((_text(record[text_at], path, start), _label(record[label_at], path, start),
                         {name: _optional(name, record[at]) for name, at in optional.items()}))
        start = reader.line_num + 1
    return rows


def _optional(name: str, value: object) -> str | None:
    """An optional cell: code keeps its text as it is, the others are trimmed; empty is None."""
    if value is None:
        return None
    text = str(value) if name == "code" else str(value).strip()
    return text if text.strip() else None


def _read_jsonl(lines: list[str], path: str | Path) -> list[_Row]:
    rows = []
    for number, record in read_jsonl(Path(path), lines):
        if "text" not in record or "label" not in record:
            raise InputError(path, "expected an object with keys text and label", line=number)
        rows.append((_text(record["text"], path, number), _label(record["label"], path, number),
                     {name: _optional(name, record[name]) for name in OPTIONAL_COLUMNS if name in record}))
    return rows


def _check_suffix(path: str | Path) -> str:
    suffix = Path(path).suffix.lower()
    if suffix not in (".csv", ".jsonl", ".ndjson"):
        raise InputError(path, "labels must be a .csv (columns text,label) or .jsonl file")
    return suffix


@dataclass(frozen=True)
class LabelledSet:
    """Comments with their labels (True = relevant) and, when the file has them, categories, projects, the
    code each comment sits on, and ``content``: the rubric category of the text alone (it differs from the
    category for an author's reply or a bot's output, which are noise whatever they say)."""

    texts: list[str]
    labels: list[bool]
    categories: list[str] | None = None
    projects: list[str] | None = None
    codes: list[str | None] | None = None
    contents: list[str] | None = None

    @property
    def text_labels(self) -> list[bool]:
        """What a text classifier learns: the label of ``content`` where the file gives it, else the label.

        Who wrote a comment (its change's owner, a bot) is a fact the miners record and the filters act on;
        a model that learnt "Use a constant here" as noise because a bot wrote it would drop it from a human.
        """
        if self.contents is None:
            return list(self.labels)
        return [label if content is None else content == CHANGE_REQUEST
                for content, label in zip(self.contents, self.labels)]

    def subset(self, rows: Sequence[int]) -> "LabelledSet":
        """The comments at ``rows``, in that order."""
        def pick(values: list | None) -> list | None:
            return None if values is None else [values[i] for i in rows]
        return LabelledSet(pick(self.texts), pick(self.labels), pick(self.categories), pick(self.projects),
                           pick(self.codes), pick(self.contents))

    def __add__(self, other: "LabelledSet") -> "LabelledSet":
        def join(a: list | None, b: list | None, n: int, m: int, fill: object) -> list | None:
            if a is None and b is None:
                return None
            return (a if a is not None else [fill] * n) + (b if b is not None else [fill] * m)
        n, m = len(self.texts), len(other.texts)
        contents = join(self.contents, other.contents, n, m, None)
        return LabelledSet(self.texts + other.texts, self.labels + other.labels,
                           join(self.categories, other.categories, n, m, ""),
                           join(self.projects, other.projects, n, m, ""), join(self.codes, other.codes, n, m, None),
                           contents)


def read_labelled(path: str | Path) -> LabelledSet:
    """Read a labelled file: CSV with a header holding ``text,label`` or JSON Lines with those keys.

    Labels are ``relevant`` or ``noise`` (any case). Optional columns (:data:`OPTIONAL_COLUMNS`):
    ``category`` for per-category figures, ``project`` for leave-one-project-out evaluation, ``code`` (the
    code the comment sits on) for the code-vocabulary features, ``content`` (see :class:`LabelledSet`);
    other columns are ignored. Errors name the line.
    """
    path = Path(path)
    if not path.is_file():
        raise InputError(path, "no such labels file")
    suffix = _check_suffix(path)  # before reading: a file of another kind is not read at all
    lines = read_lines(path)  # strict UTF-8: a bad byte is reported with its line
    try:
        rows = _read_csv(lines, path) if suffix == ".csv" else _read_jsonl(lines, path)
    except csv.Error as exc:
        raise InputError(path, f"malformed CSV: {exc}") from exc
    if not rows:
        raise InputError(path, "no labelled comments")

    def column(name: str, blank_ok: bool) -> list | None:
        values = [extra.get(name) for _, _, extra in rows]
        if all(name not in extra for _, _, extra in rows):
            return None
        if not blank_ok and any(v is None for v in values):
            return None
        return values
    return LabelledSet([t for t, _, _ in rows], [y for _, y, _ in rows], column("category", False),
                       column("project", False), column("code", True), column("content", True))


def check_trainable(path: str | Path, data: LabelledSet, folds: int | None = None, seed: int = 0) -> None:
    """Refuse, naming the file, labels too few to fit a model on (or to cut into ``folds``).

    scikit-learn's own errors for these ("After pruning, no terms remain", "Cannot have number of splits
    n_splits=10 greater than...") name neither the file nor what to do.
    """
    relevant = sum(data.labels)
    smallest = min(relevant, len(data.labels) - relevant)
    _both_labels(path, data)
    if folds is not None and not 2 <= folds <= smallest:
        raise InputError(path, f"{folds} folds need at least {max(folds, 2)} comments of each label; the file has "
                               f"{relevant} relevant and {len(data.labels) - relevant} noise (use --folds 2..{smallest})"
                         if smallest >= 2 else f"cross-validation needs at least 2 comments of each label; the "
                                               f"file has {relevant} relevant and {len(data.labels) - relevant} noise")
    analyse = _words().build_analyzer()
    terms = [set(analyse(text)) for text in data.texts]
    parts = [np.arange(len(terms))] if folds is None else \
        [train for train, _ in _folds(np.array(data.labels), folds, seed, None)]
    for part in parts:
        seen: dict[str, int] = {}
        for i in part:
            for term in terms[i]:
                seen[term] = seen.get(term, 0) + 1
        if not any(count >= 2 for count in seen.values()):
            where = f"{len(part)} comments" + ("" if folds is None else f" (a training part of {folds} folds)")
            raise InputError(path, f"no word occurs in two of its {where}: too few to learn from; label more "
                                   "comments")


def _both_labels(path: str | Path, data: LabelledSet) -> None:
    if all(data.labels) or not any(data.labels):
        raise InputError(path, f"{len(data.labels)} row(s) but training needs both relevant and noise comments")


def read_labels(path: str | Path) -> tuple[list[str], list[bool]]:
    """The texts and labels of :func:`read_labelled`, for training: both classes must be present."""
    data = read_labelled(path)
    _both_labels(path, data)
    return data.texts, data.labels


def train_from_file(labels_path: str | Path, out_model_path: str | Path, model: str = DEFAULT_MODEL,
                    seed: int = 0, **params: object) -> NoiseModel:
    """Train on a user's labels and save the model (``revmine classifier train --labels FILE``).

    The threshold is 0.5 (the estimator's own decision): :data:`DEFAULT_THRESHOLD` was chosen for the
    shipped training set and says nothing about another one.
    """
    data = read_labelled(labels_path)
    check_trainable(labels_path, data)
    texts, labels = data.texts, data.labels
    fitted = NoiseModel.from_pipeline(train(texts, labels, model=model, seed=seed, **params),
                                      provenance={"labels": Path(labels_path).name, "model": model, "seed": seed})
    save(fitted, out_model_path)
    return fitted


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _data_path(name: str) -> Path:
    return Path(str(resources.files("revmine").joinpath(name)))


def read_published_labels(path: Path | None = None) -> dict[int, tuple[str, str]]:
    """Row index -> (category, content) of every comment of the 2021 test split, labelled against the rubric
    (``tufano2021_test_labels.csv``: the row, not the text, which stays in the split's own file)."""
    path = path or _data_path(PUBLISHED_LABELS_FILE)
    rows: dict[int, tuple[str, str]] = {}
    reader = csv.DictReader(io.StringIO("\n".join(read_lines(path)), newline=""))
    for number, record in enumerate(reader, start=2):
        try:
            category, content = record["category"].strip(), (record["content"] or record["category"]).strip()
            rows[int(record["row"])] = (category, content)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise InputError(path, f"expected columns row,category,content,note ({exc})", line=number) from exc
        if category not in CATEGORIES or content not in CATEGORIES:
            raise InputError(path, f"category {category!r} or content {content!r} is not one of the rubric's",
                             line=number, field="category")
    return rows


def read_published_comments(test_csv: Path) -> tuple[list[str], list[str]]:
    """The ``comment`` and ``before`` (the method commented) columns of the 2021 split file, in row order
    (its first column is the row index)."""
    if not test_csv.is_file():
        raise InputError(test_csv, "no such file (the tufano2021 fixture: clone with ../shared beside the project)")
    try:  # not read_lines: comments keep their own line ends (\r\n inside a quoted field)
        text = test_csv.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(test_csv, f"undecodable byte at offset {exc.start} (not UTF-8)") from exc
    csv.field_size_limit(sys.maxsize)  # methods are long fields
    reader = csv.DictReader(io.StringIO(text, newline=""))
    comments_, methods = [], []
    for number, record in enumerate(reader):
        if record.get("comment") is None or record.get("before") is None or record.get("") != str(number):
            raise InputError(test_csv, f"expected columns (index),comment,before,... with index {number}",
                             line=reader.line_num)
        comments_.append(record["comment"])
        methods.append(record["before"])
    return comments_, methods


def evaluate_by_project(path: str | Path, data: LabelledSet, seed: int = 0) -> np.ndarray:
    """What the default design keeps of each comment when its project was left out of training: keyword
    rules plus a random forest (:data:`DEFAULT_TREES`, :data:`DEFAULT_THRESHOLD`) fitted on the file's other
    projects, learning from :attr:`LabelledSet.text_labels` and, when the file has a ``code`` column, the
    code-vocabulary features."""
    if data.projects is None:
        raise InputError(path, "leaving one project out needs a project column with a value on every row")
    projects = sorted(set(data.projects))
    if len(projects) < 2:
        raise InputError(path, f"leaving one project out needs at least two projects; the file has {projects}")
    y = np.array(data.text_labels)
    names = np.array(data.projects, dtype=object)
    for project in projects:
        rest = y[names != project]
        if rest.all() or not rest.any():
            raise InputError(path, f"without project {project!r} the file has comments of one label only")
    codes = data.codes if data.codes is not None and any(c is not None for c in data.codes) else None
    scores = leave_one_project_out(data.texts, y, data.projects, seed=seed, codes=codes, n_estimators=DEFAULT_TREES)
    return ~rules_noise(data.texts) & (scores > DEFAULT_THRESHOLD)


def shipped_labels() -> LabelledSet:
    """The real review comments labelled against the rubric (``revmine/data/comments_labelled.csv``)."""
    return read_labelled(_data_path(LABELS_FILE))


def published_set(test_csv: Path) -> LabelledSet:
    """The 1,719 comments of the 2021 test split as a labelled set of project :data:`PUBLISHED_PROJECT`, each
    with its rubric category (``tufano2021:<category>``), content and the method it was written on."""
    comments_, methods = read_published_comments(test_csv)
    labels = read_published_labels()
    if sorted(labels) != list(range(len(comments_))):
        raise InputError(_data_path(PUBLISHED_LABELS_FILE), f"expected one label for each of the {len(comments_)} "
                                                            f"rows of {test_csv}, found {len(labels)}")
    return LabelledSet(comments_, [labels[i][0] == CHANGE_REQUEST for i in range(len(comments_))],
                       [f"{PUBLISHED_PROJECT}:{labels[i][0]}" for i in range(len(comments_))],
                       [PUBLISHED_PROJECT] * len(comments_), methods, [labels[i][1] for i in range(len(comments_))])


def default_evaluation_set(test_csv: Path) -> LabelledSet:
    """Every comment the default model is judged on: the 2021 split (:func:`published_set`) then the
    shipped real labels (:func:`shipped_labels`)."""
    return published_set(test_csv) + shipped_labels()


def in_default_training(category: str) -> bool:
    """Whether a comment of :func:`default_evaluation_set` is learnt from: all but the 2021 split's
    comments hand-labelled noise.

    Those are learnt as neither class: the 2021 filter kept them, so learnt as noise the model recognises
    them in the 2021 split and an end-to-end rebuild loses them, and most of them (formatting, tests,
    documentation) are change requests by this project's rubric anyway. Figures: ``revmine/data/LABELLING.md``.
    """
    return not category.startswith(f"{PUBLISHED_PROJECT}:") or category == f"{PUBLISHED_PROJECT}:{CHANGE_REQUEST}"


def synthetic_noise() -> LabelledSet:
    """The synthetic noise rows the default model learns from (category ``synthetic:<category>``)."""
    data = read_labelled(_data_path(SYNTHETIC_FILE))
    rows = [i for i, (label, category) in enumerate(zip(data.labels, data.categories or ()))
            if not label and category not in SYNTHETIC_NOT_NOISE]
    return LabelledSet([data.texts[i] for i in rows], [False] * len(rows),
                       [f"synthetic:{(data.categories or ())[i]}" for i in rows], ["synthetic"] * len(rows))


def default_training_set(test_csv: Path) -> LabelledSet:
    """What the default model learns from: :func:`default_evaluation_set` but the 2021 rows labelled noise,
    then :func:`synthetic_noise`; :attr:`LabelledSet.text_labels` are the labels to learn."""
    data = default_evaluation_set(test_csv)
    rows = [i for i, category in enumerate(data.categories or ()) if in_default_training(category)]
    return data.subset(rows) + synthetic_noise()


def default_provenance(test_csv: Path) -> dict[str, object]:
    """Checksums of every input of the default model, written into the model file."""
    return {"model": DEFAULT_MODEL, "n_estimators": DEFAULT_TREES, "seed": 0, "threshold": DEFAULT_THRESHOLD,
            "code_features": DEFAULT_CODE_FEATURES, "published_noise": "not learnt from",
            "synthetic_not_noise": sorted(SYNTHETIC_NOT_NOISE),
            "sha256": {"test.csv": _sha256(test_csv), LABELS_FILE: _sha256(_data_path(LABELS_FILE)),
                       SYNTHETIC_FILE: _sha256(_data_path(SYNTHETIC_FILE)),
                       PUBLISHED_LABELS_FILE: _sha256(_data_path(PUBLISHED_LABELS_FILE))}}


def build_default_model(test_csv: Path) -> NoiseModel:
    """Fit :data:`DEFAULT_MODEL` on :func:`default_training_set` (what ``scripts/build_noise_model.py`` ships)."""
    data = default_training_set(test_csv)
    fitted = train(data.texts, data.text_labels, model=DEFAULT_MODEL, seed=0, n_estimators=DEFAULT_TREES,
                   codes=data.codes if DEFAULT_CODE_FEATURES else None)
    return NoiseModel.from_pipeline(fitted, threshold=DEFAULT_THRESHOLD, provenance=default_provenance(test_csv))


@lru_cache(maxsize=1)
def default_model() -> NoiseModel:
    """The shipped default model (``revmine/data/noise_model.npz``), loaded once per process."""
    return load(_data_path(MODEL_FILE))
