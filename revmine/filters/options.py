"""The settings of the filter stage (``revmine filter``, a job file's ``[filter]``) and the names they choose from.

Why a module of their own: the command line builds ``revmine filter``'s flags from :class:`FilterOptions`, and the
stage's module imports pyarrow, numpy and the noise model's rules (about 0.5 s) that a usage error never needs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

from ..algorithms.near_duplicate_config import NearDuplicateConfig
from ..errors import InputError
from ..io.kinds import DUPLICATE_FIELDS
from ..runtime.options import check, option

if TYPE_CHECKING:
    from ..runtime.engine import Engine

__all__ = ["AI_REVIEWERS_DIR", "AI_REVIEWER_MODES", "AUTHOR_FILTERS", "FILTER_NAMES", "FilterOptions", "IsNoise",
           "PROFILES"]

#: ``is_noise(raw comments) -> bool array`` (numpy), a caller's own noise decision
IsNoise = Callable[[Sequence[str]], Any]

#: Noise-filter profiles: name -> what its ``noise`` step runs (the filter report shows it).
PROFILES: dict[str, str] = {
    "revmine": "revmine's keyword rules + classifier",
    "tufano2021": "keyword rules of the 2021 replication package (is_relevant.ipynb)",
}

#: The filters, in the order they run (``stage.FILTERS`` pairs each with its function and the kinds it applies to).
FILTER_NAMES = ("author_comment", "bot", "ai_reviewer", "not_linked", "unchanged", "too_long", "new_identifiers",
                "multiple_comments", "noise", "exact_duplicate", "near_duplicate")
#: the steps on who wrote the comment, which the ``tufano2021`` profile does not run (the 2021 filters had none)
AUTHOR_FILTERS = ("bot", "ai_reviewer")
#: what ``ai_reviewers`` may say: drop their triplets, keep them in the dataset, or drop them and write them
#: to a candidates file of their own (``ai_reviewers/candidates.parquet``) for research on AI reviewers
AI_REVIEWER_MODES = ("drop", "keep", "separate")
AI_REVIEWERS_DIR = "ai_reviewers"



@dataclass(frozen=True)
class FilterOptions:
    """Settings of the filter step; the defaults are those of the 2021 dataset and of CodeNet."""

    max_tokens: int = option(100, "longest abstracted m_s / m_r kept, in tokens (the 2021 dataset's limit)", min=1)
    near_duplicates: NearDuplicateConfig = field(default_factory=NearDuplicateConfig)
    #: whitespace-tokenised columns whose tokens make a row's bag for near-duplicate detection
    duplicate_fields: tuple[str, ...] = DUPLICATE_FIELDS
    profile: str = option("revmine", "noise rules: " + "; ".join(f"{name}: {what}" for name, what in PROFILES.items())
                          + " (tufano2021 runs no classifier unless noise_model is given)", choices=tuple(PROFILES))
    #: ``is_noise(raw comments) -> bool array``; None: the profile's rules (and classifier) decide
    is_noise: IsNoise | None = None
    noise_model: Path | None = option(None, "a model saved by revmine classifier train (default: the shipped one)",
                                      type=Path, digest=True, stdin=".npz")
    #: the preprocess stage's dropped.parquet; None: the one beside the candidates file, if any
    preprocess_dropped: str | Path | None = None
    skip: tuple[str, ...] = option((), "filters not to run", type=str, items=True, choices=FILTER_NAMES)
    ai_reviewers: str = option("drop", "AI reviewers' comments: drop them (default), keep them in the dataset, or "
                               "separate: drop them and write them as candidates of their own "
                               f"({AI_REVIEWERS_DIR}/candidates.parquet)", choices=AI_REVIEWER_MODES)
    #: where the noise step and the near-duplicate join run (:mod:`revmine.runtime.engine`; None: in this process);
    #: the other filters are cheap per-row checks or group-bys over the whole table and stay here
    engine: Engine | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        check(self)
        from ..schema import CANDIDATES_SCHEMA  # pyarrow: not for reading settings, only for checking them

        missing = [name for name in self.duplicate_fields if name not in CANDIDATES_SCHEMA.names]
        if missing:
            raise InputError.setting("duplicate_fields", f"not in the candidates schema: {missing}")
