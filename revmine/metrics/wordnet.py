"""Finding WordNet 3.0 offline, for METEOR's synonym module.

nltk's WordNet data is not on PyPI and ``nltk.download`` needs the network, so revmine reads WordNet from
wherever the system has it, in this order:

1. the ``path`` argument, else the environment variable ``REVMINE_WORDNET`` (a WordNet ``dict``
   directory; the value ``none`` forces WordNet off, which is how tests exercise the degraded path);
2. nltk's own data (``corpora/wordnet`` on ``nltk.data.path``), if someone installed it;
3. ``$WNSEARCHDIR`` (WordNet's own convention), then the Debian/Ubuntu package ``wordnet-base``
   (``apt-get install wordnet-base`` installs ``/usr/share/wordnet``) and the Princeton install paths.

A plain WordNet ``dict`` directory (Debian's) differs from nltk's layout in one file: nltk's reader needs
``lexnames``, which Debian does not ship. The table is fixed by WordNet's documentation (lexnames(5WN)),
so we write it ourselves into a copy of the directory under the user's cache
(``$XDG_CACHE_HOME/revmine/nltk_data/corpora``, made once) and add that root to ``nltk.data.path``:
recent nltk releases only open regular, singly-linked files below their data roots, so neither symlinks
nor hard links into ``/usr/share/wordnet`` would do.

When no WordNet is found the caller gets a status whose ``signature`` is ``none``, and a
``WordNetMissingWarning`` is emitted once per process: METEOR then matches exact and stem only, and
says so in its signature instead of silently scoring lower.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nltk.data
from nltk.corpus.reader.wordnet import WordNetCorpusReader

from ..runtime.cache import cache_dir

ENV_VAR = "REVMINE_WORDNET"
#: Values of ``REVMINE_WORDNET`` (or of ``path``) that switch WordNet off on purpose.
DISABLED = frozenset({"none", "off", "no", "0", "false"})

KNOWN_DIRS = (
    Path("/usr/share/wordnet"),  # Debian / Ubuntu: wordnet-base
    Path("/usr/local/share/wordnet"),
    Path("/usr/share/WordNet-3.0/dict"),
    Path("/usr/local/WordNet-3.0/dict"),
)

#: The files nltk's WordNetCorpusReader opens; ``lexnames`` is generated when absent.
REQUIRED_FILES = tuple(f"{kind}.{pos}" for kind in ("index", "data") for pos in ("noun", "verb", "adj", "adv")) + tuple(
    f"{pos}.exc" for pos in ("noun", "verb", "adj", "adv")
)

# lexnames(5WN): file number (its position), lexicographer file name, syntactic category
# (1 noun, 2 verb, 3 adjective, 4 adverb).
_LEXNAMES = (
    ["adj.all", "adj.pert", "adv.all"]
    + [f"noun.{n}" for n in (
        "Tops act animal artifact attribute body cognition communication event feeling food group location "
        "motive object person phenomenon plant possession process quantity relation shape state substance time"
    ).split()]
    + [f"verb.{n}" for n in (
        "body change cognition communication competition consumption contact creation emotion motion perception "
        "possession social stative weather"
    ).split()]
    + ["adj.ppl"]
)
_CATEGORY = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}


class WordNetMissingWarning(UserWarning):
    """WordNet was not found (or was switched off): synonym matching is disabled."""


@dataclass(frozen=True)
class WordNetStatus:
    """What was found: a reader (None when missing), where it came from, and why it is missing."""

    reader: Any  # nltk.corpus.reader.wordnet.WordNetCorpusReader | None
    source: str
    reason: str = ""

    @property
    def available(self) -> bool:
        return self.reader is not None

    @property
    def signature(self) -> str:
        """``wn3.0`` (name and version of the database) or ``none``; goes into METEOR's signature."""
        return f"wn{self.reader.get_version()}" if self.reader is not None else "none"


_cache: dict[str, WordNetStatus] = {}
_warned = False


def load_wordnet(path: str | Path | None = None) -> WordNetStatus:
    """The WordNet to use, located as the module docstring says; cached per location.

    An explicit location (argument or environment) that holds no WordNet is an error rather than a
    silent fallback: the user asked for that directory.
    """
    requested = str(path) if path is not None else os.environ.get(ENV_VAR, "")
    key = requested or "<search>"
    if key not in _cache:
        _cache[key] = _load(requested)
    status = _cache[key]
    if not status.available:
        _warn_once(status.reason)
    return status


def reset_cache() -> None:
    """Forget located readers and the warning flag (tests switch WordNet on and off)."""
    global _warned
    _cache.clear()
    _warned = False


def _load(requested: str) -> WordNetStatus:
    if requested.strip().lower() in DISABLED:
        return WordNetStatus(None, requested, f"WordNet switched off ({ENV_VAR}={requested!r} or wordnet='none')")
    if requested:
        directory = Path(requested).expanduser()
        missing = _missing_files(directory)
        if missing:
            raise FileNotFoundError(f"{directory}: not a WordNet dict directory (missing {', '.join(missing)})")
        return _reader_for_directory(directory)
    nltk_reader = _nltk_data_reader()
    if nltk_reader is not None:
        return nltk_reader
    candidates = ([Path(os.environ["WNSEARCHDIR"])] if os.environ.get("WNSEARCHDIR") else []) + list(KNOWN_DIRS)
    for directory in candidates:
        if not _missing_files(directory):
            return _reader_for_directory(directory)
    searched = ", ".join(str(d) for d in ["nltk_data:corpora/wordnet", *candidates])
    return WordNetStatus(
        None,
        "",
        f"no WordNet found (searched {searched}); install the Debian package wordnet-base or set {ENV_VAR}",
    )


def _warn_once(reason: str) -> None:
    global _warned
    if not _warned:
        _warned = True
        warnings.warn(
            f"METEOR synonym matching disabled: {reason}. Scores use exact and stem matches only "
            "(signature syn:none).",
            WordNetMissingWarning,
            stacklevel=3,
        )


def _missing_files(directory: Path) -> list[str]:
    return [name for name in REQUIRED_FILES if not (directory / name).is_file()]


class _Reader(WordNetCorpusReader):
    """nltk's reader without the mapping recent nltk builds from every reader onto nltk's own
    ``corpora/wordnet`` (for multilingual lookups): it fails when that corpus is absent, and synonym
    lookup needs no mapping."""

    def map_wn(self, version: str = "wordnet") -> None:
        return None


def _nltk_data_reader() -> WordNetStatus | None:
    try:
        root = nltk.data.find("corpora/wordnet")
    except LookupError:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        reader = _Reader(root, None)
    return WordNetStatus(reader, f"nltk_data: {root}")


def _reader_for_directory(directory: Path) -> WordNetStatus:
    data_root = _cache_root()
    shim = _materialise(directory, data_root / "corpora")
    if str(data_root) not in [str(p) for p in nltk.data.path]:
        nltk.data.path.append(str(data_root))
    with warnings.catch_warnings():  # "multilingual functions are not available": we need none
        warnings.simplefilter("ignore", UserWarning)
        reader = _Reader(str(shim), None)
    return WordNetStatus(reader, str(directory))


def _cache_root() -> Path:
    return cache_dir() / "nltk_data"


def _materialise(source: Path, corpora: Path) -> Path:
    """An nltk-readable copy of ``source`` (about 30 MB, made once) with ``lexnames`` added.

    Copies, not links: recent nltk refuses symlinks leading out of its data roots and multiply-linked files.

    Keyed by the source's path, sizes and modification times, so an upgraded package gets a fresh copy;
    built in a temporary directory and renamed into place, so concurrent processes never see half a copy.
    """
    files = sorted(p for p in source.iterdir() if p.is_file())
    fingerprint = hashlib.sha256(str(source.resolve()).encode())
    for p in files:
        st = p.stat()
        fingerprint.update(f"{p.name}:{st.st_size}:{st.st_mtime_ns}".encode())
    target = corpora / f"wordnet-{fingerprint.hexdigest()[:16]}"
    if target.is_dir():
        return target
    corpora.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".wordnet-", dir=corpora))
    try:
        for p in files:
            shutil.copyfile(p, staging / p.name)
        if not (staging / "lexnames").is_file():
            lines = (f"{i:02d}\t{name}\t{_CATEGORY[name.split('.')[0]]}\n" for i, name in enumerate(_LEXNAMES))
            (staging / "lexnames").write_text("".join(lines), encoding="ascii")
        os.replace(staging, target)
    except OSError:
        shutil.rmtree(staging, ignore_errors=True)
        if not target.is_dir():  # another process finishing first is fine; anything else is not
            raise
    return target
