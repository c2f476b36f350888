"""The settings of the preprocess stage and of ``revmine unabstract`` (``revmine preprocess``, a job file's
``[preprocess]``), the limits a file's work is bounded by, and the levels a dataset's rows can be.

Why a module of their own: the command line builds those commands' flags from these classes, and the stage's
modules import pyarrow, tree-sitter, javalang and Lizard (about 0.5 s) that a usage error never needs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..runtime.engine import ENGINES, check_engine
from ..runtime.options import check, option

__all__ = ["LEVELS", "MAX_DEPTH", "Limits", "PreprocessOptions", "UnabstractOptions"]

#: what a row of the dataset is: a method (Tufano et al. 2021) or a diff hunk (CodeReviewer, Li et al. 2022)
LEVELS = ("method", "hunk")
#: Default bracket nesting limit: real code stays far below; Lizard and javalang recurse on nesting.
MAX_DEPTH = 100


@dataclass(frozen=True)
class Limits:
    """Bounds on one file's work: bytes per content, seconds per file, bracket nesting depth."""

    max_file_bytes: int = 1_000_000
    timeout: float = 10.0
    max_depth: int = MAX_DEPTH


@dataclass(frozen=True)
class PreprocessOptions:
    """The settings of ``revmine preprocess`` and of a job file's ``[preprocess]`` (the Limits' defaults)."""

    idioms: Path | None = option(None, "Java's idiom list, one per line (default: the 2021 dataset's; other languages "
                                "use the lists revmine ships)", type=Path, digest=True,
                                stdin=".txt")
    levels: tuple[str, ...] = option(("method",), "method: the 2021 paper's triplets and pairs (candidates.parquet); "
                                     "hunk: CodeReviewer's diff hunks with their comments (hunks.parquet)", type=str,
                                     items=True, choices=LEVELS)
    batch_size: int = option(64, "rounds per batch (bounds the memory)", min=1)
    max_file_bytes: int = option(Limits.max_file_bytes, "larger files are dropped", min=1)
    timeout: float = option(Limits.timeout, "seconds allowed per file", above=0)
    engine: str = option("local", "local (this process) or dask (pip install 'revmine[dask]')", choices=ENGINES)
    workers: int | None = option(None, "Dask worker processes of a local cluster (default: the cores)", type=int,
                                 min=1)
    address: str | None = option(None, "address of a running Dask scheduler (or REVMINE_DASK_SCHEDULER)",
                                 type=str, flag="--scheduler")

    def __post_init__(self) -> None:
        check(self)
        check_engine(self.engine, self.workers, self.address)


@dataclass(frozen=True)
class UnabstractOptions:
    """The settings of ``revmine unabstract``: where each example's map is, and how many lines an example has."""

    maps: Path | None = option(None, "Parquet file with one abstraction map per example (row i for example i)",
                               type=Path, required=True, stdin=".parquet")
    map_column: str | None = option(None, "JSON column holding the maps (default: abstraction_ids, the exact "
                                          "inverse, else abstraction_map)", type=str)
    beam: int = option(1, "consecutive prediction lines per example", min=1)

    def __post_init__(self) -> None:
        check(self)
