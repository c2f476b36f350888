"""Throughput of the natural-language metrics.

    python benchmarks/bench_nl_metrics.py [--ref-pairs 3000] [--workers 2] [--file F]
    python benchmarks/bench_nl_metrics.py --corpus messages [--pairs 45000] [--baseline main] [--repeats 3]

Two corpora:

* ``tufano`` (default): Tufano et al.'s 1-encoder k=10 predictions, 17,190 (prediction, oracle) pairs;
  each oracle repeats 10 times (one beam).
* ``messages``: commit-message-like pairs for issue 12's target (the default NL set on 45,000 commit
  messages in <= 15 s on one core). The issue's 45,000 MCMD messages are not available offline, so the
  pairs are built from real short texts we have: the 1,719 reviewer comments of the Tufano et al. test
  split (``shared/fixtures/tufano2021/test.csv``, median 11 words) and the 200 commit messages of the 100
  pairs judged in Dey et al. 2022 (``tests/data/cmg2022/human_annotations.csv``, median 6 words): 1,886
  distinct strings. The 100 judged pairs come first; then, with a fixed seed, a random string is paired
  with a random string sharing one of its words (half the pairs, so that pairs overlap as a generated
  message overlaps its reference) or with any random string, keeping only unseen pairs: all ``--pairs``
  pairs are distinct, so per-distinct-pair caches do not help, while each string recurs (about 48 times)
  as real hypotheses and references do not; per-string caches (tokens, n-grams) therefore help more
  here than on 45,000 distinct messages.

For every NL metric of ``registry.DEFAULTS["nl"]`` it prints pairs/s of:

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

``--baseline REV`` (e.g. ``main`` before a change, or a commit) then times the whole set at w=1 (one core) in
fresh processes, alternately for this tree and for ``git archive REV``, ``--repeats`` times
each: the ``score_columns`` call after a 20-pair warm-up (imports, WordNet and numba's cached kernels
loaded), wall-clock and its CPU time (what the call costs when the core is not shared), and the
whole process, wall-clock. It prints medians and ranges side by side and checks that both trees
give byte-identical scores.

Measured on the 2-core machine shared with about 5 other busy processes (load 4-5), so wall-clock
times carry waiting for the core; the CPU times are steady. ``--set-only --baseline 08bd132`` (main
before issue 12's chrF/METEOR work), 3 alternating fresh processes each, median [min-max]:

* ``--corpus messages`` (45,000 distinct pairs): ``score_columns`` 8.1 s [7.3-8.8], CPU 5.9 s [5.9-6.0],
  whole process 11.1 s [10.7-11.9]; 08bd132: 18.1 s [15.9-21.4], CPU 11.8 s [11.8-15.1], process 22.1 s
  [19.3-29.5]. Scores byte-identical.
* ``--corpus tufano`` (17,190 pairs): 12.1 s [10.9-14.2], CPU 8.4 s [8.4-8.5], process 16.6 s
  [14.7-18.2]; 08bd132: 21.7 s [13.7-24.0], CPU 14.1 s [13.4-16.4], process 26.7 s [16.4-34.9].
  Scores byte-identical.
"""

from __future__ import annotations

import argparse
import csv
import os
import pickle
import random
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from nltk.stem.porter import PorterStemmer  # noqa: E402

from revmine.metrics.meteor import _synonym_lookup, align, meteor_from_alignment  # noqa: E402
from revmine.metrics.predictions import read_predictions  # noqa: E402
from revmine.metrics.registry import DEFAULTS, make_metric  # noqa: E402
from revmine.metrics.score import score_columns  # noqa: E402
from revmine.metrics.wordnet import load_wordnet  # noqa: E402

FIXTURE = ROOT.parent / "shared" / "fixtures" / "tufano2021" / "predictions" / "1-encoder_k10_abstracted.txt"
COMMENTS = ROOT.parent / "shared" / "fixtures" / "tufano2021" / "test.csv"
JUDGED = ROOT / "tests" / "data" / "cmg2022" / "human_annotations.csv"


def message_pairs(n: int, seed: int = 12, related: float = 0.5) -> tuple[list[str], list[str]]:
    """``n`` distinct commit-message-like (hypothesis, reference) pairs (see the module docstring)."""
    with open(COMMENTS, newline="", encoding="utf-8") as f:
        comments = [row["comment"] for row in csv.DictReader(f)]
    with open(JUDGED, newline="", encoding="utf-8") as f:
        judged = [(row[0], row[1]) for row in csv.reader(f)]
    strings = list(dict.fromkeys(comments + [s for pair in judged for s in pair]))
    sharing: dict[str, list[str]] = {}
    for s in strings:
        for word in set(s.lower().split()):
            sharing.setdefault(word, []).append(s)
    rng = random.Random(seed)
    pairs = dict.fromkeys(judged[:n])
    while len(pairs) < n:
        hyp = rng.choice(strings)
        ref = rng.choice(sharing[rng.choice(hyp.lower().split())]) if rng.random() < related else rng.choice(strings)
        pairs.setdefault((hyp, ref))
    return [h for h, _ in pairs], [r for _, r in pairs]


#: Run in a fresh process (one core: w=1, numba's kernels are serial): the whole NL set from the tree at
#: argv[1] on the pickled pairs of argv[2]; timings and scores go to argv[3].
_CHILD = """
import os, pickle, sys, time
start = time.perf_counter()
sys.path.insert(0, sys.argv[1])
from revmine.metrics.registry import DEFAULTS, make_metric
from revmine.metrics.score import score_columns
hyps, refs = pickle.load(open(sys.argv[2], "rb"))
metrics = [make_metric(name) for name in DEFAULTS["nl"]]
score_columns(metrics, hyps[:20], refs[:20], workers=1)
t, cpu = time.perf_counter(), time.process_time()
out = score_columns(metrics, hyps, refs, workers=1)
end, cpu = time.perf_counter(), time.process_time() - cpu
pickle.dump((end - t, cpu, end - start, [v.tobytes() for v in out]), open(sys.argv[3], "wb"))
"""


def compare_baseline(rev: str, hyps: list[str], refs: list[str], repeats: int) -> None:
    """Whole NL set at w=1, one core, fresh processes: this tree against ``git archive rev``, alternating."""
    with tempfile.TemporaryDirectory(prefix="bench-nl-") as tmp:
        base = Path(tmp) / "base"
        base.mkdir()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "revmine"], check=True,
                                 capture_output=True).stdout
        (Path(tmp) / "base.tar").write_bytes(archive)
        with tarfile.open(Path(tmp) / "base.tar") as tar:
            tar.extractall(base)
        corpus = Path(tmp) / "pairs.pkl"
        corpus.write_bytes(pickle.dumps((hyps, refs)))
        times: dict[str, list[tuple[float, float, float]]] = {"this tree": [], rev: []}
        scores: dict[str, list[bytes]] = {}
        for _ in range(repeats):
            for label, root in (("this tree", ROOT), (rev, base)):
                result = Path(tmp) / "result.pkl"
                subprocess.run([sys.executable, "-c", _CHILD, str(root), str(corpus), str(result)], check=True,
                               env={**os.environ, "PYTHONPATH": str(root)})
                *seconds, values = pickle.loads(result.read_bytes())
                times[label].append(tuple(seconds))
                scores[label] = values
    print(f"whole NL set ({len(DEFAULTS['nl'])} metrics), w=1 on one core, {len(hyps)} pairs "
          f"({len(set(zip(hyps, refs)))} distinct), {repeats} fresh processes each, median [min-max]:")
    for label, runs in times.items():
        cells = [f"{what} {statistics.median(v):5.1f} s [{min(v):.1f}-{max(v):.1f}]"
                 for what, v in zip(("score_columns", "its CPU time", "whole process"), zip(*runs))]
        print(f"  {label:10s} " + "   ".join(cells))
    speedup = statistics.median(t[0] for t in times[rev]) / statistics.median(t[0] for t in times["this tree"])
    print(f"  score_columns speed-up {speedup:.2f}x; byte-identical scores: {scores['this tree'] == scores[rev]}")


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
        # stems and synonym sets cached per word anew (ours are shared by the process), as each metric did
        stem = lru_cache(maxsize=None)(PorterStemmer().stem)
        synonyms = _synonym_lookup.__wrapped__(load_wordnet().reader) if metric.synonyms_used else None

        def per_pair(h, r):  # Meteor.sentence_scores before the batch caches: no caches, every pair
            hyp, ref = metric.tokens(h), metric.tokens(r)
            aligned = align(hyp, ref, stem, synonyms, metric.alignment)
            return meteor_from_alignment(aligned, len(hyp), len(ref), metric.parameters, metric.exemption)
        return per_pair
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", choices=["tufano", "messages"], default="tufano")
    parser.add_argument("--file", type=Path, default=FIXTURE, help="predictions file of --corpus tufano")
    parser.add_argument("--pairs", type=int, default=45000, help="pairs of --corpus messages")
    parser.add_argument("--baseline", help="git revision to time the whole set against (see above)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--set-only", action="store_true", help="only the whole-set comparison with --baseline")
    parser.add_argument("--ref-pairs", type=int, default=3000, help="pairs for the per-pair reference (0: all)")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    if args.set_only and not args.baseline:
        parser.error("--set-only needs --baseline")
    if args.corpus == "tufano":
        preds = read_predictions(args.file)
        hyps, refs = preds.flat()
        name, k = args.file.name, preds.k
    else:
        hyps, refs = message_pairs(args.pairs)
        name, k = "commit-message-like pairs", 1
    if args.set_only:
        compare_baseline(args.baseline, hyps, refs, args.repeats)
        return
    n, w = len(hyps), args.workers
    m_ref = n if args.ref_pairs <= 0 else min(n, args.ref_pairs)
    print(f"{name}: {n} pairs ({len(set(zip(hyps, refs)))} distinct), {len(set(refs))} distinct references, "
          f"k={k}; reference on {m_ref} pairs")
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
        (pooled,) = score_columns([metric], hyps, refs, workers=w, align=k)
        pool_rate = n / (time.perf_counter() - start)
        if pooled.tobytes() != ours.tobytes():
            raise SystemExit(f"{name}: workers={w} differs from workers=1")
        print(f"{name:12s} {ref_rate:12.0f} {ours_rate:12.0f} {ours_rate / ref_rate:6.1f} {pool_rate:12.0f} "
              f"{pool_rate / ref_rate:6.1f}", flush=True)
    start = time.perf_counter()
    one = score_columns(metrics, hyps, refs, workers=1, align=k)
    t1 = time.perf_counter() - start
    start = time.perf_counter()
    many = score_columns(metrics, hyps, refs, workers=w, align=k)
    tw = time.perf_counter() - start
    same = all(a.tobytes() == b.tobytes() for a, b in zip(one, many))
    print(f"all {len(metrics)} NL metrics: w=1 {t1:.1f} s, w={w} {tw:.1f} s ({t1 / tw:.2f}x); "
          f"byte-identical: {same}")
    if args.baseline:
        compare_baseline(args.baseline, hyps, refs, args.repeats)


if __name__ == "__main__":
    main()
