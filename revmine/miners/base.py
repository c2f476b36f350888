"""What every forge miner declares, and what mining one change gives back.

In the style of Perceval's ``Backend``: a miner knows one forge's API and nothing of the job around it.
It lists a project's changes in a time window (:meth:`Miner.list_changes`, Perceval's ``fetch_items``),
names and dates each one (:meth:`Miner.key`, :meth:`Miner.updated`: ``metadata_id``,
``metadata_updated_on``), and turns one change into ``ROUNDS_SCHEMA`` rows plus the typed reasons why
reviewed files made no row (:meth:`Miner.rounds` returns a :class:`Mined`). The job
(:mod:`revmine.miners.jobs`) owns the rest: client, clone, checkpoints, parts, manifest.

Why drops are returned rather than appended to a list the caller passes: a change's rows and drops are
then one value, written together or not at all, which is what makes a resumed run hold each once.
"""

from __future__ import annotations

import base64
import binascii
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from typing import TYPE_CHECKING, Callable, ClassVar, Iterable, Iterator

from ..errors import OperationError

if TYPE_CHECKING:
    from .rounds import ContentReader

#: A listing fails after this many requests in a row that bring no change it had not listed yet: Gerrit
#: pages (a server that ignores ``before:``/``after:`` answers the same page for ever), GitHub passes read
#: again from the top (pull requests updated during every pass). A listing that progresses never stalls.
STALL_LIMIT = 3

#: Called with (commit, path) when git cannot reach a commit: the file's text, None if absent.
Fallback = Callable[[str, str], "str | None"]


class DropReason(str, Enum):
    """Why a reviewed file (or a whole change) made no row: one vocabulary for both forges, counted per
    project in the manifest (``dropped_by_reason``) and in ``dropped.parquet``'s ``reason`` so a run can be audited."""

    LAST_REVISION = "last_revision"  # reviewer comments on the last revision: nothing was revised after them
    UNKNOWN_REVISION = "unknown_revision"  # comments on a patch set the change does not list
    UNREACHABLE = "unreachable"  # a commit out of reach of git and of the forge's content endpoint
    NO_FILE = "no_file"  # the commented file is in neither revision of the round
    CHANGE_GONE = "change_gone"  # the change answered 404 between listing and fetching (deleted)
    COMMITS_CAPPED = "commits_capped"  # the API lists only part of the commits and git cannot list the rest
    OTHER_LANGUAGE = "other_language"  # a .h file whose text is C++ when only C is mined, or C when only C++ is
    BAD_ENCODING = "bad_encoding"  # a revision of the file is not UTF-8 text (invalid UTF-8, or binary: a NUL byte)
    OPT_OUT = "opt_out"  # the change's owner, or a comment's author, is on the opt-out list ([publish] opt_out)
    # a whole project that failed (one drop with no change; the job goes on with the other projects)
    FORGE_ERROR = "forge_error"  # the forge kept failing after retries, or answered what the API does not document
    BAD_CREDENTIALS = "bad_credentials"  # the forge or its git refused the credentials (HTTP 401/403)
    RATE_LIMITED = "rate_limited"  # out of quota, and told not to wait that long
    GIT_ERROR = "git_error"  # cloning or fetching the repository failed
    STALLED = "stalled"  # the forge or its git sent nothing for the stall timeout, on every retry
    LISTING_STALLED = "listing_stalled"  # the listing kept answering changes already listed (see STALL_LIMIT)


class ListingStalled(OperationError):
    """A listing made no progress for :data:`STALL_LIMIT` requests in a row: the project fails, not loops."""

    def __init__(self, what: str, requests: int):
        super().__init__(f"{what}: {requests} listing requests in a row brought no new change (the forge "
                         "ignores the query's time bounds, or the list changes faster than it can be read)")


class Progress:
    """Counts a listing's requests in a row that brought no new change (raises :class:`ListingStalled`)."""

    def __init__(self, what: str):
        self.what, self.idle = what, 0

    def step(self, new: int) -> None:
        self.idle = 0 if new else self.idle + 1
        if self.idle >= STALL_LIMIT:
            raise ListingStalled(self.what, self.idle)

    def unseen(self, page: list[dict], seen: set, key: str) -> list[dict]:
        """The changes of ``page`` whose ``key`` is not in ``seen`` yet (added to it); a page of only those counts
        as a step without progress (a server ignoring the time bounds repeats its page)."""
        fresh = [change for change in page if change[key] not in seen]
        if page:
            self.step(len(fresh))
        seen.update(change[key] for change in fresh)
        return fresh


@dataclass(frozen=True)
class Drop:
    """One file (``path``) of a round, or a whole change (``path`` None), that made no row.

    ``message`` is what a person reads (it names the revision); ``reason`` is what is counted."""

    reason: DropReason
    message: str
    change: str
    path: str | None = None
    round_id: str | None = None  # None when no round exists (last revision, unknown revision, change gone)


class Dropped(Exception):
    """Raised where a round (or one file of it) turns out impossible; becomes a :class:`Drop`."""

    def __init__(self, reason: DropReason, message: str):
        super().__init__(message)
        self.reason = reason


def source_text(data: bytes, where: str) -> str:
    """A file's bytes as text, or :class:`Dropped` (``bad_encoding``) naming ``where`` and the byte: decoding
    with replacement put U+FFFD into the dataset's code (issue 31), a file with a NUL byte is binary (git's
    own test), whatever its extension."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Dropped(DropReason.BAD_ENCODING, f"{where}: invalid UTF-8 at byte {exc.start}") from None
    if "\0" in text:
        raise Dropped(DropReason.BAD_ENCODING, f"{where}: binary (a NUL byte at byte {data.index(0)})")
    return text


def base64_source(encoded: str, where: str) -> str:
    """A file's text from the base64 ``content`` of a forge's file answer (GitHub's contents, GitLab's
    repository files): :class:`Dropped` as :func:`source_text`; base64 that does not decode is the forge's fault
    (:class:`ValueError`, which the callers turn into a malformed answer)."""
    try:
        data = base64.b64decode(encoded)
    except binascii.Error as exc:
        raise ValueError(f"content is not valid base64 ({exc})") from None
    return source_text(data, where)


@dataclass
class Mined:
    """What mining one change (or a part of one) gave: rows in ``ROUNDS_SCHEMA`` and drops."""

    rows: list[dict] = field(default_factory=list)
    drops: list[Drop] = field(default_factory=list)

    def __iadd__(self, other: Mined) -> Mined:
        self.rows += other.rows
        self.drops += other.drops
        return self


def no_round(reason: DropReason, message: str, change: str, paths: Iterable[str]) -> Mined:
    """Reviewed files that make no round (there is no ``round_id``), one drop each, in path order."""
    return Mined(drops=[Drop(reason, message, change, path) for path in sorted(paths)])


class Miner(ABC):
    """A forge's miner for one project and time window (see the module docstring)."""

    source: ClassVar[str]  # the ``source`` column: "gerrit" | "github" | "gitlab"
    refspecs: ClassVar[list[str]]  # what the clone fetches so that every revision of a change is in git
    host: str  # the ``host`` column (never user-info)
    project: str  # the ``project`` column

    @property
    @abstractmethod
    def default_clone_url(self) -> str:
        """Where the project's git repository is, when the user names none."""

    def git_auth_header(self) -> str | None:
        """An ``Authorization`` header git sends to the clone URL's host (None: git fetches anonymously).
        Only the environment of git's processes holds it: never an argument, a URL or a config file."""
        return None

    def licence_answer(self) -> tuple[str, str, str] | None:
        """What the forge says of the project's licence, ``(path, blob id, SPDX id)`` of the file it read (None:
        it says nothing; the licence files are then matched at each commit, :mod:`.licences`)."""
        return None

    @abstractmethod
    def list_changes(self) -> Iterator[dict]:
        """Every change of the window once, as the forge describes it (fields checked)."""

    @abstractmethod
    def key(self, change: dict) -> str:
        """The change's number: the ``change`` column and the checkpoint's key."""

    @abstractmethod
    def updated(self, change: dict) -> datetime | None:
        """When the change last moved (cached answers older than this are asked again)."""

    @abstractmethod
    def fallback(self, change: dict) -> Fallback:
        """Reads a file at a revision git cannot reach (raises :class:`Dropped` when the forge cannot)."""

    @abstractmethod
    def rounds(self, change: dict, content: ContentReader) -> Mined:
        """Rows of every round of ``change``, and why its other reviewed files made none."""
