"""The one-call API against the metric classes behind it and against sacrebleu, on Tufano et al.'s 1-encoder
k=10 predictions (issue 19, item 5).

    python benchmarks/bench_metrics_api.py [--repeat 9] [--specs bleu,chrf]

17,190 (prediction, oracle) pairs, one reference each. For each metric spec, pairs/s of:

* ``kernel``: the metric class's single-reference path, ``make_metric(spec).sentence_scores(hyps, refs)``
  (for BLEU the compiled kernel of ``_bleu.py``), the metric built once;
* ``api``: ``revmine.metrics.compute(spec, hyps, refs)``, everything a user's call does (building the metric
  from the spec, checking the references, a list of floats back); target: within 10% of ``kernel``;
* ``api, per hypothesis``: the same references as ``references_per_hypothesis=[[r], ...]`` (Hugging Face
  evaluate's convention), which must take the single-reference path too;
* ``sacrebleu``: ``sacrebleu.sentence_bleu(h, [r], tokenize='none')`` or ``sentence_chrf(h, [r])`` on a slice
  (it is slow), scaled, for the specs sacrebleu has.

As ``bench_code_metrics.py``: the runs alternate (``--repeat`` rounds) so that a busy machine slows all
alike; each figure is the median over the rounds with the spread (min-max), and each ratio is taken per
round, then its median.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import sacrebleu  # noqa: E402

from bench_code_metrics import bench_parser, race, ratio_line, ratios, spread  # noqa: E402
from revmine import metrics  # noqa: E402
from revmine.metrics.predictions import read_predictions  # noqa: E402
from revmine.metrics.registry import make_metric, split_specs  # noqa: E402

#: sacrebleu's sentence-level function for a spec with the same settings, where it has one.
SACREBLEU: dict[str, Callable[[str, list[str]], object]] = {
    "bleu": lambda h, refs: sacrebleu.sentence_bleu(h, refs, tokenize="none"),
    "chrf": sacrebleu.sentence_chrf,
}
#: pairs sacrebleu scores per round (scaled to pairs/s like the others)
SLICE = 2000


def main() -> None:
    parser = bench_parser(__doc__, repeat=9)
    parser.add_argument("--specs", default="bleu,chrf", help="metric specs, comma-separated")
    args = parser.parse_args()
    hyps, refs = read_predictions(args.file).flat()
    n = len(hyps)
    per_hypothesis = [[r] for r in refs]
    print(f"{args.file.name}: {n} pairs, one reference each; median (min-max) of {args.repeat} interleaved rounds")
    for spec in split_specs(args.specs):
        metric = make_metric(spec)
        metric.sentence_scores(hyps, refs)  # start-up (numba's kernels) outside the rounds
        runs = {"kernel": (lambda: metric.sentence_scores(hyps, refs), n),
                "api": (lambda: metrics.compute(spec, hyps, refs), n),
                "api, per hypothesis": (
                    lambda: metrics.compute(spec, hyps, references_per_hypothesis=per_hypothesis), n)}
        anchor = SACREBLEU.get(spec)
        if anchor is not None:
            runs["sacrebleu"] = (lambda: [anchor(h, [r]) for h, r in zip(hyps[:SLICE], refs[:SLICE])], SLICE)
        speed = race(args.repeat, **runs)
        print(f"{spec} ({metric.signature()}):")
        for name in runs:
            print(f"  {name:<21} {spread(speed[name])}")
        for name in ("api", "api, per hypothesis"):
            line = ratio_line(ratios(speed[name], speed["kernel"]), digits=2)
            print(f"  {name + ' / kernel':<30} {line}  (target >= 0.90x)")
        if anchor is not None:
            for name in ("kernel", "api"):
                print(f"  {name + ' / sacrebleu':<30} {ratio_line(ratios(speed[name], speed['sacrebleu']))}")


if __name__ == "__main__":
    main()
