"""The settings of ``revmine score`` and ``revmine agreement`` (and a job file's ``[score]``), the input formats they
choose from, and how a list of metric specs is split.

Why a module of their own: the command line builds those commands' flags from these classes, and the metrics'
modules import numpy, pyarrow and the metric packages (about 0.5 s) that a usage error never needs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from ..runtime.engine import ENGINES
from ..runtime.options import check, option
from .normalize import NORMALIZATIONS
from .profiles import PROFILES

__all__ = ["PREDICTION_FORMATS", "AgreementOptions", "ScoreOptions", "split_specs"]

#: The prediction files ``revmine score`` reads (:mod:`.predictions`).
PREDICTION_FORMATS = ("tufano", "text", "jsonl", "parquet")


def split_specs(text: str) -> list[str]:
    """Split a comma-separated list of metric specs, keeping commas inside parentheses."""
    specs, depth, current = [], 0, []
    for char in text:
        depth += char == "("
        depth -= char == ")"
        if char == "," and depth == 0:
            specs.append("".join(current))
            current = []
        else:
            current.append(char)
    specs.append("".join(current))
    return [s.strip() for s in specs if s.strip()]


@dataclass(frozen=True)
class ScoreOptions:
    """The settings of ``revmine score`` and of a job file's ``[score]`` (scored only when predictions are given)."""

    predictions: Path | None = option(None, "predictions file (Tufano blocks, text, JSON Lines or Parquet)",
                                      type=Path, flag="", digest=True)
    format: str | None = option(None, "input format (default: detected)", type=str, choices=PREDICTION_FORMATS)
    references: tuple[Path, ...] | None = option(None, "references file, one line per example (format text); "
                                                 "one file per reference of an example", type=Path,
                                                 items=True, flag="--refs", append=True, digest=True,
                                                 stdin=".txt")
    beam: int = option(1, "predictions per example (format text)", min=1)
    pred_field: str | None = option(None, "prediction field (jsonl, parquet)", type=str)
    ref_field: str | None = option(None, "reference field (jsonl, parquet)", type=str)
    id_field: str | None = option(None, "example id field (jsonl, parquet)", type=str)
    lang_field: str | None = option(None, "field holding each example's language (jsonl, parquet; revmine's names: "
                                          "java, python, go...): metrics given lang=auto score each example in it",
                                    type=str)
    kind: str = option("code", "default metric set: code (BLEU, edit distances, TREED) or nl (comments, messages)",
                       choices=("code", "nl"))
    metrics: tuple[str, ...] | None = option(None, "metric specs such as bleu(tokenize=char), overriding kind "
                                             "(with a profile: added to its metrics)", type=str, items=True,
                                             split=split_specs)
    profile: str | None = option(None, "reproduce a publication's pipeline exactly (see revmine profiles)", type=str,
                                 choices=tuple(sorted(PROFILES)))
    workers: int | None = option(None, "processes to score in (default 1; worth it for slow metrics such as TER on "
                                       "large files); with --engine dask, the worker processes of a local Dask cluster "
                                       "(default: the cores)", type=int, min=1)
    #: where to score (revmine run: the job's [engine], so not a key of [score])
    engine: str = option("local", "local (this process and its workers) or dask (pip install 'revmine[dask]'): "
                                  "chunks of predictions are scored there", choices=ENGINES, job=False)
    scheduler: str | None = option(None, "address of a running Dask scheduler, e.g. tcp://10.0.0.5:8786 "
                                         "(or REVMINE_DASK_SCHEDULER)", type=str, job=False)
    ci: int = option(0, "bootstrap resamples for 95% confidence intervals of the means in the summary (0: none)",
                     min=0)
    normalize: str | None = option(None, "normalise the predictions before scoring: code-fence scores the code of "
                                         "the first Markdown code block of a chat model's answer, dropping the prose "
                                         "(predictions without one are scored as given; the summary counts them)",
                                   type=str, choices=tuple(NORMALIZATIONS))

    def __post_init__(self) -> None:
        check(self)
        if self.scheduler and self.engine != "dask":
            raise InputError.setting("scheduler", "a scheduler address needs engine 'dask'")
        if self.metrics:  # an unknown metric or parameter fails here, before any scoring
            from .registry import make_metrics  # the metrics' modules: not for reading settings, for checking them
            from .score import check_lang_field

            check_lang_field(make_metrics(list(self.metrics)), self.lang_field)


@dataclass(frozen=True)
class AgreementOptions:
    """The settings of ``revmine agreement``."""

    score_cols: tuple[str, ...] = option(None, "human score columns, averaged per pair", type=str, items=True,
                                         required=True)
    pred_col: str = option("prediction", "prediction column")
    ref_col: str = option("reference", "reference column")
    metrics: tuple[str, ...] | None = option(None, "metric specs (default: the nl set; with a profile: added to its "
                                             "metrics)", type=str, items=True,
                                             split=split_specs)
    profile: str | None = option(None, "a profile's metrics and post-processing", type=str,
                                 choices=tuple(sorted(PROFILES)))
    bootstrap: int = option(1000, "bootstrap resamples for the 95% confidence intervals (0: none)", min=0)
    seed: int = option(0, "seed of the bootstrap", min=0)

    def __post_init__(self) -> None:
        check(self)
