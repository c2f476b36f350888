"""Pseudonyms for the people in an exported dataset: who wrote a comment becomes a keyed hash, and e-mail
addresses, @mentions and the names of a change's participants inside comments and code become placeholders.

Why a keyed hash (HMAC-SHA256) and not a plain one: a plain hash of a login is undone by hashing every login of a
forge; without the key nobody can, while the same person still gets the same pseudonym throughout a dataset (and
across the datasets made with the same key). The key stays with the user: :envvar:`REVMINE_PSEUDONYM_KEY`, else
the file :envvar:`REVMINE_PSEUDONYM_KEY_FILE` names, else ``pseudonym.key`` in the user's config directory
(platformdirs), generated there with mode 0600 on first use. It is never written to an output.

The placeholders touch the raw columns (``comment``, ``m_s``, ``m_r``), never the abstracted ones: the OpenNMT
files are written from those alone and stay byte for byte those of the 2021 dataset's rebuild.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
from collections import Counter
from pathlib import Path
from typing import Iterable, Sequence

import platformdirs
import pyarrow as pa

from ..errors import InputError

__all__ = ["EMAIL", "KEY_ENV", "KEY_FILE_ENV", "MENTION", "PERSON", "Pseudonymiser", "load_key", "participants",
           "pseudonymise_batch"]

KEY_ENV = "REVMINE_PSEUDONYM_KEY"
KEY_FILE_ENV = "REVMINE_PSEUDONYM_KEY_FILE"
#: the placeholders, as the card documents them
EMAIL, MENTION, PERSON = "<email>", "@<user>", "<person>"

_EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
# an @ not preceded by a word character (so not an e-mail's) followed by a login
_MENTION = re.compile(r"(?<![\w.@])@([A-Za-z0-9](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?)")


def key_path() -> Path:
    """Where the key file is: the one named by the environment, else the user's config directory's."""
    named = os.environ.get(KEY_FILE_ENV)
    return Path(named) if named else Path(platformdirs.user_config_dir("revmine")) / "pseudonym.key"


def load_key() -> bytes:
    """The user's key: from the environment, else its file, created (32 random bytes, hex, mode 0600) if absent."""
    if os.environ.get(KEY_ENV):
        return os.environ[KEY_ENV].encode()
    path = key_path()
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as fh:
            fh.write(secrets.token_hex(32) + "\n")
    key = path.read_text(encoding="utf-8").strip()
    if not key:
        raise InputError(path, "the pseudonym key file is empty: delete it to have a new key made")
    return key.encode()


class Pseudonymiser:
    """Replaces identities with keyed hashes and people in texts with placeholders, counting what it replaced."""

    def __init__(self, key: bytes) -> None:
        self._key = key
        self.counts: Counter[str] = Counter()

    def pseudonym(self, identity: str | None) -> str | None:
        """``u-`` and 16 hex digits of HMAC-SHA256(key, identity); None stays None (no author recorded)."""
        if identity is None:
            return None
        self.counts["identities"] += 1
        return "u-" + hmac.new(self._key, identity.encode(), hashlib.sha256).hexdigest()[:16]

    def redact(self, text: str | None, participants: Iterable[str], code: bool = False) -> str | None:
        """``text`` with e-mail addresses, participants' names and (in comments) @mentions replaced by
        placeholders; names shorter than 3 characters are left (they would hit ordinary words)."""
        if not text:
            return text
        text, n = _EMAIL.subn(EMAIL, text)
        self.counts["emails"] += n
        for name in sorted({p for p in participants if p and len(p) >= 3}, key=len, reverse=True):
            # names first: "@Jane Doe" must lose its surname too
            text, n = re.subn(rf"(?<!\w){re.escape(name)}(?!\w)", PERSON, text, flags=re.IGNORECASE)
            self.counts["names"] += n
        if code:  # in code an @word is mostly an annotation (@Override): only participants' names are replaced
            return text
        text, n = _MENTION.subn(MENTION, text)
        self.counts["mentions"] += n
        return text


def participants(changes: Sequence[tuple], authors: Sequence[str | None]) -> dict[tuple, set[str]]:
    """The comment authors of each change (``changes`` and ``authors`` aligned, one pair a row): the names
    :meth:`Pseudonymiser.redact` replaces in that change's texts."""
    people: dict[tuple, set[str]] = {}
    for change, author in zip(changes, authors):
        if author:
            people.setdefault(change, set()).add(author)
    return people


def pseudonymise_batch(batch: pa.RecordBatch, pseudonymiser: Pseudonymiser) -> pa.RecordBatch:
    """The rows with ``comment_author`` pseudonymised and ``comment``, ``m_s``, ``m_r`` redacted; the participants
    of a change are the comment authors of its rows in the batch (rows arrive grouped by change)."""
    authors = batch.column("comment_author").to_pylist()
    changes = list(zip(*(batch.column(n).to_pylist() for n in ("source", "project", "change"))))
    people = participants(changes, authors)
    columns = {"comment_author": pa.array([pseudonymiser.pseudonym(a) for a in authors], pa.string())}
    for name in ("comment", "m_s", "m_r"):
        code = name != "comment"
        columns[name] = pa.array([pseudonymiser.redact(text, people.get(change, ()), code=code)
                                  for text, change in zip(batch.column(name).to_pylist(), changes)], pa.string())
    arrays = [columns.get(name, batch.column(i)) for i, name in enumerate(batch.schema.names)]
    return pa.RecordBatch.from_arrays(arrays, schema=batch.schema)
