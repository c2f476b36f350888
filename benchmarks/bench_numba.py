"""What numba earns for its ~200 MB: each compiled kernel beside its uncompiled alternative, in one run.

    python benchmarks/bench_numba.py [--repeat 5] [--pairs 2000]

On the 2021 replication package's 1-encoder k=10 predictions (17,190 abstracted Java pairs):

* **tree edit distance** (TREED's Zhang-Shasha, ``metrics/_ted.py``): the compiled kernel beside the very
  same function run by CPython, on the trees of the first ``--pairs`` pairs that both parse (parsing is
  not counted: it is the same for both), and TREED end to end (parse, trees, distances) for scale;
* **token Levenshtein** (``metrics/_levenshtein.py``): the compiled kernel from the strings beside
  rapidfuzz on ``str.split()`` lists, which is what ``edit.py`` uses without numba (same values);
* **TER's edits with shifts** (``metrics/_ter.py``): the compiled search beside sacrebleu's own
  ``translation_edit_rate``, which ``text.Ter`` uses without numba (same values), on 1,000 distinct pairs;
* **the cost**: numba's and llvmlite's size on disk, ``import numba`` in a fresh interpreter, and the first
  call of each kernel in a fresh interpreter (loading the on-disk cache, or compiling after an install).

Each figure is the median of ``--repeat`` runs with the min-max spread; the compiled and uncompiled runs
alternate so that a busy machine slows both alike.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

import numpy as np
from rapidfuzz.distance import Levenshtein as RapidfuzzLevenshtein

from revmine.metrics import _levenshtein, _ted, _ter
from revmine.metrics.predictions import read_predictions
from revmine.metrics.tree import TreeEditDistance, _parse

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT.parent / "shared" / "fixtures" / "tufano2021" / "predictions" / "1-encoder_k10_abstracted.txt"


def timed(repeat: int, **runs: Callable[[], object]) -> dict[str, list[float]]:
    """Seconds of each run, ``repeat`` times, the runs interleaved."""
    seconds: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeat):
        for name, function in runs.items():
            start = time.perf_counter()
            function()
            seconds[name].append(time.perf_counter() - start)
    return seconds


def rate(seconds: list[float], items: int) -> str:
    """``items`` per second: median (min-max) over the runs."""
    rates = sorted(items / s for s in seconds)
    return f"{statistics.median(rates):>10,.0f} /s ({rates[0]:,.0f}-{rates[-1]:,.0f})"


def fresh(code: str, repeat: int) -> str:
    """Median (min-max) seconds of ``code`` run in a new interpreter, measured inside it."""
    runs = []
    for _ in range(repeat):
        out = subprocess.run([sys.executable, "-c", "import time; s = time.perf_counter(); " + code
                              + "; print(time.perf_counter() - s)"], capture_output=True, text=True, check=True)
        runs.append(float(out.stdout.split()[-1]))
    runs.sort()
    return f"{statistics.median(runs):.2f} s ({runs[0]:.2f}-{runs[-1]:.2f})"


def size_mb(module: str) -> float:
    path = Path(__import__(module).__file__).parent
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--pairs", type=int, default=2000, help="tree pairs for the compiled kernel")
    parser.add_argument("--file", type=Path, default=FIXTURE)
    args = parser.parse_args()
    hyps, refs = read_predictions(args.file).flat()
    print(f"{args.file.name}: {len(hyps):,} pairs")

    vocabulary: dict[str, int] = {}
    trees = []
    for hyp, ref in zip(hyps, refs):
        a, b = _parse(hyp, True, True).ast, _parse(ref, True, True).ast
        if a is not None and b is not None and hyp != ref:
            trees.append(tuple(_ted.PostorderTree.build([vocabulary.setdefault(x, len(vocabulary)) for x in t.labels],
                                                        t.leftmost) for t in (a, b)))
        if len(trees) == args.pairs:
            break
    compiled = _ted.kernel()
    python_pairs = trees[: max(1, len(trees) // 20)]  # CPython is ~100x slower: a twentieth gives the rate

    def ted(function: Callable[..., int], pairs: list) -> Callable[[], object]:
        return lambda: [function(a.leftmost, a.keyroots, a.labels, b.leftmost, b.keyroots, b.labels) for a, b in pairs]

    assert ted(compiled, python_pairs)() == ted(_ted.zhang_shasha, python_pairs)()  # same values
    seconds = timed(args.repeat, numba=ted(compiled, trees), python=ted(_ted.zhang_shasha, python_pairs))
    end_to_end = timed(max(1, args.repeat // 2), treed=lambda: TreeEditDistance().sentence_scores(hyps[:3000], refs[:3000]))
    mean_nodes = np.mean([a.size + b.size for a, b in trees]) / 2
    print(f"\ntree edit distance, kernel only ({len(trees):,} pairs, {mean_nodes:.0f} nodes a tree):")
    print(f"  numba        {rate(seconds['numba'], len(trees))}")
    print(f"  CPython      {rate(seconds['python'], len(python_pairs))}   (same function, same values)")
    numba_s = statistics.median(seconds["numba"]) / len(trees)
    python_s = statistics.median(seconds["python"]) / len(python_pairs)
    treed_s = statistics.median(end_to_end["treed"]) / 3000
    print(f"  TREED end to end with numba {rate(end_to_end['treed'], 3000)} (3,000 pairs: parse + trees + TED); "
          f"with the CPython kernel it would be about {1 / (treed_s - numba_s + python_s):,.0f} /s")

    hyp_tokens_split = lambda: [RapidfuzzLevenshtein.distance(a.split(), b.split()) for a, b in zip(hyps, refs)]
    seconds = timed(args.repeat, numba=lambda: _levenshtein.token_distances(hyps, refs), rapidfuzz=hyp_tokens_split)
    print(f"\ntoken Levenshtein ({len(hyps):,} pairs, from the strings):")
    print(f"  numba        {rate(seconds['numba'], len(hyps))}")
    print(f"  rapidfuzz    {rate(seconds['rapidfuzz'], len(hyps))}   (on str.split() lists: the fallback)")

    from sacrebleu.metrics import TER, lib_ter

    tokenise = TER()._preprocess_segment
    pairs = list(dict.fromkeys(zip(hyps, refs)))[:1000]
    words = {s: tokenise(s).split() for pair in pairs for s in pair}
    vocabulary: dict[str, int] = {}
    ids = {s: [vocabulary.setdefault(w, len(vocabulary)) for w in ws] for s, ws in words.items()}
    few = pairs[:100]  # sacrebleu's search is ~20x slower: a tenth gives the rate
    assert [_ter.translation_edit_rate(ids[h], ids[r]) for h, r in few] == \
        [lib_ter.translation_edit_rate(words[h], words[r]) for h, r in few]  # same values
    seconds = timed(args.repeat, numba=lambda: [_ter.translation_edit_rate(ids[h], ids[r]) for h, r in pairs],
                    sacrebleu=lambda: [lib_ter.translation_edit_rate(words[h], words[r]) for h, r in few])
    print(f"\nTER edits with shifts ({len(pairs):,} distinct pairs, tercom words):")
    print(f"  numba        {rate(seconds['numba'], len(pairs))}")
    print(f"  sacrebleu    {rate(seconds['sacrebleu'], len(few))}   (its pure-Python search: the fallback)")

    print("\nthe cost:")
    print(f"  on disk      numba {size_mb('numba'):.0f} MB + llvmlite {size_mb('llvmlite'):.0f} MB")
    print(f"  import numba {fresh('import numba', args.repeat)} in a fresh interpreter")
    print("  first call   " + fresh("from revmine.metrics import _ted; import numpy as n; a = _ted.PostorderTree.build([0], [0]); "
                                    "_ted.tree_edit_distance(a, a)", args.repeat) + " TED kernel (cache load)")
    print("  first call   " + fresh("from revmine.metrics import _levenshtein; _levenshtein.token_distances(['a b'], ['a c'])",
                                    args.repeat) + " Levenshtein kernel (cache load)")


if __name__ == "__main__":
    main()
