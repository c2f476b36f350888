"""The ``tufano2021`` noise profile: the keyword rules of the 2021 replication package, as its code runs them.

Tufano et al. ("Towards Automating Code Review Activities", ICSE 2021) removed reviewer comments that ask
for no change to the reviewed method. Their replication package (GitHub RosaliaTufano/code_review,
``is_relevant.ipynb``) holds the keyword logic; this module is a reimplementation of that code (not a copy),
with its order and its matching, so that ``revmine filter --profile tufano2021`` removes what the authors'
rules removed. The paper pairs these rules with a classifier the authors trained; that model is not in
the package, so the profile runs **the rules alone** unless a model is given too (``--noise-model``: then
a comment is noise when the rules or that model say so, the paper's "rules then classifier" structure).

How the notebook decides (one ``if ... elif`` chain, the first branch that applies decides):

==================== ==================================================================================
branch               applies when (``in``: substring test, ``n``: number of whitespace tokens)
==================== ==================================================================================
``no_content``       nothing is left once stop words are removed -> noise
``one_word``         n == 1 -> noise if it contains nice, pleas, ditto, thank, ditto2, fine, agew,
                     hahaha, yeh or lol; **otherwise relevant, and no later branch is tried**
``two_words``        n == 2 -> noise if it contains ``ack``; otherwise relevant, no later branch tried
``indentation``      ``indent`` in it and n < 5
``thanks``           (works for me | sounds good | makes sense | smile | approv) in it and n < 5
``add_test``         (``test`` in it and n < 5) or (``add`` and ``test`` in it)
``clarification``    ((please explain | explan | wat | what) in it and n < 5)
                     or ((understand | meant) in it and ``not sure`` in it)
``same_as``          (same as | same remark | said above | do the same) in it and n < 5
``web_page``         (like | see) in it and ``http`` in it
``documentation``    document | javadoc | comment in it (any length)
``pull_request``     ``pr`` in it and n < 5
``plus_one``         ``+1`` in it and n < 3
``for_now``          ``for now`` in it and n < 5
``answer``           (fixed | thank | youre right) in it and n < 3
==================== ==================================================================================

What it runs on (the notebook shows the variables, not how they were made; these are revmine's choices):

* ``comment`` is the **raw comment, lower-cased**. Raw, because two rules look for ``http`` and ``+1``,
  which the dataset's comment cleaning removes; lower-cased, because every keyword is lower case and a
  rule for "thank" that misses "Thanks" would be no rule.
* ``comment_size`` is ``len(comment.split())``: whitespace tokens, punctuation included (``"ok."`` is one).
* ``comment_with_no_stopwords`` is the comment as the dataset's cleaning leaves it
  (:func:`revmine.lang.comments.clean_comment` without an abstraction map: URLs, backticks and
  ``.,"'~`` out, stop words out: :func:`revmine.lang.stopwords.default_stopwords`, the published list of
  ``revmine/data/stopwords.txt`` with the exceptions of ``revmine/data/stopwords-2021-exceptions.txt``,
  the stop list that reproduces the authors' ``src1`` lines). "No content" means that is empty.

Quirks the code has, kept on purpose (the profile reproduces what was run, not what was meant):

* matching is on substrings, not words: ``wat`` matches "what", "water", "watch"; ``pr`` matches
  "private", "print", "protected", "prefer"; ``ack`` matches "back", "stack", "package"; ``fine`` matches
  "define", "refine"; ``pleas`` matches "please"; ``test`` matches "latest"; ``add`` matches "address",
  "padding"; ``see`` matches "seems"; ``comment`` matches "comments", "commented". So "private?" (one
  word) is kept but "why private here?" (3 words, ``pr``) is noise, and "Please!" is noise.
* one- and two-word comments only ever meet their own branch: "+1", "Done", "fixed", "LGTM" are *kept*
  (no keyword of the one-word list), and so ``plus_one`` and ``answer`` (n < 3) can never fire: every
  comment they would catch has one or two words and was decided before. They are listed for completeness.
* ``documentation`` has no length limit: any comment containing "comment" or "document" is noise,
  whatever else it asks ("Please remove this commented-out code").
* the stop-word test comes first, so a one-word stop word ("why?") is noise by ``no_content``.
* the notebook's kernel is Python 2, whose byte-string ``split()`` does not split at non-ASCII spaces
  (U+00A0); Python 3's does. Comments with such spaces are rare.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from ..lang.comments import clean_comment

__all__ = ["BRANCHES", "NAME", "Branch", "decide", "is_noise"]

NAME = "tufano2021"


def _any(*keywords: str) -> Callable[[str], bool]:
    return lambda text: any(keyword in text for keyword in keywords)


@dataclass(frozen=True)
class Branch:
    """One ``if``/``elif`` of the notebook: when it ``applies`` it decides, noise when ``noise`` holds too
    (the one- and two-word branches apply to every comment of that length but call only some noise)."""

    name: str
    applies: Callable[[str, int], bool]
    noise: Callable[[str, int], bool] = lambda text, size: True


_ONE_WORD = _any("nice", "pleas", "ditto", "thank", "ditto2", "fine", "agew", "hahaha", "yeh", "lol")
_THANKS = _any("works for me", "sounds good", "makes sense", "smile", "approv")
_CLARIFY = _any("please explain", "explan", "wat", "what")
_UNSURE = _any("understand", "meant")
_SAME = _any("same as", "same remark", "said above", "do the same")
_LINK_WORD = _any("like", "see")
_DOCS = _any("document", "javadoc", "comment")
_ANSWER = _any("fixed", "thank", "youre right")

#: The notebook's chain after the stop-word test, in its order.
BRANCHES: tuple[Branch, ...] = (
    Branch("one_word", lambda t, n: n == 1, lambda t, n: _ONE_WORD(t)),
    Branch("two_words", lambda t, n: n == 2, lambda t, n: "ack" in t),
    Branch("indentation", lambda t, n: "indent" in t and n < 5),
    Branch("thanks", lambda t, n: _THANKS(t) and n < 5),
    Branch("add_test", lambda t, n: ("test" in t and n < 5) or ("add" in t and "test" in t)),
    Branch("clarification", lambda t, n: (_CLARIFY(t) and n < 5) or (_UNSURE(t) and "not sure" in t)),
    Branch("same_as", lambda t, n: _SAME(t) and n < 5),
    Branch("web_page", lambda t, n: _LINK_WORD(t) and "http" in t),
    Branch("documentation", lambda t, n: _DOCS(t)),
    Branch("pull_request", lambda t, n: "pr" in t and n < 5),
    Branch("plus_one", lambda t, n: "+1" in t and n < 3),
    Branch("for_now", lambda t, n: "for now" in t and n < 5),
    Branch("answer", lambda t, n: _ANSWER(t) and n < 3),
)


def decide(comment: str) -> str | None:
    """The name of the branch that makes ``comment`` noise, or None when the notebook keeps it."""
    text = comment.lower()
    if not clean_comment(comment):
        return "no_content"
    size = len(text.split())
    for branch in BRANCHES:
        if branch.applies(text, size):
            return branch.name if branch.noise(text, size) else None
    return None


def is_noise(comments: Sequence[str]) -> np.ndarray:
    """One flag per comment: True when the notebook's rules find it not relevant."""
    return np.fromiter((decide(c) is not None for c in comments), dtype=bool, count=len(comments))
