"""Accounts whose comments are templates: per project, the bots that neither their forge nor the list names.

The miners record who wrote each comment as the forge shows it (:mod:`revmine.miners.authors`: GitHub's
``type: "Bot"``, the ``[bot]`` suffix, Gerrit's ``SERVICE_USER`` tag, robot comments, the list of known
accounts). A CI or lint account created as an ordinary user shows none of these; what gives it away is what it
writes: the same text, give or take a number, a hash or a path, on change after change. That can only be seen
across changes, so this check runs in the filter stage, over the triplets of each project (a comment counts
once however many methods it is linked to), and marks an account as a *template* account when:

=========================== ======= =====================================================================
threshold                   default why
=========================== ======= =====================================================================
``min_changes``             5       a template is one text (near-identical, below) posted on at least 5
                                    distinct changes: a person may paste a remark twice or thrice
``min_tokens``              8       only texts of at least 8 tokens once masked count as templates: the
                                    stock replies people write often ("Done", "LGTM", "nit: typo", "Please
                                    add a test") are shorter and never make an account a bot
``min_share``               0.5     the template comments are at least half of the account's comments in
                                    the project: a reviewer who also pastes a checklist now and then, but
                                    mostly writes, stays human
=========================== ======= =====================================================================

Texts are compared after masking what changes from one automated comment to the next (:func:`mask`: URLs,
hashes, paths, numbers, to ``<url>``, ``<hash>``, ``<path>``, ``<num>``; lower case; whitespace collapsed),
and *near-identical* is the near-duplicate criterion of the dataset (:mod:`revmine.algorithms.near_duplicates`,
CodeNet's Jaccard thresholds 0.9 on token sets and 0.8 on bags), so a template with a varying rule name or a
varying line of context is still one template. Every comment of a template account is then a ``bot``'s, with
the evidence ``template: N comments on M changes`` in the dropped row's ``detail``.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from typing import Sequence

from ..algorithms.near_duplicates import NearDuplicateConfig, near_duplicate_clusters
from ..errors import InputError

_URL = re.compile(r"\b(?:https?|ftp)://\S+|\bwww\.\S+", re.IGNORECASE)
_HASH = re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,64}\b", re.IGNORECASE)
_PATH = re.compile(r"(?:[\w.-]+/)+[\w.-]+|\b[\w-]+\.(?:java|py|js|ts|go|c|h|cc|cpp|hpp|cs|kt|rb|rs|xml|json|ya?ml)\b")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_TOKEN = re.compile(r"<\w+>|\w+|[^\w\s]")


def mask(text: str) -> str:
    """``text`` with what varies between two posts of one template replaced by placeholders."""
    text = _URL.sub(" <url> ", text or "")
    text = _HASH.sub(" <hash> ", text)
    text = _PATH.sub(" <path> ", text)
    text = _NUMBER.sub(" <num> ", text)
    return " ".join(text.lower().split())


def tokens(masked: str) -> list[str]:
    return _TOKEN.findall(masked)


@dataclass(frozen=True)
class TemplateThresholds:
    """When an account's comments are templates (see the module docstring for why these values)."""

    min_changes: int = 5
    min_tokens: int = 8
    min_share: float = 0.5

    def __post_init__(self) -> None:
        if self.min_changes < 2:
            raise InputError.setting("min_changes", f"must be at least 2, not {self.min_changes}")
        if self.min_tokens < 1:
            raise InputError.setting("min_tokens", f"must be at least 1, not {self.min_tokens}")
        if not 0 < self.min_share <= 1:
            raise InputError.setting("min_share", f"must be in (0, 1], not {self.min_share}")


def template_accounts(comments: Sequence[tuple[str, str, str, str, str]],
                      thresholds: TemplateThresholds = TemplateThresholds()) -> dict[tuple[str, str], str]:
    """``{(project, author): evidence}`` of the accounts whose comments are templates.

    ``comments``: (project, author, change, comment id, text), a comment once (repeats by id are ignored)."""
    by_account: dict[tuple[str, str], dict[str, tuple[str, str]]] = defaultdict(dict)
    for project, author, change, comment_id, text in comments:
        if author is None or comment_id is None:
            continue
        by_account[(project, author)].setdefault(comment_id, (change, text or ""))
    found: dict[tuple[str, str], str] = {}
    for account, items in sorted(by_account.items()):
        if len({change for change, _ in items.values()}) < thresholds.min_changes:
            continue
        long = [(change, toks) for change, toks in ((c, tokens(mask(t))) for c, t in items.values())
                if len(toks) >= thresholds.min_tokens]
        if len(long) < thresholds.min_changes:
            continue
        labels = near_duplicate_clusters([toks for _, toks in long], NearDuplicateConfig()).labels.tolist()
        groups: dict[int, list[str]] = defaultdict(list)
        for label, (change, _) in zip(labels, long):
            groups[label].append(change)
        templated = [changes for changes in groups.values() if len(set(changes)) >= thresholds.min_changes]
        n = sum(len(changes) for changes in templated)
        if templated and n >= thresholds.min_share * len(items):
            spread = len({change for changes in templated for change in changes})
            found[account] = (f"template: {n} of its {len(items)} comments in {account[0]} are near-identical "
                              f"texts on {spread} changes")
    return found
