"""The settings of the split and export stages (``revmine split``, ``revmine export``, a job file's ``[split]`` and
``[export]``) and the names they choose from.

Why a module of their own: the command line builds those commands' flags from these classes, and the stages'
modules import pyarrow and numpy (about 0.4 s) that a usage error never needs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..algorithms.near_duplicate_config import NearDuplicateConfig
from ..errors import InputError
from ..io.kinds import DUPLICATE_FIELDS
from ..runtime.options import check, option

if TYPE_CHECKING:
    from ..runtime.engine import Engine

__all__ = ["DEFAULT_LICENCE", "FORMATS", "REPRESENTATIONS", "SECRET_MODES", "STRATEGIES", "ExportOptions", "PublishOptions",
           "SplitOptions"]

#: How rows are dealt to splits.
STRATEGIES = ("random", "project", "time")
#: What export writes.
FORMATS = ("parquet", "opennmt", "jsonl", "codereviewer")
#: The representations export can add of each method.
REPRESENTATIONS = ("tokens", "spt")
#: What export does with a row holding a secret (revmine.dataset.secret_scan, which imports detect-secrets)
SECRET_MODES = ("redact", "drop", "off")
#: What the card says of the data's licence unless the job says otherwise.
DEFAULT_LICENCE = (
    "The code and the review comments were written by the contributors of the projects listed under "
    "*Sources* and remain theirs, under each project's licence; check those licences before redistributing. "
    "The Gerrit and GitHub terms of service apply to data obtained from them. This card and the dataset's "
    "structure (the selection, filters and splits) are provided for research use."
)


@dataclass(frozen=True)
class SplitOptions:
    """How to split; ``near_duplicates`` and ``duplicate_fields`` say what the split's own join compares."""

    strategy: str = option("random", "random: near-duplicate clusters dealt at random; project: whole projects "
                                     "dealt at random; time: rounds in time order", choices=STRATEGIES)
    fractions: tuple[float, float, float] = option((0.8, 0.1, 0.1), "train, eval and test shares, summing to 1",
                                                   items=True, length=3, min=0, max=1)
    seed: int = option(0, "seed of the random strategy", min=0)
    rounds: Path | None = option(None, "rounds.parquet, the times the time strategy orders by (revmine run: "
                                       "the mined rounds)", type=Path, job=False,
                                       stdin=".parquet")
    hunks: Path | None = option(None, "hunks.parquet of the preprocess stage, split too: whole changes (or projects, "
                                      "or rounds in time order) at a time (revmine run: with levels = [.., \"hunk\"])",
                                type=Path, job=False)
    near_duplicates: NearDuplicateConfig = field(default_factory=NearDuplicateConfig)
    duplicate_fields: tuple[str, ...] = DUPLICATE_FIELDS
    #: where the near-duplicate join runs (:mod:`revmine.runtime.engine`; None: here); the dealing of clusters to
    #: splits is a few passes over the ids, cheaper than sending them anywhere, and stays here
    engine: Engine | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        check(self)
        if abs(sum(self.fractions) - 1) > 1e-9:
            raise InputError.setting("fractions", f"must sum to 1, not {sum(self.fractions):g} ({list(self.fractions)})")


@dataclass(frozen=True)
class PublishOptions:
    """What may go out and in what form (a job file's ``[publish]``; ``revmine export``'s flags): the settings a
    researcher who publishes the dataset answers for."""

    pseudonyms: bool = option(True, "replace comment authors with keyed hashes and e-mails, @mentions and "
                                    "participants' names in comment, m_s and m_r with placeholders "
                                    "(revmine.dataset.pseudonyms; the OpenNMT files are left as they were)")
    secrets: str = option("redact", "rows whose comment, m_s or m_r holds a secret (detect-secrets' pattern plugins): "
                                    "redact (every copy becomes <secret>), drop, or off", choices=SECRET_MODES)
    licences: tuple[str, ...] = option(("any",), "the licences rows may have: any (nothing left out), permissive "
                                                 "(ScanCode's Permissive and Public Domain categories) and SPDX ids; "
                                                 "others are left out as licence, rows with none found as "
                                                 "unknown_licence", items=True, type=str)
    opt_out: Path | None = option(None, "a file of accounts and e-mail addresses (one a line) whose comments and "
                                        "changes are left out (opt_out): by the miners and by the export",
                                  type=Path, digest=True)

    def __post_init__(self) -> None:
        check(self)
        if not self.licences:
            raise InputError.setting("licences", 'must name at least one licence, or "any"')


@dataclass(frozen=True)
class ExportOptions:
    """What to write and what the card says."""

    formats: tuple[str, ...] = option(FORMATS, "what to write: parquet (Hugging Face layout), opennmt (the 2021 "
                                               "replication package's text files), jsonl, codereviewer (CodeReviewer's "
                                               "msg/ref/cls JSON Lines of the hunk rows, when the splits have them)",
                                      items=True, choices=FORMATS)
    name: str = option("Code review dataset", "the dataset card's title")
    filter_report: Path | None = option(None, "filter_report.parquet, for the card's Filters section (revmine run: "
                                              "the filter stage's)", type=Path, job=False,
                                              stdin=".parquet")
    licence: str = DEFAULT_LICENCE
    representations: tuple[str, ...] = option((), "token streams (tokens) and simplified parse trees (spt, Project "
                                                   "CodeNet) of each method, written to representations/",
                                              type=str, items=True, choices=REPRESENTATIONS)
    publish: PublishOptions = field(default_factory=PublishOptions)
    #: where the per-row work (text lines, representations) runs (:mod:`revmine.runtime.engine`; None: here); the files
    #: are read and written here, so workers need no access to them
    engine: Engine | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        check(self)
