"""Secret detection (revmine.dataset.secret_scan) on real code: the shared fixtures' code revisions (no secret
expected: every hit is a false positive) with secrets of the documented shapes planted in some files.

Prints precision and recall, and the scan's time per 10,000 files (median and spread of 3 runs) next to reading
the same files as JSON (the reference measured in the same run).
    PYTHONPATH=. python3 benchmarks/bench_secrets.py
"""

from __future__ import annotations

import json
import random
import statistics
import time
from pathlib import Path

from revmine.dataset.secret_scan import SecretScanner

FIXTURE = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "code_revisions" / "revisions.jsonl"
#: one of each documented shape (AWS's own example key, GitHub/GitLab/Slack tokens, a PEM header, a URL password)
SHAPES = ['"AKIAIOSFODNN7EXAMPLE"', "ghp_" + "Zq8wX3" * 6, "glpat-" + "A1b2C3d4E5f6G7h8I9j0",
          "xoxb-" + "123456789012-123456789012-" + "abcdefghijABCDEFGHIJklmn",
          "-----BEGIN RSA PRIVATE KEY-----", "https://deploy:Tr0ub4dor3@ci.example.org/repo.git"]


def main() -> None:
    texts = [json.loads(line)["before"] for line in FIXTURE.read_text(encoding="utf-8").splitlines()]
    rng = random.Random(0)
    planted = {}
    for i in rng.sample(range(len(texts)), len(SHAPES) * 5):
        planted[i] = SHAPES[len(planted) % len(SHAPES)]
        lines = texts[i].splitlines()
        lines.insert(rng.randrange(len(lines) + 1), f"token = {planted[i]}")
        texts[i] = "\n".join(lines)
    scanner = SecretScanner()
    flagged = {i for i, text in enumerate(texts) if scanner.find(text)}
    tp = len(flagged & planted.keys())
    print(f"{len(texts)} files, {len(planted)} planted: precision {tp / max(len(flagged), 1):.3f}, "
          f"recall {tp / len(planted):.3f}, false positives {len(flagged - planted.keys())}")
    lines = FIXTURE.read_text(encoding="utf-8").splitlines()
    scan, read = [], []
    for _ in range(3):
        start = time.perf_counter()
        for text in texts:
            scanner.find(text)
        scan.append((time.perf_counter() - start) * 10_000 / len(texts))
        start = time.perf_counter()
        for line in lines:
            json.loads(line)
        read.append((time.perf_counter() - start) * 10_000 / len(texts))
    for label, runs in (("scan", scan), ("reference: json.loads", read)):
        print(f"{label}: {statistics.median(runs):.2f} s per 10,000 files (spread {max(runs) - min(runs):.2f} s)")


if __name__ == "__main__":
    main()
