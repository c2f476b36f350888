"""The comment stop list, shared by comment cleaning (:mod:`.comments`) and the noise rules (filters).

Two layers, kept apart so that what is published and what is inferred stay visible:

* :func:`published_stopwords`: ``revmine/data/stopwords.txt``, a published list shipped unedited (the
  659 words of Lingua::EN::StopWordList, the SMART list plus 89 words; source, licence, checksum and how
  every candidate list reproduces the 2021 dataset in ``revmine/data/STOPWORDS-SOURCE.md``). It alone
  explains every word the 2021 comment cleaning drops but one.
* :func:`default_stopwords`: that list with the 2021 dataset's exceptions
  (``revmine/data/stopwords-2021-exceptions.txt``): 35 words a reviewer uses to ask for a change
  (``need``, ``instead``, ``please``...) that the authors kept although their list has them, and ``nit``,
  which they dropped. No published list explains these; they are inferred from the published output and
  marked as such in the file. Without them 1,042 of the 1,719 published ``src1`` lines come back, with
  them 1,717. This is the default because rebuilding the published dataset is what the default is for;
  pass :func:`published_stopwords` to use the published list alone.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from typing import Iterable

from ..errors import InputError

__all__ = ["default_stopwords", "load_stopwords", "published_stopwords"]

PUBLISHED_FILE = "data/stopwords.txt"
EXCEPTIONS_FILE = "data/stopwords-2021-exceptions.txt"


def load_stopwords(lines: Iterable[str]) -> frozenset[str]:
    """Read a stop list: one word per line, ``#`` starts a comment, matching is on lower case."""
    words = (line.split("#", 1)[0].strip().lower() for line in lines)
    return frozenset(word for word in words if word)


def _shipped(name: str) -> list[str]:
    return resources.files("revmine").joinpath(name).read_text(encoding="utf-8").splitlines()


@lru_cache(maxsize=1)
def published_stopwords() -> frozenset[str]:
    """The published list, unedited."""
    return load_stopwords(_shipped(PUBLISHED_FILE))


@lru_cache(maxsize=1)
def default_stopwords() -> frozenset[str]:
    """The published list with the 2021 dataset's documented exceptions (``-word`` kept, ``+word`` dropped)."""
    words = set(published_stopwords())
    for number, entry in enumerate(load_stopwords(_shipped(EXCEPTIONS_FILE)), 1):
        if entry[:1] not in "+-" or len(entry) < 2:
            raise InputError(EXCEPTIONS_FILE, "an exception is '+word' or '-word'", line=number)
    for entry in sorted(load_stopwords(_shipped(EXCEPTIONS_FILE))):
        (words.add if entry[0] == "+" else words.discard)(entry[1:])
    return frozenset(words)
