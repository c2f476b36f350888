"""Throughput of the code metrics against their anchors, on Tufano et al.'s 1-encoder k=10 predictions.

    python benchmarks/bench_code_metrics.py [--repeat 5]

17,190 (prediction, oracle) pairs of abstracted Java, about 48 tokens each. Prints pairs/s for:

* our sentence BLEU-4 (``BLEU()``, sacrebleu's ``exp`` smoothing) beside ``sacrebleu.sentence_bleu(...,
  tokenize='none')`` and nltk's ``sentence_bleu`` (method 3), both on the same pairs (sacrebleu and nltk on
  a slice, scaled); target: at least 10x sacrebleu;
* our token Levenshtein (``Levenshtein()``, from strings, one thread) beside rapidfuzz's ``Levenshtein.distance`` on pre-split token lists (one
  thread); target: within 2x. Also shown: the same kernel on two threads, rapidfuzz splitting the strings
  itself, and the first call's time (numba's start-up plus loading, or on a fresh install compiling, the
  kernel).

Each figure is the best of ``--repeat`` runs, and the runs of a metric and its anchor alternate, so that
a busy machine slows both alike.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rapidfuzz.distance import Levenshtein as RapidfuzzLevenshtein  # noqa: E402

from revmine.metrics.bleu import BLEU  # noqa: E402
from revmine.metrics import _levenshtein, edit  # noqa: E402
from revmine.metrics.edit import Levenshtein  # noqa: E402
from revmine.metrics.predictions import read_predictions  # noqa: E402

FIXTURE = ROOT.parent / "shared" / "fixtures" / "tufano2021" / "predictions" / "1-encoder_k10_abstracted.txt"


def race(repeat: int, n: int, **runs: tuple[Callable[[], object], int]) -> dict[str, float]:
    """pairs/s of each ``name=(function, pairs it scores)``, best of ``repeat`` interleaved runs."""
    best = {name: float("inf") for name in runs}
    for _ in range(repeat):
        for name, (function, size) in runs.items():
            start = time.perf_counter()
            function()
            best[name] = min(best[name], (time.perf_counter() - start) / size)
    return {name: 1 / seconds for name, seconds in best.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--file", type=Path, default=FIXTURE)
    args = parser.parse_args()
    hyps, refs = read_predictions(args.file).flat()
    n = len(hyps)
    print(f"{args.file.name}: {n} pairs, {sum(len(h.split()) for h in hyps) / n:.1f} tokens per prediction")

    import sacrebleu
    from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

    bleu = BLEU()
    part = 3000  # the anchors are slow: time a slice
    nltk_smoothing = SmoothingFunction().method3

    def nltk_run() -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for h, r in zip(hyps[:part // 3], refs[:part // 3]):
                sentence_bleu([r.split()], h.split(), smoothing_function=nltk_smoothing)

    speed = race(args.repeat, n,
                 ours=(lambda: bleu.sentence_scores(hyps, refs), n),
                 sacrebleu=(lambda: [sacrebleu.sentence_bleu(h, [r], tokenize="none")
                                     for h, r in zip(hyps[:part], refs[:part])], part),
                 nltk=(nltk_run, part // 3))
    print(f"sentence BLEU-4   ours {speed['ours']:>10,.0f} pairs/s | sacrebleu.sentence_bleu "
          f"{speed['sacrebleu']:>8,.0f} pairs/s | ratio {speed['ours'] / speed['sacrebleu']:5.1f}x (target >= 10x)"
          f" | nltk {speed['nltk']:,.0f} pairs/s ({speed['ours'] / speed['nltk']:.0f}x)")

    hyp_tokens, ref_tokens = [h.split() for h in hyps], [r.split() for r in refs]
    levenshtein = Levenshtein()

    def ours() -> None:
        levenshtein.sentence_scores(hyps, refs)

    start = time.perf_counter()
    ours()
    first_call = time.perf_counter() - start
    runs = dict(ours=(ours, n),
                raw=(lambda: [RapidfuzzLevenshtein.distance(a, b) for a, b in zip(hyp_tokens, ref_tokens)], n),
                raw_with_split=(lambda: [RapidfuzzLevenshtein.distance(a.split(), b.split())
                                         for a, b in zip(hyps, refs)], n))
    if _levenshtein.AVAILABLE:
        runs["two_threads"] = (lambda: _levenshtein.token_distances(hyps, refs, threads=2), n)
    speed = race(args.repeat, n, **runs)
    print(f"token Levenshtein ours {speed['ours']:>10,.0f} pairs/s | rapidfuzz on pre-split lists "
          f"{speed['raw']:>8,.0f} pairs/s | ours takes {speed['raw'] / speed['ours']:4.2f}x as long (target <= 2x)"
          f" | rapidfuzz splitting each time {speed['raw_with_split']:,.0f} pairs/s")
    kernel = "numba kernel" if _levenshtein.AVAILABLE and n >= edit.NUMBA_MIN_PAIRS else "rapidfuzz fallback"
    two = (f"ours on 2 threads {speed['two_threads']:,.0f} pairs/s; " if "two_threads" in speed else "")
    print(f"                  ({kernel}; {two}first call {first_call:.2f} s: numba start-up + cache load or compile)")


if __name__ == "__main__":
    main()
