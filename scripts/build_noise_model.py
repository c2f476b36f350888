"""Rebuild the shipped default noise model, revmine/data/noise_model.npz, byte for byte.

Inputs: the 2021 test split in ../shared/fixtures/tufano2021/test.csv (real comments, read at build time,
never copied; their rubric labels by row in revmine/data/tufano2021_test_labels.csv: the change requests are
learnt, the rest is learnt as neither class), the real labelled comments of licensed sources
(revmine/data/comments_labelled.csv) and the synthetic noise but for the categories the rubric counts as
requests (revmine/data/review_comments_labelled.csv). What is learnt from what, and the figures that chose the
model and its threshold: revmine/data/LABELLING.md. The fit is seeded and the file is written without
timestamps or compression, so the same inputs give the same bytes (``--check`` verifies the shipped file
instead of writing it).

Usage: python scripts/build_noise_model.py [--fixtures DIR] [--out PATH] [--check]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from revmine.filters import classifier

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT.parent / "shared" / "fixtures" / "tufano2021"
SHIPPED = ROOT / "revmine" / classifier.MODEL_FILE


def rebuild(out: Path, fixtures: Path = FIXTURES) -> Path:
    """Fit the default model on the default training set and write it to ``out``."""
    return classifier.save(classifier.build_default_model(fixtures / "test.csv"), out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fixtures", type=Path, default=FIXTURES, help="folder holding test.csv")
    parser.add_argument("--out", type=Path, default=SHIPPED)
    parser.add_argument("--check", action="store_true", help="compare a rebuild with --out instead of writing it")
    args = parser.parse_args(argv)
    if not args.check:
        rebuild(args.out, args.fixtures)
        print(f"wrote {args.out} ({args.out.stat().st_size:,} bytes)")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        fresh = rebuild(Path(tmp) / "noise_model.npz", args.fixtures)
        same = fresh.read_bytes() == args.out.read_bytes()
    print(f"{args.out}: {'identical to a rebuild' if same else 'DIFFERS from a rebuild'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
