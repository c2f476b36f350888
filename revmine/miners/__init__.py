"""Miners: review rounds from Gerrit, GitHub and GitLab (discussion over REST, contents from git).

Public API used by the CLI: :func:`mine_gerrit`, :func:`mine_github`, :func:`mine_gitlab`, :func:`run_job` (each
returns the run manifest dict), :class:`JobOptions` for cache/credentials/batch settings. A forge is added by
implementing :class:`Miner` (:mod:`revmine.miners.base`); its drops are typed by :class:`DropReason`.
"""

from .base import DropReason, Miner
from .jobs import (JobOptions, ProjectSpec, manifest_holds, mine_gerrit, mine_github, mine_gitlab, run_job,
                   run_projects)

__all__ = ["DropReason", "JobOptions", "Miner", "ProjectSpec", "manifest_holds", "mine_gerrit", "mine_github",
           "mine_gitlab", "run_job", "run_projects"]
