"""The methods of a Java file (Lizard), and which method of the next revision each one became.

Lizard finds the methods, as in the 2021 dataset; a small structural lexer of our own (comments, strings,
text blocks and brackets aware) makes its answer exact where Lizard is line-based or confused:

* Lizard is given the source rewritten where it misreads Java (same length, newlines kept, so line
  numbers do not move): annotations blanked (one with ``name = value`` or multi-line arguments reads as
  a function named after the annotation, and the method that follows is lost); a record header turned
  into a class header (a nested record reads as one function, a record with a constructor loses all its
  methods); a compact constructor's declaration blanked to an initializer block (methods after it are
  lost; we find compact constructors ourselves, with the record's components as parameters); ``$`` in
  names turned into ``_`` (Lizard cuts ``a$b`` to ``b``, which matches no declaration).
* Lizard's ``start_line`` is the line of the method's *name*. A method's **text** (what becomes m_s or
  m_r) starts at the first line of its declaration that is not annotation-only: modifiers, type
  parameters and the return type on lines above the name are part of it, so the text is a whole method;
  annotations on those lines stay (they are on the same line); **annotation-only lines above are left
  out**, as in the dataset: none of its 1,719 test methods starts with an annotation-only line, though
  its ``hashCode()``/``toString()``/``testX()`` methods were surely preceded by ``@Override``/``@Test``.
  The text is those lines verbatim, each ending with a newline (indentation, blank lines, trailing
  spaces and inner comments kept), which is exactly the form of the dataset's ``before`` column: put
  back in a class, all 3,436 of its m_s and m_r that are methods come out with the same text.
* A method's **link range** starts at its declaration's first token, i.e. its first annotation (the
  paper links comments on annotations to the method), so it also covers blank or comment lines between
  annotations. Javadoc and comments above the first annotation are *not* part of it: the dataset's
  methods never include them, so a comment on them has nothing in m_s to act on.
* Text and link range are whole lines: two methods on one line share it (a comment there touches both).
  So the methods' texts together are bounded by their file's size only while few methods share a line: on
  minified code (one line of thousands of functions) each would carry the whole line, memory and time
  quadratic in the line's length (issue 31: 2.2 GB for a 200 KB JavaScript line). :class:`LineTexts` gives
  the texts within a budget (:data:`TEXT_BUDGET` times the file, plus :data:`TEXT_SLACK`): past it the file
  is dropped as ``file_too_large`` before the texts are built, so one file's cost stays linear in its size.
* Methods nested in another method (anonymous and local classes, ``(anonymous)::run``) are dropped; their
  lines belong to the enclosing method. A "method" that is not a declaration ``name(...) [throws ...] {``
  on Lizard's line is not kept.
* A file that does not compile still gives its methods (a patch set under review may not compile, and
  nothing here parses the file): brackets that do not balance are paired as a reader would, using the
  indentation (:meth:`_Tokens._recover`); the unpaired ones are hidden from Lizard and listed with the
  lines they leave unknown (:class:`Unbalanced`); every method whose header and body brackets pair is
  extracted, also one with an unbalanced bracket inside: the abstraction works per method and needs no
  parse. Only nesting deeper than ``max_depth`` and the time budget still fail a whole file.

Matching before and after (:func:`match_methods`), deterministic, in file order at every step:

1. same signature (name and parameter list, parameter names included, annotations left out): the k-th
   occurrence before with the k-th after (an overload's twin in a nested class pairs by order);
2. else same name, in the same *slot*: between the same two neighbours among the *anchors* (a position
   that survives lines inserted above, unlike raw line numbers); first unmatched in file order. The
   anchors are the step-1 pairs that kept their relative order: the longest subsequence of them in the
   same order on both sides, the earliest in file order among equally long ones (a method moved past
   others is the one left out; it stays matched by step 1);
3. else same name, if it is the only unmatched method of that name on both sides, wherever it moved;
4. else same parameter list in the same slot: a rename.

What is left before was deleted in the revision; what is left after was added.
"""

from __future__ import annotations

import bisect
import re
import time
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

import lizard

from ..schema import DropReason
from .options import MAX_DEPTH

__all__ = ["ExtractionError", "FileMethods", "LineTexts", "Match", "Matching", "Method", "Unbalanced",
           "check_deadline", "extract_methods", "join_tokens", "match_methods"]

#: The methods' texts of a file may hold this many times the file's characters, and :data:`TEXT_SLACK` more:
#: a file of real code uses about 1x (a line is shared by two methods at most, now and then); the slack
#: spares small files with many one-line methods on a line.
TEXT_BUDGET = 2
TEXT_SLACK = 100_000

# One match per significant token (group 1), skipping the whitespace and comments before it; at the end
# of the file a match may be only whitespace and comments (group 1 empty).
_LEX = re.compile(
    r"""
    (?:\s+|//[^\n]*|/\*.*?(?:\*/|\Z))*
    (
        \"\"\".*?(?:\"\"\"|\Z)            # text block
      | "(?:[^"\\\n]|\\.)*"?               # string (unterminated: to the end of the line)
      | '(?:[^'\\\n]|\\.)*'?               # character
      | (?:[^\W\d]|\$)[\w$]*               # word
      | \d[\w.]*                          # number
      | \.\.\.|\S                          # operator or separator
    )?
    """,
    re.VERBOSE | re.DOTALL,
)
_OPEN = {"(": ")", "[": "]", "{": "}"}
_CLOSE = {v: k for k, v in _OPEN.items()}
_NOT_A_METHOD_BEFORE = frozenset(("new", ".", "record"))
# words before a statement's parentheses (``if (``...), never a member's name
_STATEMENTS = frozenset("if for while switch catch synchronized try".split())
_DEADLINE_EVERY = 1024  # tokens between two clock reads (our lexer, Lizard's token stream)


class ExtractionError(Exception):
    """A file whose methods cannot be extracted; ``reason`` is a :class:`DropReason` value."""

    def __init__(self, reason: str, detail: str):
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


@dataclass(frozen=True)
class Method:
    """One method or constructor; lines are 1-based and inclusive."""

    name: str
    params: str  # the parameter list, normalised ("Map<K, V> m, int... xs"), annotations left out
    start_line: int  # first line of the text (the declaration, without annotation-only lines above)
    end_line: int  # line of the closing brace
    link_start: int  # first line of the link range: the declaration's first annotation, if any
    text: str

    @property
    def signature(self) -> str:
        return f"{self.name}({self.params})"


@dataclass(frozen=True)
class Match:
    """A method of the submitted revision and what it became; ``rule``: signature, name or rename."""

    before: Method
    after: Method
    rule: str


@dataclass(frozen=True)
class Unbalanced:
    """A bracket with no partner, and the lines whose method boundaries it leaves unknown.

    For ``(`` or ``[``: its statement, from its start to the next ``;`` or ``}``, or to the end of the
    block that the next ``{`` opens (a method header); for ``{``: from its statement to the last token
    of its block as the recovery ends it (before the next member declaration, before the outdented ``}``
    that closes an outer block, or at the end of the file); for a closer: from its statement to itself.
    """

    bracket: str
    line: int
    first_line: int
    last_line: int

    @property
    def detail(self) -> str:
        return f"unbalanced '{self.bracket}' at line {self.line}"


class FileMethods(list):
    """The methods of a file (a ``list[Method]`` in file order) and its :class:`Unbalanced` brackets."""

    def __init__(self, methods: Iterable[Method], unbalanced: Sequence[Unbalanced] = ()):
        super().__init__(methods)
        self.unbalanced = tuple(unbalanced)

    def unbalanced_in(self, first: int, last: int) -> Unbalanced | None:
        """The first unbalanced bracket whose lines meet ``first``..``last``, if any."""
        return next((u for u in self.unbalanced if u.first_line <= last and first <= u.last_line), None)


@dataclass(frozen=True)
class Matching:
    """The outcome of :func:`match_methods`: what became of each method submitted, and what is new."""

    matches: list[Match]  # in the order of the methods before
    deleted: list[Method]
    added: list[Method]


class _Tokens:
    """Significant tokens of a Java file with their lines and bracket partners."""

    def __init__(self, source: str, max_depth: int, deadline: float | None):
        self.text: list[str] = []
        self.start: list[int] = []
        self._newlines = [m.start() for m in re.finditer("\n", source)]
        for n, m in enumerate(_LEX.finditer(source)):
            tok = m.group(1)
            if tok:
                self.text.append(tok)
                self.start.append(m.start(1))
            if deadline is not None and n % _DEADLINE_EVERY == 0:
                check_deadline(deadline, "reading the file")
        self.partner, self.unbalanced, self.ends = self._brackets(source, max_depth)
        self.annotation = self._annotations()
        self.records = self._records()
        self.compact = self._compact_constructors()

    def line(self, i: int) -> int:
        """1-based line of token ``i``."""
        return bisect.bisect_left(self._newlines, self.start[i]) + 1

    def _brackets(self, source: str, max_depth: int) -> tuple[dict[int, int], list[int], dict[int, int]]:
        """Bracket partners, the brackets left without one, and where each unclosed ``{`` ends (its last token).

        A file that balances is paired by nesting alone; one that does not, as :meth:`_recover` reads it.
        """
        partner: dict[int, int] = {}
        stack: list[int] = []
        for i, tok in enumerate(self.text):
            if tok in _OPEN:
                stack.append(i)
                if len(stack) > max_depth:
                    raise ExtractionError(DropReason.TOO_DEEP,
                                          f"brackets nested deeper than {max_depth} at line {self.line(i)}")
            elif tok in _CLOSE:
                if not stack or self.text[stack[-1]] != _CLOSE[tok]:
                    return self._recover(source, max_depth)
                j = stack.pop()
                partner[i], partner[j] = j, i
        return (partner, [], {}) if not stack else self._recover(source, max_depth)

    def _recover(self, source: str, max_depth: int) -> tuple[dict[int, int], list[int], dict[int, int]]:
        """Pair the brackets of a file that does not balance as a reader would, leaving the culprits unpaired.

        Braces outrank the rest: ``)`` and ``]`` pair only inside the innermost open ``{`` (unclosed ``(``
        and ``[`` there are left over), and a ``}`` closes every ``(`` and ``[`` still open in its block.
        Indentation tells where a ``{`` was left unclosed:

        * a member declaration (a method or class header) that starts on a later line than the innermost
          open ``{``, indented no deeper than that block's own declaration, ends that block: a method
          missing its ``}`` ends where the next member starts, and does not swallow it;
        * a ``}`` that starts its line indented less than the innermost block's declaration or statement
          closes the innermost open block whose statement starts at its indentation, if there is one.

        Otherwise a ``}`` closes the innermost open ``{``; a closer with nothing open is left over.
        """
        partner: dict[int, int] = {}
        unbalanced: list[int] = []
        ends: dict[int, int] = {}
        stack: list[int] = []
        text = self.text
        indent: dict[int, int] = {}  # open brace -> indentation of its statement's line

        def unclosed(until: int, last: int) -> None:
            """Pop the stack down to and including ``until``: left open, ending at token ``last``."""
            while True:
                j = stack.pop()
                unbalanced.append(j)
                if text[j] == "{":
                    ends[j] = last
                if j == until:
                    return

        for i, tok in enumerate(text):
            if tok == "{":
                first = self._statement_start(i)
                indent[i] = self._indent(source, first)
                while True:
                    inner = next((j for j in reversed(stack) if text[j] == "{"), None)
                    if (inner is None or self.line(first) <= self.line(inner) or indent[i] > indent[inner]
                            or not self._declares_member(first, i, partner)):
                        break
                    unclosed(inner, first - 1)
            if tok in _OPEN:
                stack.append(i)
                if len(stack) > max_depth:
                    raise ExtractionError(DropReason.TOO_DEEP,
                                          f"brackets nested deeper than {max_depth} at line {self.line(i)}")
                continue
            if tok not in _CLOSE:
                continue
            opener = None
            if tok != "}":
                for j in reversed(stack):
                    if text[j] == _CLOSE[tok]:
                        opener = j
                    if text[j] in (_CLOSE[tok], "{"):
                        break
            else:
                braces = [j for j in stack if text[j] == "{"]
                if braces:
                    opener = braces[-1]
                    if self.line(i - 1) < self.line(i):  # first on its line
                        here = self._indent(source, i)
                        if here < indent[opener]:  # outdented: it may close an outer block
                            outer = next((j for j in reversed(braces) if indent[j] == here), opener)
                            if outer != opener:
                                unclosed(braces[braces.index(outer) + 1], i - 1)
                            opener = outer
            if opener is None:
                unbalanced.append(i)
                continue
            while stack[-1] != opener:
                unbalanced.append(stack.pop())
            stack.pop()
            partner[i], partner[opener] = opener, i
        if stack:
            unclosed(stack[0], len(text) - 1)
        return partner, sorted(unbalanced), ends

    def _declares_member(self, first: int, brace: int, partner: dict[int, int]) -> bool:
        """Whether tokens ``first``..``brace`` are a method, constructor or class header opening its body."""
        tokens = self.text[first:brace]
        if any(t in ("=", "->", "new", "return") for t in tokens):
            return False
        if any(t in ("class", "interface", "enum") for t in tokens):
            return True
        close = next((k for k in range(brace - 1, first - 1, -1) if self.text[k] == ")"), None)
        name = partner.get(close, first) - 1 if close is not None else first - 1
        return name >= first and _is_word(self.text[name]) and self.text[name] not in _STATEMENTS

    def unbalanced_lines(self, i: int) -> Unbalanced:
        """The :class:`Unbalanced` record of the unpaired bracket at ``i``."""
        tok, end = self.text[i], i
        if tok in "([":
            while end + 1 < len(self.text) and self.text[end] not in ";{}":
                end += 1
            end = self.partner.get(end, end) if self.text[end] == "{" else end  # a header: its block too
        elif tok == "{":
            end = self.ends[i]
        return Unbalanced(tok, self.line(i), self.line(self._statement_start(i)), self.line(end))

    def _statement_start(self, i: int) -> int:
        """First token of the declaration or statement token ``i`` is in: after the previous ``;``, ``{`` or ``}``."""
        j = i - 1
        while j >= 0 and self.text[j] not in ";{}":
            j -= 1
        return j + 1

    def _indent(self, source: str, i: int) -> int:
        """Width of the indentation of token ``i``'s line (a tab counts 4)."""
        line = self.line(i)
        first = self._newlines[line - 2] + 1 if line > 1 else 0
        before = source[first:self.start[i]]
        return len(before[:len(before) - len(before.lstrip(" \t\f"))].expandtabs(4))

    def _annotations(self) -> list[bool]:
        """Flag the tokens of every annotation: ``@Name(.Name)*`` and its argument list, if any."""
        flags = [False] * len(self.text)
        text, n = self.text, len(self.text)
        for i, tok in enumerate(text):
            if tok != "@" or i + 1 >= n or not _is_word(text[i + 1]) or text[i + 1] == "interface":
                continue
            j = i + 1
            while j + 2 < n and text[j + 1] == "." and _is_word(text[j + 2]):
                j += 2
            if j + 1 < n and text[j + 1] == "(":
                j = self.partner.get(j + 1, j + 1)
            flags[i:j + 1] = [True] * (j + 1 - i)
        return flags

    def for_lizard(self, source: str) -> str:
        """``source`` rewritten so that Lizard reads it correctly, same length and newlines kept (lines hold).

        Annotations are blanked (Lizard takes ``@A(x = 1)`` for a function). A record header becomes a
        class header (``record P(int x)`` -> ``class  P        ``): Lizard takes a nested record for one
        function and loses every method of a record that has a constructor. A compact constructor's
        declaration before ``{`` is blanked, leaving an initializer block: Lizard loses every method after
        ``P {`` (we find compact constructors ourselves). ``$`` in names becomes ``_``: Lizard cuts a name
        at ``$`` (``a$b`` -> ``b``), so it would not match the declaration. In a file that does not
        balance, the brackets left without partner are blanked, except an unclosed ``{``: a ``}`` is
        added after the last token of its block (on that token's line), so Lizard reads the file as
        :meth:`_recover` does.
        """
        edits: dict[int, str] = {}
        for i, tok in enumerate(self.text):
            if "$" in tok and _is_word(tok):
                edits[i] = tok.replace("$", "_")
        for keyword, open_ in self.records.items():
            edits[keyword] = "class "
            edits.update((k, "") for k in range(open_, self.partner[open_] + 1))
        for name in self.compact:
            edits.update((k, "") for k in range(self.head(name), name + 1))
        edits.update((i, "") for i, flagged in enumerate(self.annotation) if flagged)
        edits.update((i, "") for i in self.unbalanced if self.text[i] != "{")
        closers = Counter(self.ends.values())
        parts: list[str] = []
        pos = 0
        for i in sorted(edits.keys() | closers.keys()):
            start = self.start[i]
            end = start + len(self.text[i])
            parts.append(source[pos:start])
            if i in edits:
                parts.append(edits[i] or re.sub(r"[^\n]", " ", source[start:end]))
            else:
                parts.append(source[start:end])
            parts.append("}" * closers[i])
            pos = end
        parts.append(source[pos:])
        return "".join(parts)

    def _records(self) -> dict[int, int]:
        """Record declarations: index of the ``record`` keyword -> index of the ``(`` of its header."""
        found: dict[int, int] = {}
        text, n = self.text, len(self.text)
        for i in range(n - 2):
            if text[i] != "record" or not _is_word(text[i + 1]):
                continue
            j, depth = i + 2, 0
            while j < n and (depth or text[j] == "<"):  # type parameters ('>>' is two tokens)
                depth += {"<": 1, ">": -1}.get(text[j], 0)
                j += 1
            if j < n and text[j] == "(" and self.body_open(j - 1) is not None:
                found[i] = j
        return found

    def _compact_constructors(self) -> dict[int, int]:
        """Compact canonical constructors (``Name {`` in a record's body): name token -> the header's ``(``."""
        found: dict[int, int] = {}
        for keyword, open_ in self.records.items():
            name, body = self.text[keyword + 1], self.body_open(open_ - 1)
            k = body + 1
            while k < self.partner[body]:
                if (self.text[k] == name and self.text[k + 1] == "{" and k + 1 in self.partner
                        and (self.text[k - 1] in ";{}" or _is_word(self.text[k - 1]) or self.annotation[k - 1])):
                    found[k] = open_
                k = self.partner.get(k, k) + 1  # member level only: skip bracketed code
        return found

    def declarations(self) -> dict[tuple[int, str], list[int]]:
        """Token indices of ``name(...) [throws ...] {``, by (line, name as Lizard reads it), in file order."""
        found: dict[tuple[int, str], list[int]] = {}
        text, n = self.text, len(self.text)
        for i in range(n - 1):
            if text[i + 1] != "(" or not _is_word(text[i]) or self.annotation[i]:
                continue
            if i > 0 and text[i - 1] in _NOT_A_METHOD_BEFORE:
                continue
            if self.body_open(i) is not None:
                found.setdefault((self.line(i), text[i].replace("$", "_")), []).append(i)
        return found

    def body_open(self, name: int) -> int | None:
        """Index of the ``{`` opening the body of the method named at ``name``, if it has one.

        Also the body of a record declared at ``name``; ``name() []`` is an old-style array return type.
        """
        if name + 1 not in self.partner:
            return None
        k = self.partner[name + 1] + 1
        while k < len(self.text) and self.text[k] == "[" and k in self.partner:
            k = self.partner[k] + 1
        if k < len(self.text) and self.text[k] in ("throws", "implements"):
            while k < len(self.text) and self.text[k] not in ("{", ";", "}"):
                k += 1
        return k if k < len(self.text) and self.text[k] == "{" and k in self.partner else None

    def head(self, name: int) -> int:
        """First token of the declaration whose name is at ``name``: after the previous ``;``, ``{`` or ``}``."""
        j = name - 1
        while j >= 0 and not (self.text[j] in ";{}" and not self.annotation[j]):
            j -= 1
        return j + 1

    def params(self, open_: int) -> str:
        """The parameter list in the brackets opening at ``open_``, normalised, annotations left out."""
        close = self.partner[open_]
        return join_tokens(t for t, a in zip(self.text[open_ + 1:close], self.annotation[open_ + 1:close]) if not a)


def _is_word(tok: str) -> bool:
    return tok[0].isalpha() or tok[0] in "_$"


def join_tokens(tokens: Iterable[str]) -> str:
    """Tokens as a Java programmer writes them: ``Map<K, V> m, int... xs``."""
    out: list[str] = []
    prev = ""
    for tok in tokens:
        if out and tok not in ",.<>[]()" and tok != "..." and prev not in ".<[(":
            out.append(" ")
        out.append(tok)
        prev = tok
    return "".join(out)


def check_deadline(deadline: float, doing: str) -> None:
    """Raise the TIMEOUT :class:`ExtractionError` once :func:`time.monotonic` is past ``deadline``."""
    if time.monotonic() > deadline:
        raise ExtractionError(DropReason.TIMEOUT, f"time budget exceeded while {doing}")


class LineTexts:
    """Whole-line texts of one source (1-based, inclusive ranges, each line ending with ``"\\n"``), charged to the
    file's budget (:data:`TEXT_BUDGET`, module doc): the size of a range is known from the line offsets
    before its text is built, so a file past its budget costs nothing more than its lines."""

    def __init__(self, source: str):
        self.lines = source.split("\n")
        self._offsets = [0]
        for line in self.lines:
            self._offsets.append(self._offsets[-1] + len(line) + 1)
        self._size = len(source)
        self._left = TEXT_BUDGET * len(source) + TEXT_SLACK

    def text(self, start: int, end: int) -> str:
        """Lines ``start``-``end``; raises the ``file_too_large`` :class:`ExtractionError` past the budget."""
        first, last = start - 1, max(min(end, len(self.lines)), start - 1)
        self._left -= self._offsets[last] - self._offsets[first]
        if self._left < 0:
            raise ExtractionError(DropReason.FILE_TOO_LARGE,
                                  f"its methods' texts would exceed {TEXT_BUDGET} times its {self._size} characters "
                                  f"(and {TEXT_SLACK} more): many methods share long lines (minified code)")
        return "".join(line + "\n" for line in self.lines[first:last])


def _lizard_functions(source: str, deadline: float | None, filename: str = "X.java") -> list:
    """Lizard's function list, with a clock check in its token stream so a pathological file stops.

    ``filename``'s extension selects Lizard's language reader (:mod:`.functions` reads seven more).
    """
    base = lizard.analyze_file

    def guard(tokens, reader):
        for n, tok in enumerate(tokens):
            if deadline is not None and n % _DEADLINE_EVERY == 0:
                check_deadline(deadline, "running Lizard")
            yield tok

    analyzer = type(base)([*base.processors, guard])
    return analyzer.analyze_source_code(filename, source).function_list


def extract_methods(source: str, deadline: float | None = None, max_depth: int = MAX_DEPTH) -> FileMethods:
    """Every method and constructor of ``source`` not inside another method, in file order.

    ``source`` is normalised text (``\\n`` line ends: :func:`.candidates.normalise_source`). A file that
    does not compile still gives its methods: brackets that do not balance are paired as a reader would
    (:meth:`_Tokens._recover`), the ones left without partner are listed in the result's ``unbalanced``
    and hidden from Lizard, and every method whose header and body brackets are paired is extracted,
    also one with an unbalanced bracket inside (the abstraction does not need it to parse).

    ``deadline`` is a :func:`time.monotonic` time; raises :class:`ExtractionError` past it and on
    brackets nested deeper than ``max_depth`` (before Lizard or a parser would hit Python's recursion limit).
    """
    toks = _Tokens(source, max_depth, deadline)
    declared = toks.declarations()
    taken: dict[tuple[int, str], int] = {}
    found: list[tuple[int, int, int, int]] = []  # (head token, name token, closing brace token, params' "(")
    for func in _lizard_functions(toks.for_lizard(source), deadline):
        key = (func.start_line, func.name.rsplit("::", 1)[-1])
        k = taken.get(key, 0)
        taken[key] = k + 1
        candidates = declared.get(key, [])
        if k < len(candidates):
            name = candidates[k]
            found.append((toks.head(name), name, toks.partner[toks.body_open(name)], name + 1))
    for name, header in toks.compact.items():  # Lizard does not see them
        found.append((toks.head(name), name, toks.partner[name + 1], header))
    texts = LineTexts(source)
    methods: list[Method] = []
    outer_end = -1
    for head, name, close, params in sorted(found):
        if head < outer_end:  # inside the method kept last: anonymous or local class
            continue
        outer_end = close
        first_code = next(i for i in range(head, name + 1) if not toks.annotation[i])
        start, end = toks.line(first_code), toks.line(close)
        methods.append(Method(
            name=toks.text[name],
            params=toks.params(params),
            start_line=start,
            end_line=end,
            link_start=toks.line(head),
            text=texts.text(start, end),
        ))
    return FileMethods(methods, [toks.unbalanced_lines(i) for i in toks.unbalanced])


def match_methods(before: Sequence[Method], after: Sequence[Method]) -> Matching:
    """Pair the methods of the submitted revision with those of the next one (rules in the module doc)."""
    pairs: dict[int, tuple[int, str]] = {}  # before index -> (after index, rule)
    used: set[int] = set()
    by_signature: dict[str, list[int]] = {}
    for j, m in enumerate(after):
        by_signature.setdefault(m.signature, []).append(j)
    seen: dict[str, int] = {}
    for i, m in enumerate(before):
        k = seen.get(m.signature, 0)
        seen[m.signature] = k + 1
        same = by_signature.get(m.signature, [])
        if k < len(same):
            pairs[i] = (same[k], "signature")
            used.add(same[k])
    matched = sorted(pairs)
    anchors = [matched[p] for p in _earliest_longest_increasing([pairs[i][0] for i in matched])]
    anchor_after = [pairs[i][0] for i in anchors]

    def slot(i: int) -> range:
        """After indices strictly between the after-partners of ``i``'s anchored neighbours."""
        pos = bisect.bisect_left(anchors, i)
        lo = anchor_after[pos - 1] if pos > 0 else -1
        hi = anchor_after[pos] if pos < len(anchors) else len(after)
        return range(lo + 1, hi)

    def pair_in_slot(rule: str, key: Callable[[Method], str]) -> None:
        for i, m in enumerate(before):
            if i in pairs:
                continue
            j = next((j for j in slot(i) if j not in used and key(after[j]) == key(m)), None)
            if j is not None:
                pairs[i] = (j, rule)
                used.add(j)

    pair_in_slot("name", lambda m: m.name)
    left_after = Counter(m.name for j, m in enumerate(after) if j not in used)
    left_before = Counter(m.name for i, m in enumerate(before) if i not in pairs)
    for i, m in enumerate(before):
        if i not in pairs and left_before[m.name] == left_after[m.name] == 1:
            j = next(j for j, a in enumerate(after) if j not in used and a.name == m.name)
            pairs[i] = (j, "name")
            used.add(j)
    pair_in_slot("rename", lambda m: m.params)
    return Matching(
        matches=[Match(before[i], after[j], rule) for i, (j, rule) in sorted(pairs.items())],
        deleted=[m for i, m in enumerate(before) if i not in pairs],
        added=[m for j, m in enumerate(after) if j not in used],
    )


def _earliest_longest_increasing(values: Sequence[int]) -> list[int]:
    """Positions of the longest strictly increasing subsequence of ``values`` that is first in position order.

    The anchors of :func:`match_methods`: methods that kept their relative order. Among equally long
    ones the earliest positions win, so a method moved up or down is the one left out, deterministically.
    """
    longest_from = [0] * len(values)  # length of the longest increasing subsequence starting at each position
    tails: list[int] = []  # patience sorting from the right, on negated values
    for p in range(len(values) - 1, -1, -1):
        k = bisect.bisect_left(tails, -values[p])
        tails[k:k + 1] = [-values[p]]
        longest_from[p] = k + 1
    chosen: list[int] = []
    need, last = len(tails), -1
    for p, v in enumerate(values):
        if need and longest_from[p] == need and v > last:
            chosen.append(p)
            need, last = need - 1, v
    return chosen
