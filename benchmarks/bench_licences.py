"""Licence detection (revmine.miners.licences) against the licence each package declares, on the real licence
files of the packages installed here from PyPI (issue 26: at least 50 files, several licences).

The declared licence is the package's ``License-Expression`` metadata (PEP 639: an SPDX expression its authors
wrote), else its ``License`` field when that is a known SPDX id. A package agrees when the ids detected in its
licence files are the ids of its declared expression (an expression ``MIT OR Apache-2.0`` shipped as two files
agrees when both are found). Files identify does not recognise count as disagreements, and are listed.

    python benchmarks/bench_licences.py [--runs 3]

prints the agreement, what differs, and the time per file (median and spread of the runs) beside reading the
same files alone.
"""

from __future__ import annotations

import argparse
import importlib.metadata as md
import statistics
import time
from collections import Counter

from license_expression import ExpressionError, get_spdx_licensing

from revmine.miners.licences import is_licence_file, licence_of_text


def _declared(dist: md.Distribution) -> set[str] | None:
    """The licence ids a package declares (None: it declares nothing SPDX can parse)."""
    licensing = get_spdx_licensing()
    for field in ("License-Expression", "License"):
        text = (dist.metadata.get(field) or "").strip()
        if not text or "\n" in text:
            continue
        try:
            if licensing.validate(text).errors:
                continue
        except (ExpressionError, AttributeError):  # validate itself fails on some free text ("Apache License, 2.0")
            continue
        return {getattr(s, "license_symbol", s).key for s in licensing.license_symbols(licensing.parse(text))}
    return None


def _cases() -> list[tuple[str, set[str], list[str]]]:
    """(package, declared ids, texts of its licence files) of every installed package that has both."""
    cases, seen = [], set()
    for dist in md.distributions():
        name = dist.metadata["Name"]
        declared = _declared(dist)
        if declared is None or name.lower() in seen:
            continue
        files = [f for f in dist.files or [] if ".dist-info" in str(f) and is_licence_file(f.name)]
        texts = []
        for f in files:
            try:
                texts.append(f.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError):
                pass
        if texts:
            seen.add(name.lower())
            cases.append((name, declared, texts))
    return sorted(cases)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    cases = _cases()
    files = sum(len(texts) for _, _, texts in cases)
    licensing = get_spdx_licensing()
    agree, wrong, differ, per_licence = 0, 0, [], Counter()
    for name, declared, texts in cases:
        found = {licence_of_text(t) for t in texts} - {None}
        found = {licensing.parse(f).key for f in found}  # GPL-2.0 -> GPL-2.0-only, as the declaration is parsed
        per_licence[" AND ".join(sorted(declared))] += 1
        if found == declared:
            agree += 1
        else:
            wrong += bool(found - declared)  # a licence the package does not declare (not merely none found)
            differ.append(f"  {name}: declares {' '.join(sorted(declared))}, files give "
                          f"{' '.join(sorted(found)) or 'nothing recognised'}")
    print(f"{len(cases)} packages, {files} licence files, {len(per_licence)} declared licences: "
          + ", ".join(f"{k} {v}" for k, v in per_licence.most_common()))
    print(f"agreement: {agree}/{len(cases)} packages ({agree / len(cases):.1%}); a licence not declared found in "
          f"{wrong}; the rest recognise none or only part of the declared ones (NOASSERTION or fewer ids)")
    print("differ:", *differ, sep="\n")
    texts = [t for _, _, ts in cases for t in ts]
    detect, read = [], []
    for _ in range(args.runs):
        start = time.perf_counter()
        for t in texts:
            licence_of_text(t)
        detect.append((time.perf_counter() - start) / len(texts) * 1e3)
        start = time.perf_counter()
        for name, _, _ in cases:
            for f in md.distribution(name).files or []:
                if ".dist-info" in str(f) and is_licence_file(f.name):
                    f.locate().read_bytes()
        read.append((time.perf_counter() - start) / len(texts) * 1e3)
    print(f"ms per licence file: detection {statistics.median(detect):.2f} ({min(detect):.2f}-{max(detect):.2f}), "
          f"reading it alone {statistics.median(read):.3f} ({min(read):.3f}-{max(read):.3f}); once per distinct "
          "licence file of a project (cached by blob id)")


if __name__ == "__main__":
    main()
