"""The idiom list: code words kept as they are instead of becoming ids (``0``, ``size``, ``String``...).

Shared by the abstraction of methods (preprocess) and the cleaning of reviewer comments (:mod:`.comments`,
which the ``tufano2021`` noise rules run too), so it lives apart from both. The default is the 2021 dataset's
list, shipped as ``revmine/data/idioms.txt`` (provenance and licence in ``revmine/data/IDIOMS-LICENSE.md``).
Other languages' lists are ``revmine/data/idioms/<language>.txt``, counted from real code by
``scripts/build_idioms.py`` (provenance in ``revmine/data/idioms/SOURCES.md``).
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from typing import Iterable

__all__ = ["default_idioms", "load_idioms"]


def load_idioms(path_or_lines: str | Iterable[str]) -> frozenset[str]:
    """Read an idiom list (one per line; blank lines ignored) from a path or from lines already read."""
    if isinstance(path_or_lines, str):
        with open(path_or_lines, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    else:
        lines = list(path_or_lines)
    return frozenset(line.strip() for line in lines if line.strip())


@lru_cache(maxsize=None)
def default_idioms(language: str = "java") -> frozenset[str]:
    """A language's shipped idioms: Java's is the 300-line list of the 2021 dataset (``data/idioms.txt``)."""
    name = "data/idioms.txt" if language == "java" else f"data/idioms/{language}.txt"
    text = resources.files("revmine").joinpath(name).read_text(encoding="utf-8")
    return load_idioms(text.splitlines())
