"""Build the idiom lists of nine languages from real code: ``revmine/data/idioms/<language>.txt`` and SOURCES.md.

An idiom is a token that the abstraction keeps as it is instead of turning it into an id (Tufano et al., "On
Learning Meaningful Code Changes via Neural Machine Translation", ICSE 2019, and "Towards Automating Code
Review Activities", ICSE 2021: the idioms are "the most frequent identifiers and literals" of a large corpus;
their Java list is ``revmine/data/idioms.txt``, 300 lines). This script counts them for python, javascript,
typescript, go, c, cpp, csharp, php and ruby, 300 per language, most frequent first.

Decisions:

* **Corpus**: pinned releases of widely used, permissively licensed projects (:data:`PROJECTS`, 11 to 16 per
  language, several domains each), from the package registries this machine reaches: PyPI wheels (python, and
  pythonnet's sdist for its C# runtime), npm tarballs (javascript; typescript from packages that publish their
  ``src/*.ts``), Go module zips, and Debian source packages' upstream tarballs (c, cpp, csharp; Debian's
  ``mono`` tarball carries several upstream C# projects, counted as the separate projects they are; php and
  ruby: Debian too, the PHP and Ruby packages of bookworm whose upstream tarball Debian's mirror served, 8 and 5
  projects, as Packagist and RubyGems are not reachable here). Each archive is checked by sha256. The projects
  of ``shared/fixtures/code_revisions`` (requests, cobra, leveldb, sds, jq, express, ky, Newtonsoft.Json) and of
  ``tests/data/php_ruby_revisions`` (guzzle/psr7, rack) are left out, since tests use them.
* **Files**: a file counts when :func:`revmine.lang.languages.language_of` gives the project's language
  (``.h`` by linguist's heuristic), it lies under the project's source folders, and it is not a test, vendored,
  example, documentation, build output or generated file (:func:`keep_file`: folder and file names, and the
  markers "Code generated", "DO NOT EDIT", "auto-generated"... in its first 1,000 characters); ``.tsx``,
  ``.d.ts`` and files over 500 kB (amalgamations, tables) are left out. At most :data:`MAX_PROJECT_BYTES` of a
  project's files are read, chosen in the order of the sha256 of their paths (a fixed sample that does not
  favour one folder), so that one large project does not cost the run its time.
* **Tokens** (:func:`count_leaves`): the leaves that the abstraction (:mod:`revmine.preprocess.treeabstraction`,
  its ``RULES``) turns into ids, so that every entry is a token the list can keep: its name leaf types
  (``identifier``, ``type_identifier``, ``field_identifier``, ``property_identifier``, ``package_identifier``,
  ``namespace_identifier``...) and its literal node types, a literal being one token with its full source text
  (quotes included, f-strings and template strings whole). Keywords, punctuation, comments, and the keyword-like
  named leaves (``true``, ``None``, ``nil``, ``NULL``, ``this``) are not counted: the abstraction keeps them
  anyway; nor is a name whose text is a reserved word of the language (:data:`RESERVED`), which a grammar
  sometimes reads as a name. A literal whose text holds whitespace other than single spaces is not counted,
  since a list line cannot hold it and the abstraction does not keep it.
* **Ranking**: total count over the projects, with each project's counts scaled by
  ``min(1, median project total / project total)``: no project weighs more than the median one, so one large
  or peculiar project (pygments' keyword tables, three.js' matrix code) cannot fill the list with its own
  names; and one project gives one entry at most :data:`ENTRY_SHARE` (2 %) of the median project's tokens, so
  a name that fills one project (networkx's graph ``G``, glm's qualifier ``Q``) counts as much as a name that
  is frequent there, not more. An entry must occur in at least :data:`MIN_PROJECTS` projects. Ties go to the
  larger raw count, then to the text.

Run ``python3 scripts/build_idioms.py`` (downloads to ``~/.cache/revmine/idioms-corpus``, never into the
repository); the outputs are the same byte for byte on each run.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import keyword
import os
import re
import statistics
import subprocess
import sys
import tarfile
import zipfile
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Iterator

from revmine.lang.languages import language_of, parser
from revmine.preprocess.treeabstraction import RULES

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "revmine" / "data" / "idioms"
CACHE = Path.home() / ".cache" / "revmine" / "idioms-corpus"
LANGUAGES = ("python", "javascript", "typescript", "go", "c", "cpp", "csharp", "php", "ruby")
ENTRIES = 300
MIN_PROJECTS = 3
#: no project gives one entry more than this share of the median project's tokens (module docstring, "Ranking")
ENTRY_SHARE = 0.02
MAX_PROJECT_BYTES = 3_000_000
MAX_FILE_BYTES = 500_000
#: the day the pins below were downloaded and checked (SOURCES.md states it; a constant keeps rebuilds identical)
CORPUS_DATE = "2026-11-26"
DEBIAN_SOURCES = "deb-src http://deb.debian.org/debian bookworm main\n"

_JS_RESERVED = ("await break case catch class const continue debugger default delete do else enum export extends "
                "false finally for function if import in instanceof new null return super switch this throw true try "
                "typeof var void while with yield implements interface let package private protected public static")
#: reserved words, never an entry even where a grammar reads one as a name (tree-sitter-cpp parses
#: ``static_cast<T>(x)`` as a call of a template function named ``static_cast``); contextual keywords (``get``,
#: ``value``, ``var``, Python's ``match``) are names and may be entries. Python: ``keyword.kwlist``; JavaScript and
#: TypeScript: ECMAScript 2024 12.7.2 with the strict-mode reserved words; Go: the specification's keywords;
#: C: C23 6.4.1; C++: C++23 [lex.key] with the alternative tokens; C#: the reserved keywords of the C# reference.
RESERVED: dict[str, frozenset[str]] = {
    "python": frozenset(keyword.kwlist),
    "javascript": frozenset(_JS_RESERVED.split()),
    "typescript": frozenset(_JS_RESERVED.split()),
    "go": frozenset("break case chan const continue default defer else fallthrough for func go goto if import "
                    "interface map package range return select struct switch type var".split()),
    "c": frozenset("alignas alignof auto bool break case char const constexpr continue default do double else enum "
                   "extern false float for goto if inline int long nullptr register restrict return short signed "
                   "sizeof static static_assert struct switch thread_local true typedef typeof typeof_unqual union "
                   "unsigned void volatile while _Alignas _Alignof _Atomic _BitInt _Bool _Complex _Decimal128 "
                   "_Decimal32 _Decimal64 _Generic _Imaginary _Noreturn _Static_assert _Thread_local".split()),
    "cpp": frozenset("alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t "
                     "char32_t class compl concept const consteval constexpr constinit const_cast continue co_await "
                     "co_return co_yield decltype default delete do double dynamic_cast else enum explicit export "
                     "extern false float for friend goto if inline int long mutable namespace new noexcept not "
                     "not_eq nullptr operator or or_eq private protected public register reinterpret_cast requires "
                     "return short signed sizeof static static_assert static_cast struct switch template this "
                     "thread_local throw true try typedef typeid typename union unsigned using virtual void volatile "
                     "wchar_t while xor xor_eq".split()),
    "csharp": frozenset("abstract as base bool break byte case catch char checked class const continue decimal "
                        "default delegate do double else enum event explicit extern false finally fixed float for "
                        "foreach goto if implicit in int interface internal is lock long namespace new null object "
                        "operator out override params private protected public readonly ref return sbyte sealed short "
                        "sizeof stackalloc static string struct switch this throw true try typeof uint ulong unchecked "
                        "unsafe ushort using virtual void volatile while".split()),
    # PHP manual, "List of Keywords" (names that PHP reserves, compile-time constants aside)
    "php": frozenset("abstract and array as break callable case catch class clone const continue declare default "
                     "die do echo else elseif empty enddeclare endfor endforeach endif endswitch endwhile enum eval "
                     "exit extends final finally fn for foreach function global goto if implements include "
                     "include_once instanceof insteadof interface isset list match namespace new or print private "
                     "protected public readonly require require_once return static switch throw trait try unset use "
                     "var while xor yield".split()),
    # Ruby's reserved words (doc/syntax/keywords.rdoc)
    "ruby": frozenset("__ENCODING__ __LINE__ __FILE__ BEGIN END alias and begin break case class def defined? do "
                      "else elsif end ensure false for if in module next nil not or redo rescue retry return self "
                      "super then true undef unless until when while yield".split()),
}


@dataclass(frozen=True)
class Archive:
    """One downloaded file of a registry, pinned by version and sha256."""

    registry: str  #: pypi (wheel), pypi-sdist, npm, go, debian (upstream tarball of a source package)
    package: str
    version: str
    file: str
    sha256: str


@dataclass(frozen=True)
class Project:
    """The files of one upstream project inside an archive."""

    language: str
    name: str
    archive: Archive
    licence: str
    include: tuple[str, ...] = ("",)  #: folders (paths relative to the archive's top folder) read
    exclude: tuple[str, ...] = ()  #: folders inside ``include`` left out


def _wheel(package: str, version: str, sha256: str) -> Archive:
    return Archive("pypi", package, version, f"{package}-{version}-py3-none-any.whl", sha256)


def _npm(package: str, version: str, sha256: str) -> Archive:
    return Archive("npm", package, version, f"{package.lstrip('@').replace('/', '-')}-{version}.tgz", sha256)


def _go(module: str, version: str, sha256: str) -> Archive:
    return Archive("go", module, version, f"{module}@{version}.zip", sha256)


def _deb(package: str, version: str, file: str, sha256: str) -> Archive:
    return Archive("debian", package, version, file, sha256)


_MONO = _deb("mono", "6.8.0.105+dfsg", "mono_6.8.0.105+dfsg.orig.tar.xz",
             "6cde75aefc19c55c4dcdae7f22a1f67bdc30f47e41079054bebafeaee3c4d900")

PROJECTS: tuple[Project, ...] = (
    # php and ruby: Debian bookworm's upstream tarballs (module docstring, "Corpus")
    # PHP: each project's sources are its src/ folder
    *(Project("php", name, _deb(package, version, file, sha256), licence, ("src/",))
      for name, package, version, file, sha256, licence in (
        ("composer", "composer", "2.5.5", "composer_2.5.5.orig.tar.xz",
         "9d24f477e5a3c1c2ab12c1cf734a0d66d4572740d9edad44e462c5dc60983bce", "MIT"),
        ("laravel-framework", "php-laravel-framework", "8.83.26+dfsg", "php-laravel-framework_8.83.26+dfsg.orig.tar.xz",
         "dae1be708d1aea10f38be5a73cf8e583218a6a849a98797ae147b4975c328c84", "MIT"),
        ("commonmark", "php-league-commonmark", "2.3.9", "php-league-commonmark_2.3.9.orig.tar.xz",
         "c47403767a27c7d14f036a0a8e758eab213958d2489160412043174dc453f9d3", "BSD-3-Clause"),
        ("monolog", "php-monolog", "2.9.1", "php-monolog_2.9.1.orig.tar.xz",
         "55d7d62eee001d4e68fe0d53841ede53bd583f4e0e3a172877d9a939f4b3c79e", "MIT"),
        ("fast-route", "php-nikic-fast-route", "1.3.0", "php-nikic-fast-route_1.3.0.orig.tar.gz",
         "daa85ac7a861b26989dd461854f37e3a696327bde7edd8e815f84cba3c8f1951", "BSD-3-Clause"),
        ("twig", "php-twig", "3.5.1", "php-twig_3.5.1.orig.tar.xz",
         "1c6b0b85a6076bc2a96e916121dbb473a650a521b4ff82036fb7806d78dfef03", "BSD-3-Clause"),
        ("phpunit", "phpunit", "9.6.7", "phpunit_9.6.7.orig.tar.xz",
         "2e94011459b6cae0bafe6ab667d8111083a927fec138cc397044cc7a03e568b7", "BSD-3-Clause"),
        ("symfony", "symfony", "5.4.53+dfsg", "symfony_5.4.53+dfsg.orig.tar.xz",
         "515820883adad6d72924de6414d2f51f8a4eea5d95d836075c89abd4ae6471f1", "MIT"),
    )),
    Project("ruby", "puma", _deb("puma", "5.6.5", "puma_5.6.5.orig.tar.gz",
        "8c056fddcf3acefb4547bff3533741cd8e8a1b08c3ff0a60a5ec68f208b4659b"), "BSD-3-Clause", ("lib/",)),
    Project("ruby", "rails", _deb("rails", "6.1.7.10+dfsg", "rails_6.1.7.10+dfsg.orig.tar.xz",
        "54f0c056757697e2fd6887e622c23fac5eb862a65ac497e9e3a5081a3dc57f66"), "MIT"),
    Project("ruby", "rubocop", _deb("rubocop", "1.39.0+dfsg", "rubocop_1.39.0+dfsg.orig.tar.xz",
        "ba0ddf790c6afb418a9de66d272d7205e5ae448c65afbc29fbee56c7eb76ec11"), "MIT", ("lib/",)),
    Project("ruby", "devise", _deb("ruby-devise", "4.8.1", "ruby-devise_4.8.1.orig.tar.gz",
        "85e44619f5cabf16a7716ac643d80e82e88b7dd287900abfafd348a117a3d8a8"), "MIT", ("lib/", "app/")),
    Project("ruby", "nokogiri", _deb("ruby-nokogiri", "1.13.10+dfsg", "ruby-nokogiri_1.13.10+dfsg.orig.tar.xz",
        "98e920d292f48904e63eca9fa8c42204f320cbfd82c080e31377cdcc22adddeb"), "MIT", ("lib/",)),
    # python: PyPI wheels (pure Python, so the wheel holds the sources as released)
    Project("python", "django", _wheel("django", "5.2.19",
        "5965d974a5218a2b68a11dd1276434707f23886525c23f0598eccedaf4f4ca00"), "BSD-3-Clause"),
    Project("python", "flask", _wheel("flask", "3.1.3",
        "f4bcbefc124291925f1a26446da31a5178f9483862233b23c0c96a20701f670c"), "BSD-3-Clause"),
    Project("python", "werkzeug", _wheel("werkzeug", "3.1.9",
        "6392e50c78460ba618e5b21f08a71f59c99ce99cdc6cf6e3dd7e6ccca8754fab"), "BSD-3-Clause"),
    Project("python", "jinja2", _wheel("jinja2", "3.1.6",
        "85ece4451f492d0c13c5dd7c13a64681a86afae63a5f347908daf103ce6d2f67"), "BSD-3-Clause"),
    Project("python", "click", _wheel("click", "8.5.1",
        "8bb5376d2006950386f8c6427613334a2acadc5f559cb80e638d00b4df957e37"), "BSD-3-Clause"),
    Project("python", "attrs", _wheel("attrs", "26.1.0",
        "c647aa4a12dfbad9333ca4e71fe62ddc36f4e63b2d260a37a8b83d2f043ac309"), "MIT"),
    Project("python", "rich", _wheel("rich", "15.0.0",
        "33bd4ef74232fb73fe9279a257718407f169c09b78a87ad3d296f548e27de0bb"), "MIT"),
    Project("python", "httpx", _wheel("httpx", "0.28.1",
        "d909fcccc110f8c7faf814ca82a9a4d816bc5a6dbfea25d6591d6985b8ba59ad"), "BSD-3-Clause"),
    Project("python", "urllib3", _wheel("urllib3", "2.8.0",
        "0cf3cae568d36aa9576b28dfb35f11328f1cb974ca7647d9475ebb86c75ac6e3"), "MIT"),
    Project("python", "pydantic", _wheel("pydantic", "2.14.4",
        "653a2ad9f6d8858529c77c72717d0ea991d6c6837fe683246b2f4b2bbfc3fadc"), "MIT"),
    Project("python", "networkx", _wheel("networkx", "3.6.1",
        "d47fbf302e7d9cbbb9e2555a0d267983d2aa476bac30e90dfbe5669bd57f3762"), "BSD-3-Clause"),
    Project("python", "pygments", _wheel("pygments", "2.21.0",
        "2363c69b61c4a97c838da3b130dcd6468f4848992b21a82f2a63ec34377137d9"), "BSD-2-Clause"),
    Project("python", "celery", _wheel("celery", "5.7.0",
        "18310a9c919f9029e4735367484d93e6a25cdfd30afdc474622cc263d9b35f6e"), "BSD-3-Clause"),
    Project("python", "scrapy", _wheel("scrapy", "2.19.0",
        "44c1ad4b008f1976e946c75b2adce0e448cbfe470c584b1b59469abf270e8013"), "BSD-3-Clause"),
    Project("python", "docutils", _wheel("docutils", "0.23",
        "25d013af9bf23bc1c7b2b093dff4208166c53a94786c9e447808335ef1185fea"), "BSD-2-Clause and public domain"),
    Project("python", "markdown", _wheel("markdown", "3.11.3",
        "e1a31a112232504d753e5c01bb8c2de90d3f0ba986b063e10770cf7695b09e73"), "BSD-3-Clause"),
    # javascript: npm tarballs, the hand-written source folders only (no dist/ or min/ bundles)
    Project("javascript", "eslint", _npm("eslint", "10.15.0",
        "8cb5e45fb5b1174e4216d546b69d37c0ac5cb5d9ba8342946a04af1f59605edb"), "MIT", ("lib/",)),
    Project("javascript", "webpack", _npm("webpack", "5.112.2",
        "fb618a5eba0f16fa43ed720cc4634df4e88c65d594c0e0ad2c5c0c9be4057dfe"), "MIT", ("lib/",)),
    Project("javascript", "mocha", _npm("mocha", "12.0.3",
        "3a93ba09b4b5f591a947ef5226ca9ae76220b124fe610dbcd5b76eb320512919"), "MIT", ("lib/",)),
    Project("javascript", "commander", _npm("commander", "15.1.0",
        "308f16a324f6d0c889c1a388858868d84e1b4eb4e2bf856caa001f01c1c55bdf"), "MIT", ("lib/",)),
    Project("javascript", "koa", _npm("koa", "3.3.0",
        "2b1cae002c5c8a066b9c77ac9bf197e2369ba8501fb76b75c9f21d474ef02cf4"), "MIT", ("lib/",)),
    Project("javascript", "semver", _npm("semver", "7.8.6",
        "c6584c324e8b1e5d0403c6c16ee2b25dd61567c13f0449a58820350c21cd71bf"), "ISC"),
    Project("javascript", "ws", _npm("ws", "8.23.0",
        "b8bd105a274ae9ca114f8c6ce4d9dbb0c764fe5118ba633c557e1703e297c587"), "MIT", ("lib/",)),
    Project("javascript", "uglify-js", _npm("uglify-js", "3.19.3",
        "744d9f31fe424514dd44728daa3e562a703fca53b6627ddeb655f77c2aa88ab4"), "BSD-2-Clause", ("lib/",)),
    Project("javascript", "moment", _npm("moment", "2.31.0",
        "efddf549c13aa7cf270f573d9c464978ab0810c0652673ae6af1189bb56ab3f8"), "MIT", ("src/",)),
    Project("javascript", "jquery", _npm("jquery", "4.0.0",
        "7ac123e4992439dc6a966cb4444fceb7f4698db94904a1256df542d5deb80f59"), "MIT", ("src/",)),
    Project("javascript", "three", _npm("three", "0.187.0",
        "ff540832ded0cfe919764d24a3d88f3e2a05f23303f876423e4f893841e90728"), "MIT", ("src/",)),
    Project("javascript", "mongoose", _npm("mongoose", "9.12.1",
        "de332a61c69faea1f9775291a984a9391a985e0b452d51c55b6458796de7d04b"), "MIT", ("lib/",)),
    Project("javascript", "knex", _npm("knex", "3.3.0",
        "6f017ec9d4b8d665c739fa5ed20833bc96e61bc3903ea7ab6ad8498c926f1cc5"), "MIT", ("lib/",)),
    Project("javascript", "nodemon", _npm("nodemon", "3.1.14",
        "6f8851bd80d32526612f6dd6703b65603cef497944a7c081580ae49ce3a2f252"), "MIT", ("lib/",)),
    # typescript: npm packages that publish their src/*.ts
    Project("typescript", "effect", _npm("effect", "4.1.0",
        "41705a35c964192dfc742863f0e099727ccda7ff2bd67a06d09b093a336f2b0e"), "MIT", ("src/",)),
    Project("typescript", "immer", _npm("immer", "11.2.10",
        "f8184e2750790534d2faf01137b39133586ef2c14fa504ee82409568dbb0b32d"), "MIT", ("src/",)),
    Project("typescript", "mobx", _npm("mobx", "7.1.3",
        "bbd07665d8851ee01df2fd4e12db106c60fd878839610dd8b899548969625616"), "MIT", ("src/",)),
    Project("typescript", "redux-toolkit", _npm("@reduxjs/toolkit", "2.14.0",
        "1e5a0946e81e9c365141d18c7067221b48ba66c6858d0a6e23296a31b095f82b"), "MIT", ("src/",)),
    Project("typescript", "rxjs", _npm("rxjs", "7.8.2",
        "2312f8ffd9726ffd7bd53ea12c5f13663d09a3dc3326f448c70b88f5ef6fac82"), "Apache-2.0", ("src/",)),
    Project("typescript", "tanstack-query", _npm("@tanstack/query-core", "5.108.0",
        "295e04168c1afddc3c0c95a88751b4c3bb69ebe56aee81b523b41bb37daea815"), "MIT", ("src/",)),
    Project("typescript", "tanstack-router", _npm("@tanstack/router-core", "1.171.39",
        "0c9345f2830bda69901d464a293d101f10635d3c935f7f1e310681b71bd2e962"), "MIT", ("src/",)),
    Project("typescript", "trpc", _npm("@trpc/server", "11.25.2",
        "43d5562bf3d3ca2ba55bb37a91020c19d90ddaa3359a1eb55e5fefc62c6cb29a"), "MIT", ("src/",)),
    Project("typescript", "zod", _npm("zod", "4.6.7",
        "84efd155bed93270286e793fc951be270b536cbd5b0eeb111f0fa3967201d698"), "MIT", ("src/",)),
    Project("typescript", "noble-curves", _npm("@noble/curves", "2.4.0",
        "55279c71b0201d6c0e58d0206d15825359e02a3932f326ba7b7909ac2d334aa9"), "MIT", ("src/",)),
    Project("typescript", "prosemirror-model", _npm("prosemirror-model", "1.25.13",
        "d7cb62718cc012c2eeda679512d3f409220ab15a782fe8a61bd08c010e015a0f"), "MIT", ("src/",)),
    Project("typescript", "prosemirror-view", _npm("prosemirror-view", "1.42.9",
        "d92a5d70b1c9d20ffa582c710ba62f86a58cb8a7ec5c58b9abe402c8e9e5d403"), "MIT", ("src/",)),
    Project("typescript", "chevrotain", _npm("chevrotain", "11.2.0",
        "a04bf93d1e1512d79ac409970f91239b2ab85c9e0339a286db978c7c503495b3"), "Apache-2.0", ("src/",)),
    Project("typescript", "signalr", _npm("@microsoft/signalr", "10.0.11",
        "ae9efcfc7dccfc81b2f69edd4a0f879a8f0c51c0154c469561c4a5c201310b4c"), "MIT", ("src/",)),
    # go: module zips from the Go module proxy
    Project("go", "gin", _go("github.com/gin-gonic/gin", "v1.12.0",
        "ae8cf99332b133a0d527acbb68c0177a4290b781cb4089fc4893a261e45ab63e"), "MIT"),
    Project("go", "echo", _go("github.com/labstack/echo/v4", "v4.16.0",
        "01244f6c1e175fa1a9f1e2328594d4f1774d32eeb570ee3db1ad79d4f33a3620"), "MIT"),
    Project("go", "chi", _go("github.com/go-chi/chi/v5", "v5.5.0",
        "39f8416f36d5b177b0ce5d48cf21b3f460df9260feafab1fb8c1410fde0901dc"), "MIT"),
    Project("go", "logrus", _go("github.com/sirupsen/logrus", "v1.10.2",
        "73a40737da86682dd536ec2c87dff0f589eeeed81873362b08ed009818747b52"), "MIT"),
    Project("go", "zap", _go("go.uber.org/zap", "v1.28.0",
        "49d6287497537480c2e9330e3dee9c38ac793fbf9fd2257dbc4fa5697818919c"), "MIT"),
    Project("go", "viper", _go("github.com/spf13/viper", "v1.21.0",
        "4096e4ccdbb74027c49f0dfede6d67193053b0d1c1ecce57543cf3dacc7b249e"), "MIT"),
    Project("go", "prometheus-client", _go("github.com/prometheus/client_golang", "v1.25.0",
        "677986b15218e6e5f740fd0801a6024726e71bf909ca1a504417eae281df4519"), "Apache-2.0"),
    Project("go", "grpc-go", _go("google.golang.org/grpc", "v1.85.0",
        "bd1ce651075f55e5bad492f9e1ee7cc013f1b96770981556d2a9cb5ee2c31e1e"), "Apache-2.0"),
    Project("go", "gorm", _go("gorm.io/gorm", "v1.31.2",
        "864142573128f8ca660b3a9148749fccf94d1d18cd14ac8ad3fdcef9a6a4d290"), "MIT"),
    Project("go", "go-redis", _go("github.com/redis/go-redis/v9", "v9.23.0",
        "cf664fa3175005751b50bff2e50c799c9b12c2b2f11182b951f24a8986398ac0"), "BSD-2-Clause"),
    Project("go", "bbolt", _go("go.etcd.io/bbolt", "v1.5.0",
        "2c350ca36afba707b917529a8049b001c71915c99c152d5e2600ed4bac6fbc37"), "MIT"),
    Project("go", "toml", _go("github.com/BurntSushi/toml", "v1.6.0",
        "01f03d6c3f4bfee108bda3202407b54ac0c295b8302a1315512f12ac05011fd8"), "MIT"),
    Project("go", "x-crypto", _go("golang.org/x/crypto", "v0.59.0",
        "b5cff645013a39d6b3348dce3c53eb452de71309f9a6831c5b12b3f8d6caf1d2"), "BSD-3-Clause"),
    Project("go", "testify", _go("github.com/stretchr/testify", "v1.12.1",
        "6874ed1c4b0b7e9feb27989b16c179b36590020633436ae260cefc5f5565589f"), "MIT"),
    # c: upstream tarballs of Debian bookworm source packages
    Project("c", "zlib", _deb("zlib", "1.2.13.dfsg", "zlib_1.2.13.dfsg.orig.tar.bz2",
        "71feb7947e3c00ef125f83b79a4e529bde31171e5babe48b391f06758d1ab0a1"), "Zlib"),
    Project("c", "jansson", _deb("jansson", "2.14", "jansson_2.14.orig.tar.gz",
        "c739578bf6b764aa0752db9a2fdadcfe921c78f1228c7ec0bb47fa804c55d17b"), "MIT"),
    Project("c", "libyaml", _deb("libyaml", "0.2.5", "libyaml_0.2.5.orig.tar.gz",
        "fa240dbf262be053f3898006d502d514936c818e422afdcf33921c63bed9bf2e"), "MIT"),
    Project("c", "libevent", _deb("libevent", "2.1.12-stable", "libevent_2.1.12-stable.orig.tar.gz",
        "92e6de1be9ec176428fd2367677e61ceffc2ee1cb119035037a27d346b0403bb"), "BSD-3-Clause"),
    Project("c", "lz4", _deb("lz4", "1.9.4", "lz4_1.9.4.orig.tar.gz",
        "0b0e3aa07c8c063ddf40b082bdf7e37a1562bda40a0ff5272957f3e987e0e54b"), "BSD-2-Clause (lib/)",
        ("lib/",)),
    Project("c", "zstd", _deb("libzstd", "1.5.4+dfsg2", "libzstd_1.5.4+dfsg2.orig.tar.xz",
        "8cf4bbb65e77ec348d052c8d6230eba66d435bddf64c8b5be2fcb16880c19953"), "BSD-3-Clause", ("lib/", "programs/")),
    Project("c", "bzip2", _deb("bzip2", "1.0.8", "bzip2_1.0.8.orig.tar.gz",
        "ab5a03176ee106d3f0fa90e381da478ddae405918153cca248e682cd0c4a2269"), "bzip2 (BSD-like)"),
    Project("c", "pcre2", _deb("pcre2", "10.42", "pcre2_10.42.orig.tar.gz",
        "c33b418e3b936ee3153de2c61cc638e7e4fe3156022a5c77d0711bcbb9d64f1f"), "BSD-3-Clause", ("src/",)),
    Project("c", "tmux", _deb("tmux", "3.3a", "tmux_3.3a.orig.tar.gz",
        "e4fd347843bd0772c4f48d6dde625b0b109b7a380ff15db21e97c11a4dcdf93f"), "ISC"),
    Project("c", "json-c", _deb("json-c", "0.16", "json-c_0.16.orig.tar.gz",
        "3ecaeedffd99a60b1262819f9e60d7d983844073abc74e495cb822b251904185"), "MIT"),
    Project("c", "mbedtls", _deb("mbedtls", "2.28.3", "mbedtls_2.28.3.orig.tar.gz",
        "3b4953aa55a681e084d31892d9904cc5328d6b4958ea57b90ae4b4f94ae69a8d"), "Apache-2.0", ("library/", "include/")),
    # cpp
    Project("cpp", "fmt", _deb("fmtlib", "9.1.0+ds1", "fmtlib_9.1.0+ds1.orig.tar.gz",
        "84ce1c2d0be3a9863935137969dcec6970125caac032f82474640bfc81463583"), "MIT", ("include/", "src/")),
    Project("cpp", "spdlog", _deb("spdlog", "1.10.0+ds", "spdlog_1.10.0+ds.orig.tar.xz",
        "620ca6842b5c21014470bd42eb4716024674214fb973b5ffa3aaea33310ad327"), "MIT", ("include/", "src/")),
    Project("cpp", "re2", _deb("re2", "20220601+dfsg", "re2_20220601+dfsg.orig.tar.xz",
        "3bc61251da3b0b97be40a8a127818c517c62516e4eda11fc901d29496663df54"), "BSD-3-Clause", ("re2/", "util/")),
    Project("cpp", "yaml-cpp", _deb("yaml-cpp", "0.7.0+dfsg", "yaml-cpp_0.7.0+dfsg.orig.tar.xz",
        "dc63708605404e0b963e0ca3a9619d1c8270eda2839603e6fa0384e5e51e5312"), "MIT", ("include/", "src/")),
    Project("cpp", "pugixml", _deb("pugixml", "1.13", "pugixml_1.13.orig.tar.gz",
        "5c5ad5d7caeb791420408042a7d88c2c6180781bf218feca259fd9d840a888e1"), "MIT", ("src/",)),
    Project("cpp", "tinyxml2", _deb("tinyxml2", "9.0.0+dfsg", "tinyxml2_9.0.0+dfsg.orig.tar.xz",
        "96510f47a5db537f70dff3e83dd71fd2180cbba4aa76c589a549467e7f34bc9b"), "Zlib"),
    Project("cpp", "snappy", _deb("snappy", "1.1.9", "snappy_1.1.9.orig.tar.gz",
        "75c1fbb3d618dd3a0483bff0e26d0a92b495bbe5059c8b4f1c962b478b6e06e7"), "BSD-3-Clause"),
    Project("cpp", "flatbuffers", _deb("flatbuffers", "2.0.8+dfsg1", "flatbuffers_2.0.8+dfsg1.orig.tar.xz",
        "424b8c76568e718a1a05c3fbc6b2070c83b5e55d9b48568fa4f744e9bcd1163a"), "Apache-2.0", ("include/", "src/")),
    Project("cpp", "catch2", _deb("catch2", "2.13.10", "catch2_2.13.10.orig.tar.gz",
        "2f4fe284449cf17394350e027ae21958973a61b9161197d416e2dfca16167686"), "BSL-1.0", ("include/",)),
    Project("cpp", "box2d", _deb("box2d", "2.4.1", "box2d_2.4.1.orig.tar.gz",
        "d6b4650ff897ee1ead27cf77a5933ea197cbeef6705638dd181adc2e816b23c2"), "MIT", ("include/", "src/")),
    Project("cpp", "glm", _deb("glm", "0.9.9.8+ds", "glm_0.9.9.8+ds.orig.tar.xz",
        "0e678af38374a9d49dbd19f206bbc31564ddcd91449fe48ea8967a51ab3ccd69"), "MIT", ("glm/",)),
    Project("cpp", "nlohmann-json", _deb("nlohmann-json3", "3.11.2", "nlohmann-json3_3.11.2.orig.tar.gz",
        "d69f9deb6a75e2580465c6c4c5111b89c4dc2fa94e3a85fcd2ffcd9a143d9273"), "MIT", ("include/",)),
    Project("cpp", "googletest", _deb("googletest", "1.12.1", "googletest_1.12.1.orig.tar.gz",
        "81964fe578e9bd7c94dfdb09c8e4d6e6759e19967e397dbea48d1c10e45d0df2"), "BSD-3-Clause",
        ("googletest/include/", "googletest/src/", "googlemock/include/", "googlemock/src/")),
    # csharp: Debian's upstream tarballs (mono's carries several projects), pythonnet's sdist, edge-js on npm
    Project("csharp", "mono-class-libraries", _MONO, "MIT", ("mcs/class/",), ("mcs/class/referencesource/",)),
    Project("csharp", "dotnet-referencesource", _MONO, "MIT", ("mcs/class/referencesource/",)),
    Project("csharp", "corefx", _MONO, "MIT", ("external/corefx/src/",)),
    Project("csharp", "aspnetwebstack", _MONO, "Apache-2.0", ("external/aspnetwebstack/src/",)),
    Project("csharp", "reactive-extensions", _MONO, "Apache-2.0", ("external/rx/Rx/",)),
    Project("csharp", "nunit", _deb("nunit", "2.6.4+dfsg", "nunit_2.6.4+dfsg.orig.tar.bz2",
        "daebaa04b4a4ccd2ecf120e8d6f315ef51092d06a6aa42223a12fc2cee3dd361"), "NUnit licence (zlib-like)", ("src/",)),
    Project("csharp", "opentk", _deb("opentk", "1.1.4c+dfsg", "opentk_1.1.4c+dfsg.orig.tar.gz",
        "7ad120129d0d6bc2760b638a9a49ee96f93238eb01f1a68b80aa6df715dd6201"), "MIT (Open Toolkit licence)",
        ("Source/",)),
    Project("csharp", "dnlib", _deb("dnlib", "2.1", "dnlib_2.1.orig.tar.gz",
        "eb2d35a27a68ca37568659615d93cf2a544527d0ba7428a7e2852b7592362556"), "MIT"),
    Project("csharp", "hyena", _deb("hyena", "0.5", "hyena_0.5.orig.tar.gz",
        "3b9ba5f412e06f3183fdaca29c47bded55ea1af8b230ad9475a981c994ed81aa"), "MIT"),
    Project("csharp", "dbus-sharp", _deb("dbus-sharp", "0.8.1", "dbus-sharp_0.8.1.orig.tar.gz",
        "0866c001f2d6e01a6f1b4d080db08d25ba1422e34c7d03020e0e70f3de3a9859"), "MIT"),
    Project("csharp", "repetier-host", _deb("repetier-host", "0.85+dfsg", "repetier-host_0.85+dfsg.orig.tar.xz",
        "66f45961636a264dea77b66ac23a32a1d0bbadf6cf6ce82329d601b13a0c1256"), "Apache-2.0"),
    Project("csharp", "pythonnet", Archive("pypi-sdist", "pythonnet", "3.2.1", "pythonnet-3.2.1.tar.gz",
        "c86e8dd31268f6e0c48fcc4d6030041316d49ed2764a1cb6ea8c37876e07c572"), "MIT", ("src/",)),
    Project("csharp", "edge-js", _npm("edge-js", "26.1.0",
        "411bafe66d7a067e2d695b1f10d764f4717e3f0fff7d80b8c5b587b3abb60688"), "MIT", ("src/",)),
)

# -- which files count ------------------------------------------------------------------------------------

#: folders that hold tests, vendored or third-party code, examples, documentation or build output
_SKIP_DIR = re.compile(r"(?:^|[._-]|unit|integration)(?:tests?|testing|testdata|testutils?|specs?|__tests__|__mocks__"
                       r"|mocks?|fixtures?|benchmarks?|bench|examples?|samples?|demos?|docs?|vendor(?:ed)?"
                       r"|third[_-]?party|external|extern|contrib|node_modules|dist|build|min|single_include"
                       r"|bundled|generated)$", re.I)
#: test, generated, minified and declaration files by name
_SKIP_FILE = re.compile(r"^test_.*\.py$|^conftest\.py$|_test\.\w+$|\.(?:test|spec)\.[cm]?[jt]s$|\.min\.js$"
                        r"|\.d\.[cm]?ts$|\.tsx$|Tests?\.cs$|\.Designer\.cs$|\.g\.(?:i\.)?cs$|AssemblyInfo\.cs$"
                        r"|\.pb(?:\.gw)?\.go$|_pb2(?:_grpc)?\.py$|\.pb\.(?:cc|h)$|_generated\.h$", re.I)
_GENERATED = re.compile(r"code generated|do not edit|do not modify|auto-?generated|automatically generated"
                        r"|generated by", re.I)


def keep_file(path: str, text: str, language: str) -> bool:
    """Whether a file of a project is hand-written source of ``language`` (module docstring, "Files")."""
    pure = PurePosixPath(path)
    if any(_SKIP_DIR.search(part) for part in pure.parts[:-1]) or _SKIP_FILE.search(pure.name):
        return False
    if language_of(path, text) != language:
        return False
    return not _GENERATED.search(text[:1000])


# -- counting -------------------------------------------------------------------------------------------


def count_leaves(source: str | bytes, language: str) -> Counter[str]:
    """The name and literal leaves of one file that the abstraction would turn into ids, by source text."""
    data = source.encode("utf-8") if isinstance(source, str) else source
    return _count_tree(parser(language).parse(data), data, language)


def _count_tree(tree, data: bytes, language: str) -> Counter[str]:
    rules = RULES[language]
    names, literals, reserved = rules.names, rules.literals, RESERVED[language]
    counts: Counter[str] = Counter()
    cursor = tree.walk()
    while True:
        node = cursor.node
        kind = node.type
        descend = True
        if node.is_named and (kind in literals or (kind in names and node.child_count == 0)):
            descend = False
            if node.end_byte > node.start_byte:
                text = data[node.start_byte:node.end_byte].decode("utf-8", "replace")
                if (kind in names and text not in reserved) or (kind in literals and " ".join(text.split()) == text):
                    counts[text] += 1
        elif kind.endswith("comment"):
            descend = False
        if descend and cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return counts


def rank(per_project: dict[str, Counter[str]], entries: int = ENTRIES, min_projects: int = MIN_PROJECTS,
         entry_share: float = ENTRY_SHARE) -> list[str]:
    """The ``entries`` most frequent texts over the projects, each project weighing at most the median one and
    giving one text at most ``entry_share`` of the median project's tokens (module docstring, "Ranking")."""
    totals = {name: sum(counts.values()) for name, counts in per_project.items()}
    median = statistics.median(totals.values())
    cap = entry_share * median
    score: Counter[str] = Counter()
    raw: Counter[str] = Counter()
    spread: Counter[str] = Counter()
    for name, counts in per_project.items():
        weight = min(1.0, median / totals[name]) if totals[name] else 0.0
        for text, count in counts.items():
            score[text] += min(count * weight, cap)
            raw[text] += count
            spread[text] += 1
    ranked = sorted((text for text in score if spread[text] >= min_projects),
                    key=lambda text: (-score[text], -raw[text], text))
    return ranked[:entries]


# -- downloads ------------------------------------------------------------------------------------------


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _apt_options(folder: Path) -> list[str]:
    """apt settings that read Debian's source index into the cache, leaving the system's apt alone."""
    lists = folder / "lists"
    (lists / "partial").mkdir(parents=True, exist_ok=True)
    (folder / "archives" / "partial").mkdir(parents=True, exist_ok=True)
    sources = folder / "sources.list"
    sources.write_text(DEBIAN_SOURCES)
    settings = {"Dir::Etc::SourceList": sources, "Dir::Etc::SourceParts": folder / "no-parts",
                "Dir::State::Lists": lists, "Dir::Cache": folder, "Debug::NoLocking": 1, "APT::Sandbox::User": "root"}
    return [part for key, value in settings.items() for part in ("-o", f"{key}={value}")]


def fetch(archive: Archive, cache: Path) -> Path:
    """The archive in the cache, downloaded with its registry's own client if missing, checked by sha256."""
    folder = cache / archive.registry
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / archive.file.replace("/", "!")
    if not path.exists():
        if archive.registry == "pypi":
            _run(["pip", "download", "--no-deps", "--only-binary", ":all:", "-d", str(folder),
                  f"{archive.package}=={archive.version}"])
        elif archive.registry == "pypi-sdist":
            _run(["pip", "download", "--no-deps", "--no-binary", ":all:", "-d", str(folder),
                  f"{archive.package}=={archive.version}"])
        elif archive.registry == "npm":
            _run(["npm", "pack", "--silent", "--pack-destination", str(folder), f"{archive.package}@{archive.version}"])
        elif archive.registry == "go":
            env = {**os.environ, "GOMODCACHE": str(folder / "modcache"), "GOFLAGS": "-modcacherw"}
            out = _run(["go", "mod", "download", "-json", f"{archive.package}@{archive.version}"], env=env)
            path.write_bytes(Path(json.loads(out)["Zip"]).read_bytes())
        else:
            options = _apt_options(folder)
            _run(["apt-get", *options, "-q", "update"])
            _run(["apt-get", *options, "-q", "source", "--download-only", archive.package], cwd=folder)
        if not path.exists():
            sys.exit(f"build_idioms: {archive.package} {archive.version}: the registry gave no {archive.file}")
    digest = _sha256(path)
    if digest != archive.sha256:
        sys.exit(f"build_idioms: {path}: sha256 {digest}, pinned {archive.sha256}")
    return path


#: A registry client that neither answers nor fails (a stalled mirror) is stopped after this long.
_CLIENT_TIMEOUT = 1800


def _run(command: list[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    try:
        done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=_CLIENT_TIMEOUT)
    except subprocess.TimeoutExpired:
        sys.exit(f"build_idioms: {' '.join(command)} did not end within {_CLIENT_TIMEOUT} s")
    if done.returncode:
        sys.exit(f"build_idioms: {' '.join(command)} failed:\n{done.stderr.strip()}")
    return done.stdout


def _members(path: Path, strip_top: bool) -> Iterator[tuple[str, bytes]]:
    """(path inside the project, content) of each regular file of a wheel, zip or tarball."""
    if path.suffix in (".whl", ".zip"):
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                if info.is_dir() or info.file_size > MAX_FILE_BYTES or (strip_top and "/" not in info.filename):
                    continue
                yield (info.filename.split("/", 1)[1] if strip_top else info.filename), archive.read(info)
        return
    with tarfile.open(path, mode="r|*") as archive:
        for info in archive:
            if info.isfile() and info.size <= MAX_FILE_BYTES and "/" in info.name:
                yield info.name.split("/", 1)[1], archive.extractfile(info).read()


@dataclass
class ProjectCount:
    """What one project gave: its counts and the numbers SOURCES.md reports."""

    counts: Counter[str]
    files: int
    size: int
    candidates: int
    errors: int


def count_archive(path: Path, strip_top: bool, projects: list[Project]) -> list[ProjectCount]:
    """Count the projects read from one archive (one pass over it, even for mono's five projects)."""
    chosen: dict[int, list[tuple[str, bytes]]] = {index: [] for index in range(len(projects))}
    for name, content in _members(path, strip_top):
        for index, project in enumerate(projects):
            inside = next((name[len(prefix):] for prefix in project.include if name.startswith(prefix)), None)
            if inside is None or any(name.startswith(prefix) for prefix in project.exclude):
                continue
            text = content.decode("utf-8", "replace")
            if keep_file(inside, text, project.language):
                chosen[index].append((name, content))
    results = []
    for index, project in enumerate(projects):
        files = sorted(chosen[index], key=lambda item: hashlib.sha256(item[0].encode()).hexdigest())
        counts: Counter[str] = Counter()
        size = read = errors = 0
        for name, content in files:
            if size + len(content) > MAX_PROJECT_BYTES:
                continue
            size += len(content)
            read += 1
            tree = parser(project.language).parse(content)
            counts.update(_count_tree(tree, content, project.language))
            errors += tree.root_node.has_error
        results.append(ProjectCount(counts, read, size, len(files), errors))
    return results


# -- outputs --------------------------------------------------------------------------------------------


def _sources_md(results: dict[Project, ProjectCount], lists: dict[str, list[str]], kept: dict[str, str]) -> str:
    """SOURCES.md: the method, then a section per language, counted now or ``kept`` (language -> its section as
    the file had it, for a run of ``--languages``)."""
    lines = [
        "# Idiom lists of nine languages: corpus and method",
        "",
        "`<language>.txt` holds the 300 most frequent identifiers and literals of that language (one a line, most",
        "frequent first, each exactly as it appears in source), counted from the pinned releases below by",
        "`scripts/build_idioms.py` (its module docstring gives every decision). Corpus pinned and counted on",
        f"{CORPUS_DATE}. Rebuild, byte for byte (downloads go to `~/.cache/revmine/idioms-corpus`):",
        "",
        "    python3 scripts/build_idioms.py",
        "",
        "How counted: each kept file is parsed with tree-sitter (`revmine.lang.languages.parser`); the leaves",
        "counted are those the abstraction (`revmine.preprocess.treeabstraction.RULES`) turns into ids: its name",
        "leaf types and its literal node types (a string with its quotes, f-strings and template strings whole;",
        "numbers; characters), never keywords, punctuation or comments. Tests, vendored code, examples, docs,",
        "build output, generated files (header markers), `.d.ts`, `.tsx` and files over 500 kB are left out; at",
        f"most {MAX_PROJECT_BYTES:,} bytes of a project are read (files in sha256-of-path order).",
        "",
        "Weight cap: a project's counts are scaled by min(1, median project total / its total), so no project",
        "weighs more than the median one and one large or peculiar project cannot fill a list with its own",
        f"names; and one project gives one entry at most {ENTRY_SHARE:.0%} of the median project's tokens, so",
        "a name that fills one project (networkx's `G`, glm's `Q`) counts no more than a name frequent there.",
        f"An entry must occur in at least {MIN_PROJECTS} projects. Ties: larger raw count, then text. Reserved",
        "words are never entries (a grammar sometimes reads one as a name: tree-sitter-cpp's `static_cast`).",
        "",
        "The projects of `shared/fixtures/code_revisions` (requests, cobra, leveldb, sds, jq, express, ky,",
        "Newtonsoft.Json) and of `tests/data/php_ruby_revisions` (guzzle/psr7, rack) are left out. Debian archives",
        "are the upstream (`.orig`) tarballs of bookworm source packages, fetched with `apt-get source`. PHP and",
        "Ruby have fewer projects (8 and 5): Packagist and RubyGems are not reachable here, and these are the",
        "bookworm packages whose upstream tarball Debian's mirror served. Each sha256 is the tarball's.",
        "",
        "Each project keeps its own licence; the lists are counts of tokens, not copies of the code.",
    ]
    for language in LANGUAGES:
        if language in kept:
            lines += ["", kept[language]]
            continue
        rows = [(project, count) for project, count in results.items() if project.language == language]
        files = sum(count.files for _, count in rows)
        size = sum(count.size for _, count in rows)
        tokens = sum(sum(count.counts.values()) for _, count in rows)
        errors = sum(count.errors for _, count in rows)
        lines += ["", f"## {language}", "",
                  f"{len(rows)} projects, {files:,} files, {size:,} bytes, {tokens:,} tokens counted; "
                  f"{errors:,} files ({errors / files:.1%}) have a tree-sitter ERROR node (their leaves still count). "
                  f"First entries: {', '.join('`' + entry + '`' for entry in lists[language][:12])}.",
                  "", "| project | registry | package | version | file | sha256 | licence | folders | files read "
                  "(of kept) | bytes | tokens |", "|---|---|---|---|---|---|---|---|---|---|---|"]
        for project, count in rows:
            archive = project.archive
            folders = ", ".join(f"`{prefix or './'}`" for prefix in project.include)
            if project.exclude:
                folders += " minus " + ", ".join(f"`{prefix}`" for prefix in project.exclude)
            lines.append(f"| {project.name} | {archive.registry} | {archive.package} | {archive.version} | "
                         f"{archive.file} | `{archive.sha256}` | {project.licence} | {folders} | "
                         f"{count.files} ({count.candidates}) | {count.size:,} | {sum(count.counts.values()):,} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    options.add_argument("--cache", type=Path, default=CACHE, help="download folder (outside the repository)")
    options.add_argument("--out", type=Path, default=OUT, help="where the lists and SOURCES.md go")
    options.add_argument("--jobs", type=int, default=2, help="processes that count")
    options.add_argument("--languages", nargs="+", choices=LANGUAGES, default=LANGUAGES,
                         help="count these only; the other lists and their SOURCES.md sections stay as they are")
    args = options.parse_args(argv)
    projects = [project for project in PROJECTS if project.language in args.languages]
    groups: dict[Archive, list[Project]] = {}
    for project in projects:
        groups.setdefault(project.archive, []).append(project)
    paths = {archive: fetch(archive, args.cache) for archive in groups}
    results: dict[Project, ProjectCount] = {}
    with ProcessPoolExecutor(args.jobs) as pool:
        futures = {archive: pool.submit(count_archive, paths[archive], archive.registry != "pypi", projects)
                   for archive, projects in groups.items()}
        counted = {archive: future.result() for archive, future in futures.items()}
    for project in projects:
        results[project] = counted[project.archive][groups[project.archive].index(project)]
    args.out.mkdir(parents=True, exist_ok=True)
    lists = {}
    for language in args.languages:
        per_project = {project.name: count.counts for project, count in results.items()
                       if project.language == language}
        lists[language] = rank(per_project)
        (args.out / f"{language}.txt").write_text("\n".join(lists[language]) + "\n", encoding="utf-8")
    sources = args.out / "SOURCES.md"
    kept = {}
    if sources.exists():  # the sections of the languages not counted now, as they are
        for section in sources.read_text(encoding="utf-8").rstrip("\n").split("\n\n## ")[1:]:
            language = section.split("\n", 1)[0]
            if language in LANGUAGES and language not in args.languages:
                kept[language] = "## " + section
    sources.write_text(_sources_md(results, lists, kept), encoding="utf-8")


if __name__ == "__main__":
    main()
