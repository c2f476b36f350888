"""Miners: review rounds from Gerrit, GitHub and GitLab (discussion over REST, contents from git).

Public API used by the CLI: :func:`mine_gerrit`, :func:`mine_github`, :func:`mine_gitlab`, :func:`run_job` (each
returns the run manifest dict), :class:`JobOptions` for cache/credentials/batch settings. A forge is added by
implementing :class:`Miner` (:mod:`revmine.miners.base`); its drops are typed by :class:`DropReason`.
"""

from importlib import import_module
from typing import Any

#: What the package exports, and its module: loaded on first use, so that reading the mining settings
#: (:mod:`.settings`, a command's flags) imports neither requests nor pyarrow.
_EXPORTS = {"DropReason": "base", "Miner": "base",
            **dict.fromkeys(("JobOptions", "ProjectSpec", "manifest_holds", "mine_gerrit", "mine_github",
                             "mine_gitlab", "run_job", "run_projects"), "jobs")}

__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
