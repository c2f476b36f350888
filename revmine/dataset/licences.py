"""Which rows may go out under their project's licence: a ``[publish] licences`` allowlist over the SPDX expressions
the miners record (``licence``, :mod:`revmine.miners.licences`), and the words the card uses for each licence.

Why license-expression: it parses SPDX expressions (``MIT OR Apache-2.0``, ``Apache-2.0 WITH LLVM-exception``,
deprecated ids such as ``GPL-2.0``) and ships ScanCode LicenseDB's category of every licence (Permissive, Public
Domain, Copyleft, Copyleft Limited, Proprietary Free...), the classification BigCode's The Stack kept its
permissive licences by. ``permissive`` in an allowlist means those two categories; an SPDX id means itself. An
expression passes when its ``OR`` has a branch that passes and every part of its ``AND`` does (a licence with an
exception is judged by its licence).
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from typing import Iterable

from license_expression import ExpressionError, get_license_index, get_spdx_licensing

__all__ = ["ANY", "LICENCE", "PERMISSIVE", "UNKNOWN_LICENCE", "LicenceGate", "category"]

ANY, PERMISSIVE = "any", "permissive"
#: the reasons a row is left out for its licence
LICENCE, UNKNOWN_LICENCE = "licence", "unknown_licence"
_PERMISSIVE_CATEGORIES = ("Permissive", "Public Domain")
_NONE = ("NOASSERTION", "NONE")


@lru_cache(maxsize=1)
def _categories() -> dict[str, str]:
    """SPDX id (every id a licence has gone by) -> ScanCode's category."""
    found: dict[str, str] = {}
    for entry in get_license_index():
        for key in (entry.get("spdx_license_key"), *entry.get("other_spdx_license_keys", ())):
            if key and entry.get("category"):
                found.setdefault(key, entry["category"])
    return found


@lru_cache(maxsize=4096)
def _parsed(expression: str):  # noqa: ANN202 (license-expression's own expression type)
    try:
        return get_spdx_licensing().parse(expression, validate=False)
    except ExpressionError:
        return None


_RANKS = ("permissive", "copyleft", "other")


def _rank(node) -> int:  # noqa: ANN001 (license-expression's expression types)
    """0 permissive, 1 copyleft, 2 other: an ``OR`` is as open as its most open branch, an ``AND`` as closed as its
    most closed part."""
    if not hasattr(node, "operator"):
        kind = _categories().get(_key(node), "")
        return 0 if kind in _PERMISSIVE_CATEGORIES else 1 if kind.startswith("Copyleft") else 2
    ranks = [_rank(arg) for arg in node.args]
    return min(ranks) if node.operator.strip() == "OR" else max(ranks)


def _key(symbol) -> str:  # noqa: ANN001
    """A symbol's licence id (a licence with an exception is judged by its licence)."""
    return getattr(symbol, "license_symbol", symbol).key


def _allowed_id(name: str) -> str:
    """An allowlist's id as the parser names it (GPL-2.0 is GPL-2.0-only), so the allowlist and the rows compare
    alike; a name it cannot read as one licence stays as written."""
    parsed = _parsed(name)
    return name if parsed is None or hasattr(parsed, "operator") else _key(parsed)


def category(expression: str | None) -> str:
    """``permissive`` (ScanCode's Permissive and Public Domain), ``copyleft`` (Copyleft and Copyleft Limited),
    ``other`` (any other category, or an id it does not know) or ``none`` (no licence found, ``NOASSERTION``): the
    words the card uses."""
    if not expression or expression.upper() in _NONE:
        return "none"
    parsed = _parsed(expression)
    return "other" if parsed is None else _RANKS[_rank(parsed)]


class LicenceGate:
    """Decides each row by its ``licence`` against an allowlist; counts the rows seen per licence (the caller
    counts what it leaves out, with its other reasons)."""

    def __init__(self, allowed: Iterable[str]) -> None:
        self.allowed = tuple(allowed)
        self.any = ANY in self.allowed
        # each id as the parser names it (GPL-2.0 is GPL-2.0-only), so the allowlist and the rows compare alike
        self._ids = {_allowed_id(a) for a in self.allowed if a not in (ANY, PERMISSIVE)}
        self.rows: Counter[str] = Counter()  # licence (or "none") -> rows seen

    def reason(self, licence: str | None) -> str | None:
        """None when the row may go out, else the reason it may not (:data:`LICENCE`, :data:`UNKNOWN_LICENCE`)."""
        self.rows[licence or "none"] += 1
        if self.any:
            return None
        if not licence or licence in _NONE:
            return UNKNOWN_LICENCE
        parsed = _parsed(licence)
        return None if parsed is not None and self._passes(parsed) else LICENCE

    def _passes(self, node) -> bool:  # noqa: ANN001
        if not hasattr(node, "operator"):
            key = _key(node)
            return key in self._ids or (PERMISSIVE in self.allowed and
                                        _categories().get(key, "") in _PERMISSIVE_CATEGORIES)
        results = [self._passes(arg) for arg in node.args]
        return any(results) if node.operator.strip() == "OR" else all(results)
