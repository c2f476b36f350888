"""The settings of ``revmine classifier``, apart from the classifier itself.

Why a module of their own: building the command line reads every command's settings, and the classifier
module imports scikit-learn (about 3 s); ``revmine --help`` should not wait for a model it never fits.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..runtime.options import check, option

__all__ = ["DEFAULT_MODEL", "MODELS", "ClassifierOptions"]

#: Model names accepted by :func:`.classifier.train` and :func:`.classifier.cross_validate`, in the paper's order.
MODELS: tuple[str, ...] = ("random_forest", "decision_tree", "naive_bayes")
#: The design card's model; it also keeps the most real change requests at the same noise removal
#: (figures in ``revmine/data/LABELLING.md``; ``benchmarks/bench_classifier.py`` re-measures them).
DEFAULT_MODEL = "random_forest"


@dataclass(frozen=True)
class ClassifierOptions:
    """The settings of ``revmine classifier train`` and ``evaluate`` (``model`` is train's, ``noise_model``
    and ``folds`` evaluate's)."""

    labels: Path | None = option(None, "CSV or JSON Lines with columns text,label (label: relevant or noise; "
                                       "optional category, project, code, content)", type=Path, required=True,
                                 stdin=".csv")
    seed: int = option(0, "seed of the model and of the cross-validation folds", min=0)
    model: str = option(DEFAULT_MODEL, "the model to train", choices=MODELS)
    noise_model: Path | None = option(None, "a model saved by revmine classifier train (default: the shipped one)",
                                      type=Path, stdin=".npz")
    folds: int = option(10, "folds of the cross-validation (--cv)", min=2)

    def __post_init__(self) -> None:
        check(self)
