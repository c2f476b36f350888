"""Noise classifier: training, determinism, portable model files, cross-validation, label files, shipped model."""

from __future__ import annotations

import csv
import hashlib
import importlib.util
import json
import re
import zipfile
from pathlib import Path

import numpy as np
import pytest
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.tree import DecisionTreeClassifier

from revmine.errors import InputError
from revmine.filters import classifier
from revmine.filters.rules import RULE_NAMES

DATA = Path(classifier.__file__).resolve().parents[1] / "data" / "review_comments_labelled.csv"
REAL = Path(classifier.__file__).resolve().parents[1] / "data" / "comments_labelled.csv"
LABELS_2021 = Path(classifier.__file__).resolve().parents[1] / "data" / "tufano2021_test_labels.csv"
SMALL_FOREST = {"n_estimators": 50}  # 25 trees left "rename" a coin toss on 400 comments


@pytest.fixture(scope="module")
def shipped() -> tuple[list[str], list[bool]]:
    return classifier.read_labels(DATA)


@pytest.fixture(scope="module")
def sample(shipped: tuple[list[str], list[bool]]) -> tuple[list[str], list[bool]]:
    """The first 200 comments of each class: enough to learn, small enough to stay fast."""
    texts, labels = shipped
    keep = [i for i, y in enumerate(labels) if y][:200] + [i for i, y in enumerate(labels) if not y][:200]
    keep.sort()
    return [texts[i] for i in keep], [labels[i] for i in keep]


HELD_OUT = ["Thanks!", "Rename `tmp` to `retryCount`.", "Why not use a Map here?", "Same as above.",
            "This can throw an NPE when `user` is null.", "Please add a unit test.", "+1", "Make this final."]


def test_shipped_set_is_large_varied_and_not_separable_by_length(shipped: tuple[list[str], list[bool]]) -> None:
    texts, labels = shipped
    y = np.array(labels)
    assert len(texts) >= 1500 and 0.4 < y.mean() < 0.6
    with open(DATA, encoding="utf-8", newline="") as fh:
        noise_categories = {row["category"] for row in csv.DictReader(fh) if row["label"] == "noise"}
    assert set(RULE_NAMES) <= noise_categories
    lengths = np.array([[len(t), len(t.split())] for t in texts])
    folds = StratifiedKFold(n_splits=5, shuffle=True, random_state=0)
    by_length = cross_val_predict(DecisionTreeClassifier(min_samples_leaf=5, random_state=0), lengths, y, cv=folds)
    assert (by_length == y).mean() < 0.85  # a template artefact would make length alone near-perfect


def test_train_predicts_booleans_and_is_deterministic(sample: tuple[list[str], list[bool]]) -> None:
    texts, labels = sample
    first = classifier.train(texts, labels, model="random_forest", seed=3, **SMALL_FOREST)
    second = classifier.train(texts, labels, model="random_forest", seed=3, **SMALL_FOREST)
    predicted = classifier.predict(first, HELD_OUT)
    assert predicted.dtype == bool and predicted.shape == (len(HELD_OUT),)
    assert np.array_equal(first.predict_proba(HELD_OUT), second.predict_proba(HELD_OUT))
    assert predicted[1] and not predicted[0]  # a rename request is relevant, a thank-you is noise
    assert classifier.predict(first, []).shape == (0,)


def test_train_accepts_string_labels_and_rejects_bad_ones(sample: tuple[list[str], list[bool]]) -> None:
    texts, labels = sample
    named = ["Relevant" if y else "NOISE" for y in labels]
    model = classifier.train(texts, named, model="naive_bayes")
    assert classifier.predict(model, HELD_OUT).dtype == bool
    with pytest.raises(ValueError, match="neither relevant nor noise"):
        classifier.train(texts[:2], ["relevant", "maybe"])
    with pytest.raises(ValueError, match="both"):
        classifier.train(texts[:2], [True, True])
    with pytest.raises(InputError, match="unknown model"):
        classifier.train(texts, labels, model="svm")


@pytest.mark.parametrize("model", classifier.MODELS)
def test_portable_model_scores_as_scikit_learn_and_round_trips(model: str, sample: tuple[list[str], list[bool]],
                                                               tmp_path: Path) -> None:
    texts, labels = sample
    fitted = classifier.train(texts, labels, model=model, **(SMALL_FOREST if model == "random_forest" else {}))
    portable = classifier.NoiseModel.from_pipeline(fitted)
    probe = texts + HELD_OUT
    # the numpy evaluation reproduces scikit-learn's probabilities (trees exactly, naive Bayes to rounding)
    assert np.allclose(portable.relevance(probe), fitted.predict_proba(probe)[:, 1], rtol=0, atol=1e-12)
    assert np.array_equal(portable.predict(probe), fitted.predict(probe))
    path = classifier.save(portable, tmp_path / "models" / "noise.npz")
    assert path.is_file() and list(path.parent.iterdir()) == [path]  # no temporary file left behind
    with zipfile.ZipFile(path) as archive:  # plain arrays and a JSON header: nothing to unpickle
        assert all(info.date_time == (1980, 1, 1, 0, 0, 0) for info in archive.infolist())
    loaded = classifier.load(path)
    assert np.array_equal(loaded.relevance(probe), portable.relevance(probe))
    again = classifier.save(fitted, tmp_path / "again.npz")
    assert again.read_bytes() == path.read_bytes()


def test_load_rejects_missing_foreign_and_pickled_files(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such model file"):
        classifier.load(tmp_path / "absent.npz")
    garbage = tmp_path / "garbage.npz"
    garbage.write_bytes(b"not a model")
    with pytest.raises(InputError, match="garbage.npz: not a revmine classifier model"):
        classifier.load(garbage)
    other = tmp_path / "other.npz"
    np.savez(other, weights=np.ones(3))
    with pytest.raises(InputError, match="other.npz: not a revmine classifier model"):
        classifier.load(other)
    pickled = tmp_path / "pickled.npz"
    np.savez(pickled, meta=np.array([{"format": "revmine-noise-classifier/2"}], dtype=object))
    with pytest.raises(InputError, match="pickled.npz: not a revmine classifier model"):
        classifier.load(pickled)


def test_cross_validation_reports_all_three_models(sample: tuple[list[str], list[bool]]) -> None:
    texts, labels = sample
    scores = [classifier.cross_validate(texts, labels, model=m, folds=3, seed=1,
                                        **(SMALL_FOREST if m == "random_forest" else {}))
              for m in classifier.MODELS]
    for s in scores:
        assert s.folds == 3 and s.n == len(texts) and s.relevant == sum(labels)
        assert 0.5 < s.precision <= 1 and 0.5 < s.recall <= 1 and 0.5 < s.f1 <= 1
        assert len(s.fold_precision) == 3
    again = classifier.cross_validate(texts, labels, model="decision_tree", folds=3, seed=1)
    assert again == scores[1]


def test_compare_orders_by_precision(sample: tuple[list[str], list[bool]]) -> None:
    texts, labels = sample
    ranked = classifier.compare(texts[:200], labels[:200], models=("decision_tree", "naive_bayes"), folds=3)
    assert [s.precision for s in ranked] == sorted((s.precision for s in ranked), reverse=True)
    assert classifier.DEFAULT_MODEL in classifier.MODELS


def test_character_ngrams_are_optional(sample: tuple[list[str], list[bool]]) -> None:
    texts, labels = sample
    model = classifier.train(texts, labels, model="naive_bayes", char_ngrams=True)
    assert "chars" in dict(model.named_steps["features"].transformer_list)
    assert classifier.predict(model, HELD_OUT).shape == (len(HELD_OUT),)


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_read_labels_csv_and_jsonl(tmp_path: Path) -> None:
    csv_file = _write(tmp_path / "l.csv", 'id,text,label\n1,"Rename x,\nplease",RELEVANT\n2,Thanks!, noise \n')
    assert classifier.read_labels(csv_file) == (["Rename x,\nplease", "Thanks!"], [True, False])
    rows = [{"text": "LGTM", "label": "Noise"}, {"text": "Make it final", "label": "relevant", "extra": 1}]
    jsonl = _write(tmp_path / "l.jsonl", "\n".join(json.dumps(r) for r in rows) + "\n\n")
    assert classifier.read_labels(jsonl) == (["LGTM", "Make it final"], [False, True])


@pytest.mark.parametrize(("name", "content", "message"), [
    ("bad.csv", 'text,label\n"multi\nline",relevant\nThanks,noise\nLGTM,spam\n', r"bad\.csv:5 \[label\]: label 'spam'"),
    ("cols.csv", "comment,label\nThanks,noise\n", r"cols\.csv:1: missing column\(s\) text"),
    ("empty.csv", "text,label\n,noise\nfix it,relevant\n", r"empty\.csv:2 \[text\]: empty"),
    ("short.csv", "text,label\nThanks\n", r"short\.csv:2: 1 field"),
    ("one.csv", "text,label\nThanks,noise\n", r"one\.csv: 1 row\(s\) but training needs both"),
    ("bad.jsonl", '{"text": "ok", "label": "noise"}\n{"text": "x", "label": "meh"}\n', r"bad\.jsonl:2 \[label\]"),
    ("broken.jsonl", '{"text": "ok", "label": "noise"}\n{"text": \n', r"broken\.jsonl:2: not valid JSON"),
    ("keys.jsonl", '{"comment": "ok", "label": "noise"}\n', r"keys\.jsonl:1: expected an object"),
    ("labels.txt", "text,label\n", r"labels\.txt: labels must be"),
])
def test_bad_label_files_name_the_line(tmp_path: Path, name: str, content: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        classifier.read_labels(_write(tmp_path / name, content))


def test_label_file_with_a_bad_byte_names_its_line_and_a_bom_is_dropped(tmp_path: Path) -> None:
    bad = tmp_path / "bytes.jsonl"
    bad.write_bytes(b'{"text": "ok", "label": "noise"}\n{"text": "caf\xe9", "label": "relevant"}\n')
    with pytest.raises(InputError, match=r"bytes\.jsonl:2: undecodable byte 0xe9"):
        classifier.read_labels(bad)
    bom = tmp_path / "bom.csv"
    bom.write_bytes(b"\xef\xbb\xbftext,label\r\nThanks,noise\r\nRename x,relevant\r\n")
    assert classifier.read_labels(bom) == (["Thanks", "Rename x"], [False, True])


def test_train_from_file_writes_a_usable_model(sample: tuple[list[str], list[bool]], tmp_path: Path) -> None:
    texts, labels = sample
    labels_file = tmp_path / "mine.jsonl"
    labels_file.write_text("".join(json.dumps({"text": t, "label": "relevant" if y else "noise"}) + "\n"
                                   for t, y in zip(texts, labels)), encoding="utf-8")
    model = classifier.train_from_file(labels_file, tmp_path / "out.joblib", model="naive_bayes")
    assert np.array_equal(classifier.predict(classifier.load(tmp_path / "out.joblib"), HELD_OUT),
                          classifier.predict(model, HELD_OUT))


def _load_script(name: str):  # scripts/ is not a package
    path = Path(__file__).resolve().parents[1] / "scripts" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_default_training_set_is_the_published_requests_the_real_labels_and_the_synthetic_noise(
        tufano_dir: Path) -> None:
    evaluation = classifier.default_evaluation_set(tufano_dir / "test.csv")
    data = classifier.default_training_set(tufano_dir / "test.csv")
    with open(tufano_dir / "test.csv", encoding="utf-8", newline="") as fh:
        csv.field_size_limit(10**9)
        published = [row["comment"] for row in csv.DictReader(fh)]
    with open(LABELS_2021, encoding="utf-8", newline="") as fh:
        rubric = {int(r["row"]): (r["category"], r["content"]) for r in csv.DictReader(fh)}
    with open(REAL, encoding="utf-8", newline="") as fh:
        real = list(csv.DictReader(fh))
    with open(DATA, encoding="utf-8", newline="") as fh:
        synthetic = [r for r in csv.DictReader(fh) if r["label"] == "noise"
                     and r["category"] not in ("clarification", "formatting", "documentation", "add_tests")]
    assert len(published) == 1719 and sorted(rubric) == list(range(1719))
    # judged on: every published comment and every real labelled one, each with its rubric category
    assert evaluation.texts == published + [r["text"] for r in real]
    assert evaluation.labels == ([rubric[i][0] == "change_request" for i in range(1719)]
                                 + [r["category"] == "change_request" for r in real])
    # learnt from: the published change requests (the rest of the 2021 split is neither class), every real
    # labelled comment as what its text says (content), then the synthetic noise
    requests = [published[i] for i in range(1719) if rubric[i][0] == "change_request"]
    assert data.texts == requests + [r["text"] for r in real] + [r["text"] for r in synthetic]
    assert data.text_labels == ([True] * len(requests) + [r["content"] == "change_request" for r in real]
                                + [False] * len(synthetic))


def test_real_labels_name_their_source_licence_and_a_rubric_category() -> None:
    with open(REAL, encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) >= 600 and len({r["project"] for r in rows}) >= 100
    assert {r["licence"] for r in rows} <= {"CC-BY-4.0", "MIT", "Apache-2.0", "BSD-3-Clause"} and all(r["provenance"] for r in rows)
    assert {r["category"] for r in rows} | {r["content"] for r in rows} <= set(classifier.CATEGORIES)
    assert all((r["category"] == "bot_output") == (r["author_role"] == "bot") for r in rows)
    with open(LABELS_2021, encoding="utf-8", newline="") as fh:
        assert {r["category"] for r in csv.DictReader(fh)} <= set(classifier.CATEGORIES)


def test_published_noise_is_left_out_of_training() -> None:
    assert classifier.in_default_training("tufano2021:change_request")
    assert classifier.in_default_training("praise")  # a real labelled comment of another source
    assert not classifier.in_default_training("tufano2021:praise")
    assert not classifier.in_default_training("tufano2021:question")


def test_shipped_model_is_rebuilt_byte_for_byte(tufano_dir: Path, tmp_path: Path) -> None:
    shipped = Path(classifier.__file__).resolve().parents[1] / classifier.MODEL_FILE
    meta = classifier.load(shipped).meta
    assert meta["provenance"]["sha256"]["test.csv"] == hashlib.sha256((tufano_dir / "test.csv").read_bytes()).hexdigest()
    assert meta["threshold"] == classifier.DEFAULT_THRESHOLD
    rebuilt = _load_script("build_noise_model").rebuild(tmp_path / "noise_model.npz", tufano_dir)
    assert rebuilt.read_bytes() == shipped.read_bytes(), "run python scripts/build_noise_model.py"


def test_default_filter_keeps_requests_and_drops_plain_noise() -> None:
    classifier.default_model.cache_clear()
    model = classifier.default_model()
    assert isinstance(model, classifier.NoiseModel) and model.threshold == classifier.DEFAULT_THRESHOLD
    # a formatting nit asks for a change (docs/comment-rubric.md)
    requests = ["Rename `tmp` to `retryCount`.", "why is `cache` protected?", "is this check still needed?",
                "remove this line please", "static?", "Could we use a `Map` here instead of two lists?",
                "nit: trailing whitespace"]
    noise = ["Done", "LGTM", "Thanks!", "+1", "Please squash the commits.", "Patch Set 2: Code-Review+2"]
    kept = model.predict(requests + noise) & ~classifier.rules_noise(requests + noise)
    assert kept.tolist() == [True] * len(requests) + [False] * len(noise)


def test_filter_scores_count_by_hand() -> None:
    scores = classifier.filter_scores([True, True, False, False, False], [True, False, False, True, False],
                                      ["a", "a", "b", "b", "c"])
    assert (scores.relevant, scores.kept_relevant, scores.noise, scores.removed_noise) == (2, 1, 3, 2)
    assert scores.kept_relevant_share == 0.5 and scores.removed_noise_share == 2 / 3
    assert scores.precision == 0.5 and scores.recall == 0.5  # kept: one request, one noise
    assert scores.categories == {"a": (2, 1), "b": (2, 1), "c": (1, 0)}


def test_cli_train_and_evaluate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from revmine.cli import main

    relevant = [f"please rename {w} to something clearer" for w in ("foo", "bar", "baz", "qux", "tmp", "val")]
    noise = ["thanks!", "+1", "LGTM", "looks good to me", "nice work", "ok, done"]
    labels = tmp_path / "labels.csv"
    labels.write_text("text,label\n" + "".join(f'"{t}",relevant\n' for t in relevant)
                      + "".join(f'"{t}",noise\n' for t in noise))
    assert main(["classifier", "train", "--labels", str(labels), "--out", str(tmp_path / "m.npz")]) == 0
    model = classifier.load(tmp_path / "m.npz")
    assert classifier.predict(model, ["please rename quux to something clearer", "thanks!"]).tolist() == [True, False]
    capsys.readouterr()
    assert main(["classifier", "evaluate", "--labels", str(labels), "--cv", "--folds", "3"]) == 0
    table = capsys.readouterr().out
    assert table.count("\n| rules + ") == 4  # the default model, then random forest, decision tree, naive Bayes
    labels.write_text("text,label\nfine,spam\n")
    assert main(["classifier", "train", "--labels", str(labels), "--out", str(tmp_path / "n.npz")]) == 2
    assert "labels.csv:2 [label]" in capsys.readouterr().err
    assert not (tmp_path / "n.npz").exists()


def test_cli_evaluate_prints_hand_computed_figures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from revmine.cli import main

    # The dropping keyword rules remove the thank-you and the approval; the test request trips a topic
    # rule, which only feeds the model; nothing in the fourth noise comment trips a rule, and no rule
    # fires on the two requests. By hand: requests kept 2/2, noise removed 2/4, precision 2 of the 4 kept,
    # recall 2/2.
    labels = tmp_path / "mine.csv"
    labels.write_text("text,label,category\n"
                      "Rename `tmp` to `retryCount`.,relevant,rename\n"
                      "\"Use try-with-resources, `reader` leaks.\",relevant,api\n"
                      "Thanks a lot!,noise,thanks\nLGTM,noise,approval\n"
                      "Please add a unit test.,noise,tests\nInteresting read over lunch,noise,other\n")
    assert main(["classifier", "evaluate", "--labels", str(labels)]) == 0
    out = capsys.readouterr().out
    assert "6 comments, 2 change requests (relevant), 4 noise" in out
    assert "| dropping keyword rules | 100.0% (2/2) | 50.0% (2/4) | 0.500 | 1.000 |" in out
    assert "| other | noise | removed 0.0% (0/1) |" in out and "| rename | relevant | kept 100.0% (1/1) |" in out


@pytest.mark.parametrize(("content", "args", "message"), [
    # one comment of each label: no word is in two comments, and no fold can hold both labels
    ("looks good,noise\nplease rename x,relevant\n", ["train"], r"tiny\.csv: no word occurs in two of its 2 comments"),
    ("looks good,noise\nplease rename x,relevant\n", ["evaluate", "--cv"],
     r"tiny\.csv: cross-validation needs at least 2 comments of each label; the file has 1 relevant and 1 noise"),
    # two of each label but ten folds
    ("looks good,noise\nplease rename x,relevant\nlooks fine,noise\nplease drop x,relevant\n", ["evaluate", "--cv"],
     r"tiny\.csv: 10 folds need at least 10 comments of each label; the file has 2 relevant and 2 noise "
     r"\(use --folds 2\.\.2\)"),
    # two folds: each training part holds one comment of each label, which share no word
    ("looks good,noise\nplease rename x,relevant\nthanks,noise\nrename foo to bar,relevant\n",
     ["evaluate", "--cv", "--folds", "2"], r"tiny\.csv: no word occurs in two of its 2 comments \(a training part"),
])
def test_too_few_labels_are_one_line_naming_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                      content: str, args: list[str], message: str) -> None:
    from revmine.cli import main

    labels = _write(tmp_path / "tiny.csv", "text,label\n" + content)
    extra = ["--out", str(tmp_path / "m.npz")] if args[0] == "train" else []
    assert main(["classifier", args[0], "--labels", str(labels), *args[1:], *extra]) == 2
    err = capsys.readouterr().err
    assert re.search(message, err) and "Traceback" not in err and "pruning" not in err
    assert not (tmp_path / "m.npz").exists()


def test_code_overlap_by_hand() -> None:
    # comment words (3+ letters, not stop words): please, rename, retry, count, attempts -> retry, count and
    # attempts are parts of the code's identifiers retryCount and attempts: 3/5; whole identifiers named in
    # the comment: retryCount and attempts -> log1p(2)
    share, named = classifier.code_overlap("Please rename retryCount to attempts", "int retryCount = 0; attempts++;")
    assert share == pytest.approx(3 / 5) and named == pytest.approx(np.log1p(2))
    assert classifier.code_overlap("Please rename retryCount", None) == (0.0, 0.0)
    assert classifier.code_overlap("LGTM", "int x;") == (0.0, 0.0)  # no content word of three letters or more


def test_a_model_with_code_features_scores_as_scikit_learn(sample: tuple[list[str], list[bool]]) -> None:
    texts, labels = sample
    codes = [f"void f() {{ int {t.split()[0].strip('`.,!?')} = 1; }}" if i % 3 else None for i, t in enumerate(texts)]
    pipeline = classifier.train(texts, labels, seed=1, codes=codes, **SMALL_FOREST)
    portable = classifier.NoiseModel.from_pipeline(pipeline)
    assert portable.uses_code
    expected = pipeline.predict_proba(classifier.comments(texts, codes))[:, 1]
    assert np.allclose(portable.relevance(texts, codes), expected)
    # the code changes what the model sees: the same texts without code score otherwise somewhere
    assert not np.allclose(portable.relevance(texts), expected)


def test_leave_one_project_out_equals_models_fitted_without_each_project(
        sample: tuple[list[str], list[bool]]) -> None:
    texts, labels = sample
    projects = ["alpha" if i % 2 else "beta" for i in range(len(texts))]
    scores = classifier.leave_one_project_out(texts, labels, projects, seed=2, **SMALL_FOREST)
    for project in ("alpha", "beta"):
        train_rows = [i for i, p in enumerate(projects) if p != project]
        test_rows = [i for i, p in enumerate(projects) if p == project]
        alone = classifier.NoiseModel.from_pipeline(classifier.train(
            [texts[i] for i in train_rows], [labels[i] for i in train_rows], seed=2, **SMALL_FOREST))
        assert np.allclose(scores[test_rows], alone.relevance([texts[i] for i in test_rows]))


def test_label_files_carry_project_code_and_content(tmp_path: Path) -> None:
    path = _write(tmp_path / "l.csv", "text,label,category,project,code,content\n"
                                      "Done,noise,author_reply,p1,,change_request\n"
                                      "\"Rename x, please\",relevant,change_request,p2,\"int x;\",\n")
    data = classifier.read_labelled(path)
    assert data.projects == ["p1", "p2"] and data.codes == [None, "int x;"]
    assert data.categories == ["author_reply", "change_request"]
    # an author's reply is noise, but what it says is learnt as the request it reads as
    assert data.labels == [False, True] and data.text_labels == [True, True]


def test_cli_evaluate_by_project(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from revmine.cli import main

    rows = []
    for project in ("p1", "p2", "p3"):
        rows += [f'"please rename {w} in {project}",relevant,change_request,{project}' for w in ("foo", "bar", "baz")]
        rows += [f'"{t}",noise,praise,{project}' for t in ("nice work", "looks great", "nice one")]
    labels = _write(tmp_path / "lopo.csv", "text,label,category,project\n" + "\n".join(rows) + "\n")
    assert main(["classifier", "evaluate", "--labels", str(labels), "--by-project"]) == 0
    out = capsys.readouterr().out
    assert "| rules + random_forest (leave one project out) |" in out
    assert all(f"| {p} | 6 |" in out for p in ("p1", "p2", "p3"))
    one = _write(tmp_path / "one.csv", "text,label,project\nplease rename foo,relevant,p\nnice,noise,p\n")
    assert main(["classifier", "evaluate", "--labels", str(one), "--by-project"]) == 2
    assert "one.csv: leaving one project out needs at least two projects" in capsys.readouterr().err
