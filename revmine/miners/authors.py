"""Who wrote a comment: a human, a bot or an AI reviewer, and the evidence, as the forge shows it.

The miners record this fact on every comment (``COMMENT_TYPE``'s ``author_kind`` and ``author_evidence``, then
the candidates' ``comment_author_kind`` / ``comment_author_evidence``); the filter stage decides what to do
with it (:mod:`revmine.filters.stage`). Kinds (:data:`KINDS`):

``human``        no sign of automation (the default)
``bot``          an automated account: CI, linters, dependency and coverage bots, Gerrit service users
``ai_reviewer``  an account of an AI code-review service (CodeRabbit, Copilot code review, Gemini Code Assist...)

Evidence, strongest first; every sign found is written, ``;``-separated, so a row can be audited:

GitHub (a review comment's ``user`` object, a `simple-user`):
  - ``type=Bot``: GitHub Apps' accounts have ``type: "Bot"`` (``"User"`` for people and machine users);
  - ``login=[bot]``: an App's login ends with ``[bot]``;
  - ``list=<kind>:<name>``: the login is in :file:`revmine/data/review_bots.csv` (case-insensitive), which also
    says whether it is an AI reviewer, since ``type`` alone does not (Copilot's inline comments come from a
    ``Copilot`` account; the list names it).
Gerrit (a comment's ``author``, an AccountInfo):
  - ``tags=SERVICE_USER``: Gerrit 3.10 tags accounts of the "Service Users" group so; the tag is only set on
    detailed account information, which the miner's listing asks for (``o=DETAILED_ACCOUNTS``) and which the
    comment endpoints return;
  - ``list=<kind>:<name>``: the username, e-mail or name is in the list (forge ``gerrit``: CI accounts);
  - ``robot_comment:<robot_id>``: a robot comment (``GET /changes/{id}/robotcomments``) is a bot's by
    definition, whoever posted it.

GitLab (a note's ``author``, a UserBasic):
  - ``bot=true``: GitLab marks bot users (project and group access tokens' users, GitLab's own service bots)
    with ``bot: true`` on the user objects that carry the field;
  - ``username=<project|group>_bot``: the users of project and group access tokens are named
    ``project_<id>_bot_<hex>`` / ``group_<id>_bot_<hex>`` (``project_<id>_bot[<n>]`` before GitLab 16), the
    sign that remains where the author object lacks ``bot``;
  - ``list=<kind>:<name>``: the username is in the list (forge ``gitlab``).

A list entry's kind wins (an App listed as an AI reviewer is an ``ai_reviewer``, not a ``bot``); otherwise any
sign makes a ``bot``. Accounts whose comments are templates (near-identical text on many changes) can only be
told across changes, which a miner (one change at a time) does not see: the filter stage checks that per
project (:mod:`revmine.filters.authors`).

The list is data, not code: each entry names the documentation or published page its login comes from and
the day it was checked (``review_bots.csv``; provenance in ``review_bots-SOURCE.md``). A job adds its own
(``[job] known_accounts = "my-bots.csv"``, the same columns: a Gerrit instance's CI accounts, say), whose rows
win over the shipped ones; a resumed job reads it again, so changes mined before an edit keep their kinds. A row that does not
read (a missing field, an unknown kind or forge, a bad date) is refused with its file, row and field.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

from ..errors import InputError
from ..schema import AuthorKind

HUMAN, BOT, AI_REVIEWER = AuthorKind.HUMAN, AuthorKind.BOT, AuthorKind.AI_REVIEWER
KINDS = AuthorKind.ALL
FORGES = ("github", "gerrit", "gitlab")
#: the user names GitLab gives the users of project and group access tokens
GITLAB_TOKEN_BOT = re.compile(r"(project|group)_\d+_bot(_[0-9a-f]+|\d*)", re.IGNORECASE)
#: the shipped list of known bot and AI-reviewer accounts
KNOWN_ACCOUNTS = Path(__file__).resolve().parent.parent / "data" / "review_bots.csv"
_COLUMNS = ("login", "forge", "kind", "name", "source", "checked")
SERVICE_USER = "SERVICE_USER"


@dataclass(frozen=True)
class KnownAccount:
    """One row of the list: an account, its forge and kind, and where that is documented."""

    login: str
    forge: str
    kind: str
    name: str
    source: str
    checked: date


def read_known_accounts(path: str | Path = KNOWN_ACCOUNTS) -> dict[tuple[str, str], KnownAccount]:
    """The list as ``{(forge, lower-case login): KnownAccount}``; a bad row raises :class:`InputError` naming the
    file, the row (its line) and the field."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(path, f"cannot read the list of known accounts: {exc}") from None
    reader = csv.DictReader(text.splitlines())
    missing = [c for c in _COLUMNS if c not in (reader.fieldnames or ())]
    if missing:
        raise InputError(path, f"missing column(s) {', '.join(missing)}", line=1)
    accounts: dict[tuple[str, str], KnownAccount] = {}
    for row in reader:
        line = reader.line_num
        for name in _COLUMNS:
            if not (row.get(name) or "").strip():
                raise InputError(path, "empty", line=line, field=name)
        if row["forge"] not in FORGES:
            raise InputError(path, f"{row['forge']!r} is not one of {', '.join(FORGES)}", line=line, field="forge")
        if row["kind"] not in (BOT, AI_REVIEWER):
            raise InputError(path, f"{row['kind']!r} is not {BOT} or {AI_REVIEWER}", line=line, field="kind")
        if not re.match(r"https?://", row["source"]):
            raise InputError(path, "not a URL", line=line, field="source")
        try:
            checked = date.fromisoformat(row["checked"])
        except ValueError:
            raise InputError(path, f"{row['checked']!r} is not a date (YYYY-MM-DD)", line=line, field="checked") from None
        key = (row["forge"], row["login"].strip().lower())
        if key in accounts:
            raise InputError(path, f"{row['login']!r} is listed twice for {row['forge']}", line=line, field="login")
        accounts[key] = KnownAccount(row["login"].strip(), row["forge"], row["kind"], row["name"].strip(),
                                     row["source"].strip(), checked)
    return accounts


Accounts = Mapping[tuple[str, str], KnownAccount]


@lru_cache(maxsize=1)
def _shipped() -> dict[tuple[str, str], KnownAccount]:
    return read_known_accounts(KNOWN_ACCOUNTS)


def known_accounts(extra: str | Path | None = None) -> Accounts:
    """The shipped list (read once per process), and a user's list of more accounts (``[job] known_accounts``,
    same columns, read at each call) whose rows win over the shipped ones (a project's CI accounts, an AI
    reviewer the shipped list lacks)."""
    if extra is None:
        return _shipped()
    return {**_shipped(), **read_known_accounts(extra)}


def _decide(signs: list[str], listed: KnownAccount | None) -> tuple[str, str | None]:
    if listed is not None:
        signs.append(f"list={listed.kind}:{listed.name}")
        return listed.kind, ";".join(signs)
    return (BOT if signs else HUMAN), (";".join(signs) or None)


def github_author(user: Mapping[str, Any] | None, known: Accounts | None = None) -> tuple[str, str | None]:
    """(kind, evidence) of a GitHub ``user`` object (a deleted account, ``null``, is a human: ``ghost``), with
    ``known`` accounts (default: the shipped list)."""
    if not user:
        return HUMAN, None
    login = str(user.get("login") or "")
    signs = []
    if user.get("type") == "Bot":
        signs.append("type=Bot")
    if login.lower().endswith("[bot]"):
        signs.append("login=[bot]")
    return _decide(signs, (known_accounts() if known is None else known).get(("github", login.lower())))


def gerrit_author(account: Mapping[str, Any] | None, known: Accounts | None = None) -> tuple[str, str | None]:
    """(kind, evidence) of a Gerrit AccountInfo (``tags`` needs detailed account information); the list is
    matched on the username, the e-mail and the full name."""
    if not account:
        return HUMAN, None
    signs = [f"tags={SERVICE_USER}"] if SERVICE_USER in (account.get("tags") or ()) else []
    known = known_accounts() if known is None else known
    listed = next((known[("gerrit", str(account[key]).lower())] for key in ("username", "email", "name")
                   if account.get(key) is not None and ("gerrit", str(account[key]).lower()) in known), None)
    return _decide(signs, listed)


def gitlab_author(user: Mapping[str, Any] | None, known: Accounts | None = None) -> tuple[str, str | None]:
    """(kind, evidence) of a GitLab note's ``author``, with ``known`` accounts (default: the shipped list)."""
    if not user:
        return HUMAN, None
    username = str(user.get("username") or "")
    signs = ["bot=true"] if user.get("bot") is True else []
    token_bot = GITLAB_TOKEN_BOT.fullmatch(username)
    if token_bot:
        signs.append(f"username={token_bot.group(1).lower()}_bot")
    return _decide(signs, (known_accounts() if known is None else known).get(("gitlab", username.lower())))


def robot_comment(account: Mapping[str, Any] | None, robot_id: str | None,
                  known: Accounts | None = None) -> tuple[str, str]:
    """(kind, evidence) of a Gerrit robot comment: a bot, with the account's own signs kept as evidence."""
    kind, evidence = gerrit_author(account, known)
    signs = [f"robot_comment:{robot_id or '?'}", *([evidence] if evidence else [])]
    return (kind if kind == AI_REVIEWER else BOT), ";".join(signs)
