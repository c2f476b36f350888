"""Edit distances against rapidfuzz on token lists and hand-worked examples.

The compiled token kernel (``revmine.metrics._levenshtein``) is checked against rapidfuzz on
``str.split()`` lists: random pairs over a vocabulary with every kind of whitespace, long and non-ASCII
tokens and lone surrogates; empty and blank strings; sequences across the 64-token word boundaries and
beyond 1,000 tokens; the whole 1-encoder k=10 fixture; and, in plain Python with every hash colliding,
that a hash match never makes two different tokens equal.
"""

from __future__ import annotations

import math
import os
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from rapidfuzz.distance import Levenshtein as RapidfuzzLevenshtein

from revmine.metrics import _levenshtein, edit
from revmine.metrics.edit import SED, Levenshtein, LevenshteinSimilarity
from revmine.metrics.predictions import read_predictions
from revmine.metrics.score import score_columns

needs_numba = pytest.mark.skipif(not _levenshtein.AVAILABLE, reason="numba is not installed")


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


# ---------------------------------------------------------------------------------------------------
# The compiled token kernel
# ---------------------------------------------------------------------------------------------------

SPACES = [chr(c) for c in range(0x110000) if chr(c).isspace()]
#: tokens: short ASCII (exact keys), long ASCII and non-ASCII ones (hashed keys), characters str.split
#: does not split on (U+200B, U+FEFF, U+180E), NUL, a lone surrogate, astral characters
WORDS = ["a", "b", "c", "(", ")", ";", "VAR_1", "VAR_2", "METHOD_1", "METHOD_12", "abcdefgh", "abcdefghi",
         "x" * 40, "\x00", "\x7f", "\x80", "é", "naïve", "a\u200bb", "\u200b", "\ufeff", "\u180e",
         "\ud800", "𝔘𝔫𝔦", "日本語", "\U0010ffff", "aé", "Ab", "AB"]


def expected(hyps, refs):
    return [RapidfuzzLevenshtein.distance(h.split(), r.split()) for h, r in zip(hyps, refs)]


def random_text(rng: random.Random, n_tokens: int, words=WORDS) -> str:
    parts = [rng.choice(SPACES) * rng.randint(0, 1)]
    for _ in range(n_tokens):
        parts.append(rng.choice(words))
        parts.append("".join(rng.choice(SPACES) for _ in range(rng.choice([1, 1, 1, 2, 3]))))
    return "".join(parts[:-1] if rng.random() < 0.5 else parts)


def mutate(rng: random.Random, text: str, edits: int) -> str:
    tokens = text.split()
    for _ in range(edits):
        op = rng.randrange(3)
        i = rng.randint(0, len(tokens))
        if op == 0:
            tokens.insert(i, rng.choice(WORDS))
        elif tokens and op == 1:
            tokens.pop(min(i, len(tokens) - 1))
        elif tokens:
            tokens[min(i, len(tokens) - 1)] = rng.choice(WORDS)
    return rng.choice(SPACES).join(tokens)


def check(hyps, refs, threads=1):
    distance, hyp_len, ref_len = _levenshtein.token_distances(hyps, refs, threads=threads)
    assert distance.tolist() == expected(hyps, refs)
    assert hyp_len.tolist() == [len(h.split()) for h in hyps]
    assert ref_len.tolist() == [len(r.split()) for r in refs]


def test_whitespace_table_is_str_split():
    assert [chr(c) for c in np.flatnonzero(_levenshtein.WHITESPACE)] == SPACES  # all at or below U+3000
    assert not _levenshtein.WHITESPACE[-1]  # the entry for every code point above U+3000
    assert "a\xa0b\u3000c\x1cd\x85e".split() == list("abcde") and "a\u200bb".split() == ["a\u200bb"]


@needs_numba
def test_random_pairs_equal_rapidfuzz():
    rng = random.Random(20240601)
    hyps, refs = [], []
    for _ in range(3000):
        ref = random_text(rng, rng.choice([0, 1, 2, 5, 20, 50, 63, 64, 65, 100]))
        if rng.random() < 0.7:
            hyp = mutate(rng, ref, rng.choice([0, 1, 3, 10]))
        else:
            hyp = random_text(rng, rng.randint(0, 80))
        hyps.append(hyp)
        refs.append(ref)
    hyps += ["", "", " \t\n", "a", "", "\xa0\u3000"]
    refs += ["", "a b", "", "", " \u2028 ", "\x1c"]
    check(hyps, refs)
    check(hyps[::-1], refs[::-1], threads=2)  # chunks on two threads: same values
    check(refs, hyps)


@needs_numba
@pytest.mark.parametrize("length", [63, 64, 65, 127, 128, 129, 200, 1100])
def test_long_sequences_cross_word_boundaries(length):
    rng = random.Random(length)
    words = WORDS[:8]  # a small vocabulary: many matches, long runs through the carries between words
    refs, hyps = [], []
    for _ in range(12):
        ref = " ".join(rng.choice(words) for _ in range(length))
        refs += [ref] * 4
        hyps += [mutate(rng, ref, edits) for edits in (1, 5, length // 3)]
        hyps.append(" ".join(rng.choice(words) for _ in range(rng.randint(length - 3, length + 3))))
    check(hyps, refs)


@needs_numba
def test_no_tokens_in_common_and_all_distinct_references():
    hyps = ["p q r", "s", "p", "x y z w", ""]
    refs = ["a b", "c d e", "p", "", "a"]
    check(hyps, refs)
    check([], [])


@needs_numba
def test_fixture_equals_rapidfuzz(tufano_dir: Path):
    hyps, refs = read_predictions(tufano_dir / "predictions" / "1-encoder_k10_abstracted.txt").flat()
    assert len(hyps) == 17190
    check(hyps, refs)
    assert Levenshtein().sentence_scores(hyps, refs).tolist() == expected(hyps, refs)


def test_hash_collisions_never_merge_tokens():
    """In plain Python (numba's JIT off) with one hash for every long token, every match on the hash
    must be confirmed on the characters."""
    script = textwrap.dedent("""
        import random, warnings
        import numpy as np
        warnings.simplefilter("ignore"); np.seterr(all="ignore")
        from rapidfuzz.distance import Levenshtein
        from revmine.metrics import _levenshtein
        hashed = []
        _levenshtein._hash_key = lambda cp, start, stop: hashed.append(stop - start) or np.uint64(12345)
        rng = random.Random(7)
        words = ["abcdefghi", "abcdefghj", "bcdefghia", "x" * 30, "é", "è", "日本", "本日", "a", "b"]
        refs = [" ".join(rng.choice(words) for _ in range(rng.randint(0, 70))) for _ in range(40)]
        hyps = [" ".join(rng.choice(words) for _ in range(rng.randint(0, 70))) for _ in range(80)]
        refs = refs + refs
        got = _levenshtein.token_distances(hyps, refs)[0].tolist()
        assert got == [Levenshtein.distance(h.split(), r.split()) for h, r in zip(hyps, refs)], got
        assert len(hashed) > 1000  # the patched hash was used (the kernels ran as Python)
        print("ok")
    """)
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                            cwd=Path(__file__).resolve().parents[1], timeout=300)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr[-2000:]


def test_metrics_agree_with_and_without_the_kernel(monkeypatch, pairs):
    hyps, refs = pairs
    hyps, refs = hyps * 2, refs * 2  # above NUMBA_MIN_PAIRS
    assert len(hyps) >= edit.NUMBA_MIN_PAIRS
    metrics = [Levenshtein(), LevenshteinSimilarity(), SED("ref"), SED("max")]
    kernel = [m.sentence_scores(hyps, refs) for m in metrics]
    monkeypatch.setattr(_levenshtein, "AVAILABLE", False)
    fallback = [m.sentence_scores(hyps, refs) for m in metrics]
    for a, b in zip(kernel, fallback):
        np.testing.assert_array_equal(a, b)


def test_the_score_stage_computes_the_edit_statistics_once_per_tokeniser(monkeypatch, pairs):
    """The stage passes one computation to every edit metric of a tokeniser; each value equals the
    metric's own; a metric called alone computes its own (no cache between calls)."""
    hyps, refs = pairs
    metrics = [Levenshtein(), SED("ref"), Levenshtein("char"), LevenshteinSimilarity(), SED("max"),
               SED("max", tokenize="char")]
    alone = [m.sentence_scores(hyps, refs) for m in metrics]
    calls = []
    real = edit.edit_statistics
    monkeypatch.setattr(edit, "edit_statistics", lambda h, r, tok: calls.append(tok) or real(h, r, tok))
    columns = score_columns(metrics, hyps, refs)
    assert calls == ["space", "char"]  # once per tokeniser
    for got, want in zip(columns, alone):
        assert got.tobytes() == want.tobytes()
    assert columns[0].tolist() == expected(hyps, refs)
    columns[0][:] = -1  # the caller owns its array: the other metrics' values are not changed
    assert columns[1].tobytes() == alone[1].tobytes()
    calls.clear()
    Levenshtein().sentence_scores(hyps, refs)
    Levenshtein().sentence_scores(hyps, refs)
    assert calls == ["space", "space"]
