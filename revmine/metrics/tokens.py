"""Every tokeniser the metrics use, in one place, so that two metrics that say ``tok:space`` split alike.

The signature of a metric names its tokeniser (``tok:space``, ``tok:char``, ``tok:codexglue``,
``tok:lc-alnum``); this module is what those names stand for:

* ``space`` — :func:`token_sequence`: ``str.split()``'s words (every ``str.isspace`` character splits,
  U+00A0 and U+3000 included; sacrebleu's ``tokenize='none'``). :func:`intern_tokens` numbers the
  tokens of many strings at once without making a ``str`` per token, and ``WHITESPACE`` is the table both
  it and the compiled edit-distance kernel (``_levenshtein``) split on;
* ``char`` — the string itself as its sequence of characters, spaces included (what nltk's
  ``sentence_bleu`` compares when handed strings);
* ``13a``, ``intl``, ``sacrebleu-char`` — :func:`sacrebleu_tokenizer`: sacrebleu's own tokenisers (BLEU
  only), whose output is then split as ``space``;
* ``codexglue`` — :func:`codexglue_tokens`, the preprocessing of CodeXGLUE's BLEU-Norm (mteval-v11a);
* ``lc-alnum`` — :func:`rouge_tokenizer`: rouge-score's public ``DefaultTokenizer`` (lower-cased runs of
  ``[a-z0-9]``, optionally Porter-stemmed), ROUGE-1.5.5's tokenisation;
* :func:`words` — :func:`normalise` (case folding, punctuation removal: Dey et al.'s factors) then
  ``space``, for the METEOR family and the ``cmg2022`` variants;
* :func:`code_tokens` — the lexical tokens of code in any language of :mod:`revmine.lang.languages`: the
  leaves of tree-sitter's tree of that language, comments dropped (other extras, such as C#'s ``#if``
  lines, are kept), a string or character literal one token however tree-sitter splits it (``LITERALS``:
  quotes, fragments, escapes, f-string interpolations), leaves that are only whitespace (C's end of a
  preprocessor line, zero-width MISSING tokens of a recovered parse) dropped; text that tree-sitter's error
  recovery skips (no leaf covers it, e.g. after an unterminated docstring) becomes its whitespace-separated
  words. So the tokens joined are the code without its whitespace and comments, whether it parses or not
  (cut-off model output). TREED's token fallback uses it for every language but Java, whose default stays
  javalang's lexer.

Tokenisers that belong to the implementation a signature names stay there: ``tok:tercom`` (TER) and
chrF's character n-grams are sacrebleu's, TREED lexes Java with javalang (and falls back to ``space``).
"""

from __future__ import annotations

import re
import string
import threading
import xml.sax.saxutils
from typing import Callable, Sequence

import numpy as np

from ..lang import languages

TOKENIZERS = ("space", "char")
#: sacrebleu's tokenisers for natural language, as BLEU's ``tokenize`` names them -> sacrebleu's name.
#: ``sacrebleu-char`` is sacrebleu's ``char``: characters with the spaces dropped (``char`` keeps them).
SACREBLEU_TOKENIZERS = {"13a": "13a", "intl": "intl", "sacrebleu-char": "char"}


def check_tokenizer(tokenize: str) -> None:
    """Refuse a tokeniser name that :func:`token_sequence` does not know."""
    if tokenize not in TOKENIZERS:
        raise ValueError(f"tokenize must be one of {TOKENIZERS}, not {tokenize!r}")


def token_sequence(text: str, tokenize: str) -> Sequence[str]:
    """The tokens of ``text``: ``str.split()``'s words (``space``), or the string itself (``char``: a str
    is already the sequence of its characters, and libraries such as rapidfuzz compare it fastest so)."""
    return text.split() if tokenize == "space" else text


#: ``WHITESPACE[min(c, 0x3001)]``: whether code point c is one ``str.split()`` splits on (``str.isspace``).
#: None lies above U+3000 (tests/test_metrics_edit.py checks the whole range); the last entry, False,
#: stands for every code point above. Shared with the compiled edit-distance kernel (``_levenshtein``).
_LAST_SPACE = 0x3000
WHITESPACE = np.array([chr(c).isspace() for c in range(_LAST_SPACE + 2)], dtype=np.bool_)
_BASE = np.uint64(0x9E3779B97F4A7C15)  # odd, so invertible modulo 2**64
_SLOT_BITS = 20
# _BASE ** i and its inverse ** i (mod 2**64), grown on demand
_POWERS = np.ones(1, dtype=np.uint64)
_INVERSE_POWERS = np.ones(1, dtype=np.uint64)


def _powers(n: int) -> tuple[np.ndarray, np.ndarray]:
    global _POWERS, _INVERSE_POWERS
    if n > len(_POWERS):
        n = max(n, 2 * len(_POWERS))
        tables = []
        for base in (_BASE, pow(int(_BASE), -1, 2**64)):
            factors = np.full(n, base, dtype=np.uint64)
            factors[0] = 1
            tables.append(np.cumprod(factors, dtype=np.uint64))  # wraps modulo 2**64
        _POWERS, _INVERSE_POWERS = tables
    return _POWERS, _INVERSE_POWERS


def codepoints(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


def _not_space(cp: np.ndarray) -> np.ndarray:
    """``not str.isspace()`` per code point; compares for ASCII, the table only for the rare rest."""
    word = cp > 32
    odd = np.flatnonzero((cp < 32) | (cp > 127) if cp.max(initial=0) > 127 else cp < 32)
    word[odd] = ~WHITESPACE[np.minimum(cp[odd], _LAST_SPACE + 1)]
    return word


def _dense(hashes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ids 0..V-1 for distinct hash values, and for each position one position with the same hash.

    A table indexed by 20 bits of the (re-mixed) hash does it in a few linear passes; if two distinct
    hashes share a slot, sorting does it instead.
    """
    positions = np.arange(len(hashes))
    slot = ((hashes * np.uint64(0xBF58476D1CE4E5B9)) >> np.uint64(64 - _SLOT_BITS)).astype(np.intp)
    table = np.empty(1 << _SLOT_BITS, dtype=np.uint64)
    table[slot] = hashes
    if np.array_equal(table[slot], hashes):
        owner = np.empty(1 << _SLOT_BITS, dtype=np.int64)
        owner[slot] = positions
        rep = owner[slot]
        owner[slot[rep == positions]] = np.arange(int((rep == positions).sum()))
        return owner[slot], rep
    ordered = np.sort(hashes)
    ids = np.searchsorted(ordered[np.concatenate([[True], ordered[1:] != ordered[:-1]])], hashes)
    owner = np.empty(len(ids), dtype=np.int64)
    owner[ids] = positions
    return ids, owner[ids]


def intern_tokens(strings: Sequence[str], tokenize: str = "space") -> tuple[np.ndarray, np.ndarray]:
    """Dense int64 ids of the tokens of all ``strings`` (concatenated), and each string's token count.

    Two tokens get the same id exactly when they are equal (within one call). ``space`` tokens are
    ``str.split()``'s; ``char`` tokens are the characters. Done with numpy on the code points because a
    Python loop over ~1M tokens costs more than all of BLEU's counting: a polynomial hash of each token
    (prefix sums modulo 2**64), numbered by :func:`_dense`, then every token compared character by
    character with one token of its id, so a hash collision can never merge two tokens (it falls back
    to a dictionary).
    """
    if tokenize == "char":
        counts = np.fromiter(map(len, strings), dtype=np.int64, count=len(strings))
        _, ids = np.unique(codepoints("".join(strings)), return_inverse=True)
        return ids.astype(np.int64, copy=False), counts
    lengths = np.fromiter(map(len, strings), dtype=np.int64, count=len(strings))
    cp = codepoints("\n".join(strings))
    word = _not_space(cp)
    edges = np.flatnonzero(np.diff(word, prepend=False, append=False))
    starts, ends = edges[0::2], edges[1::2]
    if not len(starts):
        return np.zeros(0, dtype=np.int64), np.zeros(len(strings), dtype=np.int64)
    powers, inverse = _powers(len(cp) + 1)
    prefix = np.zeros(len(cp) + 1, dtype=np.uint64)
    np.cumsum(cp * powers[:len(cp)], out=prefix[1:])
    token_len = ends - starts
    hashes = (prefix[ends] - prefix[starts]) * inverse[starts] + token_len.astype(np.uint64)
    ids, rep = _dense(hashes)
    chars = np.flatnonzero(word)
    if not (np.array_equal(token_len[rep], token_len)
            and np.array_equal(cp[chars + np.repeat(starts[rep] - starts, token_len)], cp[chars])):
        vocab: dict[str, int] = {}
        ids = np.fromiter((vocab.setdefault(t, len(vocab)) for s in strings for t in s.split()),
                          dtype=np.int64, count=len(starts))
    counts = np.diff(np.searchsorted(starts, np.concatenate([[0], np.cumsum(lengths + 1)])))
    return ids.astype(np.int64, copy=False), counts


# mteval-v11a.pl's normalisation, as CodeNN's bleu.py and CodeXGLUE's smooth_bleu.py carry it
_MTEVAL_STRIP = [(re.compile(r"<skipped>"), ""), (re.compile(r"-\n"), ""), (re.compile(r"\n"), " ")]
_MTEVAL_TOKENS = [
    (re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])"), r" \1 "),  # punctuation (not the apostrophe)
    (re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),  # period and comma unless preceded by a digit
    (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),  # ... unless followed by a digit
    (re.compile(r"([0-9])(-)"), r"\1 \2 "),  # dash after a digit
]
_WORDS_AND_PUNCTUATION = re.compile(r"[\w]+|[^\s\w]")


def codexglue_tokens(text: str) -> str:
    """CodeXGLUE's preprocessing for BLEU-Norm, as a space-joined token string.

    ``splitPuncts(text.strip().lower())`` (runs of word characters and single other characters), then
    mteval-v11a's ``normalize``: drop ``<skipped>``, join lines, unescape ``&amp; &lt; &gt; &quot;``,
    lower-case, split off punctuation, and split on whitespace.
    """
    s = " ".join(_WORDS_AND_PUNCTUATION.findall(text.strip().lower()))
    for pattern, replacement in _MTEVAL_STRIP:
        s = pattern.sub(replacement, s)
    s = f" {xml.sax.saxutils.unescape(s, {'&quot;': chr(34)})} ".lower()
    for pattern, replacement in _MTEVAL_TOKENS:
        s = pattern.sub(replacement, s)
    return " ".join(s.split())


#: Character sets removed by ``normalise``: none, ASCII punctuation, or the set Dey et al.'s scripts
#: remove (ASCII punctuation without ``+ = ` |``).
PUNCTUATION: dict[str, str] = {
    "none": "",
    "ascii": string.punctuation,
    "cmg2022": "!()-[]{};:'\"\\,<>./?@#$%^&*_~",
}


def normalise(text: str, lowercase: bool, punctuation: str) -> str:
    """Lower-case and/or delete punctuation characters (``punctuation`` names a set in ``PUNCTUATION``).

    Characters are deleted, not replaced by spaces, as in Dey et al.: ``don't`` becomes ``dont``.
    """
    if lowercase:
        text = text.lower()
    chars = PUNCTUATION[punctuation]
    return text.translate(str.maketrans("", "", chars)) if chars else text


def words(text: str, lowercase: bool, punctuation: str) -> list[str]:
    """Whitespace tokens of the normalised text (METEOR's and Dey et al.'s word lists)."""
    return normalise(text, lowercase, punctuation).split()


def sacrebleu_tokenizer(tokenize: str) -> Callable[[str], str]:
    """sacrebleu's tokeniser for a name in ``SACREBLEU_TOKENIZERS``, applied as sacrebleu's BLEU applies it
    (to the right-stripped segment); returns the tokens joined by single spaces, so ``space`` splits them."""
    name = SACREBLEU_TOKENIZERS[tokenize]
    if name == "13a":
        from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a as Tokenizer
    elif name == "intl":
        from sacrebleu.tokenizers.tokenizer_intl import TokenizerV14International as Tokenizer
    else:
        from sacrebleu.tokenizers.tokenizer_char import TokenizerChar as Tokenizer
    tokenizer = Tokenizer()
    return lambda text: tokenizer(text.rstrip())


def rouge_tokenizer(stemmer: bool) -> Callable[[str], list[str]]:
    """rouge-score's tokeniser (its public ``tokenizers.DefaultTokenizer``): lower-cased ``[a-z0-9]`` runs,
    Porter-stemmed (tokens longer than 3 characters) when ``stemmer``, as ``RougeScorer`` tokenises."""
    from rouge_score import tokenizers

    return tokenizers.DefaultTokenizer(use_stemmer=stemmer).tokenize


#: One-token literals the metrics read as their parts: a JavaScript/TypeScript regular expression (``/`` pattern
#: ``/`` flags) and a C++ user-defined literal (literal, suffix). TREED and its token fallback have always read
#: them so, and a change would move their values under an unchanged signature.
_READ_AS_PARTS = frozenset({"regex", "user_defined_literal"})
#: The literal keywords C, C++ and C# hang under a node (``NULL``, ``nullptr``, ``true``): one leaf each.
_KEYWORD_LITERALS = {"c": frozenset({"null"}), "cpp": frozenset({"null"}), "csharp": frozenset({"boolean_literal"})}
#: Per language, the node types tree-sitter splits into pieces that are one token: the language's
#: ``atomic_literals`` (:mod:`revmine.lang.languages`; string and character literals) and its literal keywords.
LITERALS: dict[str, frozenset[str]] = {
    name: language.atomic_literals - _READ_AS_PARTS | _KEYWORD_LITERALS.get(name, frozenset())
    for name, language in languages.LANGUAGES.items()}
_PARSERS = threading.local()  # a tree-sitter Parser must not be shared between threads


def sitter_parser(lang: str):
    """This thread's tree-sitter parser of ``lang`` (one per thread and language, made on first use)."""
    parsers = _PARSERS.__dict__
    if lang not in parsers:
        parsers[lang] = languages.parser(lang)
    return parsers[lang]


def code_tokens(code: str, lang: str) -> list[str]:
    """The tokens of ``code`` in ``lang``: tree-sitter's leaves, comments dropped, a literal one token
    (module docstring). For languages without a lexer of their own here (all but Java's javalang)."""
    if lang not in LITERALS:
        raise ValueError(f"lang must be one of {tuple(LITERALS)}, not {lang!r}")
    source = code.encode("utf-8")
    literals = LITERALS[lang]
    out: list[str] = []
    done = 0  # bytes before this are tokens, comments or whitespace

    def skipped(start: int) -> None:  # text the parser's recovery skipped: its words (as ``space``)
        if start > done:
            out.extend(source[done:start].decode("utf-8", "replace").split())

    stack = [sitter_parser(lang).parse(source).root_node]
    while stack:
        node = stack.pop()
        comment = node.is_extra and "comment" in node.type  # not every extra: C#'s #if, ERROR nodes
        if node.child_count and node.type not in literals and not comment:
            stack.extend(reversed(node.children))
            continue
        skipped(node.start_byte)
        token = source[node.start_byte:node.end_byte].decode("utf-8", "replace").strip()
        if token and not comment:
            out.append(token)
        done = max(done, node.end_byte)
    skipped(len(source))
    return out


__all__ = ["LITERALS", "PUNCTUATION", "SACREBLEU_TOKENIZERS", "TOKENIZERS", "WHITESPACE", "check_tokenizer",
           "code_tokens", "codepoints", "codexglue_tokens", "intern_tokens", "normalise", "rouge_tokenizer",
           "sacrebleu_tokenizer", "sitter_parser", "token_sequence", "words"]
