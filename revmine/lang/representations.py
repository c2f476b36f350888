"""Token streams and simplified parse trees (SPT) of functions, the representations of Project CodeNet.

Project CodeNet (Puri et al., NeurIPS Datasets and Benchmarks 2021, arXiv 2105.12655, section "Code
representation and tools") gives each program as a token stream and as a *simplified parse tree*; this
module computes both for one function, raw or abstracted, and the export writes them (``revmine export
--representations tokens,spt``). Token streams are given for the eight languages of
:mod:`revmine.lang.languages`; SPTs for the four CodeNet's tool defines them for (:data:`SPT_LANGUAGES`: C,
C++, Java, Python, the languages with a reserved-word decider in IBM/Project_CodeNet
``tools/spt-generator/src/com/ibm/ai4code/parser/{c,cpp,java,python}``); for the others
:func:`simplified_parse_tree` is a ``ValueError`` (the export writes null).

**Tokens** are the leaves of tree-sitter's concrete tree of the function, comments (node types ending in
``comment``) left out, each with its kind after the language's reference lexical grammar. Java follows the
Java Language Specification (§3.8-3.12): ``keyword`` (the 50 reserved keywords; contextual ones such as
``var``/``record`` are identifiers), ``identifier``, the literal kinds ``integer_literal``,
``floating_point_literal``, ``boolean_literal``, ``character_literal``, ``string_literal``, ``text_block``,
``null_literal``, then ``operator`` and ``separator``; ``unknown`` for a character no token has. A string
literal is one token (tree-sitter splits it into quotes and fragments). Where ``>>`` or ``>>>`` close nested
type arguments (``List<List<T>>``) they are two or three ``>`` tokens, as javac's parser splits them and as
CodeNet's ANTLR grammar always lexes them; in a shift expression they are one operator. The other languages
use the same kinds, per their references:

* python (The Python Language Reference, 2.3-2.6): keywords are ``keyword.kwlist`` (``True``, ``False``,
  ``None`` included; soft keywords such as ``match`` are identifiers); strings, bytes and f-strings (with
  their expressions) are ``string_literal``; ``imaginary_literal`` for ``2j``; the reference's operators are
  ``operator`` and its delimiters (``= : , -> +=``...) ``separator``; the ``\\`` of an explicit line joining
  is no token. Raw tokens have no layout: ``NEWLINE``/``INDENT``/``DEDENT`` are not in tree-sitter's leaves;
* javascript (ECMA-262, 12.7-12.9): keywords are the ReservedWords but the literals; ``true``/``false``
  are ``boolean_literal``, ``null`` ``null_literal``, contextual words (``let``, ``async``, ``of``) and private
  names (``#p``) identifiers; template strings are ``string_literal``, ``/re/g`` a
  ``regular_expression_literal``; typescript (TypeScript 1.8 specification, 2.2.1) adds the strict-mode
  reserved words (``let``, ``interface``, ``private``...); type names such as ``number`` are identifiers;
* go (The Go Programming Language Specification, "Lexical elements"): its 25 keywords; ``true``, ``false``,
  ``nil`` are predeclared identifiers, so ``identifier``; runes are ``character_literal``, ``1i`` an
  ``imaginary_literal``;
* c (C11, 6.4): the 44 keywords (``true``/``NULL`` are macros: identifiers); tree-sitter-c reads ``-1`` as
  one number, C has no signed constant, so it is two tokens; preprocessing directives (``#ifdef``) are
  ``preprocessor`` and a directive's unparsed rest (``preproc_arg``) is split at whitespace, as the
  abstraction splits it; cpp (C++20 [lex.key], [lex.operators], [lex.literal]): ``true``/``false`` are
  ``boolean_literal``, ``nullptr`` a ``null_literal``, ``and``/``not``... operators, ``"ab"s`` or ``10ms`` a
  ``user_defined_literal``, contextual ``override``/``final`` identifiers; tree-sitter-cpp reads the name
  ``operator()`` as one leaf, ``unknown``;
* csharp (C# language specification, 6.4): the keywords but ``true``/``false``/``null`` (``boolean_literal``,
  ``null_literal``); contextual keywords (``var``, ``nameof``) are identifiers; verbatim, raw and interpolated
  strings are ``string_literal``; ``#if`` is ``preprocessor``;
* php (PHP manual, "List of Keywords", "Operators"): its keywords but ``true``/``false``/``null``; a variable is
  the separator ``$`` and its name (the grammar's two leaves); heredoc, nowdoc and shell strings are
  ``string_literal``; ``::``, ``->``, ``?->`` and the namespace ``\\`` are separators;
* ruby (doc/syntax/keywords.rdoc, operators of doc/syntax/precedence.rdoc): the reserved words but
  ``true``/``false``/``nil``; ``@x``, ``@@x``, ``$x`` are identifiers; symbols (``:name``, ``:"a b"``) are
  ``string_literal``, ``?c`` a ``character_literal``, ``/re/`` a ``regular_expression_literal``.

Numbers are ``integer_literal`` or ``floating_point_literal`` by their text in every language (a ``.``, an
exponent, a float suffix, a hexadecimal ``p`` exponent), the split the abstraction's ``INT_n``/``FLOAT_n``
make. The references class operators and punctuation differently (Java and Python apart, C and C# as
"punctuators", Go and JavaScript together); outside Java and Python, brackets and ``; , . ...`` (and ``::``,
``@`` where the language has them) are ``separator`` and the rest ``operator``. A function that does not
parse alone (a JS/TS/C# method, a C++ member) is parsed inside a dummy class, as
``revmine.preprocess.treeabstraction`` parses it (:func:`revmine.lang.languages.parse_member`); Java always
inside a class. The literals that are one token are the language's ``atomic_literals``.

**Abstracted tokens** are the abstraction's own tokens (the space-separated ``m_s_abstract`` text, token
for token the OpenNMT line): ``TYPE_n``, ``METHOD_n``, ``VAR_n`` are identifiers, ``STRING_n``,
``CHAR_n``, ``INT_n``, ``FLOAT_n`` the literal kinds they stand for, idioms are classified by their text
(``0`` an integer literal, ``""`` a string literal), in Java an annotation printed as one token (an idiom
such as ``@Override``, or ``ANNOTATION_n``, which stands for ``@`` and the name) is an ``annotation``, in
Python ``NEW_LINE``, ``INDENT``, ``DEDENT`` (:mod:`revmine.preprocess.treeabstraction`) are ``layout``.

**The SPT** follows CodeNet's definition and its tool (IBM/Project_CodeNet, ``tools/spt-generator``:
``SPTNode.simplify`` and ``aromaLabeling``; ``tools/json-graph/spt-schema.json``): from the full parse
tree, every internal node with one child is replaced by its (simplified) child, so internal nodes keep
at least two children and the leaves are the tokens, in order. A leaf is named by its text; an internal
node by the concatenation of its children's names, keeping a child's name when it is a reserved word and
writing ``#`` for any other child (an identifier, a literal, an internal node): the convention of Aroma
(Luan et al., OOPSLA 2019), e.g. ``return x;`` is ``return#;``. Reserved words are CodeNet's lists, read
from its tool: Java's ``JavaReservedWordDecider`` (the 50 keywords and 45 operators and separators, not
``@`` nor ``...``), plus ``<<``, ``>>`` and ``>>>``, which CodeNet's lexer reads as two or three reserved
``<``/``>`` tokens (so the name is the same); ``c/CReservedWordDecider`` (C11's keywords and punctuators),
``cpp/CPPReservedWordDecider`` (C++14's keywords, ``true``/``nullptr``/``override`` included, and operators,
``::`` and ``.*`` included) and ``python/PythonReservedWordDecider`` (Python 2 and 3 keywords, ``print`` and
``exec`` included, and operators and delimiters) as they are. The full parse tree is tree-sitter's concrete
tree (ANTLR's needs a Java toolchain): rule names are tree-sitter's (``method_declaration``,
``binary_expression``, ``function_definition``).

The SPT is written in CodeNet's JSON graph format: ``{"graph": {"version": "1.0", "type": "tree",
"directed": true, "order": "bfs", "root": 0, "num-of-nodes", "num-of-edges", "errors", "nodes",
"edges"}}``. Node ids are breadth-first; each node has ``id``, ``label`` (its name), ``node-type``
(``Token`` or ``Rule``), ``type-rule-name`` (the token's or rule's tree-sitter type) and
``reserved-word-flag``; a token also has ``token-id`` (its index in :func:`token_stream`) and
``token-kind``. An edge is ``{"between": [parent, child]}``, in breadth-first order of parents and in
order of children; the format's edge ``label`` is where edge types can go later. ``errors`` counts the
ERROR and missing nodes of tree-sitter's parse (0 when it read the function): the tree is built
all the same, from the tokens tree-sitter recovered. Java code that is not one class member gives what
tree-sitter made of it inside the class: two methods hang from the ``class_body`` node (without the braces
revmine added), a bare statement is read with ERROR nodes.

**The abstracted SPT** is the SPT of the abstracted text parsed in its language. Java's abstracted text is
Java with placeholders for names and literals, except that the abstraction prints ``->`` and ``::`` as two
tokens (``- >``, ``: :``; ``revmine.preprocess.javalex``): these are joined back before parsing (neither pair
can occur in Java otherwise), and ``ANNOTATION_n`` is written ``@ANNOTATION_n``; placeholders are parsed as
names. Its leaves are the abstracted tokens in order, except that an annotation token is two leaves, ``@`` and
the name (an ``identifier``). In C, C++ and Python a literal placeholder is parsed as a literal of its kind
(``STRING_n`` written ``""``, ``CHAR_n`` ``'c'``, ``INT_n`` ``0``, ``FLOAT_n`` ``0.0``: as a name, Python's
adjacent strings ``STRING_1 STRING_2`` are no Python) and named back in the tree; Python's layout tokens are turned
back into lines and four-space indentation, so the leaves are the abstracted tokens but the layout ones. The
abstracted text is one line: a C/C++ preprocessing directive inside a function then runs to the end of the
function, and ``errors`` says so where tree-sitter cannot read the result. Placeholders keep their literal
kinds (``STRING_1`` is a ``string_literal`` token). Where the abstracted text is still not its language (a
Java shift ``> >``), ``errors`` says so.
"""

from __future__ import annotations

import keyword
import re
from collections import deque
from typing import Any, NamedTuple

from .languages import LANGUAGES, parse_member

__all__ = ["SPT_LANGUAGES", "TOKEN_KINDS", "Token", "token_stream", "token_kind", "simplified_parse_tree", "spt_size",
           "spt_tokens"]

KEYWORDS = frozenset(
    "abstract assert boolean break byte case catch char class const continue default do double else enum "
    "extends final finally float for if goto implements import instanceof int interface long native new "
    "package private protected public return short static strictfp super switch synchronized this throw "
    "throws transient try void volatile while _".split()
)
#: JLS §3.11.
SEPARATORS = frozenset("( ) { } [ ] ; , . ... @ ::".split())
#: JLS §3.12.
OPERATORS = frozenset(
    "= > < ! ~ ? : -> == >= <= != && || ++ -- + - * / & | ^ % << >> >>> += -= *= /= &= |= ^= %= <<= >>= >>>=".split()
)
#: CodeNet's ``JavaReservedWordDecider`` (keywords, then operators and separators), plus the shifts (module doc).
RESERVED = (KEYWORDS - {"_"}) | frozenset(
    "( ) { } [ ] ; , . = > < ! ~ ? : == <= >= != && || ++ -- + - * / & | ^ % += -= *= /= &= |= ^= %= <<= >>= "
    ">>>= -> :: << >> >>>".split()
)

KEYWORD, IDENTIFIER, OPERATOR, SEPARATOR, ANNOTATION, UNKNOWN = (
    "keyword", "identifier", "operator", "separator", "annotation", "unknown")
INTEGER, FLOATING, BOOLEAN, CHARACTER, STRING, TEXT_BLOCK, NULL = (
    "integer_literal", "floating_point_literal", "boolean_literal", "character_literal", "string_literal",
    "text_block", "null_literal")
IMAGINARY, REGEX, USER_DEFINED, PREPROCESSOR, LAYOUT = (
    "imaginary_literal", "regular_expression_literal", "user_defined_literal", "preprocessor", "layout")
TOKEN_KINDS = (KEYWORD, IDENTIFIER, INTEGER, FLOATING, BOOLEAN, CHARACTER, STRING, TEXT_BLOCK, NULL, OPERATOR,
               SEPARATOR, ANNOTATION, UNKNOWN, IMAGINARY, REGEX, USER_DEFINED, PREPROCESSOR, LAYOUT)

#: The abstraction's placeholders and the kind of token each stands for.
_PLACEHOLDER = re.compile(r"(TYPE|METHOD|VAR|ANNOTATION|STRING|CHAR|INT|FLOAT)_[0-9]+")
_PLACEHOLDER_KINDS = {"TYPE": IDENTIFIER, "METHOD": IDENTIFIER, "VAR": IDENTIFIER, "ANNOTATION": ANNOTATION,
                      "STRING": STRING,
                      "CHAR": CHARACTER, "INT": INTEGER, "FLOAT": FLOATING}
#: The abstraction's split operators (module doc), joined back before the abstracted text is parsed.
_SPLIT_OPERATORS = {("-", ">"): "->", (":", ":"): "::"}
#: Python's layout tokens in abstracted text (``revmine.preprocess.treeabstraction``, after TransCoder).
_NEW_LINE, _INDENT, _DEDENT = "NEW_LINE", "INDENT", "DEDENT"
#: How a literal placeholder is written for the parser, outside Java (module doc).
_LITERAL_PLACEHOLDERS = {"STRING": '""', "CHAR": "'c'", "INT": "0", "FLOAT": "0.0"}
#: A string or character literal's prefix (``b``, ``rb``, ``f``; ``L``, ``u8``, ``R``; ``@``, ``$``, ``$@``).
_QUOTED = re.compile(r"[A-Za-z0-9@$]{0,3}([\"'`])")
#: Where the references class brackets and ``, ; . ...`` apart from operators (module doc).
_BRACKETS = "( ) [ ] { } ; , . ..."
_WORD = re.compile(rb"\S+")


class _Lexicon(NamedTuple):
    """One language's lexical classes (module doc) and how its code is parsed."""

    keywords: frozenset[str]
    separators: frozenset[str]
    operators: frozenset[str]
    #: words that are literals in the reference: text -> kind
    words: dict[str, str]
    #: opening quote -> literal kind, tried in order
    quotes: tuple[tuple[str, str], ...]
    #: the kinds of the language's one-token literals (``atomic_literals``) that their text does not tell
    literal_kinds: dict[str, str]
    #: CodeNet's reserved words (its ``<Language>ReservedWordDecider``); None: CodeNet gives no SPT
    reserved: frozenset[str] | None = None
    #: extras that are no tokens besides comments
    skip: frozenset[str] = frozenset()


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_C_LIKE_QUOTES = (('"', STRING), ("'", CHARACTER))
_JS_KEYWORDS = _words(
    "await break case catch class const continue debugger default delete do else enum export extends finally for "
    "function if import in instanceof new return super switch this throw try typeof var void while with yield")
_JS_OPERATORS = _words(
    "< > <= >= == != === !== + - * % ** ++ -- << >> >>> & | ^ ! ~ && || ?? ? : = += -= *= %= **= <<= >>= >>>= &= "
    "|= ^= &&= ||= ??= => ?. / /=")
_JS = dict(separators=_words(_BRACKETS + " @"), operators=_JS_OPERATORS,
           words={"true": BOOLEAN, "false": BOOLEAN, "null": NULL},
           quotes=(('"', STRING), ("'", STRING), ("`", STRING)),
           literal_kinds={"regex": REGEX})
_C_KEYWORDS = _words(
    "auto break case char const continue default do double else enum extern float for goto if inline int long "
    "register restrict return short signed sizeof static struct switch typedef union unsigned void volatile while "
    "_Alignas _Alignof _Atomic _Bool _Complex _Generic _Imaginary _Noreturn _Static_assert _Thread_local")
_C_OPERATORS = _words(
    "-> ++ -- & * + - ~ ! / % << >> < > <= >= == != ^ | && || ? : = *= /= %= += -= <<= >>= &= ^= |= # ## <: :> "
    "<% %> %: %:%:")
_C_KINDS = {"system_lib_string": STRING}

_LEXICONS: dict[str, _Lexicon] = {
    "java": _Lexicon(KEYWORDS, SEPARATORS, OPERATORS, {"true": BOOLEAN, "false": BOOLEAN, "null": NULL},
                     (('"""', TEXT_BLOCK), ('"', STRING), ("'", CHARACTER)),
                     {}, RESERVED),
    "python": _Lexicon(
        frozenset(keyword.kwlist), _words("( ) [ ] { } , : . ; @ = -> += -= *= /= //= %= @= &= |= ^= >>= <<= **= ..."),
        _words("+ - * ** / // % @ << >> & | ^ ~ := < > <= >= == !="), {}, (('"', STRING), ("'", STRING)), {},
        _words("def return raise from import nonlocal as global assert if elif else while for in try None finally "
               "with except lambda or and not is class yield del pass continue break async await print exec True "
               "False . ... ` * , : ; ** = | ^ & << >> + - / % // ~ < > == >= <= <> != @ -> += -= *= @= /= %= &= "
               "|= ^= <<= >>= **= //= ( ) { } [ ]"),
        skip=frozenset({"line_continuation"})),
    "javascript": _Lexicon(_JS_KEYWORDS, **_JS),
    "typescript": _Lexicon(_JS_KEYWORDS | _words("implements interface let package private protected public static"),
                           **_JS),
    "go": _Lexicon(
        _words("break case chan const continue default defer else fallthrough for func go goto if import interface "
               "map package range return select struct switch type var"),
        _words(_BRACKETS),
        _words("+ & += &= && == != - | -= |= || < <= * ^ *= ^= <- > >= / << /= <<= ++ = := % >> %= >>= -- ! : &^ "
               "&^= ~"),
        {}, (('"', STRING), ("`", STRING), ("'", CHARACTER)), {}),
    "c": _Lexicon(
        _C_KEYWORDS, _words(_BRACKETS), _C_OPERATORS, {}, _C_LIKE_QUOTES, _C_KINDS,
        _C_KEYWORDS | _words("( ) [ ] { } < <= > >= << >> + ++ - -- * / % & | && || ^ ! ~ ? : ; , = *= /= %= += -= "
                             "<<= >>= &= ^= |= == != -> . ...")),
    "cpp": _Lexicon(
        _words("alignas alignof asm auto bool break case catch char char8_t char16_t char32_t class concept const "
               "consteval constexpr constinit const_cast continue co_await co_return co_yield decltype default delete "
               "do double dynamic_cast else enum explicit export extern float for friend goto if inline int long "
               "mutable namespace new noexcept operator private protected public register reinterpret_cast requires "
               "return short signed sizeof static static_assert static_cast struct switch template this thread_local "
               "throw try typedef typeid typename union unsigned using virtual void volatile wchar_t while"),
        _words(_BRACKETS + " ::"),
        _C_OPERATORS | _words(".* ->* <=> and and_eq bitand bitor compl not not_eq or or_eq xor xor_eq"),
        {"true": BOOLEAN, "false": BOOLEAN, "nullptr": NULL}, _C_LIKE_QUOTES,
        {**_C_KINDS, "raw_string_literal": STRING, "user_defined_literal": USER_DEFINED},
        _words("alignas alignof asm auto bool break case catch char char16_t char32_t class const constexpr "
               "const_cast continue decltype default delete do double dynamic_cast else enum explicit export extern "
               "false final float for friend goto if inline int long mutable namespace new noexcept nullptr operator "
               "override private protected public register reinterpret_cast return short signed sizeof static "
               "static_assert static_cast struct switch template this thread_local throw true try typedef typeid "
               "typename union unsigned using virtual void volatile wchar_t while ( ) [ ] { } + - * / % ^ & | ~ ! not "
               "= < > += -= *= /= %= ^= &= |= << >> <<= >>= == != <= >= && and || or ++ -- , ->* -> ? : :: ; . .* "
               "...")),
    "csharp": _Lexicon(
        _words("abstract as base bool break byte case catch char checked class const continue decimal default "
               "delegate do double else enum event explicit extern finally fixed float for foreach goto if implicit "
               "in int interface internal is lock long namespace new object operator out override params private "
               "protected public readonly ref return sbyte sealed short sizeof stackalloc static string struct switch "
               "this throw try typeof uint ulong unchecked unsafe ushort using virtual void volatile while"),
        _words(_BRACKETS + " ::"),
        _words("+ - * / % & | ^ ! ~ = < > ? ?? ++ -- && || -> == != <= >= += -= *= /= %= &= |= ^= << <<= >> >>= "
               ">>> >>>= => ??= :"),
        {"true": BOOLEAN, "false": BOOLEAN, "null": NULL}, _C_LIKE_QUOTES,
        {"interpolated_string_expression": STRING}),
    "php": _Lexicon(
        _words("abstract and array as break callable case catch class clone const continue declare default die do "
               "echo else elseif empty enddeclare endfor endforeach endif endswitch endwhile enum eval exit extends "
               "final finally fn for foreach function global goto if implements include include_once instanceof "
               "insteadof interface isset list match namespace new or print private protected public readonly "
               "require require_once return static switch throw trait try unset use var while xor yield"),
        _words("( ) [ ] { } ; , ... :: -> ?-> \\ $"),
        _words("+ - * / % ** . = += -= *= /= .= %= **= ??= &= |= ^= <<= >>= == != === !== <> < > <= >= <=> && || ! "
               "& | ^ ~ << >> ++ -- ?? ? : @ =>"),
        {"true": BOOLEAN, "false": BOOLEAN, "null": NULL}, (('"', STRING), ("'", STRING), ("<<<", STRING),
                                                          ("`", STRING)), {}),
    "ruby": _Lexicon(
        _words("__ENCODING__ __LINE__ __FILE__ BEGIN END alias and begin break case class def defined? do else elsif "
               "end ensure for if in module next not or redo rescue retry return self super then undef unless until "
               "when while yield"),
        _words("( ) [ ] { } ; , . ::"),
        _words("+ - * / % ** = += -= *= /= %= **= ||= &&= &= |= ^= <<= >>= == != === =~ !~ < > <= >= <=> && || ! & "
               "| ^ ~ << >> .. ... ? : -> => &."),
        {"true": BOOLEAN, "false": BOOLEAN, "nil": NULL}, (('"', STRING), ("'", STRING), ("`", STRING)),
        {"regex": REGEX, "character": CHARACTER, "simple_symbol": STRING, "delimited_symbol": STRING}),
}
#: Per language, its one-token literals (``languages.LANGUAGES[...].atomic_literals``) -> kind ("": from the text).
_ATOMIC: dict[str, dict[str, str]] = {
    name: {type_: lexicon.literal_kinds.get(type_, "") for type_ in LANGUAGES[name].atomic_literals}
    for name, lexicon in _LEXICONS.items()}
assert all(lexicon.literal_kinds.keys() <= _ATOMIC[name].keys() for name, lexicon in _LEXICONS.items())
#: The languages CodeNet gives simplified parse trees for (its tool's reserved-word deciders).
SPT_LANGUAGES = tuple(name for name, lexicon in _LEXICONS.items() if lexicon.reserved is not None)


class Token(NamedTuple):
    text: str
    kind: str


def _lexicon(language: str) -> _Lexicon:
    if language not in _LEXICONS:
        raise ValueError(f"no token classes for language {language!r} (known: {', '.join(LANGUAGES)})")
    return _LEXICONS[language]


def token_kind(text: str, abstracted: bool = False, language: str = "java") -> str:
    """The kind of one token of ``language``, read from its text (``abstracted``: placeholders, idioms and
    Python's layout tokens too)."""
    lexicon = _lexicon(language)
    if abstracted:
        placeholder = _PLACEHOLDER.fullmatch(text)
        if placeholder:
            return _PLACEHOLDER_KINDS[placeholder.group(1)]
        if language == "java" and len(text) > 1 and text[0] == "@":
            return ANNOTATION
        if language == "python" and text in (_NEW_LINE, _INDENT, _DEDENT):
            return LAYOUT
    first = text[:1]
    prefixed = _QUOTED.match(text) if language != "java" else None  # Java has no string prefixes
    literal = text[prefixed.start(1):] if prefixed else text
    for quote, kind in lexicon.quotes:
        if literal.startswith(quote):
            return kind
    if first.isdigit() or (first == "." and text[1:2].isdigit()):
        return _number_kind(text)
    if text in lexicon.keywords:
        return KEYWORD
    if text in lexicon.words:
        return lexicon.words[text]
    if text in lexicon.separators:
        return SEPARATOR
    if text in lexicon.operators:
        return OPERATOR
    if first.isalpha() or first in "_$" or (first == "#" and language in ("javascript", "typescript")) \
            or (first == "@" and language == "ruby"):
        return IDENTIFIER  # JS/TS: `#name` is a private name; Ruby: `@name`, `@@name` instance and class variables
    if first == "#" and text[1:2].isalpha() and language in ("c", "cpp", "csharp"):
        return PREPROCESSOR
    return UNKNOWN


def _number_kind(text: str) -> str:
    """JLS §3.10.1-2: hexadecimal floats have a ``p`` exponent; ``F``/``D`` are digits in hexadecimal. The other
    references add imaginary numbers (Python ``j``, Go ``i``) and C#'s decimal suffix ``m``."""
    lowered = text.lower()
    if lowered.endswith(("j", "i")):  # no hexadecimal digit, so never a hexadecimal integer's last digit
        return IMAGINARY
    if lowered.startswith("0x"):
        return FLOATING if "p" in lowered else INTEGER
    if lowered.startswith("0b"):
        return INTEGER
    return FLOATING if any(c in lowered for c in ".efdm") else INTEGER


def token_stream(code: str, language: str = "java", abstracted: bool = False) -> list[Token]:
    """The tokens of a function of ``language`` with their kinds: the leaves of its parse tree, or
    (``abstracted``) the abstraction's space-separated tokens (module doc)."""
    if abstracted:
        _lexicon(language)
        return [Token(text, token_kind(text, True, language)) for text in code.split()]
    root, _ = _parse(code, language, abstracted=False)
    return [Token(leaf.text, leaf.kind) for leaf in _leaves(root)]


class _Node:
    """A node of the parse tree being simplified; a leaf (a token) has ``text``."""

    __slots__ = ("type", "text", "kind", "children", "kept", "token_id", "node_id")

    def __init__(self, type_: str, text: str | None = None, kind: str = "") -> None:
        self.type, self.text, self.kind = type_, text, kind
        self.children: list[_Node] = []
        self.kept: _Node | None = None  # what the node is after simplification (None: nothing)
        self.token_id = self.node_id = 0


def _parse(code: str, language: str, abstracted: bool) -> tuple[_Node | None, int]:
    """The simplified tree of ``code`` (None when it has no token) and the number of parse errors in it."""
    lexicon = _lexicon(language)
    placeholders: dict[int, str] = {}
    if abstracted:
        code, placeholders = _as_source(code.split(), language)
    source = code.encode("utf-8")
    tree, offset = parse_member(language, source, alone=language != "java")  # Java: always a class member
    atomic = _ATOMIC[language]
    root = _Node(tree.root_node.type)
    errors = 0
    stack = [(tree.root_node, root)]
    while stack:
        ts_node, node = stack.pop()
        for child in ts_node.children:
            type_, start, end = child.type, child.start_byte, child.end_byte
            if start == end:  # a missing token (the wrapper parses alone: every error is the code's)
                errors += child.is_missing
                continue
            errors += type_ == "ERROR"
            start, end = max(start - offset, 0), min(end - offset, len(source))
            if type_.endswith("comment") or type_ in lexicon.skip or start >= end:  # comments; the wrapper's tokens
                continue
            if type_ in atomic or child.child_count == 0:
                node.children += _tokens_of(type_, source[start:end], start, placeholders, language, abstracted)
            else:
                made = _Node(type_)
                node.children.append(made)
                stack.append((child, made))
    return _simplify(root), errors


def _tokens_of(type_: str, raw: bytes, offset: int, placeholders: dict[int, str], language: str,
               abstracted: bool) -> list[_Node]:
    """The tokens a leaf of the tree (or a node that is one token) at ``offset`` holds: itself, or the placeholder
    written there, or, where tree-sitter's leaf is more than a token, its parts: the words of a leaf with spaces
    (C's ``preproc_arg``, split at whitespace as the abstraction splits it) and a number's sign (tree-sitter-c/cpp
    read ``-1`` as one literal; C11 §6.4.4.1 has no sign)."""
    atomic = _ATOMIC[language]
    if type_ in atomic and offset not in placeholders:
        return [_leaf(type_, raw.decode("utf-8"), atomic[type_], language, abstracted)]
    leaves = []
    for word in _WORD.finditer(raw):
        text = placeholders.get(offset + word.start()) or word.group().decode("utf-8")
        if type_ == "number_literal" and text[0] in "+-" and len(text) > 1:
            leaves += [_leaf(type_, part, "", language, abstracted) for part in (text[0], text[1:])]
        else:
            leaves.append(_leaf(type_, text, "", language, abstracted))
    return leaves


def _leaf(type_: str, text: str, kind: str, language: str, abstracted: bool) -> _Node:
    """A token: its kind from its node type where the text does not tell it, else from the text."""
    kind = kind or token_kind(text, abstracted, language)
    return _Node(type_, text, IDENTIFIER if kind == ANNOTATION else kind)


def _as_source(tokens: list[str], language: str) -> tuple[str, dict[int, str]]:
    """Abstracted tokens as code of the language, and the placeholders written as literals, by byte offset.

    Java: split operators joined, ``ANNOTATION_n`` written ``@ANNOTATION_n``, placeholders left as names (module
    doc). C, C++, Python: a literal placeholder is written as a literal of its kind (``STRING_1`` as ``""``), so
    that the tree reads it where a literal goes; Python's layout tokens become lines and indentation."""
    if language == "java":
        joined: list[str] = []
        for text in tokens:
            pair = (joined[-1], text) if joined else None
            if pair in _SPLIT_OPERATORS:
                joined[-1] = _SPLIT_OPERATORS[pair]
            else:
                joined.append("@" + text if text.startswith("ANNOTATION_") else text)
        return " ".join(joined), {}
    pieces: list[str] = []
    placeholders: dict[int, str] = {}
    size, level, line_start = 0, 0, True
    for text in tokens:
        if language == "python" and text in (_NEW_LINE, _INDENT, _DEDENT):
            level = max(0, level + (text == _INDENT) - (text == _DEDENT))
            if text == _NEW_LINE:
                pieces.append("\n")
                size, line_start = size + 1, True
            continue
        space = "    " * level if line_start else " "
        placeholder = _PLACEHOLDER.fullmatch(text)
        written = _LITERAL_PLACEHOLDERS.get(placeholder.group(1), text) if placeholder else text
        if written != text:
            placeholders[size + len(space)] = text
        pieces += [space, written]
        size += len(space) + len(written.encode("utf-8"))
        line_start = False
    return "".join(pieces), placeholders


def _simplify(root: _Node) -> _Node | None:
    """CodeNet's ``SPTNode.simplify``: a rule node with one child becomes that child (recursively); a rule
    node left with no child (all its tokens were outside the method) disappears."""
    order, stack = [], [root]
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(node.children)
    for node in reversed(order):  # children before their parents
        if node.text is not None:
            node.kept = node
            continue
        node.children = [c.kept for c in node.children if c.kept is not None]
        node.kept = None if not node.children else node.children[0] if len(node.children) == 1 else node
    simplified = root.kept
    for node in order:
        node.kept = None  # no reference cycle left for the garbage collector
    return simplified


def _leaves(root: _Node | None) -> list[_Node]:
    """The tokens, in order."""
    leaves, stack = [], [root] if root is not None else []
    while stack:
        node = stack.pop()
        if node.text is not None:
            leaves.append(node)
        else:
            stack.extend(reversed(node.children))
    return leaves


def simplified_parse_tree(code: str, language: str = "java", abstracted: bool = False) -> dict[str, Any]:
    """The SPT of a function of ``language`` in CodeNet's JSON graph format (module doc); ``abstracted``: of
    the abstracted text. Code with no token gives a graph with no node (``root`` null). CodeNet defines SPTs
    for C, C++, Java and Python only: another language is a ``ValueError``."""
    reserved = _lexicon(language).reserved
    if reserved is None:
        raise ValueError(f"Project CodeNet defines no simplified parse tree for {language}: only for "
                         f"{', '.join(SPT_LANGUAGES)}")
    root, errors = _parse(code, language, abstracted)
    for i, leaf in enumerate(_leaves(root)):
        leaf.token_id = i
    order: list[_Node] = []
    queue = deque([root] if root is not None else [])
    while queue:
        node = queue.popleft()
        node.node_id = len(order)
        order.append(node)
        queue.extend(node.children)
    nodes, edges = [], []
    for i, node in enumerate(order):
        if node.text is not None:
            nodes.append({"id": i, "label": node.text, "node-type": "Token", "type-rule-name": node.type,
                          "reserved-word-flag": node.text in reserved, "token-id": node.token_id,
                          "token-kind": node.kind})
            continue
        label = "".join(c.text if c.text is not None and c.text in reserved else "#" for c in node.children)
        nodes.append({"id": i, "label": label, "node-type": "Rule", "type-rule-name": node.type,
                      "reserved-word-flag": False})
        edges += [{"between": [i, c.node_id]} for c in node.children]
    return {"graph": {"version": "1.0", "type": "tree", "directed": True, "order": "bfs",
                      "root": 0 if nodes else None, "num-of-nodes": len(nodes), "num-of-edges": len(edges),
                      "errors": errors, "nodes": nodes, "edges": edges}}


def spt_tokens(graph: dict[str, Any]) -> list[Token]:
    """The tokens of an SPT in order: for raw code, :func:`token_stream` without parsing again."""
    leaves = sorted((n for n in graph["graph"]["nodes"] if n["node-type"] == "Token"), key=lambda n: n["token-id"])
    return [Token(n["label"], n["token-kind"]) for n in leaves]


def spt_size(graph: dict[str, Any]) -> tuple[int, int]:
    """(nodes, edges) of an SPT as :func:`simplified_parse_tree` gives it."""
    return graph["graph"]["num-of-nodes"], graph["graph"]["num-of-edges"]
