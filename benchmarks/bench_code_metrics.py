"""Throughput of the code metrics against their anchors, on Tufano et al.'s 1-encoder k=10 predictions.

    python benchmarks/bench_code_metrics.py [--repeat 7]

17,190 (prediction, oracle) pairs of abstracted Java, about 48 tokens each. Prints pairs/s for:

* our sentence BLEU-4 (``BLEU()``, sacrebleu's ``exp`` smoothing) beside ``sacrebleu.sentence_bleu(...,
  tokenize='none')`` and nltk's ``sentence_bleu`` (method 3), both on the same pairs (sacrebleu and nltk on
  a slice, scaled); target: at least 20x sacrebleu (issue 12). Also shown: the first call's time (numba's
  start-up plus loading, or on a fresh install compiling, the kernel);
* our token Levenshtein (``Levenshtein()``, from strings, one thread) beside rapidfuzz's
  ``Levenshtein.distance`` on pre-split token lists (one thread); target: within 2x. Also shown: the same kernel on two threads, rapidfuzz splitting the strings
  itself, and the first call's time.

The runs of a metric and its anchors alternate (``--repeat`` rounds), so that a busy machine slows both
alike; each figure is the median over the rounds with the spread (min-max), and the ratio is computed
per round (printed for each) and its median taken.
"""

from __future__ import annotations

import argparse
import statistics
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


def race(repeat: int, **runs: tuple[Callable[[], object], int]) -> dict[str, list[float]]:
    """pairs/s of each ``name=(function, pairs it scores)`` in each of ``repeat`` interleaved rounds."""
    speed: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeat):
        for name, (function, size) in runs.items():
            start = time.perf_counter()
            function()
            speed[name].append(size / (time.perf_counter() - start))
    return speed


def spread(values: list[float], unit: str = "pairs/s") -> str:
    """Median (min-max)."""
    return f"{statistics.median(values):,.0f} {unit} ({min(values):,.0f}-{max(values):,.0f})"


def ratios(numerator: list[float], denominator: list[float]) -> list[float]:
    return [a / b for a, b in zip(numerator, denominator)]


def ratio_line(values: list[float], digits: int = 1) -> str:
    return (f"median {statistics.median(values):.{digits}f}x ({min(values):.{digits}f}-{max(values):.{digits}f}); "
            "per round " + " ".join(f"{v:.{digits}f}" for v in values))


def first_call(function: Callable[[], object]) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def bench_parser(doc: str | None, repeat: int, fixture: Path = FIXTURE) -> argparse.ArgumentParser:
    """The benchmarks' command line: ``--repeat`` interleaved rounds and the predictions ``--file``."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=repeat, help="interleaved rounds (median and min-max shown)")
    parser.add_argument("--file", type=Path, default=fixture)
    return parser


def main() -> None:
    args = bench_parser(__doc__, repeat=7).parse_args()
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

    first = first_call(lambda: bleu.sentence_scores(hyps, refs))
    speed = race(args.repeat,
                 ours=(lambda: bleu.sentence_scores(hyps, refs), n),
                 sacrebleu=(lambda: [sacrebleu.sentence_bleu(h, [r], tokenize="none")
                                     for h, r in zip(hyps[:part], refs[:part])], part),
                 nltk=(nltk_run, part // 3))
    print(f"sentence BLEU-4, median (min-max) of {args.repeat} interleaved rounds:")
    print(f"  ours                    {spread(speed['ours'])}  (first call {first:.2f} s)")
    print(f"  sacrebleu.sentence_bleu {spread(speed['sacrebleu'])}")
    print(f"  nltk sentence_bleu      {spread(speed['nltk'])}")
    print(f"  ours / sacrebleu        {ratio_line(ratios(speed['ours'], speed['sacrebleu']))}  (target >= 20x)")
    print(f"  ours / nltk             {ratio_line(ratios(speed['ours'], speed['nltk']))}")
    theirs = [sacrebleu.sentence_bleu(h, [r], tokenize="none").score / 100 for h, r in zip(hyps[:part], refs[:part])]
    print(f"  largest difference from sacrebleu on the slice: "
          f"{max(abs(a - b) for a, b in zip(bleu.sentence_scores(hyps, refs)[:part].tolist(), theirs)):.1e}")

    hyp_tokens, ref_tokens = [h.split() for h in hyps], [r.split() for r in refs]
    levenshtein = Levenshtein()

    def ours() -> None:
        levenshtein.sentence_scores(hyps, refs)

    first = first_call(ours)
    runs = dict(ours=(ours, n),
                raw=(lambda: [RapidfuzzLevenshtein.distance(a, b) for a, b in zip(hyp_tokens, ref_tokens)], n),
                raw_with_split=(lambda: [RapidfuzzLevenshtein.distance(a.split(), b.split())
                                         for a, b in zip(hyps, refs)], n))
    if _levenshtein.AVAILABLE:
        runs["two_threads"] = (lambda: _levenshtein.token_distances(hyps, refs, threads=2), n)
    speed = race(args.repeat, **runs)
    kernel = "numba kernel" if _levenshtein.AVAILABLE and n >= edit.NUMBA_MIN_PAIRS else "rapidfuzz fallback"
    print(f"token Levenshtein, median (min-max) of {args.repeat} interleaved rounds:")
    print(f"  ours                           {spread(speed['ours'])}  ({kernel}; first call {first:.2f} s)")
    print(f"  rapidfuzz, pre-split lists     {spread(speed['raw'])}")
    print(f"  rapidfuzz, splitting each time {spread(speed['raw_with_split'])}")
    if "two_threads" in speed:
        print(f"  ours on 2 threads              {spread(speed['two_threads'])}")
    print(f"  time ours / rapidfuzz pre-split {ratio_line(ratios(speed['raw'], speed['ours']))}  (target <= 2x)")


if __name__ == "__main__":
    main()
