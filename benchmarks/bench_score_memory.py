"""Peak memory of ``revmine score`` at N and 4N predictions, this code against a baseline revision measured in
the same run (issue 9: "memory that does not grow with the corpus where it need not").

    python benchmarks/bench_score_memory.py [--copies 1] [--repeat 3] [--baseline 5527920]

The predictions are the k=10 file of Tufano et al. (1,719 examples, 17,190 predictions) written as JSON Lines
``--copies`` times (N) and 4 times that (4N), every copy with ids of its own (``{copy}-{example}``) and
identifiers of its own (``VAR_1`` is ``VAR1_1`` in copy 1), so that no pair repeats (a metric computes a
repeated pair of its batch once, which would flatter the code that holds the whole file as one batch) while
every copy parses and scores as the first; scored with the default code metrics (BLEU, Levenshtein, SED,
TREED) into an output folder. Each (revision, size) runs ``revmine score`` in a fresh process that reports
its own peak resident set (``memory.peak_mib``: ``VmHWM``, not ``ru_maxrss``, which Linux carries over an
exec from the parent); the baseline runs from a ``git worktree`` of ``--baseline`` on PYTHONPATH.
Reported: median and spread (min-max) of ``--repeat`` runs, and the growth per prediction,
(peak at 4N - peak at N) / 3N, which is what the corpus size costs. Both revisions' outputs are checked:
summary.json byte for byte, scores.parquet column for column (NaN for NaN; the row groups differ).

Measured 2026-11-25 on the 2-core machine shared with other jobs, 3 runs each, N = 17,190; the baseline is
main's head before streaming (5527920), which held every prediction, reference and score row at once:

    peak MiB, median (min-max)   17,190 predictions   68,760 predictions   growth per prediction   s at 4N
    baseline 5527920             398 (398-440)        640 (640-655)        4,916 bytes             19.4
    this code                    399 (399-400)        418 (418-419)          385 bytes             18.4

with the same summary.json and rows in both revisions at both sizes. What still grows is what the summary
needs: each metric's score (6 columns of 8 bytes), the exact flag and the rank-1 BLEU statistics, about
60 bytes a prediction; the rest of the 385 is not attributed. What does not grow is most of either peak: a
run of 1,800 predictions peaks at 347 MiB, of which the imports are 129 MiB.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from memory import baseline_worktree, growth_line, peak_mib, runs_by_revision  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT.parent / "shared" / "fixtures" / "tufano2021" / "predictions" / "1-encoder_k10_abstracted.txt"
PER_COPY = 17_190
IDENTIFIER = re.compile(r"\b(VAR|METHOD|TYPE|STRING|CHAR|INT|FLOAT|ANNOTATION)_")  # the abstraction's placeholders


def write_predictions(dest: Path, copies: int) -> None:
    """The fixture's examples ``copies`` times as JSON Lines, each copy with ids and identifiers of its own."""
    from revmine.metrics.predictions import read_predictions

    preds = read_predictions(FIXTURE)
    with open(dest, "w", encoding="utf-8") as out:
        for copy in range(copies):
            own = (lambda text: text) if copy == 0 else (lambda text: IDENTIFIER.sub(rf"\g<1>{copy}_", text))
            for i, (beam, ref) in enumerate(zip(preds.predictions, preds.references)):
                out.write(json.dumps({"id": f"{copy}-{i}", "predictions": [own(h) for h in beam],
                                      "reference": own(ref)}) + "\n")


def run_score(data: Path, out: Path) -> dict:
    """``revmine score`` in this process (the revision on PYTHONPATH); seconds and peak MiB (VmHWM)."""
    from revmine.cli import main

    started = time.perf_counter()
    if main(["score", "-q", str(data), "--out", str(out)]) != 0:
        raise SystemExit(f"revmine score {data} failed")
    return {"seconds": time.perf_counter() - started, "mib": peak_mib()}


def child(root: Path, data: Path, out: Path) -> dict:
    """``run_score`` in a fresh process importing revmine from ``root``; the summary goes to /dev/null."""
    done = subprocess.run([sys.executable, __file__, "--one", str(data), str(out)], check=True,
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(root)},
                          cwd=str(root))
    return json.loads(done.stdout.strip().splitlines()[-1])


def same_outputs(a: Path, b: Path) -> bool:
    """summary.json byte for byte (bar the source path, which names the same file) and the score rows."""
    import pyarrow.parquet as pq

    ta, tb = pq.read_table(a / "scores.parquet"), pq.read_table(b / "scores.parquet")
    rows = ta.schema.equals(tb.schema) and all(
        x.to_numpy().tobytes() == y.to_numpy().tobytes() if x.type == "double" else x.equals(y)
        for x, y in zip(ta.columns, tb.columns))  # NaN (TREED where code does not parse) defeats Table.equals
    return rows and (a / "summary.json").read_bytes() == (b / "summary.json").read_bytes()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=1, help="copies of the k=10 file in N (4N has 4 times as many)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--baseline", default="5527920", help="revision to compare with (before streaming)")
    parser.add_argument("--one", nargs=2, help=argparse.SUPPRESS)  # child: DATA OUT, JSON on stdout
    args = parser.parse_args()
    if args.one:
        sys.stdout = open(os.devnull, "w")  # the summary revmine prints; the figures go to the real stdout
        figures = run_score(*map(Path, args.one))
        sys.stdout = sys.__stdout__
        print(json.dumps(figures))
        return
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        with baseline_worktree(ROOT, args.baseline, tmp / "baseline") as base:
            sizes = (args.copies * PER_COPY, 4 * args.copies * PER_COPY)
            for n in sizes:
                write_predictions(tmp / f"predictions-{n}.jsonl", n // PER_COPY)
            revisions = {f"baseline {args.baseline}": base, "this code": ROOT}
            runs = runs_by_revision(revisions, list(sizes), args.repeat, lambda root, n, tag: child(
                root, tmp / f"predictions-{n}.jsonl", tmp / tag))
            for n in sizes:
                ok = same_outputs(tmp / f"baseline-{n}-0", tmp / f"this-{n}-0")
                print(f"{n:>9,} predictions: same summary.json and rows in both revisions: {ok}")
            print(f"peak resident memory (VmHWM), MiB: median (spread) of {args.repeat} runs; growth per prediction = "
                  f"(peak at {sizes[1]:,} - peak at {sizes[0]:,}) / {sizes[1] - sizes[0]:,}")
            for name in revisions:
                peaks = {n: [run["mib"] for run in runs[(name, n)]] for n in sizes}
                seconds = [run["seconds"] for run in runs[(name, sizes[1])]]
                print(f"{name:>18}: " + growth_line(peaks, seconds, "prediction"))

if __name__ == "__main__":
    main()
