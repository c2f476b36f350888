"""Throughput of the natural-language metrics on Tufano et al.'s 1-encoder k=10 predictions.

    python benchmarks/bench_nl_metrics.py [--ref-pairs 3000] [--workers 2] [--file F]

17,190 (prediction, oracle) pairs; each oracle repeats 10 times (one beam). For every NL metric of
``registry.DEFAULTS["nl"]`` it prints pairs/s of:

* ``ref``: the library called once per pair, as the metrics did before (rouge-score's
  ``RougeScorer.score``, sacrebleu's ``CHRF``/``TER().sentence_score``, nltk's ``sentence_bleu`` with
  method 5 for BLEU-CC; for the METEOR family our own aligner called per pair without caches, which is
  what ``Meteor.sentence_scores`` did). Measured on the first ``--ref-pairs`` pairs (all: 0) and checked
  equal to ours on them. BLEU-Moses and BLEU-Norm have no library to call (multi-bleu.perl, CodeXGLUE's
  script) and are unchanged here: shown for completeness;
* ``w=1``: ``metric.sentence_scores`` on all pairs in this process;
* ``w=N``: ``score_columns([metric], ..., workers=N)`` on all pairs, worker start-up included (each
  worker imports revmine and, for METEOR, loads WordNet: a few seconds on a busy machine).

Then the whole NL set in one ``score_columns`` call, w=1 against w=N (one pool for all metrics, which is
what ``score_predictions(..., workers=N)`` does). Results are checked byte-identical between w=1 and w=N.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from revmine.metrics.meteor import align, meteor_from_alignment  # noqa: E402
from revmine.metrics.predictions import read_predictions  # noqa: E402
from revmine.metrics.registry import DEFAULTS, make_metric  # noqa: E402
from revmine.metrics.score import score_columns  # noqa: E402

FIXTURE = ROOT.parent / "shared" / "fixtures" / "tufano2021" / "predictions" / "1-encoder_k10_abstracted.txt"


def reference(name: str, metric):
    """The per-pair library call the metric stands for (None where there is none)."""
    if name.startswith("rouge"):
        from rouge_score import rouge_scorer

        key = f"rouge{name[5:]}"
        scorer = rouge_scorer.RougeScorer([key])
        return lambda h, r: scorer.score(r, h)[key].fmeasure
    if name == "chrf":
        from sacrebleu.metrics import CHRF

        chrf = CHRF()
        return lambda h, r: chrf.sentence_score(h, [r]).score / 100
    if name == "ter":
        from sacrebleu.metrics import TER

        ter = TER()
        return lambda h, r: ter.sentence_score(h, [r]).score / 100
    if name == "bleu_cc":
        from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

        method5 = SmoothingFunction().method5
        return lambda h, r: sentence_bleu([r.split()], h.split(), smoothing_function=method5)
    if name in ("meteor", "meteor_next", "log_mnext"):
        def per_pair(h, r):  # Meteor.sentence_scores before this change: no caches, every pair
            hyp, ref = metric.tokens(h), metric.tokens(r)
            aligned = align(hyp, ref, metric._stem, metric._synonyms, metric.alignment)
            return meteor_from_alignment(aligned, len(hyp), len(ref), metric.parameters, metric.exemption)
        return per_pair
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--file", type=Path, default=FIXTURE)
    parser.add_argument("--ref-pairs", type=int, default=3000, help="pairs for the per-pair reference (0: all)")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    preds = read_predictions(args.file)
    hyps, refs = preds.flat()
    n, w = len(hyps), args.workers
    m_ref = n if args.ref_pairs <= 0 else min(n, args.ref_pairs)
    print(f"{args.file.name}: {n} pairs, {len(set(refs))} distinct references, k={preds.k}; "
          f"reference on {m_ref} pairs")
    print(f"{'metric':12s} {'ref pairs/s':>12s} {'w=1 pairs/s':>12s} {'x ref':>6s} {f'w={w} pairs/s':>12s} {'x ref':>6s}")
    metrics = []
    for name in DEFAULTS["nl"]:
        metric = make_metric(name)
        metrics.append(metric)
        metric.sentence_scores(hyps[:20], refs[:20])  # WordNet and imports loaded before timing
        ours_t = time.perf_counter()
        ours = metric.sentence_scores(hyps, refs)
        ours_rate = n / (time.perf_counter() - ours_t)
        per_pair = reference(name, make_metric(name))  # its own object: no caches warmed by ours
        ref_rate = float("nan")
        if per_pair is not None:
            start = time.perf_counter()
            expected = np.array([per_pair(h, r) for h, r in zip(hyps[:m_ref], refs[:m_ref])], dtype=np.float64)
            ref_rate = m_ref / (time.perf_counter() - start)
            if not np.allclose(expected, ours[:m_ref], rtol=0, atol=1e-12):
                raise SystemExit(f"{name}: differs from its reference by {np.abs(expected - ours[:m_ref]).max()}")
        start = time.perf_counter()
        (pooled,) = score_columns([metric], hyps, refs, workers=w, align=preds.k)
        pool_rate = n / (time.perf_counter() - start)
        if pooled.tobytes() != ours.tobytes():
            raise SystemExit(f"{name}: workers={w} differs from workers=1")
        print(f"{name:12s} {ref_rate:12.0f} {ours_rate:12.0f} {ours_rate / ref_rate:6.1f} {pool_rate:12.0f} "
              f"{pool_rate / ref_rate:6.1f}", flush=True)
    start = time.perf_counter()
    one = score_columns(metrics, hyps, refs, workers=1, align=preds.k)
    t1 = time.perf_counter() - start
    start = time.perf_counter()
    many = score_columns(metrics, hyps, refs, workers=w, align=preds.k)
    tw = time.perf_counter() - start
    same = all(a.tobytes() == b.tobytes() for a, b in zip(one, many))
    print(f"all {len(metrics)} NL metrics: w=1 {t1:.1f} s, w={w} {tw:.1f} s ({t1 / tw:.2f}x); "
          f"byte-identical: {same}")


if __name__ == "__main__":
    main()
