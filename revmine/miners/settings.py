"""The mining settings a user gives: a job file's ``[job]`` table and the flags of ``revmine mine``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args

from ..lang.languages import DEFAULT_LANGUAGES, LANGUAGES
from ..runtime.options import check, option

#: How the HTTP cache is used (:mod:`.http`).
CacheMode = Literal["use", "offline", "off"]
DEFAULT_CACHE_MODE: CacheMode = "use"
#: Requests in flight to one host at once, unless a job says otherwise: a polite crawler's few connections.
DEFAULT_MAX_PER_HOST = 4
#: Changes per part and checkpoint.
DEFAULT_BATCH_SIZE = 50
#: seconds a forge or its git may send nothing before the wait is a stall (retried, then the project fails):
#: a REST answer that takes this long has never been seen, and git's server sends keep-alives while it packs
DEFAULT_STALL_TIMEOUT = 60.0


@dataclass(frozen=True)
class MineOptions:
    """What :class:`JobOptions` takes from the user; relative paths in a job file are relative to it."""

    out: Path | None = option(None, "output directory of revmine mine --job / revmine run (--out overrides it)",
                              type=Path, flag="")
    cache: Path | None = option(None, "HTTP cache file (default OUT/http_cache.sqlite), e.g. shared by several runs",
                                type=Path)
    repos: Path | None = option(None, "folder of the bare clones (default OUT/repos)", type=Path)
    cache_mode: str = option(DEFAULT_CACHE_MODE, "use: answer from the cache, ask the forge otherwise; offline: "
                             "the cache only, a request not in it is an error; off: no cache", choices=get_args(CacheMode))
    batch_size: int = option(DEFAULT_BATCH_SIZE, "changes per part and checkpoint", min=1)
    concurrency: int | None = option(None, "projects, changes and requests at once (default 1; the work waits "
                                     "on the network)", type=int, min=1)
    max_concurrent_per_host: int = option(DEFAULT_MAX_PER_HOST, "requests in flight to one forge "
                                          "host at once", min=1)
    languages: tuple[str, ...] = option(DEFAULT_LANGUAGES, "the languages of the files mined (from their names; "
                                        "Java, as the 2021 dataset, by default)", type=str, items=True,
                                        choices=tuple(LANGUAGES))
    robot_comments: bool = option(False, "also mine Gerrit's robot comments (GET /changes/{id}/robotcomments: one "
                                  "request more per change), recorded as a bot's, which the filter drops and counts",
                                  type=bool)
    stall_timeout: float = option(DEFAULT_STALL_TIMEOUT, "seconds a forge (REST or git) may take to open a "
                                  "connection or send nothing before the wait counts as a stall: retried, then the project fails as stalled and the "
                                  "others go on", above=0)
    known_accounts: Path | None = option(None, "a CSV of more bot and AI-reviewer accounts (the columns of "
                                         "revmine/data/review_bots.csv: a project's CI accounts...), added to the "
                                         "shipped list", type=Path, digest=True)
    recordings: Path | None = option(None, "mine a recorded forge (revmine.miners.replay) served on 127.0.0.1 "
                                           "instead of the network", type=Path, flag="", digest=True)

    def __post_init__(self) -> None:
        check(self)
