"""The idiom lists of seven languages (``revmine/data/idioms/``) and the script that counts them.

The lists are checked against each language's reserved words as its specification lists them (Python's
``keyword.kwlist``; ECMAScript 2024 12.7.2 with the strict-mode reserved words; TypeScript's reserved words;
the Go specification's 25 keywords; C23 6.4.1; C++23 [lex.key] and the alternative tokens; C#'s reserved
keywords), and :func:`count_leaves` against counts worked out by hand on one snippet per language.
"""

from __future__ import annotations

import importlib.util
import keyword
import re
import sys
from collections import Counter
from pathlib import Path

import pytest

from revmine.lang.idioms import default_idioms

ROOT = Path(__file__).resolve().parents[1]
LISTS = ROOT / "revmine" / "data" / "idioms"
LANGUAGES = ("python", "javascript", "typescript", "go", "c", "cpp", "csharp", "php", "ruby")
#: projects each list is counted from, at least: PHP's and Ruby's corpora are the Debian packages whose upstream
#: tarball the mirror served (Packagist and RubyGems are not reachable here; SOURCES.md says so)
MIN_SOURCES = {"php": 8, "ruby": 5}


def _script():
    spec = importlib.util.spec_from_file_location("build_idioms", ROOT / "scripts" / "build_idioms.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("build_idioms", module)
    spec.loader.exec_module(module)
    return module


build = _script()

_JS = ("await break case catch class const continue debugger default delete do else enum export extends false "
       "finally for function if import in instanceof new null return super switch this throw true try typeof var "
       "void while with yield implements interface let package private protected public static")
RESERVED = {
    "python": set(keyword.kwlist),
    "javascript": set(_JS.split()),
    "typescript": set(_JS.split()),
    "go": set("break case chan const continue default defer else fallthrough for func go goto if import interface "
              "map package range return select struct switch type var".split()),
    "c": set("alignas alignof auto bool break case char const constexpr continue default do double else enum "
             "extern false float for goto if inline int long nullptr register restrict return short signed sizeof "
             "static static_assert struct switch thread_local true typedef typeof typeof_unqual union unsigned void "
             "volatile while _Alignas _Alignof _Atomic _BitInt _Bool _Complex _Decimal128 _Decimal32 _Decimal64 "
             "_Generic _Imaginary _Noreturn _Static_assert _Thread_local".split()),
    "cpp": set("alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t "
               "char32_t class compl concept const consteval constexpr constinit const_cast continue co_await "
               "co_return co_yield decltype default delete do double dynamic_cast else enum explicit export extern "
               "false float for friend goto if inline int long mutable namespace new noexcept not not_eq nullptr "
               "operator or or_eq private protected public register reinterpret_cast requires return short signed "
               "sizeof static static_assert static_cast struct switch template this thread_local throw true try "
               "typedef typeid typename union unsigned using virtual void volatile wchar_t while xor xor_eq".split()),
    "csharp": set("abstract as base bool break byte case catch char checked class const continue decimal default "
                  "delegate do double else enum event explicit extern false finally fixed float for foreach goto if "
                  "implicit in int interface internal is lock long namespace new null object operator out override "
                  "params private protected public readonly ref return sbyte sealed short sizeof stackalloc static "
                  "string struct switch this throw true try typeof uint ulong unchecked unsafe ushort using virtual "
                  "void volatile while".split()),
    # PHP manual, "List of Keywords"; Ruby, doc/syntax/keywords.rdoc
    "php": set("abstract and array as break callable case catch class clone const continue declare default die do "
               "echo else elseif empty enddeclare endfor endforeach endif endswitch endwhile enum eval exit extends "
               "final finally fn for foreach function global goto if implements include include_once instanceof "
               "insteadof interface isset list match namespace new or print private protected public readonly "
               "require require_once return static switch throw trait try unset use var while xor yield".split()),
    "ruby": set("__ENCODING__ __LINE__ __FILE__ BEGIN END alias and begin break case class def defined? do else "
                "elsif end ensure false for if in module next nil not or redo rescue retry return self super then "
                "true undef unless until when while yield".split()),
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_list_has_300_distinct_entries_and_no_keyword(language):
    lines = (LISTS / f"{language}.txt").read_text(encoding="utf-8").split("\n")
    assert lines[-1] == "" and "" not in lines[:-1]  # one entry a line, the file ends with a newline
    entries = lines[:-1]
    assert len(entries) == 300 and len(set(entries)) == 300
    assert all(entry == entry.strip() and " ".join(entry.split()) == entry for entry in entries)
    assert not set(entries) & RESERVED[language]
    # what revmine reads is the file: the shipped loader gives exactly its entries
    assert default_idioms(language) == frozenset(entries)


@pytest.mark.parametrize("language", LANGUAGES)
def test_lists_hold_identifiers_and_literals_both(language):
    entries = (LISTS / f"{language}.txt").read_text(encoding="utf-8").splitlines()
    names = [entry for entry in entries if re.fullmatch(r"[A-Za-z_$][\w$]*", entry)]
    numbers = {entry for entry in entries if re.fullmatch(r"\d+", entry)}
    assert len(names) > 200 and {"0", "1"} <= numbers


def test_sources_names_at_least_ten_projects_per_language_with_sha256():
    text = (LISTS / "SOURCES.md").read_text(encoding="utf-8")
    sections = re.split(r"^## ", text, flags=re.M)[1:]
    assert [section.split("\n", 1)[0] for section in sections] == list(LANGUAGES)
    for section in sections:
        rows = [line for line in section.splitlines() if re.search(r"\| `[0-9a-f]{64}` \|", line)]
        assert len(rows) >= MIN_SOURCES.get(section.split("\n", 1)[0], 10)
    assert "python3 scripts/build_idioms.py" in text


# hand-worked: each snippet's names (the abstraction's name leaf types) and literals (whole, quotes included);
# keywords, builtin type keywords, true/null/nil/NULL, comments and the insides of strings are not counted
# (tree-sitter-c-sharp reads the contextual keyword ``by`` as a keyword even as a parameter name, so the
# C# snippet avoids it)
SNIPPETS = {
    "python": ('def area(self, r=2):\n    s = f"{r}x"\n    return self.pi * r ** 2 + len("ab")  # r\n',
               {"area": 1, "self": 2, "r": 2, "2": 2, "s": 1, 'f"{r}x"': 1, "pi": 1, "len": 1, '"ab"': 1}),
    "javascript": ("const total = items.map((x) => x.price * 2).reduce(add, 0); // items\nlet s = `n=${total}`;\n",
                   {"total": 1, "items": 1, "map": 1, "x": 2, "price": 1, "reduce": 1, "add": 1, "2": 1, "0": 1,
                    "s": 1, "`n=${total}`": 1}),
    "typescript": ("interface Point { x: number; label?: string }\n"
                   "function norm(p: Point): number { return Math.sqrt(p.x * p.x) + 1.5; }\n",
                   {"Point": 2, "x": 3, "label": 1, "norm": 1, "p": 3, "Math": 1, "sqrt": 1, "1.5": 1}),
    "go": ('package main\n\nimport "fmt"\n\nfunc add(a, b int) int { return a + b + 0x10 }\n\n'
           "func main() { fmt.Println(add(1, 'x'), nil) }\n",
           {"main": 2, '"fmt"': 1, "add": 2, "a": 2, "b": 2, "int": 2, "0x10": 1, "fmt": 1, "Println": 1, "1": 1,
            "'x'": 1}),
    "c": ('#include <stdio.h>\nstatic int count = 0;\n'
          'int inc(struct node *n) { n->value += 1; printf("%d\\n", count); return NULL == 0; }\n',
          {"<stdio.h>": 1, "count": 2, "0": 2, "inc": 1, "node": 1, "n": 2, "value": 1, "1": 1, "printf": 1,
           '"%d\\n"': 1}),
    "cpp": ('namespace app {\ntemplate <typename T> T twice(T x) { return x * 2; }\nstd::string name = "a";\n}\n',
            {"app": 1, "T": 3, "twice": 1, "x": 2, "2": 1, "std": 1, "string": 1, "name": 1, '"a"': 1}),
    "csharp": ('class Box { public int Size; int Grow(int step) => Size += step * 2; string Name => $"box{Size}";'
               " char C = 'c'; }\n",
               {"Box": 1, "Size": 2, "Grow": 1, "step": 2, "2": 1, "Name": 1, '$"box{Size}"': 1, "C": 1, "'c'": 1}),
    "php": ("<?php\nfunction area($r = 2) { $s = \"x{$r}\"; return M_PI * $r ** 2 + strlen('ab'); } // r\n",
            {"area": 1, "r": 2, "2": 2, "s": 1, '"x{$r}"': 1, "M_PI": 1, "strlen": 1, "'ab'": 1}),
    "ruby": ('def area(r = 2)\n  s = "#{r}x"\n  @pi * r ** 2 + :ab.size + nil.to_i # r\nend\n',
             {"area": 1, "r": 2, "2": 2, "s": 1, '"#{r}x"': 1, "@pi": 1, ":ab": 1, "size": 1, "to_i": 1}),
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_count_leaves_gives_the_hand_worked_counts(language):
    source, expected = SNIPPETS[language]
    assert build.count_leaves(source, language) == Counter(expected)


def test_a_literal_with_a_line_break_or_double_space_is_not_counted():
    # a list line cannot hold it, and the abstraction keeps only literals whose spaces are single
    assert build.count_leaves('a = "x  y"\nb = """p\nq"""\nc = "x y"\n', "python") == Counter(
        {"a": 1, "b": 1, "c": 1, '"x y"': 1})


def test_rank_caps_a_project_at_the_median_weight_and_needs_spread():
    # totals 11, 4, 7: median 7, so project a's counts weigh 7/11 and the others 1
    per_project = {"a": Counter(x=10, y=1), "b": Counter(x=1, y=1, z=2), "c": Counter(y=1, z=1, w=5)}
    # x: 10*7/11 + 1 = 7.36 (2 projects), w: 5 (1 project), z: 3 (2), y: 7/11 + 2 = 2.64 (3)
    assert build.rank(per_project, entries=10, min_projects=2, entry_share=1) == ["x", "z", "y"]
    assert build.rank(per_project, entries=10, min_projects=1, entry_share=1) == ["x", "w", "z", "y"]
    assert build.rank(per_project, entries=10, min_projects=3, entry_share=1) == ["y"]
    assert build.rank(per_project, entries=1, min_projects=1, entry_share=1) == ["x"]
    # one project gives one text at most 0.3 * 7 = 2.1: x = 2.1 + 1 = 3.1, z = 2 + 1 = 3, y = 2.64, w = 2.1
    assert build.rank(per_project, entries=10, min_projects=1, entry_share=0.3) == ["x", "z", "y", "w"]


def test_a_reserved_word_read_as_a_name_is_not_counted():
    # tree-sitter-cpp reads static_cast<int>(x) as a call of a template function named static_cast
    assert build.count_leaves("int f(double x) { return static_cast<int>(x); }\n", "cpp") == Counter(
        {"f": 1, "x": 2})


@pytest.mark.parametrize("path, text, language, kept", [
    ("django/db/models/query.py", "class QuerySet: pass\n", "python", True),
    ("django/test/client.py", "x = 1\n", "python", False),  # a folder of tests (or test support)
    ("pkg/test_views.py", "x = 1\n", "python", False),
    ("lib/rules/no-var.js", "module.exports = {};\n", "javascript", True),
    ("lib/rules/no-var.min.js", "module.exports = {};\n", "javascript", False),
    ("src/index.d.ts", "export {};\n", "typescript", False),
    ("src/view.tsx", "export {};\n", "typescript", False),
    ("server.go", "// Code generated by protoc-gen-go. DO NOT EDIT.\npackage x\n", "go", False),
    ("server_test.go", "package x\n", "go", False),
    ("vendor/x/y.go", "package y\n", "go", False),
    ("src/util.h", "namespace a { int b; }\n", "c", False),  # a C++ header in a C project
    ("src/util.h", "int b;\n", "c", True),
    ("Mono.Cecil/Tests/AssemblyTests.cs", "class A {}\n", "csharp", False),
])
def test_keep_file_keeps_hand_written_sources_only(path, text, language, kept):
    assert build.keep_file(path, text, language) is kept
