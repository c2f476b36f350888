"""``revmine browse`` on a million rows (issue 30: "stays fast on a million rows; the page must not load them
all"): the time its server takes to answer the first page, the page at row 999,000 and a text search, and its
peak memory, beside reading the same file whole with pyarrow, measured in the same run.

    python benchmarks/bench_browser.py [--rows 1000000] [--repeat 5]

The run folder is synthetic (a speed benchmark needs the size, not real reviews): ``splits/train.parquet`` holds
ROWS triplets of the dataset schema, written as the split stage writes it (row groups of 10,000 rows), their
texts drawn from a pool of 2,000 method-sized m_s/m_r texts and comments, one comment in 100 holding the word
searched for; eval and test hold 1,000 rows each. Each repeat starts a fresh process that serves the folder
(``make_server``) and asks, over HTTP as the page does: the levels and their splits' sizes (what the page asks
first: the views of each level and split are counted then, a pass over the ``kind`` column, and pyarrow's compute
functions are loaded, about a second once per process), the first page of train's triplets, the page at offset 999,000 (the view cached: one row group read), a search
of every searched column for the word (one pass over those columns), and the search's last page. The reference,
in another fresh process, is ``pq.read_table`` of the whole file: what a browser holding every row would pay
before showing any. Reported: median and spread (min-max) of the repeats, and each process's peak RSS.

Measured 2026-11-28 on the 2-core machine shared with other jobs, 5 repeats, 1,000,000 rows (117 MiB of Parquet;
9,912 hits): levels 0.70 s (0.54-0.77), first page 0.035 s (0.025-0.043), page at 999,000 0.033 s (0.024-0.064),
search 2.24 s (1.99-2.36), the search's last page 0.033 s (0.024-0.047); peak 280 MiB (273-298). Reference:
``pq.read_table`` of the file 3.85 s (3.46-6.46), peak 3,789 MiB (3,766-3,812).
With the sort and the length range (3 repeats, the same day): a sort of every row by the length of m_s_abstract
5.28 s (4.95-5.40: every text split into tokens once, then the view is cached), a range of comment lengths 1.39 s
(1.35-1.39), peak 286 MiB (283-292); ``pq.read_table`` of the file 4.19 s, 3,784 MiB.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from memory import peak_mib  # noqa: E402
from revmine.io.store import ROW_GROUP_ROWS, RowGroupWriter  # noqa: E402
from revmine.schema import DATASET_SCHEMA  # noqa: E402

WORD = "frobnicate"
POOL = 2_000
CHUNK = 100_000

_CHILD = r"""
import json, sys, threading, time, urllib.request
sys.path.insert(0, sys.argv[1])
from benchmarks.memory import peak_mib
run, what = sys.argv[2], sys.argv[3]
times = {}
if what == "reference":
    import pyarrow.parquet as pq
    start = time.perf_counter()
    table = pq.read_table(run + "/splits/train.parquet")
    times["read whole file"] = time.perf_counter() - start
else:
    from revmine.report.browser import make_server
    server = make_server(run, 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    root = f"http://127.0.0.1:{server.server_address[1]}/api/"
    def ask(label, query, path="rows?level=triplets&split=train"):
        start = time.perf_counter()
        with urllib.request.urlopen(root + path + query, timeout=600) as response:
            page = json.loads(response.read())
        times[label] = time.perf_counter() - start
        return page
    ask("levels", "", "levels")
    first = ask("first page", "&offset=0&limit=25")
    far = ask("page at 999,000", "&offset=999000&limit=25")
    found = ask("search", f"&q={sys.argv[4]}&offset=0&limit=25")
    ask("search, last page", f"&q={sys.argv[4]}&offset={found['total'] - 25}&limit=25")
    ask("sort by length", "&sort=tokens:m_s_abstract&desc=1&offset=0&limit=25")
    ask("length range", "&len=comment&min=15&offset=0&limit=25")
    times["rows"], times["found"], times["far rows"] = first["total"], found["total"], len(far["rows"])
    server.shutdown()
print(json.dumps({"times": times, "peak_mib": peak_mib()}))
"""


def build(run: Path, rows: int) -> Path:
    """A run folder whose train split has ``rows`` synthetic triplets (eval and test 1,000 each)."""
    rng = np.random.default_rng(0)
    words = np.array("public void int return if else for while String list get set value null this new final "
                     "count items name result".split())
    code = pa.array([f"void m{i}() {{ " + " ".join(rng.choice(words, 60)) + " }" for i in range(POOL)],
                    pa.large_string())
    comments = pa.array([(f"please {WORD} this " if i % 100 == 0 else "please ") + " ".join(rng.choice(words, 12))
                         for i in range(POOL)])
    (run / "splits").mkdir(parents=True)
    for split, n in (("train", rows), ("eval", 1_000), ("test", 1_000)):
        with RowGroupWriter(run / "splits" / f"{split}.parquet", DATASET_SCHEMA, ROW_GROUP_ROWS) as sink:
            for start in range(0, n, CHUNK):
                size = min(CHUNK, n - start)
                pick = pa.array(rng.integers(0, POOL, size))
                index = np.arange(start, start + size)
                columns = {}
                for f in DATASET_SCHEMA:
                    if f.name in ("m_s", "m_r", "m_s_abstract", "m_r_abstract", "m_s_marked", "abstraction_map"):
                        columns[f.name] = pc.take(code, pick).cast(f.type)
                    elif f.name in ("comment", "comment_abstract"):
                        columns[f.name] = pc.take(comments, pick).cast(f.type)
                    elif f.name in ("id", "cluster_id", "round_id", "change", "comment_id"):
                        columns[f.name] = pa.array(np.char.add(f"{split}-", index.astype(str)), f.type)
                    elif pa.types.is_integer(f.type):
                        columns[f.name] = pa.array(index % 500, f.type)
                    elif pa.types.is_boolean(f.type):
                        columns[f.name] = pa.array(index % 2 == 0)
                    else:
                        columns[f.name] = pa.array(np.full(size, {
                            "split": split, "kind": "triplet", "source": "gerrit", "language": "java",
                            "match_rule": "signature", "comment_author_kind": "human"}.get(f.name, "x")), f.type)
                columns["project"] = pa.array(np.char.add("project-", (index % 20).astype(str)))
                sink.write(pa.table(columns))
    return run


def child(run: Path, what: str) -> dict:
    done = subprocess.run([sys.executable, "-c", _CHILD, str(ROOT), str(run), what, WORD], check=True,
                          capture_output=True, text=True)
    return json.loads(done.stdout)


def line(label: str, values: list[float], unit: str = "s") -> str:
    return f"  {label:<22} {statistics.median(values):8.3f} {unit} ({min(values):.3f}-{max(values):.3f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        start = time.perf_counter()
        run = build(Path(scratch) / "run", args.rows)
        size = (run / "splits" / "train.parquet").stat().st_size
        print(f"{args.rows:,} rows in train.parquet ({size / 2**20:.0f} MiB), built in "
              f"{time.perf_counter() - start:.0f} s; {args.repeat} repeats, each a fresh process")
        served = [child(run, "browse") for _ in range(args.repeat)]
        reference = [child(run, "reference") for _ in range(args.repeat)]
    first = served[0]["times"]
    print(f"revmine browse (rows {first['rows']:,}, search hits {first['found']:,}, "
          f"rows at 999,000: {first['far rows']}):")
    for label in ("levels", "first page", "page at 999,000", "search", "search, last page", "sort by length",
                  "length range"):
        print(line(label, [s["times"][label] for s in served]))
    print(line("peak memory", [s["peak_mib"] for s in served], "MiB"))
    print("reference, pyarrow reading the whole file:")
    print(line("read whole file", [r["times"]["read whole file"] for r in reference]))
    print(line("peak memory", [r["peak_mib"] for r in reference], "MiB"))


if __name__ == "__main__":
    main()
