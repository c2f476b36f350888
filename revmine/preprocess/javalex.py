"""A Java 7-era lexer, because the reference abstraction (src2abs) tokenises with one.

Its quirks decide the abstracted text token for token, and no packaged Python lexer has them: there are
no ``->``, ``::``, ``<<``, ``>>`` or ``>>>`` tokens (they come out as single characters), ``>>=``,
``>>>=``, ``<=``, ``>=`` and ``...`` are single tokens, ``var``/``record``/``yield`` are plain
identifiers, and characters the grammar does not know (``#``, a backslash, a backtick, ``é`` and other
Latin-1 letters) are dropped, as the ANTLR lexer's error recovery does. A string or character literal that
cannot be completed (bad escape, missing quote) is dropped up to and including the character where it
failed, again as ANTLR recovers. javalang's tokenizer was measured against this and differs (it has
``->``, ``::``, ``<<`` and rejects unknown characters), and it is about ten times slower than this
single regular expression.

Identifiers outside Latin-1 use Python's notion of a word character as an approximation of Java's
``Character.isJavaIdentifierStart/Part``.
"""

from __future__ import annotations

import re
from typing import NamedTuple

KEYWORDS = frozenset(
    "abstract assert boolean break byte case catch char class const continue default do double else enum "
    "extends final finally float for if goto implements import instanceof int interface long native new "
    "package private protected public return short static strictfp super switch synchronized this throw "
    "throws transient try void volatile while".split()
)
#: ``true``, ``false`` and ``null`` are literal tokens that print verbatim.
VERBATIM_LITERALS = frozenset(("true", "false", "null"))

# Token kinds.
IDENT = "ident"
KEYWORD = "keyword"
INT = "int"
FLOAT = "float"
CHAR = "char"
STRING = "string"
OP = "op"  # operators and separators: the kind's text is the token itself
LITERAL = "literal"  # true, false, null

_DIGITS = r"[0-9](?:[0-9_]*[0-9])?"
_HEX = r"[0-9a-fA-F](?:[0-9a-fA-F_]*[0-9a-fA-F])?"
_EXP = rf"[eE][+-]?{_DIGITS}"
_ESCAPE = r"\\(?:[btnfr\"'\\]|[0-7]{1,3}|u[0-9a-fA-F]{4})"
_BAD_ESCAPE = r"(?:\\(?:u[0-9a-fA-F]{0,3})?)"


def _token_pattern(identifier: str) -> re.Pattern[str]:
    """Leading whitespace, then one token in one of seven numbered groups (see ``_GROUP_KINDS``), or in the
    eighth what the lexer drops when nothing else matches.

    Alternatives are ordered so that Python's first match is the lexer's longest match: numbers before
    the operators that start with a dot (``.5`` is a float), the rest by their distinct first characters.
    The dropped span is one character, or a literal that cannot be completed up to and including the
    character where it fails, as ANTLR recovers: its longest valid prefix, a backslash (and a partial
    unicode escape) that starts a bad escape, then one more character.
    """
    return re.compile(
        rf"""
        [ \t\r\n\f]*
        (?:
        ({identifier})
      | (>>>=|<<=|>>=|==|<=|>=|!=|&&|\|\||\+\+|--|\+=|-=|\*=|/=|&=|\|=|\^=|%=|[=><!~?:+\-*/&|^%@(){{}}\[\];,])
      | (0[xX](?:{_HEX}\.?|(?:{_HEX})?\.{_HEX})[pP][+-]?{_DIGITS}[fFdD]?
          | {_DIGITS}\.(?:{_DIGITS})?(?:{_EXP})?[fFdD]?
          | \.{_DIGITS}(?:{_EXP})?[fFdD]?
          | {_DIGITS}{_EXP}[fFdD]?
          | {_DIGITS}[fFdD])
      | ((?:0[xX]{_HEX}|0[bB][01](?:[01_]*[01])?|0_*[0-7](?:[0-7_]*[0-7])?|0|[1-9](?:[0-9_]*[0-9])?)[lL]?)
      | ("(?:[^"\\]|{_ESCAPE})*")
      | ('(?:[^'\\]|{_ESCAPE})')
      | (\.\.\.|\.)
      | ("(?:[^"\\]|{_ESCAPE})*{_BAD_ESCAPE}?[\s\S]?
          | '(?:[^'\\]|{_ESCAPE})?{_BAD_ESCAPE}?[\s\S]?
          | [^ \t\r\n\f])
        )
        """,
        re.VERBOSE,
    )


_DROPPED = "dropped"
_GROUP_KINDS = (None, IDENT, OP, FLOAT, INT, STRING, CHAR, OP, _DROPPED)
# Most sources are ASCII; their identifiers match a plain character class, which is faster.
_TOKEN_ASCII = _token_pattern(r"[A-Za-z$_][A-Za-z0-9$_]*")
_TOKEN_UNICODE = _token_pattern(r"(?:[A-Za-z$_]|[^\x00-\xff\W])(?:[A-Za-z0-9$_]|[^\x00-\xff\W])*")


class Token(NamedTuple):
    """One lexed token: its kind, its text and where it starts in the input (for adjacency checks)."""

    kind: str
    text: str
    start: int


def tokenize(code: str) -> tuple[list[Token], bool]:
    """Lex ``code``; return the tokens and whether any input had to be dropped (a lexing error)."""
    tokens: list[Token] = []
    append = tokens.append
    new = tuple.__new__  # builds a Token without the NamedTuple constructor's overhead
    kinds = _GROUP_KINDS
    dropped = False
    # Every character is in a match (whitespace before a token, or the token), except trailing whitespace.
    for m in (_TOKEN_ASCII if code.isascii() else _TOKEN_UNICODE).finditer(code):
        group = m.lastindex
        kind = kinds[group]
        text = m.group(group)
        if kind == IDENT:
            if text in KEYWORDS:
                kind = KEYWORD
            elif text in VERBATIM_LITERALS:
                kind = LITERAL
        elif kind is _DROPPED:
            dropped = True
            continue
        append(new(Token, (kind, text, m.start(group))))
    return tokens, dropped
