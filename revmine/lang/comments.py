"""Clean and abstract reviewer comments the way the ICSE 2021 dataset made ``src1-test.txt``.

The preprocess stage writes the result as ``comment_abstract``; the ``tufano2021`` noise rules (filters) run
the same cleaning to tell whether anything is left of a comment, so it lives apart from both.

A comment is abstracted with the map of its method pair (:func:`revmine.preprocess.abstraction.abstract_pair`)
so that the model sees the same ids in the comment as in the code. The rules were inferred from the replication
package (``../shared/design/abstraction.md``, "Reviewer comments"). The stop list is
:func:`revmine.lang.stopwords.default_stopwords`: a published list shipped unedited plus the 2021 dataset's
documented exceptions (kept words such as ``need``, ``please``, ``instead``; see that module).

Several steps reproduce quirks of the reference on purpose, because exact agreement is the goal:

* lines are stripped and glued with *no* separator (``set the\\narguments`` gives ``set thearguments``);
* quoted literals that are keys of the map (``"1.0.0.0"``, ``'1'``, ``"http://"``) are replaced by plain
  text substitution, even when glued to a neighbouring word, *before* URLs are removed, so a quoted
  ``"http://"`` literal survives as its id;
* a URL takes the non-space run glued before it with it (``happens:https://..`` disappears whole), but
  stops at ``(`` and ``)`` so markdown links keep their brackets;
* one-character words are never looked up in the stop list (the reference keeps ``a``, ``i``, ``s``, ``t``
  although the list has them, as a tokeniser that only indexes words of two or more characters does);
* one leading ``:``, ``-`` or ``>`` and one trailing ``?`` or ``!`` are dropped from the result.

With ``abstract=False`` only the noise is removed (URLs, backticks, line breaks, runs of spaces): the
words, their case and their punctuation stay, so the text remains readable.
"""

from __future__ import annotations

import re
from typing import Iterable, Mapping

from .idioms import default_idioms
from .stopwords import default_stopwords

__all__ = ["clean_comment"]

_URL = re.compile(r"[^\s(]*https?://[^\s()]*")
_REMOVED = re.compile(r"[.,\"'~]")
_SPLIT = re.compile(r"([()\[\]{}<>?!:;=\-/*+])")
_LEADING_DROP = frozenset({":", "-", ">"})
_TRAILING_DROP = frozenset({"?", "!"})


def clean_comment(
    text: str,
    mapping: Mapping[str, str] | None = None,
    idioms: Iterable[str] | None = None,
    abstract: bool = True,
    stopwords: Iterable[str] | None = None,
) -> str:
    """Return the comment as the dataset's ``src1`` line (``abstract=True``) or merely de-noised.

    ``mapping`` is the pair's abstraction map (original name or literal -> id as printed); names found in
    it become their id, other code-looking words (camelCase) become ``_CODE_``. ``idioms`` default to the
    2021 list and ``stopwords`` to :func:`default_stopwords`. The raw comment is not kept here: callers
    store it beside the result.
    """
    if not abstract:
        return " ".join(_URL.sub(" ", text.replace("`", " ")).split())
    mapping = mapping or {}
    idiom_set = default_idioms() if idioms is None else frozenset(idioms)
    stop_set = default_stopwords() if stopwords is None else frozenset(word.lower() for word in stopwords)
    words: list[str] = []
    for token in _tokens(text, mapping):
        word = _abstract_token(token, mapping, idiom_set, stop_set)
        if word is not None:
            words.append(word)
    if words and words[0] in _LEADING_DROP:
        words = words[1:]
    if words and words[-1] in _TRAILING_DROP:
        words = words[:-1]
    return " ".join(words)


def _tokens(text: str, mapping: Mapping[str, str]) -> list[str]:
    """Backticks out, lines glued, mapped literals in, URLs out, punctuation split off."""
    text = "".join(line.strip() for line in text.replace("`", " ").splitlines())
    for literal, abstract_id in mapping.items():
        if len(literal) > 1 and literal[0] in "\"'":
            text = text.replace(literal, abstract_id)
    text = _URL.sub(" ", text)
    return _SPLIT.sub(r" \1 ", _REMOVED.sub(" ", text)).split()


def _abstract_token(token: str, mapping: Mapping[str, str], idioms: frozenset[str],
                    stopwords: frozenset[str]) -> str | None:
    """One token's output, or None when it is dropped; the order of the checks is the reference's."""
    if token.startswith("@"):  # a mention is dropped; an annotation keeps its idiom or its id
        if token in idioms:
            return token
        return mapping.get(token, mapping.get(token[1:]))  # annotations are keyed with their "@"
    if token in mapping:
        return mapping[token]
    if token not in idioms and _looks_like_code(token):
        return "_CODE_"
    if len(token) > 1 and token.lower() in stopwords:  # before idioms: `value`, `get`, `it` are idioms yet dropped
        return None
    if token in idioms or token.isupper():
        return token
    return token.lower()


def _looks_like_code(token: str) -> bool:
    """camelCase or PascalCase with a second capital (``storeVncData``, ``QName``), not ALL_CAPS.

    Words with an underscore are not code here: the reference lower-cases ``m_isLeaderToReplica``.
    """
    return "_" not in token and not token.isupper() and any(ch.isupper() for ch in token[1:])
