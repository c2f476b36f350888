"""BLEU against independent computations: sacrebleu, nltk, hand-worked examples, the published medians."""

from __future__ import annotations

import logging
import random
import warnings
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import sacrebleu
from nltk.translate import bleu_score as nltk_bleu
from sacrebleu.metrics import BLEU as SacreBLEU

import revmine.metrics.tokens as tokens_module
from revmine.metrics.bleu import BLEU, BLEUCC, BLEUMoses, BLEUNorm, bleu_statistics, multi_reference_statistics
from revmine.metrics.tokens import intern_tokens
from revmine.metrics.predictions import read_predictions

logging.getLogger("sacrebleu").setLevel(logging.ERROR)  # its "enable effective_order" advice


def read_blocks(path: Path) -> list[tuple[str, list[str]]]:
    """(oracle, [predictions]) per block of a replication-package file."""
    preds = read_predictions(path)
    return list(zip(preds.references, preds.predictions))


@pytest.fixture(scope="module")
def pairs(tufano_dir: Path) -> tuple[list[str], list[str]]:
    """200 real (prediction, oracle) pairs of abstracted Java plus 300 random short pairs that hit the
    edge cases (empty sides, sentences shorter than 4 tokens, no matches at some order)."""
    blocks = read_blocks(tufano_dir / "predictions" / "1-encoder_k5_abstracted.txt")
    rng = random.Random(7)
    real = [(p, o) for o, ps in rng.sample(blocks, 40) for p in ps]
    fake = [(" ".join(rng.choices("abcd", k=rng.randint(0, 9))), " ".join(rng.choices("abcd", k=rng.randint(0, 9))))
            for _ in range(300)]
    hyps, refs = zip(*(real + fake))
    return list(hyps), list(refs)


@pytest.mark.parametrize("smooth,value", [("none", None), ("floor", None), ("floor", 0.2), ("add-k", None),
                                          ("add-k", 0.5), ("exp", None)])
@pytest.mark.parametrize("effective_order", [True, False])
def test_sentence_bleu_equals_sacrebleu(pairs, smooth, value, effective_order):
    hyps, refs = pairs
    ours = BLEU(smooth=smooth, value=value, effective_order=effective_order).sentence_scores(hyps, refs)
    theirs = SacreBLEU(tokenize="none", smooth_method=smooth, smooth_value=value, effective_order=effective_order)
    expected = [theirs.sentence_score(h, [r]).score / 100 for h, r in zip(hyps, refs)]
    np.testing.assert_allclose(ours, expected, rtol=0, atol=1e-9)


def test_default_is_sacrebleu_sentence_bleu_and_lowercase(pairs):
    hyps, refs = pairs
    upper = [h.upper() if i % 2 else h for i, h in enumerate(hyps)]
    np.testing.assert_allclose(BLEU().sentence_scores(hyps, refs),
                               [sacrebleu.sentence_bleu(h, [r], tokenize="none").score / 100
                                for h, r in zip(hyps, refs)], rtol=0, atol=1e-9)
    np.testing.assert_allclose(BLEU(lowercase=True).sentence_scores(upper, refs),
                               [sacrebleu.sentence_bleu(h, [r], tokenize="none", lowercase=True).score / 100
                                for h, r in zip(upper, refs)], rtol=0, atol=1e-9)


@pytest.mark.parametrize("smooth", ["none", "floor", "add-k", "exp"])
def test_corpus_bleu_equals_sacrebleu(tufano_dir, smooth):
    blocks = read_blocks(tufano_dir / "predictions" / "1-encoder_k1_abstracted.txt")
    hyps, refs = [ps[0] for _, ps in blocks], [o for o, _ in blocks]
    expected = sacrebleu.corpus_bleu(hyps, [refs], smooth_method=smooth, tokenize="none").score / 100
    assert abs(BLEU(smooth=smooth).corpus_score(hyps, refs) - expected) < 1e-9
    # a corpus where some order never matches: the smoothing methods differ there
    few = ["a b c d", "e f"]
    expected = sacrebleu.corpus_bleu(few, [["a b x d", "e g"]], smooth_method=smooth, tokenize="none").score / 100
    assert abs(BLEU(smooth=smooth).corpus_score(few, ["a b x d", "e g"]) - expected) < 1e-9


def _nltk(hyps, refs, function, char: bool, corpus: bool = False):
    """nltk's BLEU; with char=True it is handed the raw strings, as Tufano et al. did."""
    cut = (lambda s: s) if char else str.split
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nltk warns about zero counts without smoothing
        if corpus:
            return nltk_bleu.corpus_bleu([[cut(r)] for r in refs], [cut(h) for h in hyps], smoothing_function=function)
        out = []
        for h, r in zip(hyps, refs):
            try:
                out.append(nltk_bleu.sentence_bleu([cut(r)], cut(h), smoothing_function=function))
            except AssertionError:  # method 6 without a trigram match
                out.append(np.nan)
        return np.array(out)


@pytest.mark.parametrize("tokenize", ["space", "char"])
@pytest.mark.parametrize("method", range(8))
def test_nltk_smoothing_methods(pairs, method, tokenize):
    hyps, refs = pairs
    if tokenize == "char":
        hyps, refs = hyps[:120] + hyps[200:], refs[:120] + refs[200:]
    function = getattr(nltk_bleu.SmoothingFunction(), f"method{method}")
    metric = BLEU(smooth=f"nltk{method}", tokenize=tokenize)
    np.testing.assert_allclose(metric.sentence_scores(hyps, refs), _nltk(hyps, refs, function, tokenize == "char"),
                               rtol=0, atol=1e-9)
    assert abs(metric.corpus_score(hyps[:150], refs[:150])
               - _nltk(hyps[:150], refs[:150], function, tokenize == "char", corpus=True)) < 1e-9


def test_nltk_method2_before_3_6(pairs):
    """nltk <= 3.5's method 2 (nltk issue #2571): +1 on numerator and denominator of every order."""
    def legacy(p_n, *args, **kwargs):
        return [nltk_bleu.Fraction(p.numerator + 1, p.denominator + 1, _normalize=False) for p in p_n]

    hyps, refs = pairs
    np.testing.assert_allclose(BLEU(smooth="nltk2-legacy").sentence_scores(hyps, refs),
                               _nltk(hyps, refs, legacy, char=False), rtol=0, atol=1e-9)


def test_bleu_cc_is_nltk_method5_and_moses_is_multibleu(pairs):
    hyps, refs = pairs
    method5 = nltk_bleu.SmoothingFunction().method5
    np.testing.assert_allclose(BLEUCC().sentence_scores(hyps, refs), _nltk(hyps, refs, method5, char=False),
                               rtol=0, atol=1e-9)
    np.testing.assert_allclose(BLEUCC(tokenize="char").sentence_scores(hyps[:50], refs[:50]),
                               _nltk(hyps[:50], refs[:50], method5, char=True), rtol=0, atol=1e-9)
    moses = SacreBLEU(tokenize="none", smooth_method="none", effective_order=False)
    np.testing.assert_allclose(BLEUMoses().sentence_scores(hyps, refs),
                               [moses.sentence_score(h, [r]).score / 100 for h, r in zip(hyps, refs)],
                               rtol=0, atol=1e-9)
    assert abs(BLEUMoses().corpus_score(hyps, refs) - moses.corpus_score(hyps, [refs]).score / 100) < 1e-9
    # multi-bleu.perl by hand: "a b c d e" vs "a b c d f": p = 4/5, 3/4, 2/3, 1/2, BP = 1,
    # BLEU = (4/5 * 3/4 * 2/3 * 1/2) ** (1/4) = 0.2 ** 0.25
    assert BLEUMoses().score("a b c d e", "a b c d f") == pytest.approx(0.2 ** 0.25, abs=1e-12)


def test_bleu_norm_hand_worked():
    metric = BLEUNorm()
    # "Returns the value." -> returns the value . (4 tokens); "return the value" (3 tokens).
    # matches 2/4, bigrams (1+1)/(3+1), trigrams (0+1)/(2+1), 4-grams (0+1)/(1+1): product 1/24;
    # BP = exp(min(0, 1 - (3+1)/(4+1))) = 1, so BLEU-Norm = (1/24) ** (1/4).
    assert metric.score("Returns the value.", "return the value") == pytest.approx((1 / 24) ** 0.25, abs=1e-12)
    # "the cat" vs "the cat sat on the mat": 2/2, (1+1)/(1+1), and orders longer than the hypothesis count
    # (0+1)/(0+1); BP = exp(1 - (6+1)/(2+1)) = exp(-4/3).
    assert metric.score("the cat", "The cat sat on the mat") == pytest.approx(np.exp(-4 / 3), abs=1e-12)
    # an empty hypothesis is not 0: every log term is log(x) - log(x), BP = exp(1 - (2+1)/(0+1)) = exp(-2)
    assert metric.score("", "a b") == pytest.approx(np.exp(-2), abs=1e-12)
    assert metric.corpus_score(["the cat", ""], ["the cat sat on the mat", "a b"]) == pytest.approx(
        (np.exp(-4 / 3) + np.exp(-2)) / 2, abs=1e-12)


def _best_of_k_median(blocks, metric) -> float:
    hyps = [p for _, ps in blocks for p in ps]
    refs = [o for o, ps in blocks for _ in ps]
    k = len(blocks[0][1])
    return float(np.median(metric.sentence_scores(hyps, refs).reshape(len(blocks), k).max(axis=1)))


@pytest.mark.parametrize("k,char_median,token_median", [(1, 0.8315, 0.728), (3, 0.8860, 0.801),
                                                        (5, 0.8980, 0.817), (10, 0.9145, 0.841)])
def test_tufano2021_published_medians(tufano_dir, k, char_median, token_median):
    """The published box plots (about 0.83/0.89/0.90/0.915) are nltk's BLEU on raw strings (characters)."""
    blocks = read_blocks(tufano_dir / "predictions" / f"1-encoder_k{k}_abstracted.txt")
    assert len(blocks) == 1719 and all(len(ps) == k for _, ps in blocks)
    assert round(_best_of_k_median(blocks, BLEU(tokenize="char", smooth="nltk0")), 4) == char_median
    assert abs(_best_of_k_median(blocks, BLEU(smooth="nltk0")) - token_median) < 5e-4


def test_columns_and_signatures():
    metrics = [BLEU(), BLEU(tokenize="char", smooth="none"), BLEU(smooth="nltk2-legacy"), BLEU(smooth="floor", value=0.2),
               BLEU(smooth="none", effective_order=False), BLEU(lowercase=True), BLEU(max_n=2), BLEU(smooth="nltk0"),
               BLEU(tokenize="char", smooth="nltk0"), BLEUMoses(), BLEUMoses(tokenize="char"), BLEUCC(), BLEUNorm()]
    columns = [m.column for m in metrics]
    assert len(set(columns)) == len(columns)
    assert columns[:2] == ["bleu4", "bleu4_char_none"]
    assert BLEU().signature().startswith("bleu|tok:space|case:mixed|smooth:exp|eff:yes|n:4|version:")
    assert "smooth:floor[0.2]" in BLEU(smooth="floor", value=0.2).signature()
    assert BLEUMoses().signature().startswith("bleu_moses|tok:space|case:mixed|smooth:none|eff:no|n:4|")
    assert BLEUCC().signature().startswith("bleu_cc|tok:space|case:mixed|smooth:nltk5|n:4|")
    with pytest.raises(ValueError):
        BLEU(smooth="nltk6", max_n=2)
    with pytest.raises(ValueError):
        BLEU(smooth="exp", value=1.0)


def test_intern_tokens_splits_like_str_split_and_survives_collisions(monkeypatch):
    strings = ["  a\u3000b\xa0c\x1fd  ", "", "\u4e00\u4e01 a\u2028a b", "x\x00 x", "a\tb\nc"]
    tokens = [t for s in strings for t in s.split()]

    def check():
        ids, counts = intern_tokens(strings)
        assert counts.tolist() == [len(s.split()) for s in strings]
        assert len(set(zip(tokens, ids.tolist()))) == len(set(tokens)) == len(set(ids.tolist()))

    check()
    # every hash collides (all powers 0: the hash is the token length): the comparison must catch it
    monkeypatch.setattr(tokens_module, "_powers", lambda n: (np.zeros(n, np.uint64), np.zeros(n, np.uint64)))
    check()


def test_large_vocabularies_fall_back_exactly():
    """Too many distinct tokens to pack 4-grams into int64: chunks are halved, and a single pair with
    more than 2**15 distinct tokens is counted with Counters. Same values as sacrebleu either way."""
    rng = random.Random(3)
    words = [f"w{i}" for i in range(40_000)]
    hyps = [" ".join(rng.choices(words[:12_000], k=6_000)) for _ in range(3)] + [" ".join(words[:34_000])]
    refs = [" ".join(rng.choices(words[:12_000], k=6_000)) for _ in range(3)] + [" ".join(words[6_000:])]
    def clipped(h: list[str], r: list[str], n: int) -> int:
        grams = [Counter(tuple(s[i:i + n]) for i in range(len(s) - n + 1)) for s in (h, r)]
        return sum((grams[0] & grams[1]).values())

    expected = [[len(h.split()), len(r.split()), *(clipped(h.split(), r.split(), n) for n in range(1, 5))]
                for h, r in zip(hyps, refs)]
    assert bleu_statistics(hyps, refs).tolist() == expected


def test_compiled_counting_equals_sacrebleu(tufano_dir):
    """Batches of at least ``NUMBA_MIN_PAIRS`` pairs are counted by the compiled kernel (``_bleu``): real
    beams (each reference repeated k times in a row) and random pairs with Unicode whitespace, long and
    non-ASCII tokens, empty sides and references shared out of order; then one to three references per
    hypothesis (the same reference twice included). Same values as sacrebleu."""
    from revmine.metrics import _bleu
    from revmine.metrics.edit import NUMBA_MIN_PAIRS

    if not _bleu.AVAILABLE:
        pytest.skip("numba is not installed")
    hyps, refs = read_predictions(tufano_dir / "predictions" / "1-encoder_k10_abstracted.txt").flat()
    rng = random.Random(11)
    words = ["a", "b", "é", "x\u00a0y", "z\u3000", "\u200bq", "long_" * 9, "\U0001f600", "(", ")"]
    fake_refs = [" ".join(rng.choices(words, k=rng.randint(0, 14))) for _ in range(60)]
    fake = [(" ".join(rng.choices(words, k=rng.randint(0, 14))), rng.choice(fake_refs)) for _ in range(600)]
    hyps, refs = hyps[:900] + [h for h, _ in fake], refs[:900] + [r for _, r in fake]
    assert len(hyps) >= NUMBA_MIN_PAIRS
    sets = [[r, *rng.choices(refs[max(0, i - 30):i + 30] + fake_refs, k=rng.choice([0, 1, 2]))]
            for i, r in enumerate(refs)]
    for references, statistics, scores in (
            (refs, bleu_statistics(hyps, refs), BLEU().sentence_scores(hyps, refs)),
            (sets, multi_reference_statistics(hyps, sets), BLEU().multi_reference_scores(hyps, sets))):
        references = [r if isinstance(r, list) else [r] for r in references]
        expected = [sacrebleu.sentence_bleu(h, rs, tokenize="none") for h, rs in zip(hyps, references)]
        assert statistics[:, :2].tolist() == [[e.sys_len, e.ref_len] for e in expected]
        assert statistics[:, 2:].tolist() == [e.counts for e in expected]
        np.testing.assert_allclose(scores, [e.score / 100 for e in expected], rtol=0, atol=1e-9)


@pytest.mark.parametrize("settings", [{}, {"smooth": "exp"}, {"smooth": "floor"}, {"smooth": "add-k"},
                                      {"tokenize": "13a"}, {"tokenize": "char"}, {"tokenize": "sacrebleu-char"},
                                      *({"smooth": f"nltk{i}"} for i in range(5)), {"smooth": "nltk2-legacy"}])
def test_a_perfect_match_scores_exactly_one(settings):
    """BLEU is documented in [0, 1]: a hypothesis equal to its reference is 1.0, not 1.0000000000000004."""
    from revmine import metrics

    text = "public void f ( int x ) { return x + 1 ; }"
    spec = "bleu(" + ", ".join(f"{k}={v}" for k, v in settings.items()) + ")" if settings else "bleu"
    assert metrics.sentence_bleu(text, [text], **settings).score == 1.0
    assert metrics.corpus_bleu([text, text], [text, text], **settings).score == 1.0
    assert metrics.compute(spec, [text] * 3, [text] * 3) == [1.0, 1.0, 1.0]
    assert metrics.corpus_score(spec, [text], [text]).score == 1.0


def test_moses_bleu_of_a_perfect_match_is_exactly_one():
    from revmine import metrics

    text = "a b c d e f g"
    assert metrics.compute("bleu_moses", [text], [text]) == [1.0]
