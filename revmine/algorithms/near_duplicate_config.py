"""The thresholds of near-duplicate detection, CodeNet's by default (:mod:`.near_duplicates` cites the definition
it follows).

Why a module of their own: the filter and split stages' settings hold them, and reading settings (a command's flags,
a usage error) should not import numpy, which the detection itself needs.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["NearDuplicateConfig"]


@dataclass(frozen=True)
class NearDuplicateConfig:
    """The two thresholds a pair must meet (CodeNet's by default)."""

    set_threshold: float = 0.9
    multiset_threshold: float = 0.8

    def __post_init__(self) -> None:
        for name in ("set_threshold", "multiset_threshold"):
            value = getattr(self, name)
            if not 0.0 < value <= 1.0:
                raise ValueError(f"{name} must be in (0, 1], got {value}")
