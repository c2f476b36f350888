"""What the miners share once the forge-specific part is done: turning a round into rows.

A *round* is (revision submitted, revision after, the reviewer comments on the submitted revision).
Each forge miner decides which rounds exist and converts its comments to :data:`COMMENT_TYPE` dicts;
this module reads the file contents (git first, REST content endpoint as a counted fallback), works out
added / deleted / renamed / modified files, and builds the ``ROUNDS_SCHEMA`` rows.

``file_status`` values: ``modified``, ``added``, ``deleted``, ``renamed`` and ``unchanged`` (the file
was commented on but the next revision did not change it; kept so the preprocess stage can count it).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timezone
from typing import Any, Iterable

from ..errors import InputError
from ..lang.languages import DEFAULT_LANGUAGES, language_of
from .base import Drop, Dropped, DropReason, Fallback, Mined, base64_source, no_round
from .git import GitRepo
from .licences import LicenceReader
from .http import BadField, Client, RemoteError


def reads(path: str | None, languages: tuple[str, ...] = DEFAULT_LANGUAGES) -> bool:
    """Whether a commented file is mined: its language (from its name) is one asked for. A ``.h`` file is C
    or C++ depending on its text (:func:`~revmine.lang.languages.language_of`), unknown before it is read."""
    language = language_of(path)
    return language in languages or (language == "c" and "cpp" in languages and str(path).endswith(".h"))


def typed(item: Any, key: str, kind: type | tuple[type, ...], what: str, required: bool = False) -> Any:
    """``item[key]`` checked against ``kind`` (null or absent is fine unless ``required``); a forge's
    wrong type raises :class:`BadField` here rather than a confusing error where the value is used."""
    if not isinstance(item, dict):
        raise BadField(f"{what} is a JSON {type(item).__name__}, not an object")
    value = item.get(key)
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if value is None and not required:
        return None
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        names = " or ".join(k.__name__ for k in kinds)
        raise BadField(f"{what}: {key} is {'missing' if value is None else repr(value)[:40]}, expected {names}")
    return value


def typed_time(item: Any, key: str, what: str, required: bool = False) -> datetime | None:
    """A timestamp field of a forge's answer (see :func:`typed`)."""
    value = typed(item, key, str, what, required)
    try:
        return parse_time(value, key)
    except InputError:
        raise BadField(f"{what}: {key} is not a date/time: {value[:40]!r}") from None


def parse_time(value: Any, where: str = "time") -> datetime | None:
    """Parse a forge or user timestamp to an aware UTC datetime (Gerrit has ns and no zone)."""
    if value is None or isinstance(value, datetime):
        return value if value is None or value.tzinfo else value.replace(tzinfo=timezone.utc)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=timezone.utc)
    if not isinstance(value, str):
        raise InputError(None, f"expected a date string, got {type(value).__name__}", field=where)
    text = value.strip().replace("Z", "+00:00")
    if "." in text:  # Gerrit: nanoseconds; Python takes at most microseconds
        head, frac = text.split(".", 1)
        digits = "".join(ch for ch in frac if ch.isdigit())
        text = f"{head}.{digits[:6]:0<6}{frac[len(digits):]}"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        raise InputError(None, f"not a date/time: {value!r} (use YYYY-MM-DD or ISO 8601)", field=where) from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


@dataclass
class Round:
    """Round-level columns of ``ROUNDS_SCHEMA`` (one row per commented file repeats them)."""

    source: str
    host: str
    project: str
    change: str
    change_key: str | None
    round: int
    revision_before: str
    revision_after: str
    owner: str | None
    created: datetime | None
    updated: datetime | None
    #: where the change started, as git names it (``SHA^``: the submitted commit's or the first commit's parent)
    revision_base: str | None = None
    languages: tuple[str, ...] = DEFAULT_LANGUAGES

    @property
    def round_id(self) -> str:
        return f"{self.source}:{self.host}:{self.project}:{self.change}:{self.round}"


def last_revision(change: str, paths: Iterable[str], revision: str) -> Mined:
    """Reviewed files of the last revision (Gerrit's last patch set, a pull request's last commit) make no
    round: nothing was revised after them, so there is no m_r to learn from."""
    return no_round(DropReason.LAST_REVISION,
                    f"reviewed revision {revision} is the last one: no revised code after the comments", change, paths)


class ContentReader:
    """Reads file text at commits from git, else through a REST fallback, counting fallbacks.

    Why batches: every question to git costs a round trip to its process (more than git's own work),
    so a file's two revisions and the check that their commits exist are asked together.
    """

    def __init__(self, repo: GitRepo, fallback: Fallback | None = None, fetch: bool = True,
                 licences: LicenceReader | None = None):
        self.repo = repo
        self.fallback = fallback
        self.fetch = fetch  # off when replaying offline: no network, and a failed fetch costs ~50 ms
        self.fallbacks = 0
        self._present: dict[str, bool] = {}
        self.licences = licences or LicenceReader(repo)

    def licence(self, sha: str) -> str | None:
        """The project's licence at ``sha`` (:mod:`.licences`); None when git lacks the commit (read through the
        fallback) or it holds no licence file."""
        return self.licences.at(sha) if self.in_git(sha) else None

    def _settle(self, found: dict[str, bool]) -> None:
        """Record commits just looked up; those git lacks are fetched by sha once, together (when allowed)."""
        missing = [sha for sha, ok in found.items() if not ok]
        fetched = self.repo.fetch_commits(missing) if self.fetch and missing else {}
        for sha, ok in found.items():
            self._present[sha] = ok or fetched.get(sha, False)

    def check(self, shas: Iterable[str]) -> None:
        """Look up (in one round trip) whichever of ``shas`` is not known yet."""
        unknown = [sha for sha in dict.fromkeys(shas) if sha not in self._present]
        if unknown:
            self._settle(self.repo.has_commits(unknown))

    def in_git(self, sha: str) -> bool:
        """Whether git has ``sha`` (fetching it by sha once if the refs did not bring it)."""
        self.check([sha])
        return self._present[sha]

    def read_many(self, wanted: list[tuple[str, str]]) -> list[str | None]:
        """Texts of (commit, path) pairs, None where the commit lacks the file; Dropped if a commit is
        out of reach of git and of the fallback."""
        unknown = [sha for sha in dict.fromkeys(sha for sha, _ in wanted) if sha not in self._present]
        ask = [w for w in wanted if self._present.get(w[0], True)]
        texts, found = self.repo.read_many(ask, unknown)
        self._settle(found)
        answered = {w: text for w, text in zip(ask, texts) if found.get(w[0], True)}  # git had the commit
        return [answered[w] if w in answered else self._unreached(*w) for w in wanted]

    def read(self, sha: str, path: str) -> str | None:
        return self.read_many([(sha, path)])[0]

    def read_git(self, revision: str, path: str) -> str | None:
        """``path`` at a revision git names (``SHA^``) from git only: None when git lacks either."""
        return self.repo.read(revision, path)

    def _unreached(self, sha: str, path: str) -> str | None:
        """A file at a commit git lacked when asked: read again if a fetch brought it, else the fallback."""
        if self._present[sha]:
            return self.repo.read(sha, path)
        if self.fallback is None:
            raise Dropped(DropReason.UNREACHABLE, f"commit {sha} is not reachable (force-pushed or deleted)")
        self.fallbacks += 1
        return self.fallback(sha, path)


def file_row(rnd: Round, path: str, comments: list[dict], content: ContentReader) -> dict:
    """One ``ROUNDS_SCHEMA`` row: ``path`` at the change's base, the submitted and the next revision, with its
    comments. The base is read from git alone (one more question to the same ``cat-file`` process); when only
    the forge's content endpoint could give it (git lacks the parent) it stays None: CodeReviewer's hunks need
    it, the method triplets do not."""
    before, after, base = rnd.revision_before, rnd.revision_after, rnd.revision_base
    text_before, text_after = content.read_many([(before, path), (after, path)])
    path_after: str | None = path
    if text_before is None and text_after is None:
        raise Dropped(DropReason.NO_FILE, f"{path} exists in neither {before} nor {after}")
    if text_before is None:
        status = "added"
    elif text_after is None:
        moved = content.repo.renamed_to(before, after, path) if (
            content.in_git(before) and content.in_git(after)) else None
        if moved is not None:
            status, path_after, text_after = "renamed", moved, content.read(after, moved)
        else:
            status, path_after = "deleted", None
    else:
        status = "unchanged" if text_before == text_after else "modified"
    language = language_of(path, text_before if text_before is not None else text_after)
    if language not in rnd.languages:  # a .h file whose text says C++ when only C is asked, or the reverse
        raise Dropped(DropReason.OTHER_LANGUAGE, f"{path} is {language}, not one of {', '.join(rnd.languages)}")
    return {
        "round_id": rnd.round_id, "source": rnd.source, "host": rnd.host, "project": rnd.project,
        "change": rnd.change, "change_key": rnd.change_key, "round": rnd.round,
        "revision_before": before, "revision_after": after, "owner": rnd.owner,
        "created": rnd.created, "updated": rnd.updated,
        "path_before": path, "path_after": path_after, "file_status": status, "language": language,
        "licence": content.licence(before),
        "content_base": content.read_git(base, path) if base is not None and content.in_git(before) else None,
        "content_before": text_before, "content_after": text_after,
        "comments": sorted(comments, key=lambda c: (c["created"] or datetime.min.replace(tzinfo=timezone.utc),
                                                    c["id"])),
    }


def round_rows(rnd: Round, comments_by_path: dict[str, list[dict]], content: ContentReader) -> Mined:
    """Rows of one round, in path order; a file that cannot be read is a drop with its reason."""
    mined = Mined()
    for path in sorted(comments_by_path):
        try:
            mined.rows.append(file_row(rnd, path, comments_by_path[path], content))
        except Dropped as exc:
            mined.drops.append(Drop(exc.reason, str(exc), rnd.change, path, rnd.round_id))
    return mined


def base64_contents(client: Client, url: str, sha: str, path: str, endpoint: str, absent: str | None = None
                    ) -> str | None:
    """A file's text at ``sha`` from a forge's JSON contents endpoint (base64 ``content``: GitHub's contents API,
    GitLab's repository files API), the fallback for a commit git cannot reach. A 404 whose detail holds
    ``absent`` is no such file (None); another 404, or a 504 (not in the cache when offline), drops the round."""
    try:
        body, response = client.get(url, {"ref": sha}, expect=dict)
    except RemoteError as exc:
        if exc.status == 404 and absent is not None and absent in exc.detail:
            return None
        if exc.status in (404, 504):
            raise Dropped(DropReason.UNREACHABLE, f"commit {sha} is gone from git and from the {endpoint} "
                          f"({exc.status})") from None
        raise
    with client.validating(response):
        try:
            return base64_source(typed(body, "content", str, "a file") or "", f"{path} at {sha}")
        except ValueError as exc:
            raise BadField(str(exc)) from None
