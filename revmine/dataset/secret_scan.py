"""Secrets in exported rows (API keys, private keys, tokens, passwords in URLs), found by Yelp's detect-secrets.

Why its pattern plugins and not its entropy or keyword ones: those flag ordinary code (hashes, ``password = ...``
parameters) far too often for a dataset of code; the pattern plugins name a secret by its documented shape
(``AKIA...``, ``ghp_...``, ``-----BEGIN ... PRIVATE KEY-----``, ``https://user:pass@host``). A row whose raw
comment or code holds one is redacted (every copy of the value, in every text column, becomes
:data:`SECRET`) or dropped, as ``[export] secrets`` says; the counts go to the card and ``run.json``.
"""

from __future__ import annotations

import re
from collections import Counter

import pyarrow as pa
from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

__all__ = ["SECRET", "SecretScanner"]

SECRET = "<secret>"
#: the columns scanned: what people wrote (the abstracted ones are derived from them)
_SCANNED = ("comment", "m_s", "m_r")
_NOISY = ("Base64HighEntropyString", "HexHighEntropyString", "KeywordDetector", "IPPublicDetector")


class SecretScanner:
    """detect-secrets' pattern plugins over a batch's raw text; ``counts`` by secret type, rows and action."""

    def __init__(self) -> None:
        self._plugins = [cls() for cls in get_mapping_from_secret_type_to_class().values()
                         if cls.__name__ not in _NOISY]
        # Why a first pass over the whole text: the plugins answer line by line (about 23 plugins x every line of
        # m_s, m_r and the comment: 17 s per 10,000 rows of the 2021 split), and almost no row holds a secret.
        # Each plugin's own patterns, with ^ and $ at line ends, find in the whole text every match they find in
        # one of its lines (none is anchored to the text's start or end), so a text none matches is skipped.
        self._any = [re.compile(pattern.pattern, pattern.flags | re.MULTILINE)
                     for plugin in self._plugins for pattern in plugin.denylist]
        self.counts: Counter[str] = Counter()
        self.dropped: Counter[tuple[str, str]] = Counter()  # rows dropped per (kind, split)

    def find(self, text: str | None) -> dict[str, str]:
        """{text of a secret: its type} of the secrets in ``text`` (the whole text each pattern matched)."""
        found: dict[str, str] = {}
        if not text or not any(pattern.search(text) for pattern in self._any):
            return found
        for number, line in enumerate(text.splitlines(), 1):
            for plugin in self._plugins:
                for hit in plugin.analyze_line(filename="row", line=line, line_number=number):
                    # the plugin gives the first group of its pattern (a GitHub token's "ghp"): redact the whole match
                    for pattern in getattr(plugin, "denylist", ()):
                        for match in pattern.finditer(line):
                            if hit.secret_value and hit.secret_value in match.group(0):
                                found[match.group(0)] = hit.type
        return found

    def apply(self, batch: pa.RecordBatch, mode: str) -> pa.RecordBatch:
        """The batch with its secret-holding rows redacted or dropped (``mode``, one of :data:`.options.SECRET_MODES`)."""
        if mode == "off":
            return batch
        rows = batch.to_pylist()
        kept, changed = [], False
        for row in rows:
            found: dict[str, str] = {}
            for column in _SCANNED:
                found.update(self.find(row[column]))
            if found:
                changed = True
                self.counts["rows"] += 1
                self.counts.update(f"type:{kind}" for kind in found.values())
                if mode == "drop":
                    self.dropped[(row["kind"], row["split"])] += 1
                    continue
                for column, value in row.items():
                    if isinstance(value, str):
                        for secret in sorted(found, key=len, reverse=True):
                            value = value.replace(secret, SECRET)
                        row[column] = value
            kept.append(row)
        return pa.RecordBatch.from_pylist(kept, schema=batch.schema) if changed else batch
