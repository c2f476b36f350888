"""A project's licence at a commit, as an SPDX expression: the forge's own answer where it gives one, else the
licence files at the top of the commit's tree matched by pre-commit's ``identify`` (its ``license_id``: the
text without its copyright lines, compared with choosealicense.com's licences, exactly or within 5% edits).

Why per commit and not per project: a project can change its licence (Elasticsearch, Terraform, Redis did),
and a row's code is under the licence of the revision it comes from. Each licence file is matched once (by its
blob id), so the cost per round is one question to git for the commit's tree.

Values: an SPDX id, several joined with `` AND `` (a project shipping ``LICENSE-MIT`` and ``LICENSE-APACHE`` is
under both files' terms, which a ``permissive`` allowlist accepts alike); ``NOASSERTION`` (SPDX's word) when
licence files are there and none is recognised (a licence with an added clause, a NOTICE alone); None when the
commit has no licence file (or git does not have it).
"""

from __future__ import annotations

import os
import re
import tempfile

from identify.identify import license_id

from .git import GitRepo

__all__ = ["NOASSERTION", "LicenceReader", "is_licence_file", "licence_of_text"]

NOASSERTION = "NOASSERTION"
#: a line break before the words of a disclaimer that identify would take for a copyright notice
_DISCLAIMER_LINE = re.compile(r"\s*\n\s*(?=copyright\s+(?:holders?|owners?)\b)", re.IGNORECASE)
#: a line of dashes, equals signs, stars or underscores (4 or more) between sections of a licence file
_SEPARATOR = re.compile(r"^[ \t]*(?:-{4,}|={4,}|\*{4,}|_{4,})[ \t]*$", re.MULTILINE)
_PREAMBLE = 300  # characters: shorter sections are a sentence before the licence ("All contributions are MIT")
# the names licensee (GitHub's detector) looks for at a repository's root: LICENSE, LICENCE, COPYING, UNLICENSE,
# COPYRIGHT, with an extension or a suffix naming the licence (LICENSE-MIT, LICENSE.APACHE-2.0, COPYING.LESSER)
_LICENCE_FILE = re.compile(r"(?:un)?licen[cs]e|copying|copyright", re.IGNORECASE)


def is_licence_file(name: str) -> bool:
    """Whether a root file's name is a licence file's (``LICENSE``, ``LICENSE.md``, ``COPYING.LESSER``...)."""
    stem = re.split(r"[.\-_]", name, maxsplit=1)[0]
    return bool(_LICENCE_FILE.fullmatch(stem))


def licence_of_text(text: str) -> str | None:
    """The SPDX id of a licence text (None: not one identify knows).

    Two things identify does not do, each measured by benchmarks/bench_licences.py (the licence files of 132
    packages against their declared licences: 99 agreed with identify alone, 102 with the first, 108 with both,
    and a licence the package does not declare was found in 1, as before):

    * it drops every line that starts with "Copyright " to remove the notice, and a disclaimer wrapped so that a
      line starts "COPYRIGHT HOLDERS BE LIABLE" (MIT) or "COPYRIGHT HOLDERS AND CONTRIBUTORS" (the BSDs) loses
      that line with it, which is then more than 5% off: those lines are joined to the line before;
    * it compares the whole file, and a file often holds the project's licence and, after a line of dashes, the
      licences of code it bundles (pyarrow, scikit-learn's wheels), or a sentence and then the licence: when the
      whole does not match, the first section between such lines (after a preamble of fewer than 300 characters)
      is matched alone: the project's licence comes first, the bundled code's after it.
    """
    text = _DISCLAIMER_LINE.sub(" ", text)
    found = _identify(text)
    sections = _SEPARATOR.split(text)
    if found is None and len(sections) > 1:  # the first section longer than a sentence of preamble, alone
        first = next((section for section in sections if len(section.strip()) >= _PREAMBLE), "")
        found = _identify(first)
    return found


def _identify(text: str) -> str | None:
    """identify's ``license_id``, which reads a file by name: the text goes through a temporary one."""
    if not text.strip():
        return None
    fd, path = tempfile.mkstemp(prefix="revmine-licence-", suffix=".txt")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        return license_id(path)
    finally:
        os.unlink(path)


class LicenceReader:
    """The licence of a repository's commits; ``forge``: the forge's own answer, ``(path, blob id, SPDX id)``,
    used at every commit whose file at that path is that very blob."""

    def __init__(self, repo: GitRepo, forge: tuple[str, str, str] | None = None) -> None:
        self.repo = repo
        self.forge = forge
        self._by_blob: dict[str, str | None] = {}
        self._by_commit: dict[str, str | None] = {}

    def at(self, sha: str) -> str | None:
        """The licence at commit ``sha`` (see the module's values)."""
        if sha not in self._by_commit:
            self._by_commit[sha] = self._detect(sha)
        return self._by_commit[sha]

    def _detect(self, sha: str) -> str | None:
        files = self.repo.root_files(sha)
        if not files:
            return None
        found = {name: oid for name, oid in files.items() if is_licence_file(name)}
        if not found:
            return None
        if self.forge is not None and found.get(self.forge[0]) == self.forge[1]:
            return self.forge[2]
        ids = {self._blob(oid) for oid in found.values()} - {None}
        return " AND ".join(sorted(ids)) if ids else NOASSERTION

    def _blob(self, oid: str) -> str | None:
        if oid not in self._by_blob:
            text = self.repo.blob_text(oid)
            self._by_blob[oid] = None if text is None else licence_of_text(text)
        return self._by_blob[oid]
