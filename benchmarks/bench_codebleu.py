"""Throughput of CodeBLEU against the ``codebleu`` package 0.7.0, on Tufano et al.'s raw k=1 predictions.

    python benchmarks/bench_codebleu.py [--repeat 5] [--file ...]

1,719 (prediction, oracle) pairs of raw Java, about 270 characters each, nearly every string distinct (so
little is shared between pairs: 3,387 distinct strings, each parsed once). Sentence level, as the score
stage needs it: ours is ``CodeBLEU().sentence_scores(hyps, refs)``; the reference is ``calc_codebleu([ref],
[hyp], "java")`` once per pair, run in its own virtualenv (``tests/reference_venv.py``, built the first
time), which times itself and reports pairs/s. Rounds alternate ours and the reference so that a busy
machine slows both alike; the ratio is taken per round and its median printed with the spread (min-max).
Also printed: the time of our corpus value (the same statistics, summed), and in the same rounds the floor of
any tree-sitter CodeBLEU, so that the ratio can be read against what is possible: tree-sitter cleaning and
parsing each distinct string once (nothing else), then that plus printing each tree's S-expression (what
the syntax match compares), as pairs/s and as a ratio to the reference; and ours as a ratio to that parse
floor, round by round (issue 28's goal: at least 0.33x).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from bench_code_metrics import bench_parser, ratio_line, ratios, spread  # noqa: E402
from reference_venv import reference_python, run_json  # noqa: E402
from test_metrics_codebleu import REFERENCE  # noqa: E402

from revmine.lang.languages import parser  # noqa: E402
from revmine.metrics.codebleu import CodeBLEU, remove_comments  # noqa: E402
from revmine.metrics.predictions import read_predictions  # noqa: E402

FIXTURE = ROOT.parent / "shared" / "fixtures" / "tufano2021" / "predictions" / "1-encoder_k1_raw.txt"

#: in the reference's virtualenv: pairs on stdin; prints the pairs/s of calc_codebleu per pair
TIMER = r"""
import json, logging, sys, time
logging.disable(logging.WARNING)
from codebleu import calc_codebleu
pairs = json.load(sys.stdin)
calc_codebleu([pairs[0][1]], [pairs[0][0]], "java")  # imports and the grammar, as our warm-up call
start = time.perf_counter()
for hyp, ref in pairs:
    calc_codebleu([ref], [hyp], "java")
print(json.dumps(len(pairs) / (time.perf_counter() - start)))
"""


def main() -> None:
    args = bench_parser(__doc__, repeat=5, fixture=FIXTURE).parse_args()
    hyps, refs = read_predictions(args.file).flat()
    n = len(hyps)
    print(f"{args.file.name}: {n} pairs, {sum(map(len, hyps + refs)) / (2 * n):.0f} characters per string, "
          f"{len(set(hyps + refs))} distinct strings")
    python = reference_python(*REFERENCE)
    metric = CodeBLEU()
    metric.sentence_scores(hyps, refs)  # imports, the grammar, numba's kernels (one per token-id width)
    java = parser("java")
    texts = sorted({text.strip() for text in hyps + refs})

    def floor(print_trees: bool) -> None:
        for text in texts:
            root = java.parse(remove_comments(text).encode("utf-8")).root_node
            if print_trees:
                str(root)

    speed: dict[str, list[float]] = {"ours": [], "reference": [], "parse": [], "parse + print": []}
    for _ in range(args.repeat):
        for name, run in (("ours", lambda: metric.sentence_scores(hyps, refs)), ("parse", lambda: floor(False)),
                          ("parse + print", lambda: floor(True))):
            start = time.perf_counter()
            run()
            speed[name].append(n / (time.perf_counter() - start))
        speed["reference"].append(run_json(python, TIMER, list(zip(hyps, refs))))
    start = time.perf_counter()
    metric.corpus_score(hyps, refs)
    corpus = time.perf_counter() - start
    print(f"sentence CodeBLEU, median (min-max) of {args.repeat} interleaved rounds:")
    print(f"  ours                     {spread(speed['ours'])}  (corpus value: {corpus:.2f} s)")
    print(f"  codebleu 0.7.0, per pair {spread(speed['reference'])}")
    print(f"  ours / reference         {ratio_line(ratios(speed['ours'], speed['reference']))}  (target >= 20x)")
    for name in ("parse", "parse + print"):
        print(f"  floor: {name:17s} {spread(speed[name])}, / reference "
              f"{ratio_line(ratios(speed[name], speed['reference']))}")
    print(f"  ours / parse floor       {ratio_line(ratios(speed['ours'], speed['parse']), 2)}  (issue 28: >= 0.33x)")


if __name__ == "__main__":
    main()
