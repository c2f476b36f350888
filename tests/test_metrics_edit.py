"""Edit distances against rapidfuzz on token lists and hand-worked examples."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from rapidfuzz.distance import Levenshtein as RapidfuzzLevenshtein

from revmine.metrics.edit import SED, Levenshtein, LevenshteinSimilarity


@pytest.fixture(scope="module")
def pairs(tufano_dir: Path) -> tuple[list[str], list[str]]:
    """Real code pairs: each abstracted method submitted for review against its revised version."""
    src = (tufano_dir / "src-test.txt").read_text(encoding="utf-8").splitlines()[:600]
    tgt = (tufano_dir / "tgt-test.txt").read_text(encoding="utf-8").splitlines()[:600]
    return src + ["  a\u3000b\xa0c ", "", "x"], tgt + ["a b  c", "", ""]


def test_levenshtein_equals_rapidfuzz(pairs):
    hyps, refs = pairs
    tokens = [RapidfuzzLevenshtein.distance(h.split(), r.split()) for h, r in zip(hyps, refs)]
    chars = [RapidfuzzLevenshtein.distance(h, r) for h, r in zip(hyps, refs)]
    assert Levenshtein().sentence_scores(hyps, refs).tolist() == tokens
    assert Levenshtein(tokenize="char").sentence_scores(hyps, refs).tolist() == chars
    np.testing.assert_allclose(LevenshteinSimilarity().sentence_scores(hyps, refs),
                               [RapidfuzzLevenshtein.normalized_similarity(h.split(), r.split())
                                for h, r in zip(hyps, refs)], rtol=0, atol=1e-12)


def test_hand_worked_normalisations():
    # "a b c d e" -> "a x c": substitute b->x, delete d and e: d = 3; |hyp| = 5, |ref| = 3
    hyp, ref = "a b c d e", "a x c"
    assert Levenshtein().score(hyp, ref) == 3
    assert SED("ref").score(hyp, ref) == 1.0  # 3 / 3
    assert SED("max").score(hyp, ref) == pytest.approx(0.6)  # 3 / 5
    assert LevenshteinSimilarity().score(hyp, ref) == pytest.approx(0.4)  # 1 - 3 / 5
    # characters: "abc" -> "abd" is one substitution out of 3
    assert SED("max", tokenize="char").score("abc", "abd") == pytest.approx(1 / 3)
    # empty sides: nothing to edit is 0 (similarity 1); an empty reference cannot normalise a non-zero d
    assert SED("ref").sentence_scores(["", "a"], ["", ""]).tolist() == [0.0, math.inf]
    assert SED("max").sentence_scores(["", "a"], ["", ""]).tolist() == [0.0, 1.0]
    assert LevenshteinSimilarity().sentence_scores(["", "a"], ["", ""]).tolist() == [1.0, 0.0]


def test_columns_signatures_and_direction():
    metrics = [Levenshtein(), Levenshtein("char"), LevenshteinSimilarity(), LevenshteinSimilarity("char"),
               SED("ref"), SED("max"), SED("ref", tokenize="char")]
    assert [m.column for m in metrics] == ["levenshtein_tok", "levenshtein_char", "levenshtein_sim_tok",
                                           "levenshtein_sim_char", "sed_ref", "sed_max", "sed_ref_char"]
    assert [m.higher_is_better for m in metrics] == [False, False, True, True, False, False, False]
    assert SED("max").signature().startswith("sed|tok:space|norm:max|version:")
    with pytest.raises(ValueError):
        SED("min")
