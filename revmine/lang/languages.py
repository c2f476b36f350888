"""The programming languages revmine reads: a file's language from its name, and each language's grammar.

One table, so that the miners (which files of a review to keep), preprocess (methods, abstraction), the
exports (token streams, parse trees) and the metrics (tree metrics, CodeBLEU) agree on what "python" is.

Languages come from the file's extension, as GitHub's linguist and CodeReviewer's data do. The one ambiguous
extension is ``.h``: C and C++ both use it (leveldb's headers are C++, sds's are C). It is C unless the text
uses a construct C does not have (``class``/``namespace``/``template``/``public:``... or ``::``), which is
linguist's own heuristic for ``.h`` (its ``heuristics.yml``, rule "C++" for ``.h``), so a header is read
with the grammar that parses it.

``.tsx`` files (TypeScript with JSX) are not read: the TypeScript grammar does not parse JSX (its ``tsx``
grammar does, but refuses TypeScript's ``<T>value`` casts), and revmine's per-language tables (roles, idioms,
token kinds) were built and checked on the TypeScript grammar only; ``.jsx`` is JavaScript, whose grammar
parses JSX.

Grammars come from the per-language ``tree-sitter-<name>`` wheels (``benchmarks/bench_grammars.py``: 14.3 MB
for the first seven against 197.6 MB for ``tree-sitter-language-pack`` 0.13.0, same parse speed, and the pack's
1.x releases download grammars at run time, which fails offline). Java's is a core dependency; the others
come with the ``[languages]`` extra, and a missing one is one clear error naming the package to install.

Two facts about each grammar that every stage reading a function needs, kept here so that they agree:

* **A member is read inside a dummy class.** A function revmine cuts out of a file is parsed alone; where
  that tree has an error and the function is a member that only parses in its class (a JS/TS/C# method, a
  C++ method defined in its class, a Go function value of a composite literal, ``Run: func(...) {...},``),
  it is parsed inside ``member_wrapper`` (``class _ {`` for Java, JS, TS and C#, ``struct _ {`` ... ``};``
  for C++, a composite literal ``var _ = _{`` for Go), as src2abs wraps Java methods, and that tree is kept
  if it has no error (:func:`parse_member`). The wrapper's parts end and start with a line break, so that a
  ``//`` comment on the code's last line ends before the wrapper's closing.
* **Some literals are one token.** ``atomic_literals`` are the node types that are one token of the
  language's reference lexical grammar, whatever parts (quotes, fragments, escapes, interpolations) the
  grammar splits them into: string, character, template and raw-string literals, JavaScript's regular
  expression literal (ECMA-262 12.9.5), C's ``<header>`` name and C++'s user-defined literal (``"ab"s``,
  ``10ms``; [lex.ext]). Numbers are single leaves in every grammar and need no entry.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Iterable

from ..errors import InputError

if TYPE_CHECKING:
    from tree_sitter import Tree

__all__ = ["ALIASES", "DEFAULT_LANGUAGES", "LANGUAGES", "Language", "canonical", "check_languages", "grammar",
           "language_of", "parse_member", "parser"]


@dataclass(frozen=True)
class Language:
    """One language: its name in settings and columns, its extensions and where its grammar lives."""

    name: str
    extensions: tuple[str, ...]
    #: distribution and module of the tree-sitter grammar, and the module's function returning it
    package: str
    module: str
    function: str = "language"
    #: Lizard's name for the language (``lizard -l NAME``)
    lizard: str = ""
    #: the text before and after a function that only parses as a member of a class (module docstring)
    member_wrapper: tuple[str, str] | None = None
    #: node types the grammar splits into parts that are one token of the language (module docstring)
    atomic_literals: frozenset[str] = frozenset()


_CLASS = ("class _ {\n", "\n}")
_JS_LITERALS = frozenset({"string", "template_string", "regex"})
_C_LITERALS = frozenset({"string_literal", "char_literal", "system_lib_string"})


LANGUAGES: dict[str, Language] = {language.name: language for language in (
    Language("java", (".java",), "tree-sitter-java", "tree_sitter_java", lizard="java", member_wrapper=_CLASS,
             atomic_literals=frozenset({"string_literal", "character_literal"})),
    Language("python", (".py", ".pyi"), "tree-sitter-python", "tree_sitter_python", lizard="python",
             atomic_literals=frozenset({"string"})),
    Language("javascript", (".js", ".mjs", ".cjs", ".jsx"), "tree-sitter-javascript", "tree_sitter_javascript",
             lizard="javascript", member_wrapper=_CLASS, atomic_literals=_JS_LITERALS),
    Language("typescript", (".ts", ".mts", ".cts"), "tree-sitter-typescript", "tree_sitter_typescript",
             "language_typescript", lizard="typescript", member_wrapper=_CLASS, atomic_literals=_JS_LITERALS),
    Language("go", (".go",), "tree-sitter-go", "tree_sitter_go", lizard="go", member_wrapper=("var _ = _{\n", "\n}"),
             atomic_literals=frozenset({"interpreted_string_literal", "raw_string_literal", "rune_literal"})),
    Language("c", (".c", ".h"), "tree-sitter-c", "tree_sitter_c", lizard="cpp", atomic_literals=_C_LITERALS),
    Language("cpp", (".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".h++", ".inl", ".ipp"),
             "tree-sitter-cpp", "tree_sitter_cpp", lizard="cpp", member_wrapper=("struct _ {\n", "\n};"),
             atomic_literals=_C_LITERALS | {"raw_string_literal", "user_defined_literal"}),
    Language("csharp", (".cs",), "tree-sitter-c-sharp", "tree_sitter_c_sharp", lizard="csharp", member_wrapper=_CLASS,
             atomic_literals=frozenset({"string_literal", "verbatim_string_literal", "raw_string_literal",
                                        "interpolated_string_expression", "character_literal"})),
    # PHP code alone (``language_php_only``): a function cut out of a file has no ``<?php`` before it, and the
    # grammar with HTML reads such text as HTML; files with ``<?php`` parse alike (CodeBLEU keeps the evaluator's
    # ``language_php``: revmine.metrics.codebleu)
    Language("php", (".php",), "tree-sitter-php", "tree_sitter_php", "language_php_only", lizard="php",
             member_wrapper=_CLASS, atomic_literals=frozenset({"string", "encapsed_string", "heredoc", "nowdoc",
                                                               "shell_command_expression"})),
    Language("ruby", (".rb", ".rake", ".gemspec"), "tree-sitter-ruby", "tree_sitter_ruby", lizard="ruby",
             atomic_literals=frozenset({"string", "delimited_symbol", "simple_symbol", "character", "regex", "subshell",
                                        "heredoc_body"})),
)}

#: Other names data gives a language: CodeReviewer's ``lang`` (short codes, extensions), CodeBLEU's ``c_sharp``.
ALIASES = {"py": "python", "js": "javascript", "ts": "typescript", "cs": "csharp", ".cs": "csharp",
           "c_sharp": "csharp", "c++": "cpp", "cc": "cpp", "rb": "ruby"}


def canonical(name: str) -> str:
    """revmine's name of a language given by another name (:data:`ALIASES`); other names as they are."""
    return ALIASES.get(name.lower(), name)


#: What a job mines when it does not say: the 2021 dataset's language, so older jobs give the same outputs.
DEFAULT_LANGUAGES: tuple[str, ...] = ("java",)

_BY_EXTENSION = {extension: language.name for language in LANGUAGES.values() for extension in language.extensions}
#: linguist's C++ rule for ``.h`` files (heuristics.yml): a construct C does not have
_CPP_HEADER = re.compile(r"^\s*template\s*<|^[ \t]*(?:class|namespace)\s+\w|^[ \t]*(?:private|public|protected):"
                         r"|^\s*#\s*include\s*<(?:cstdint|cstring|cstdio|string|vector|map|memory|iostream"
                         r"|algorithm|utility|atomic|mutex|thread)>|::|\bnullptr\b|\bstd::", re.M)


def language_of(path: str | None, text: str | None = None) -> str | None:
    """The language of a file from its path (None: no language revmine reads); ``text`` decides ``.h``."""
    if not path:
        return None
    suffix = PurePosixPath(path).suffix.lower()
    name = _BY_EXTENSION.get(suffix)
    if name == "c" and suffix == ".h" and text is not None and _CPP_HEADER.search(text):
        return "cpp"
    return name


def check_languages(names: Iterable[str]) -> tuple[str, ...]:
    """The languages of a setting, checked: each known, none twice, in the order given."""
    names = tuple(names)
    unknown = [name for name in names if name not in LANGUAGES]
    if unknown:
        raise InputError.setting("languages", f"unknown language {unknown[0]!r} (known: {', '.join(LANGUAGES)})")
    if len(set(names)) != len(names):
        raise InputError.setting("languages", "a language is named twice")
    if not names:
        raise InputError.setting("languages", "name at least one language")
    return names


@lru_cache(maxsize=None)
def grammar(name: str):
    """The tree-sitter ``Language`` of ``name``; one error naming the wheel when it is not installed."""
    import tree_sitter

    language = LANGUAGES[name]
    try:
        module = importlib.import_module(language.module)
    except ImportError:
        raise InputError.setting("languages", f"the grammar of {name} is not installed (pip install "
                                 f"{language.package}, or revmine's [languages] extra)") from None
    return tree_sitter.Language(getattr(module, language.function)())


def parser(name: str):
    """A new tree-sitter ``Parser`` for ``name`` (parsers are not thread-safe: one per user)."""
    import tree_sitter

    return tree_sitter.Parser(grammar(name))


def parse_member(name: str, source: bytes, alone: bool = True) -> tuple[Tree, int]:
    """The tree of one function of ``name`` and the byte offset of ``source`` in the text parsed.

    ``source`` is parsed alone; if that tree has an error and the language has a ``member_wrapper``, it is
    parsed inside it, and that tree is kept if it has none (module docstring). ``alone=False``: always inside
    the wrapper (revmine reads Java code as a class member, as src2abs does).
    """
    wrapper = LANGUAGES[name].member_wrapper
    ts = parser(name)
    tree = ts.parse(source) if alone or wrapper is None else None
    if wrapper is None or (tree is not None and not tree.root_node.has_error):
        return tree, 0
    prefix, suffix = (part.encode("utf-8") for part in wrapper)
    wrapped = ts.parse(prefix + source + suffix)
    if tree is None or not wrapped.root_node.has_error:
        return wrapped, len(prefix)
    return tree, 0
