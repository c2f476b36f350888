"""The one-call Python API (revmine.metrics), against sacrebleu and nltk: several references, sacrebleu's
tokenisers, corpus chrF and TER as sacrebleu sums them."""

from __future__ import annotations

import random
import re

import pytest
import sacrebleu
from nltk.translate.bleu_score import SmoothingFunction
from nltk.translate.bleu_score import corpus_bleu as nltk_corpus_bleu
from nltk.translate.bleu_score import sentence_bleu as nltk_sentence_bleu

from revmine import metrics
from revmine.errors import InputError
from revmine.metrics.registry import METRICS, make_metric
from revmine.metrics.text import Chrf, Ter

HYPS = ["the cat sat on the mat .", "a dog barked loudly at night", "hello world", "Fix the NPE in parser"]
REFS_1 = ["the cat is on the mat .", "the dog barked", "hello there world", "fix NPE in the parser"]
REFS_2 = ["there is a cat on the mat", "a dog was barking loudly at night", None, "Fixed a null pointer"]


def _sets():
    return [[a] + ([b] if b is not None else []) for a, b in zip(REFS_1, REFS_2)]


def _random_corpus(seed: int, n: int = 60):
    rng = random.Random(seed)
    vocab = "the a cat dog sat ran on mat fast slow big red , . ( )".split()
    line = lambda: " ".join(rng.choice(vocab) for _ in range(rng.randint(1, 15)))
    return [line() for _ in range(n)], [line() for _ in range(n)], [line() for _ in range(n)]


def test_the_public_names():
    assert sorted(metrics.__all__) == ["BLEU", "BLEUNorm", "CodeBLEU", "CrystalBLEU", "Rouge", "Ruby", "Score",
                                       "StructureDistance", "WordEditRate", "compute", "corpus_bleu", "corpus_score",
                                       "names", "sentence_bleu"]
    assert all(getattr(metrics, name).__name__ == name for name in metrics.__all__ if name[0].isupper())
    assert metrics.names() == list(METRICS) and "meteor" in metrics.names()


def test_sentence_bleu_one_and_several_references_equal_sacrebleu():
    for hyp, a, b in zip(HYPS, REFS_1, REFS_2):
        refs = [a] + ([b] if b else [])
        one = metrics.sentence_bleu(hyp, a)
        assert one.score == pytest.approx(sacrebleu.sentence_bleu(hyp, [a], tokenize="none").score / 100, abs=1e-12)
        several = metrics.sentence_bleu(hyp, refs, tokenize="13a")
        assert several.score == pytest.approx(sacrebleu.sentence_bleu(hyp, refs).score / 100, abs=1e-12)
        assert several.signature.startswith("bleu|tok:13a|") and 0 <= several.score <= 1


def test_sentence_bleu_several_references_equal_nltk():
    method = SmoothingFunction().method1
    for hyp, a, b in zip(HYPS, REFS_1, REFS_2):
        refs = [a] + ([b] if b else [])
        expected = nltk_sentence_bleu([r.split() for r in refs], hyp.split(), smoothing_function=method)
        assert metrics.sentence_bleu(hyp, refs, smooth="nltk1").score == pytest.approx(expected, abs=1e-12)


def test_corpus_bleu_with_reference_streams_equals_sacrebleu_and_nltk():
    for tokenize, theirs in (("13a", "13a"), ("intl", "intl"), ("sacrebleu-char", "char"), ("space", "none")):
        ours = metrics.corpus_bleu(HYPS, [REFS_1, REFS_2], tokenize=tokenize)
        assert ours.score == pytest.approx(sacrebleu.corpus_bleu(HYPS, [REFS_1, REFS_2], tokenize=theirs).score / 100,
                                           abs=1e-12), tokenize
    sets = _sets()
    expected = nltk_corpus_bleu([[r.split() for r in refs] for refs in sets], [h.split() for h in HYPS])
    assert metrics.corpus_bleu(HYPS, [REFS_1, REFS_2], smooth="nltk0").score == pytest.approx(expected, abs=1e-12)
    assert metrics.corpus_bleu(HYPS, REFS_1).score == pytest.approx(
        sacrebleu.corpus_bleu(HYPS, [REFS_1], tokenize="none").score / 100, abs=1e-12)


def test_sacrebleu_char_drops_spaces_and_differs_from_char():
    hyp, ref = "ab cd", "abc d"
    # sacrebleu's char: "abcd" against "abcd": identical; our char keeps the spaces: "ab cd" vs "abc d"
    assert metrics.sentence_bleu(hyp, ref, tokenize="sacrebleu-char").score == pytest.approx(1.0)
    assert metrics.sentence_bleu(hyp, ref, tokenize="char").score < 1.0
    hyps, refs, _ = _random_corpus(3)
    for a, b in zip(hyps, refs):
        for tokenize, theirs in (("13a", "13a"), ("intl", "intl"), ("sacrebleu-char", "char")):
            assert metrics.sentence_bleu(a, b, tokenize=tokenize).score == pytest.approx(
                sacrebleu.sentence_bleu(a, [b], tokenize=theirs).score / 100, abs=1e-12)


def test_compute_any_spec_with_several_references():
    sets = _sets()
    chrf = metrics.compute("chrf", HYPS, [REFS_1, REFS_2])
    assert chrf == pytest.approx([sacrebleu.sentence_chrf(h, refs).score / 100 for h, refs in zip(HYPS, sets)],
                                 abs=1e-12)
    ter = metrics.compute("ter", HYPS, [REFS_1, REFS_2])
    assert ter == pytest.approx([sacrebleu.sentence_ter(h, refs).score / 100 for h, refs in zip(HYPS, sets)],
                                abs=1e-12)
    bleu = metrics.compute("bleu(smooth=exp)", HYPS, REFS_1)
    assert bleu == pytest.approx([metrics.sentence_bleu(h, r).score for h, r in zip(HYPS, REFS_1)], abs=1e-15)
    # ROUGE: the best reference, as rouge-score's score_multi
    from rouge_score import rouge_scorer

    scorer = rouge_scorer.RougeScorer(["rougeL"])
    rouge = metrics.compute("rougeL", HYPS, [REFS_1, REFS_2])
    assert rouge == pytest.approx([scorer.score_multi(refs, h)["rougeL"].fmeasure for h, refs in zip(HYPS, sets)],
                                  abs=1e-12)


def test_compute_meteor_takes_the_best_reference_as_nltk():
    from nltk.translate.meteor_score import meteor_score

    from revmine.metrics.wordnet import load_wordnet

    status = load_wordnet()
    if not status.available:
        pytest.skip("WordNet not installed; CI installs Debian's wordnet-base")
    sets = _sets()
    ours = metrics.compute("meteor(syn=nltk)", HYPS, [REFS_1, REFS_2])
    theirs = [meteor_score([r.split() for r in refs], h.split(), wordnet=status.reader) for h, refs in zip(HYPS, sets)]
    assert ours == pytest.approx(theirs, abs=1e-12)


def test_bad_references_are_refused():
    with pytest.raises(ValueError, match="2 hypotheses but 1 references"):
        metrics.compute("bleu", ["a", "b"], ["a"])
    with pytest.raises(ValueError, match="stream 1 has 1 lines"):
        metrics.corpus_bleu(["a", "b"], [["a", "b"], ["a"]])
    with pytest.raises(ValueError, match="hypothesis 1 has no reference"):
        metrics.compute("chrf", ["a", "b"], [["a", None]])
    with pytest.raises(InputError, match="unknown metric"):
        metrics.compute("blue", ["a"], ["a"])


def test_corpus_chrf_and_ter_are_sacrebleus_not_the_mean():
    hyps, refs, refs2 = _random_corpus(9)
    chrf, ter = Chrf(), Ter()
    assert chrf.corpus_score(hyps, refs) == pytest.approx(sacrebleu.corpus_chrf(hyps, [refs]).score / 100, abs=1e-12)
    assert ter.corpus_score(hyps, refs) == pytest.approx(sacrebleu.corpus_ter(hyps, [refs]).score / 100, abs=1e-12)
    assert abs(chrf.corpus_score(hyps, refs) - chrf.sentence_scores(hyps, refs).mean()) > 1e-3
    sets = [[a, b] for a, b in zip(refs, refs2)]
    assert chrf.multi_reference_corpus_score(hyps, sets) == pytest.approx(
        sacrebleu.corpus_chrf(hyps, [refs, refs2]).score / 100, abs=1e-12)
    assert ter.multi_reference_corpus_score(hyps, sets) == pytest.approx(
        sacrebleu.corpus_ter(hyps, [refs, refs2]).score / 100, abs=1e-12)


# --- several references and confidence intervals in `revmine score` -----------------------------------

def _score_json(argv, capsys):
    from revmine.cli import main

    assert main(["score", *argv, "--json"]) == 0
    import json

    return json.loads(capsys.readouterr().out)


def test_score_several_references_text_jsonl_parquet(tmp_path, capsys):
    import json

    import pyarrow as pa
    import pyarrow.parquet as pq

    from revmine.metrics.score import score_file

    hyps = ["the cat is on the mat .", "a dog barked", "hello world", "fix npe"]
    (tmp_path / "h.txt").write_text("\n".join(hyps) + "\n")
    (tmp_path / "r1.txt").write_text("\n".join(REFS_1) + "\n")
    (tmp_path / "r2.txt").write_text("\n".join(r or "hello world" for r in REFS_2) + "\n")
    refs2 = [r or "hello world" for r in REFS_2]
    sets = [[a, b] for a, b in zip(REFS_1, refs2)]
    expected_bleu = [sacrebleu.sentence_bleu(h, refs, tokenize="none").score / 100 for h, refs in zip(hyps, sets)]
    rows = [{"pred": h, "ref": refs} for h, refs in zip(hyps, sets)]
    (tmp_path / "p.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "p.parquet")
    runs = [score_file(tmp_path / "h.txt", references=[tmp_path / "r1.txt", tmp_path / "r2.txt"],
                       metrics="bleu, chrf"),
            score_file(tmp_path / "p.jsonl", metrics="bleu, chrf"),
            score_file(tmp_path / "p.parquet", metrics="bleu, chrf")]
    for run in runs:
        assert run.values("bleu4") == pytest.approx(expected_bleu, abs=1e-12)
        # "hello world" equals the second reference of example 3 only: exact against any reference
        assert run.exact.tolist() == [True, False, True, False]
        assert run.summary["corpus_rank1"]["bleu4"] == pytest.approx(
            sacrebleu.corpus_bleu(hyps, [REFS_1, refs2], tokenize="none").score / 100, abs=1e-12)
        assert run.summary["corpus_rank1"]["chrf"] == pytest.approx(
            sacrebleu.corpus_chrf(hyps, [REFS_1, refs2]).score / 100, abs=1e-12)
    summary = _score_json([str(tmp_path / "h.txt"), "--refs", str(tmp_path / "r1.txt"), "--refs",
                           str(tmp_path / "r2.txt"), "--metrics", "bleu"], capsys)
    assert summary["per_k"][0]["perfect"] == 2


def test_score_ci_is_a_95_percent_interval_of_the_mean(tmp_path, capsys):
    # 400 sentence scores: the bootstrap interval of the mean is about mean +- 1.96 sd / sqrt(n)
    hyps, refs, _ = _random_corpus(11, n=400)
    (tmp_path / "h.txt").write_text("\n".join(hyps) + "\n")
    (tmp_path / "r.txt").write_text("\n".join(refs) + "\n")
    summary = _score_json([str(tmp_path / "h.txt"), "--refs", str(tmp_path / "r.txt"), "--metrics", "chrf",
                           "--ci", "2000"], capsys)
    stats = summary["per_k"][0]["metrics"]["chrf"]["all"]
    half = 1.96 * stats["sd"] / 400 ** 0.5
    assert stats["ci_lo"] < stats["mean"] < stats["ci_hi"]
    assert stats["ci_lo"] == pytest.approx(stats["mean"] - half, abs=half * 0.1)
    assert stats["ci_hi"] == pytest.approx(stats["mean"] + half, abs=half * 0.1)
    assert "ci_lo" not in _score_json([str(tmp_path / "h.txt"), "--refs", str(tmp_path / "r.txt"), "--metrics",
                                       "chrf"], capsys)["per_k"][0]["metrics"]["chrf"]["all"]


# --- corpus_score, the single-reference path, references per hypothesis, normalisation (issue 19) -------

@pytest.mark.parametrize("spec, theirs", [
    ("bleu", lambda: sacrebleu.metrics.BLEU(tokenize="none")),
    ("bleu(tokenize=13a, smooth=floor)", lambda: sacrebleu.metrics.BLEU(smooth_method="floor")),
    ("chrf", lambda: sacrebleu.metrics.CHRF()),
    ("chrf(word_order=2, lowercase=true)", lambda: sacrebleu.metrics.CHRF(word_order=2, lowercase=True)),
    ("ter", lambda: sacrebleu.metrics.TER()),
    ("ter(case_sensitive=true, no_punct=true)", lambda: sacrebleu.metrics.TER(case_sensitive=True, no_punct=True)),
])
def test_corpus_score_equals_sacrebleus_corpus_score(spec, theirs):
    hyps, refs, refs2 = _random_corpus(21, n=80)
    refs2 = [r if i % 3 else None for i, r in enumerate(refs2)]  # some hypotheses have one reference only
    metric = theirs()
    one = metrics.corpus_score(spec, hyps, refs)
    assert one.score == pytest.approx(metric.corpus_score(hyps, [refs]).score / 100, abs=1e-12)
    assert one.signature == make_metric(spec).signature()
    expected = metric.corpus_score(hyps, [refs, refs2]).score / 100
    assert metrics.corpus_score(spec, hyps, [refs, refs2]).score == pytest.approx(expected, abs=1e-12)
    per_hypothesis = [[a] + ([b] if b is not None else []) for a, b in zip(refs, refs2)]
    assert metrics.corpus_score(spec, hyps, references_per_hypothesis=per_hypothesis).score == pytest.approx(
        expected, abs=1e-12)


def test_corpus_score_takes_any_metric_implementing_multi_reference_corpus_score(monkeypatch):
    from revmine.metrics.base import Metric

    class Longest(Metric):
        """A toy corpus form: the longest hypothesis's length over the longest reference's."""

        name = "longest"

        def settings(self):
            return {}

        def sentence_scores(self, hypotheses, references):
            raise AssertionError("a corpus form is not a mean of sentence scores")

        def multi_reference_corpus_score(self, hypotheses, reference_sets):
            return max(map(len, hypotheses)) / max(len(r) for refs in reference_sets for r in refs)

    monkeypatch.setitem(METRICS, "longest", Longest)
    assert metrics.corpus_score("longest", ["ab", "abcd"], ["abcdefgh", "a"]).score == 0.5
    assert metrics.corpus_score("longest", ["ab"], references_per_hypothesis=[["a", "abcdefgh"]]).score == 0.25
    for spec in ("levenshtein", "rouge1", "sed(normalize=max)"):
        with pytest.raises(ValueError, match=rf"metric '{re.escape(spec)}' \(\w+\) has no corpus-level form"):
            metrics.corpus_score(spec, HYPS, REFS_1)


class _Paths:
    """Records which path of a metric ``compute`` took."""

    def __init__(self, monkeypatch, cls):
        self.calls = []
        for method in ("sentence_scores", "multi_reference_scores"):
            original = getattr(cls, method)
            monkeypatch.setattr(cls, method, self._spy(method, original))

    def _spy(self, method, original):
        def spy(metric, *args):
            self.calls.append(method)
            return original(metric, *args)
        return spy


@pytest.mark.parametrize("spec", ["bleu", "bleu(tokenize=char, smooth=nltk0)", "chrf", "ter", "rougeL", "sed"])
def test_single_references_take_the_single_reference_path_with_the_same_values(spec, monkeypatch):
    metric = make_metric(spec)
    expected = metric.multi_reference_scores(HYPS, [[r] for r in REFS_1]).tolist()  # the rule for several
    paths = _Paths(monkeypatch, type(metric))
    for refs in ({"references": REFS_1}, {"references": [REFS_1]}, {"references_per_hypothesis": REFS_1},
                 {"references_per_hypothesis": [[r] for r in REFS_1]}):
        assert metrics.compute(spec, HYPS, **refs) == expected, refs
    assert set(paths.calls) == {"sentence_scores"}
    paths.calls.clear()
    metrics.compute(spec, HYPS, [REFS_1, REFS_2])
    assert paths.calls[0] == "multi_reference_scores"


def test_references_per_hypothesis_is_the_hugging_face_convention():
    sets = _sets()  # [[r1, r2], [r1, r2], [r1], [r1, r2]]
    assert metrics.compute("chrf", HYPS, references_per_hypothesis=sets) == pytest.approx(
        [sacrebleu.sentence_chrf(h, refs).score / 100 for h, refs in zip(HYPS, sets)], abs=1e-12)
    assert metrics.corpus_bleu(HYPS, references_per_hypothesis=sets).score == pytest.approx(
        sacrebleu.corpus_bleu(HYPS, [REFS_1, REFS_2], tokenize="none").score / 100, abs=1e-12)
    # given positionally, the same lists are reference streams: the error names the keyword
    hyps = [f"h{i}" for i in range(1000)]
    with pytest.raises(ValueError, match="1000 hypotheses but reference stream 0 has 2 lines .*per_hypothesis="):
        metrics.compute("bleu", hyps, [["a", "b"]] * 1000)
    with pytest.raises(ValueError, match="4 hypotheses but references_per_hypothesis has 3 lists"):
        metrics.compute("bleu", HYPS, references_per_hypothesis=sets[:3])
    with pytest.raises(ValueError, match="hypothesis 2 has no reference"):
        metrics.compute("bleu", HYPS, references_per_hypothesis=[["a"], ["b"], [], ["c"]])
    with pytest.raises(TypeError, match="not both or neither"):
        metrics.compute("bleu", HYPS, REFS_1, references_per_hypothesis=sets)
    with pytest.raises(TypeError, match="not both or neither"):
        metrics.compute("bleu", HYPS)


def test_normalize_scores_the_code_of_a_chat_answer():
    answer = "Here you go:\n```java\nint a = b ;\n```\nThe variable is now initialised."
    assert metrics.compute("bleu", [answer], ["int a = b ;"], normalize="code-fence") == [pytest.approx(1.0)]
    assert metrics.compute("bleu", [answer], ["int a = b ;"])[0] < 0.5
    assert metrics.sentence_bleu(answer, "int a = b ;", normalize="code-fence").score == pytest.approx(1.0)
    assert metrics.corpus_score("chrf", [answer, "x"], ["int a = b ;", "x"], normalize="code-fence").score == 1.0
    with pytest.raises(ValueError, match="unknown normalisation"):
        metrics.compute("bleu", [answer], ["x"], normalize="markdown")


def test_the_readmes_metric_classes_import_from_the_package_and_load_on_first_use() -> None:
    """README shows ``CodeBLEU().components(...)``: ``from revmine.metrics import CodeBLEU`` must work (it raised
    ImportError), give the class its module defines, and importing the package alone loads no grammar."""
    import subprocess
    import sys

    from revmine.metrics.codebleu import CodeBLEU as defined

    from revmine.metrics import CodeBLEU
    assert CodeBLEU is defined
    assert set(CodeBLEU().components(["int a = 1;"], ["int a = 1;"])) == {
        "codebleu", "ngram", "weighted_ngram", "syntax", "dataflow"}
    assert CodeBLEU().components(["int a = 1;"], ["int a = 1;"])["codebleu"].tolist() == [1.0]  # identical code
    loaded = subprocess.run([sys.executable, "-c", "import sys, revmine.metrics; "
                             "print('tree_sitter' in sys.modules, 'revmine.metrics.codebleu' in sys.modules)"],
                            capture_output=True, text=True, check=True)
    assert loaded.stdout.split() == ["False", "False"]
    with pytest.raises(ImportError):
        exec("from revmine.metrics import NoSuchMetric", {})
