"""The compiled TER edit count equals sacrebleu's ``lib_ter.translation_edit_rate`` (the reference) pair by pair."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from sacrebleu.metrics import TER, lib_ter

from revmine.metrics import _ter
from revmine.metrics.predictions import read_predictions

K10 = Path(__file__).resolve().parents[1].parent / "shared" / "fixtures" / "tufano2021" / "predictions" \
    / "1-encoder_k10_abstracted.txt"


def _edited(rng: random.Random, ref: list[int], vocabulary: int) -> list[int]:
    """``ref`` after a few block moves, substitutions, insertions and deletions: what shifts are for."""
    hyp = list(ref)
    for _ in range(rng.randint(0, 6)):
        kind = rng.random()
        if kind < 0.3 and hyp:
            at, size = rng.randrange(len(hyp)), rng.randint(1, 5)
            block = hyp[at:at + size]
            del hyp[at:at + size]
            to = rng.randint(0, len(hyp))
            hyp[to:to] = block
        elif kind < 0.6 and hyp:
            hyp[rng.randrange(len(hyp))] = rng.randrange(vocabulary)
        elif kind < 0.8:
            hyp.insert(rng.randint(0, len(hyp)), rng.randrange(vocabulary))
        elif hyp:
            del hyp[rng.randrange(len(hyp))]
    return hyp


def test_hand_worked_shift() -> None:
    # "b c a" -> "a b c": one shift of "a" to the front, no other edit (sacrebleu agrees: 1 edit).
    assert _ter.translation_edit_rate([2, 3, 1], [1, 2, 3]) == (1, 3) == lib_ter.translation_edit_rate(
        ["b", "c", "a"], ["a", "b", "c"])
    assert _ter.translation_edit_rate([], [1, 2]) == (2, 2)
    assert _ter.translation_edit_rate([1, 2], []) == (2, 0)


def test_random_sequences_equal_sacrebleu() -> None:
    rng = random.Random(7)
    for _ in range(150):
        vocabulary = rng.choice([2, 3, 5, 10, 50])  # small vocabularies: many equal spans, many shift candidates
        ref = [rng.randrange(vocabulary) for _ in range(rng.randint(0, 40))]
        hyp = _edited(rng, ref, vocabulary) if rng.random() < 0.6 else \
            [rng.randrange(vocabulary) for _ in range(rng.randint(0, 40))]
        want = lib_ter.translation_edit_rate([str(w) for w in hyp], [str(w) for w in ref])
        assert _ter.translation_edit_rate(hyp, ref) == want, (hyp, ref)


@pytest.mark.skipif(not K10.is_file(), reason="fixture missing")
def test_published_predictions_equal_sacrebleu() -> None:
    hyps, refs = read_predictions(K10).flat()
    pairs = list(dict.fromkeys(zip(hyps, refs)))[::200]  # ~80 distinct pairs over the whole file
    tokenise = TER()._preprocess_segment
    vocabulary: dict[str, int] = {}
    for hyp, ref in pairs:
        words = [tokenise(hyp).split(), tokenise(ref).split()]
        ids = [[vocabulary.setdefault(w, len(vocabulary)) for w in side] for side in words]
        assert _ter.translation_edit_rate(*ids) == lib_ter.translation_edit_rate(*words)
