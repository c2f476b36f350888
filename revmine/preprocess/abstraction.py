"""src2abs-exact abstraction of Java methods, so mined data is comparable with the 2021 dataset token for token.

The reference is the abstraction that produced the ICSE 2021 replication package (``src-test.txt`` and
``tgt-test.txt``): the ``seart-group/src2abs`` tokenizer plus a post-processing step found in no
repository. ``../shared/design/abstraction.md`` describes it rule by rule; the rule numbers below refer
to it. This module reproduces it on every row of the package's test split (both sides).

* Preparation (rules 1-2): ``//`` is protected between the first and last ``"`` of a line, comments are
  removed, and :mod:`revmine.preprocess.javalex` lexes like the Java 7 ANTLR lexer src2abs uses.
* Name sets (rules 3-4): :mod:`revmine.preprocess.javanames` defines them with javalang, which the design
  card names, patched where it differs from JavaParser (the reason is in that module's docstring), and
  reads them off a tree-sitter tree where that is known to give the same sets (most methods, several times
  faster). A method that does not parse contributes no names; that is the reference's behaviour, not an
  error.
* Walk (rules 5-10): identifiers joined two parts at a time and classified by the first matching rule.
* Post-processing (rules 11-12): dotted TYPE names are split into one TYPE per part, and capitalised
  VAR names become TYPEs, numbered in Java ``HashMap`` iteration order.

**Marking** (the 2-encoder input, ``src2`` of the package): ``abstract_pair(..., spans=True)`` also
records where in ``before`` each printed unit comes from, and :meth:`AbstractedPair.marked` puts
``<START>``/``<END>`` around the units a character range of ``before`` touches. The reference marks a
character range, not whole lines (its ``before_marked`` has ``START``/``END`` mid-line where the reviewer
selected part of a line), and its markers sit between tokens, so:

* a unit is marked when its source characters overlap the range: a token cut by the range is marked whole;
  a unit is what one source token (or an annotation, or a joined name printed as one id) became, so a
  TYPE split by rule 11 (``TYPE_1 . TYPE_2``) is never cut;
* a range that touches no token (an empty line, a line holding only a comment, only whitespace) gives
  ``<START> <END>`` where the range is, before the first token after it, as the reference does;
* the markers do not change the abstraction: the marked line is the unmarked one with two tokens added.

:func:`unabstract` maps an abstracted prediction back to source tokens with the map of its pair.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Mapping, NamedTuple, Union

from ..lang.idioms import default_idioms
from .javalex import CHAR, FLOAT, IDENT, INT, KEYWORD, STRING, Token, tokenize
from .javanames import NameSets, collect_names

__all__ = [
    "Abstracted",
    "AbstractedPair",
    "Ids",
    "Unit",
    "abstract",
    "abstract_pair",
    "unabstract",
    "unknown_ids",
]

_PROTECTED_SLASHES = "<DOUBLE_SLASH>"
# Java's "." does not match these line terminators; the reference's regular expressions are Java's.
_NOT_EOL = r"[^\n\r\u0085\u2028\u2029]"
_QUOTED_SPAN = re.compile(rf'"{_NOT_EOL}+"')
_COMMENT = re.compile(rf"/\*(?:[^*]|\*+[^*/])*\*+/|//{_NOT_EOL}*")
_ID = re.compile(r"(?:TYPE|METHOD|VAR|ANNOTATION|STRING|CHAR|INT|FLOAT)_\d+")
_LITERAL_PREFIX = {STRING: "STRING_", CHAR: "CHAR_", INT: "INT_", FLOAT: "FLOAT_"}


@dataclass(frozen=True)
class Abstracted:
    """One abstracted method; unpacks as ``code, mapping``.

    ``mapping`` goes from each original name or literal to its id as printed (one id per name: a name
    that is both a method and a variable keeps its TYPE, then VAR, then METHOD id, as the reference). ``ids`` is the
    complete inverse, id -> original, which is what :func:`unabstract` needs.
    """

    code: str
    mapping: dict[str, str]
    ids: dict[str, str]

    def __iter__(self) -> Iterator[Any]:
        return iter((self.code, self.mapping))


START_MARK, END_MARK = "<START>", "<END>"


class Unit(NamedTuple):
    """One printed unit of an abstracted method and the characters ``[start, end)`` of the source it comes from."""

    text: str
    start: int
    end: int


@dataclass(frozen=True)
class AbstractedPair:
    """A method before and after review with one shared map; unpacks as ``before, after, mapping``.

    ``units`` (with ``spans=True`` only) is ``before`` unit by unit with source positions, for :meth:`marked`.
    """

    before: str
    after: str
    mapping: dict[str, str]
    ids: dict[str, str]
    units: tuple[Unit, ...] | None = None

    def __iter__(self) -> Iterator[Any]:
        return iter((self.before, self.after, self.mapping))

    def marked(self, start: int, end: int) -> str:
        """``before`` with ``<START>``/``<END>`` around the units whose source overlaps ``before[start:end]``.

        A range that overlaps no unit is marked empty (``<START> <END>``) before the first unit after it.
        """
        if self.units is None:
            raise ValueError("marking needs the source positions: abstract the pair with spans=True")
        texts = [unit.text for unit in self.units]
        inside = [k for k, unit in enumerate(self.units) if unit.start < end and unit.end > start]
        if inside:
            first, last = inside[0], inside[-1] + 1
        else:
            first = last = next((k for k, unit in enumerate(self.units) if unit.start >= end), len(texts))
        return " ".join(texts[:first] + [START_MARK] + texts[first:last] + [END_MARK] + texts[last:])


def abstract(code: str, idioms: Iterable[str] | None = None) -> Abstracted:
    """Abstract one method on its own."""
    run = _Abstraction(_idiom_set(idioms))
    prepared = _prepare(code)
    run.collect(prepared)  # a method that does not parse still abstracts, with empty name sets (rule 4)
    tokens = run.walk(prepared)
    replace, mapping, ids = run.finish()
    return Abstracted(_render(tokens, replace), mapping, ids)


def abstract_pair(before: str, after: str, idioms: Iterable[str] | None = None,
                  spans: bool = False, deadline: float | None = None) -> AbstractedPair:
    """Abstract ``before`` then ``after`` with the same maps, as the dataset's src/tgt lines are made.

    The name sets are those of both methods; if ``before`` does not parse nothing is collected at all,
    and if only ``after`` fails, ``before``'s names are kept (rule 4). ``spans``: also record where each
    unit of ``before`` comes from, so that :meth:`AbstractedPair.marked` can mark a range of it. ``deadline``
    (a :func:`time.monotonic` time) is checked inside javalang's parse, the slow path (a method of one
    expression of 128,000 terms: 8 s a side), raising the ``timeout`` :class:`~.methods.ExtractionError`.
    """
    run = _Abstraction(_idiom_set(idioms))
    prepared_before, prepared_after = _prepare(before, track=spans), _prepare(after)
    if run.collect(prepared_before, deadline):
        run.collect(prepared_after, deadline)
    lexed = [] if spans else None
    tokens_before = run.walk(prepared_before, lexed)
    tokens_after = run.walk(prepared_after)
    replace, mapping, ids = run.finish()
    units = None if lexed is None else _units(tokens_before, lexed, prepared_before, replace)
    return AbstractedPair(_render(tokens_before, replace), _render(tokens_after, replace), mapping, ids, units)


#: what unabstracting takes: a result (exact), a stored original -> id map (lossy for a name with two
#: ids), or a stored id -> original inverse wrapped as ``Inverse`` (exact, the ``abstraction_ids`` column)
MapSource = Union[Mapping[str, str], Abstracted, AbstractedPair, "Inverse"]


class Inverse(dict):
    """A stored id -> original map (the ``abstraction_ids`` column), marked so it is not read as original -> id."""


def unabstract(abstracted: str, mapping: MapSource) -> str:
    """Turn abstracted code (e.g. a model's prediction) back into space-separated source tokens.

    ``mapping`` is the result of :func:`abstract`/:func:`abstract_pair` (complete), or a stored
    original -> id map, which cannot restore the second id of a name that had two (say a method and a
    field both called ``size``). Ids that the map does not know, such as a ``VAR_99`` a model invented,
    stay as they are; :func:`unknown_ids` lists them.
    """
    originals = _originals(mapping)
    return " ".join(originals.get(token, token) for token in abstracted.split())


def unknown_ids(abstracted: str, mapping: MapSource) -> list[str]:
    """The ids in ``abstracted`` that :func:`unabstract` leaves as they are, in order of appearance."""
    originals = _originals(mapping)
    return [token for token in abstracted.split() if _ID.fullmatch(token) and token not in originals]


def _originals(mapping: MapSource) -> Mapping[str, str]:
    if isinstance(mapping, (Abstracted, AbstractedPair)):
        return mapping.ids
    if isinstance(mapping, Inverse):
        return mapping
    return {abstract_id: name for name, abstract_id in mapping.items()}


# -- preparation (rules 1-2) ----------------------------------------------------------------------------


class _Prepared(NamedTuple):
    tokens: list[Token]
    lex_error: bool
    text: str  # what was lexed: the source without comments
    origin: list[int] | None = None  # with track=True: where each character came from in the source, + its end


def _prepare(code: str, track: bool = False) -> _Prepared:
    """Protect ``//`` inside quoted spans, drop comments, lex (rules 1-2).

    ``track``: also map every character of the lexed text back to its position in ``code``.
    """
    origin = list(range(len(code) + 1)) if track else None
    if "//" in code:
        if origin is not None:
            origin = _track_edits(_QUOTED_SPAN, code, origin, protect=True)
        code = _QUOTED_SPAN.sub(lambda m: m.group().replace("//", _PROTECTED_SLASHES), code)
    if "/" in code:
        if origin is not None:
            origin = _track_edits(_COMMENT, code, origin, protect=False)
        code = _COMMENT.sub("", code)
    tokens, lex_error = tokenize(code)
    return _Prepared(tokens, lex_error, code, origin)


def _track_edits(pattern: re.Pattern[str], code: str, origin: list[int], protect: bool) -> list[int]:
    """``origin`` after the substitution ``_prepare`` makes with ``pattern``: matches removed, or (``protect``)
    each ``//`` inside a match widened to the placeholder, whose characters point at the two slashes."""
    out: list[int] = []
    pos = 0
    widened = len(_PROTECTED_SLASHES) - 1
    for match in pattern.finditer(code):
        out += origin[pos:match.start()]
        pos = match.end()
        if not protect:
            continue
        text, base, k = match.group(), match.start(), 0
        while (j := text.find("//", k)) >= 0:
            out += origin[base + k:base + j]
            out += [origin[base + j]] + [origin[base + j + 1]] * widened
            k = j + 2
        out += origin[base + k:pos]
    return out + origin[pos:]


def _idiom_set(idioms: Iterable[str] | None) -> frozenset[str]:
    if idioms is None:
        return default_idioms()
    return idioms if isinstance(idioms, frozenset) else frozenset(idioms)


# -- the walk (rules 5-10) ------------------------------------------------------------------------------


class _Abstraction:
    """The state of one abstraction run: name sets, one id map per kind, shared by both sides of a pair."""

    def __init__(self, idioms: frozenset[str]):
        self.idioms = idioms
        self.names = NameSets()
        self.types = Ids("TYPE_")
        self.methods = Ids("METHOD_")
        self.vars = Ids("VAR_")
        self.annotations = Ids("ANNOTATION_")
        self.literals = {kind: Ids(prefix) for kind, prefix in _LITERAL_PREFIX.items()}
        self.type_id, self.var_id, self.method_id = self.types.id, self.vars.id, self.methods.id

    def collect(self, prepared: _Prepared, deadline: float | None = None) -> bool:
        """Add one method's names to the sets (rule 3); False if it does not parse (rule 4)."""
        return not prepared.lex_error and collect_names(prepared.tokens, self.names, prepared.text, deadline)

    def literal_id(self, kind: str, text: str) -> str:
        return text if text in self.idioms else self.literals[kind].id(text)

    def annotation_id(self, name: str) -> str:
        name = "@" + name  # the map keeps the "@": ANNOTATION_1 stands for both tokens
        return name if name in self.idioms else self.annotations.id(name)

    def walk(self, prepared: _Prepared, lexed: list[tuple[int, int]] | None = None) -> list[str]:
        """The abstracted tokens of one method, before post-processing.

        ``lexed``: filled with the first and last lexed token each abstracted token comes from.
        """
        tokens = prepared.tokens
        count = len(tokens)
        out: list[str] = []
        i = 0
        while i < count:
            first = i
            tok = tokens[i]
            kind = tok.kind
            if kind == IDENT:
                name, i = _join(tokens, i)
                out.extend(self.identifier(name, tokens, i))
            elif kind in _LITERAL_PREFIX:
                out.append(self.literal_id(kind, tok.text))
            elif tok.text == "@":  # rule 6; an "@" that is not an annotation prints as an empty token
                following = tokens[i + 1] if i + 1 < count else None
                if following is not None and following.kind == IDENT and following.text in self.names.annotations:
                    out.append(self.annotation_id(following.text))
                    i += 1
            else:
                out.append(tok.text)
            if lexed is not None:
                _provenance(lexed, first, i, len(out) - len(lexed))
            i += 1
        return out

    def identifier(self, token: str, tokens: list[Token], i: int) -> tuple[str, ...]:
        """Classify a (possibly joined) identifier ending at ``tokens[i]``; its printed tokens (rule 7)."""
        idioms, types, methods = self.idioms, self.names.types, self.names.methods
        if token in idioms:
            return (token,)
        dot = token.rfind(".")
        dotted = 0 < dot < len(token) - 1  # Java's split("\\.") ignores a trailing dot: "Foo." is one part
        first, last = (token[:dot], token[dot + 1 :]) if dotted else (token, "")
        if dotted:
            if last in idioms:
                return self.idiom_type_or_var(first), ".", last
            if first in idioms:
                return first, ".", self.type_id(last) if last in types else self.var_id(last)
        if token in types:
            return (self.type_id(token),)
        could_be_method = (i + 1 < len(tokens) and tokens[i + 1].text == "(") or (
            i > 2 and tokens[i - 1].text == ":" and tokens[i - 2].text == ":"
        )
        if could_be_method and token in methods:
            return (self.method_id(token),)
        if not dotted:
            return (self.var_id(token),)
        if could_be_method and last in methods:
            return self.idiom_type_or_var(first), ".", self.method_id(last)
        if last in self.vars.ids:
            return self.idiom_type_or_var(first), ".", self.var_id(last)
        if first in types:
            return self.type_id(first), ".", last if last in ("this", "class") else self.var_id(last)
        if first in self.vars.ids:
            return self.var_id(first), ".", last if last == "new" else self.var_id(last)
        if last in ("this", "class"):
            return self.var_id(first), ".", last
        first_id = self.var_id(first)  # numbered before the last part
        return first_id, ".", self.var_id(last)

    def idiom_type_or_var(self, name: str) -> str:
        if name in self.idioms:
            return name
        return self.type_id(name) if name in self.names.types else self.var_id(name)

    # -- post-processing (rules 11-13) -------------------------------------------------------------------

    def finish(self) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
        """Apply rules 11-12; return the id replacements for rendering, the map and its inverse."""
        replace: dict[str, str] = {}
        types, variables = self.types.ids, self.vars.ids
        for name in _java_hashmap_order([name for name in types if "." in name.rstrip(".")], len(types)):
            old = types.pop(name)
            replace[old] = " . ".join(self.type_id(part) for part in name.split(".") if part)
        capitalised = [name for name in variables if name[0].isupper() and name != name.upper()]
        for name in _java_hashmap_order(capitalised, len(variables)):
            replace[variables.pop(name)] = self.type_id(name)  # reusing the name's TYPE id if it has one
        mapping: dict[str, str] = {}
        ids: dict[str, str] = {}
        # A name that is both a variable and a method maps to its VAR id, as the reference map does (the
        # 2021 comments show it: `capacityFactor` is VAR_1 in src1 while also a METHOD in the code).
        for kind in (self.types, self.vars, self.methods, self.annotations, *self.literals.values()):
            for name, abstract_id in kind.ids.items():
                name = name.replace(_PROTECTED_SLASHES, "//")
                mapping.setdefault(name, abstract_id)
                ids[abstract_id] = name
        return replace, mapping, ids


class Ids:
    """One kind's ids: numbered from 1 in order of first appearance (rule 9); a removed id leaves a gap."""

    __slots__ = ("prefix", "ids", "count")

    def __init__(self, prefix: str):
        self.prefix = prefix
        self.ids: dict[str, str] = {}
        self.count = 0

    def id(self, name: str) -> str:
        found = self.ids.get(name)
        if found is None:
            self.count += 1
            found = self.ids[name] = f"{self.prefix}{self.count}"
        return found


def _join(tokens: list[Token], i: int) -> tuple[str, int]:
    """Join ``a . b`` (b an identifier, ``this``, ``class`` or ``new``) into one name, two parts at most (rule 5).

    Returns the name and the index of its last token. A name cut short at the end of the input does not
    advance the index, like the reference, so its remaining tokens are walked again.
    """
    count = len(tokens)
    name = tokens[i].text
    if i + 1 >= count:
        return name, i
    if tokens[i + 1].text != ".":
        return name, i
    if i + 2 >= count:
        return name + ".", i
    nxt = tokens[i + 2]
    if nxt.kind == IDENT or (nxt.kind == KEYWORD and nxt.text in ("this", "class", "new")):
        if i + 3 >= count:
            return name + "." + nxt.text, i
        return name + "." + nxt.text, i + 2
    return name + ".", i + 1


def _render(tokens: list[str], replace: dict[str, str]) -> str:
    return " ".join(replace.get(token, token) for token in tokens if token)


def _provenance(lexed: list[tuple[int, int]], first: int, last: int, produced: int) -> None:
    """Lexed tokens ``first..last`` made ``produced`` abstracted tokens: a joined ``a . b`` printed as three
    tokens maps part to part, anything else (one id for several tokens) maps every token to all of them."""
    if produced == 3 and last - first == 2:
        lexed += [(first, first), (first + 1, first + 1), (last, last)]
    else:
        lexed += [(first, last)] * produced


def _units(tokens: list[str], lexed: list[tuple[int, int]], prepared: _Prepared,
           replace: dict[str, str]) -> tuple[Unit, ...]:
    """The rendered units of a walk, each with the source characters of the lexed tokens it comes from."""
    lex, origin = prepared.tokens, prepared.origin
    assert origin is not None
    units = []
    for token, (first, last) in zip(tokens, lexed):
        if token:
            end = lex[last]
            units.append(Unit(replace.get(token, token), origin[lex[first].start],
                              origin[end.start + len(end.text) - 1] + 1))
    return tuple(units)


# -- Java HashMap iteration order (rule 12) ----------------------------------------------------------------


def _java_string_hash(text: str) -> int:
    h = 0
    data = text.encode("utf-16-le")
    for k in range(0, len(data), 2):
        h = (31 * h + (data[k] | data[k + 1] << 8)) & 0xFFFFFFFF
    return h


def _java_hashmap_order(keys: list[str], size: int) -> list[str]:
    """Iteration order of a ``java.util.HashMap`` holding ``size`` entries, restricted to ``keys``."""
    capacity = 16
    while size > capacity * 3 // 4:
        capacity *= 2

    def bucket(key: str) -> int:
        h = _java_string_hash(key)
        return (h ^ (h >> 16)) & (capacity - 1)

    return sorted(keys, key=bucket)  # stable: insertion order within a bucket
