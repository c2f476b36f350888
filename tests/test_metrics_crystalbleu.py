"""CrystalBLEU against the authors' package (PyPI ``crystalbleu``), computed here on the real predictions of
Tufano et al. 2021: sentence and corpus values, trivially shared n-grams from the references and from a
corpus file, nltk's smoothing methods; a hand-worked example; ignore=0 is nltk's BLEU."""

from __future__ import annotations

import hashlib
import warnings
from collections import Counter
from pathlib import Path

import crystalbleu
import numpy as np
import pytest
from nltk.util import ngrams

from revmine.metrics.bleu import BLEU
from revmine.metrics.crystalbleu import CrystalBLEU
from revmine.metrics.predictions import Predictions, read_predictions
from revmine.metrics.registry import make_metric
from revmine.metrics.score import score_predictions

FIXTURES = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "tufano2021"


def package_ignoring(sentences: list[str], k: int) -> dict:
    """The package's recipe (its README): every n-gram of orders 1-4, order by order, then
    ``Counter.most_common(k)``; n-grams are taken within each sentence."""
    all_ngrams = []
    for n in range(1, 5):
        for sentence in sentences:
            all_ngrams.extend(ngrams(sentence.split(), n))
    return dict(Counter(all_ngrams).most_common(k))


def package_sentences(hyps: list[str], ref_sets: list[list[str]], ignoring: dict | None, smoothing=None) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nltk's "0 counts of n-gram overlaps"
        return np.array([crystalbleu.sentence_bleu([r.split() for r in refs], h.split(), ignoring=ignoring,
                                                   smoothing_function=smoothing) for h, refs in zip(hyps, ref_sets)])


def package_corpus(hyps: list[str], ref_sets: list[list[str]], ignoring: dict | None, smoothing=None) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return crystalbleu.corpus_bleu([[r.split() for r in refs] for refs in ref_sets], [h.split() for h in hyps],
                                       ignoring=ignoring, smoothing_function=smoothing)


@pytest.fixture(scope="module")
def beam() -> tuple[list[str], list[str]]:
    """Every (prediction, oracle) pair of the k=5 file: 8,595 pairs, each oracle repeated 5 times."""
    preds = read_predictions(FIXTURES / "predictions" / "1-encoder_k5_abstracted.txt")
    return preds.flat()


def test_sentences_equal_the_package_with_ngrams_from_the_references(beam):
    hyps, refs = beam
    metric = CrystalBLEU()
    ignoring = package_ignoring(refs, 500)
    # a beam repeats each oracle 5 times: every count is 5 times the distinct oracles', the same 500 n-grams
    assert set(ignoring) == set(package_ignoring(list(dict.fromkeys(refs)), 500)) == metric.ignored([[r] for r in refs])
    ours = metric.sentence_scores(hyps, refs)
    theirs = package_sentences(hyps, [[r] for r in refs], ignoring)
    assert len(ours) == 8595
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-12)
    assert (ours > 1e-3).mean() > 0.5  # not a column of near-zero values: the test has teeth
    assert not np.allclose(ours, BLEU(smooth="nltk0").sentence_scores(hyps, refs), atol=1e-3)


def test_corpus_equals_the_package_with_one_and_several_references():
    preds = read_predictions(FIXTURES / "predictions" / "1-encoder_k3_abstracted.txt")
    hyps = [ps[0] for ps in preds.predictions]
    metric = CrystalBLEU()
    one = [[r] for r in preds.references]
    expected = package_corpus(hyps, one, package_ignoring(preds.references, 500))
    assert abs(metric.multi_reference_corpus_score(hyps, one) - expected) < 1e-12
    assert abs(metric.corpus_score(hyps, preds.references) - expected) < 1e-12
    # two references each (the oracle and the third prediction): clipped by the largest count in either,
    # the closest reference length, and the n-grams counted over both references in order
    two = [[r, ps[2]] for r, ps in zip(preds.references, preds.predictions)]
    ignoring = package_ignoring([r for refs in two for r in refs], 500)
    assert abs(metric.multi_reference_corpus_score(hyps, two) - package_corpus(hyps, two, ignoring)) < 1e-12
    np.testing.assert_allclose(metric.multi_reference_scores(hyps, two), package_sentences(hyps, two, ignoring),
                               rtol=0, atol=1e-12)


@pytest.mark.parametrize("method", [1, 2, 3, 4])
def test_smoothing_methods_equal_the_package(beam, method):
    hyps, refs = beam[0][:1500], beam[1][:1500]
    ignoring = package_ignoring(refs, 100)
    smoothing = getattr(crystalbleu.SmoothingFunction(), f"method{method}")
    metric = CrystalBLEU(ignore=100, smooth=f"nltk{method}")
    np.testing.assert_allclose(metric.sentence_scores(hyps, refs), package_sentences(hyps, [[r] for r in refs],
                               ignoring, smoothing), rtol=0, atol=1e-12)
    assert abs(metric.corpus_score(hyps, refs) - package_corpus(hyps, [[r] for r in refs], ignoring, smoothing)) < 1e-12


def test_ngrams_from_a_corpus_file(beam, tmp_path):
    # The paper counts a corpus of the language: here the abstracted input methods of the test split.
    corpus = tmp_path / "java.txt"
    lines = (FIXTURES / "src-test.txt").read_text(encoding="utf-8").splitlines()
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    hyps, refs = beam[0][:2000], beam[1][:2000]
    metric = make_metric(f"crystalbleu(ignore=300, corpus={corpus})")
    ignoring = package_ignoring(lines, 300)
    assert metric.ignored([]) == set(ignoring) != set(package_ignoring(refs, 300))
    ours = metric.sentence_scores(hyps, refs)
    np.testing.assert_allclose(ours, package_sentences(hyps, [[r] for r in refs], ignoring), rtol=0, atol=1e-12)
    assert abs(metric.corpus_score(hyps, refs) - package_corpus(hyps, [[r] for r in refs], ignoring)) < 1e-12
    # the n-grams are a setting: a pair's value does not depend on its batch, so workers may split it
    assert metric.parallel_safe and not CrystalBLEU().parallel_safe
    np.testing.assert_array_equal(metric.sentence_scores(hyps[1000:], refs[1000:]), ours[1000:])
    assert metric.column == "crystalbleu_k300_corpus_java"
    digest = hashlib.sha256(corpus.read_bytes()).hexdigest()[:12]
    assert metric.signature() == ("crystalbleu|tok:space|smooth:nltk0|n:4|ignore:300|"
                                  f"ngrams:java.txt@sha256:{digest}|version:0.1.0")


def test_hand_worked():
    # Reference "a ; c ;": unigram counts ; 2, a 1, c 1, so with ignore=1 the unigram ";" is left out (of
    # unigrams only: "a ;" is a bigram of its own). Hypothesis "a ; b ;" (4 tokens, BP 1):
    # unigrams a, b -> 1 / 2; bigrams "a ;" "; b" "b ;" against "a ;" "; c" "c ;" -> 1 / 3; trigrams 0 / 2;
    # 4-grams 0 / 1. nltk's method 1 puts 0.1 in the zero numerators: (1/2 * 1/3 * 0.1/2 * 0.1/1) ** (1/4).
    metric = CrystalBLEU(ignore=1, smooth="nltk1")
    assert metric.ignored([["a ; c ;"]]) == {(";",)}
    assert metric.score("a ; b ;", "a ; c ;") == pytest.approx((1 / 2 * 1 / 3 * 0.05 * 0.1) ** 0.25, abs=1e-12)
    # Without ignoring, the unigram precision is 3 / 4: BLEU's value.
    assert CrystalBLEU(ignore=0, smooth="nltk1").score("a ; b ;", "a ; c ;") == pytest.approx(
        (3 / 4 * 1 / 3 * 0.05 * 0.1) ** 0.25, abs=1e-12)
    # Only ignored unigrams in common: no unigram match, 0 (nltk's rule), and an empty hypothesis is 0.
    assert metric.sentence_scores(["; x", ""], ["; c ;", "; c ;"]).tolist() == [0.0, 0.0]


def test_ignoring_nothing_is_nltk_bleu(beam):
    hyps, refs = beam[0][:1000], beam[1][:1000]
    np.testing.assert_allclose(CrystalBLEU(ignore=0).sentence_scores(hyps, refs),
                               BLEU(smooth="nltk0").sentence_scores(hyps, refs), rtol=0, atol=1e-12)
    assert abs(CrystalBLEU(ignore=0).corpus_score(hyps, refs) - BLEU(smooth="nltk0").corpus_score(hyps, refs)) < 1e-12
    assert abs(CrystalBLEU(ignore=0).corpus_score(hyps, refs) - package_corpus(hyps, [[r] for r in refs], None)) < 1e-12


def test_score_stage_corpus_value_and_settings():
    preds = read_predictions(FIXTURES / "predictions" / "1-encoder_k3_abstracted.txt")
    small = Predictions(preds.predictions[:300], preds.references[:300])
    run = score_predictions(small, [make_metric("crystalbleu")])
    rank1 = [ps[0] for ps in small.predictions]
    expected = package_corpus(rank1, [[r] for r in small.references], package_ignoring(small.references, 500))
    assert abs(run.corpus["crystalbleu"] - expected) < 1e-12
    hyps, refs = small.flat()
    np.testing.assert_array_equal(run.values("crystalbleu"), CrystalBLEU().sentence_scores(hyps, refs))
    np.testing.assert_allclose(run.values("crystalbleu"),
                               package_sentences(hyps, [[r] for r in refs], package_ignoring(refs, 500)),
                               rtol=0, atol=1e-12)  # and the package's, independently
    assert CrystalBLEU().signature() == "crystalbleu|tok:space|smooth:nltk0|n:4|ignore:500|ngrams:refs|version:0.1.0"
    assert CrystalBLEU(smooth="nltk3", tokenize="char").column == "crystalbleu_nltk3_char"
    for bad in ({"ignore": -1}, {"ignore": 1.5}, {"smooth": "nltk5"}, {"smooth": "exp"}, {"tokenize": "13a"}):
        with pytest.raises(ValueError):
            CrystalBLEU(**bad)


def test_a_file_whose_ngrams_are_all_ignored_is_said_once(beam, tmp_path, capsys):
    """Issue 30: --metrics crystalbleu gave 0.0000 at every k of a small file without a word: the 500 n-grams
    counted on its own references were all of its 4-grams. The package gives the same zeros (checked here)."""
    from revmine.cli import main

    quickstart = Path(__file__).resolve().parents[1] / "examples" / "quickstart" / "predictions_k3.txt"
    hyps, refs = read_predictions(quickstart).flat()
    fours = {g for r in refs for g in ngrams(r.split(), 4)}
    assert fours <= set(package_ignoring(refs, 500))  # the case itself: every 4-gram is ignored
    with pytest.warns(UserWarning, match="every example has every 4-gram of its references among the 500 trivially "
                                         "shared"):
        zeros = CrystalBLEU().sentence_scores(hyps, refs)
    np.testing.assert_allclose(zeros, package_sentences(hyps, [[r] for r in refs], package_ignoring(refs, 500)),
                               atol=1e-12)
    assert zeros.max() < 1e-12
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a large file (the 1,719 oracles of the k=5 file) does not warn
        CrystalBLEU().sentence_scores(*beam)
        CrystalBLEU(ignore=50).sentence_scores(hyps, refs)
    assert main(["score", str(quickstart), "--metrics", "crystalbleu"]) == 0
    said = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert len(said) == 1 and said[0].startswith("revmine: warning: crystalbleu: every example has every 4-gram")


def test_a_file_whose_ngrams_are_mostly_ignored_is_said_too():
    """Issue 30, "all or most": 18 of 19 examples whose references' 4-grams are all ignored score 0 whatever their
    prediction (the package says so too), though one long reference keeps 4-grams of its own: still a warning,
    with the count; ignore=50 leaves most examples something to match, and no warning."""
    quickstart = Path(__file__).resolve().parents[1] / "examples" / "quickstart" / "predictions_k3.txt"
    hyps, refs = read_predictions(quickstart).flat()
    hyps, refs = [*hyps, "w0 w1 w2"], [*refs, " ".join(f"w{i}" for i in range(200))]  # seen once: never common
    ignoring = package_ignoring(refs, 500)
    assert not {g for g in ngrams(refs[-1].split(), 4)} <= set(ignoring)
    with pytest.warns(UserWarning, match=r"18 of 19 examples \(95%\) have every 4-gram of their references among"):
        scores = CrystalBLEU().sentence_scores(refs, refs)  # each reference as its own prediction
    np.testing.assert_allclose(scores, package_sentences(refs, [[r] for r in refs], ignoring), atol=1e-12)
    assert scores[:-1].max() < 1e-12 < scores[-1]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        CrystalBLEU(ignore=50).sentence_scores(hyps, refs)
