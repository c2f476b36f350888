"""src2abs-style abstraction of seven languages over tree-sitter: exact inverse on real code, roles, marking.

Expected abstractions below were written by hand from the rules in the module docstring of
:mod:`revmine.preprocess.treeabstraction`, not copied from its output. The token lines are checked against
independent tokenizers on every function of the fixture: Python against the standard ``tokenize`` read the way
TransCoder reads it (its ``tokenize_python``: NEW_LINE/INDENT/DEDENT, comments and docstrings removed), the
other languages against Pygments' lexers (same characters outside comments and whitespace).
"""

from __future__ import annotations

import io
import json
import textwrap
import tokenize
from pathlib import Path

import lizard
import pytest
from pygments.lexers import get_lexer_by_name
from pygments.token import Comment

from revmine.errors import InputError
from revmine.preprocess import treeabstraction
from revmine.preprocess.abstraction import unabstract
from revmine.preprocess.treeabstraction import abstract_code, abstract_code_pair, raw_tokens

REVISIONS = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "code_revisions" / "revisions.jsonl"
LANGUAGES = ("python", "javascript", "typescript", "go", "c", "cpp", "csharp")
#: small hand-made idiom lists (the shipped ones are built elsewhere): names, a literal, one with two spaces
IDIOMS = {
    "python": {"self", "len", "None", "0", "1", '""', "'  '"},
    "javascript": {"length", "push", "0", "1", "''", '"  "'},
    "typescript": {"length", "push", "0", "1", "''", '"  "'},
    "go": {"err", "len", "fmt", "0", "1", '""', '"  "'},
    "c": {"NULL", "sizeof", "0", "1", '""', '"  "'},
    "cpp": {"std", "size", "0", "1", '""', '"  "'},
    "csharp": {"String", "Length", "0", "1", '""', '"  "'},
}


# -- the fixture: every function of every row, both sides --------------------------------------------------


def _functions(path: str, code: str) -> dict[str, list[str]]:
    """Each function lizard finds, by name, as the text of its line range."""
    lines = code.splitlines(keepends=True)
    found: dict[str, list[str]] = {}
    for function in lizard.analyze_file.analyze_source_code(path, code).function_list:
        found.setdefault(function.name, []).append("".join(lines[function.start_line - 1:function.end_line]))
    return found


@pytest.fixture(scope="module")
def revisions() -> list[dict]:
    rows = [json.loads(line) for line in REVISIONS.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 210 and {row["language"] for row in rows} == set(LANGUAGES)
    for row in rows:
        row["functions"] = {side: _functions(row["path"], row[side]) for side in ("before", "after")}
    return rows


def _every_function(revisions):
    for row in revisions:
        for side in ("before", "after"):
            for bodies in row["functions"][side].values():
                for body in bodies:
                    yield row["language"], body


def test_the_inverse_is_exact_on_every_function(revisions):
    counts = dict.fromkeys(LANGUAGES, 0)
    for language, body in _every_function(revisions):
        result = abstract_code(body, language, IDIOMS[language])
        assert unabstract(result.code, result) == raw_tokens(body, language), (language, body[:200])
        counts[language] += 1
    # lizard's count of functions in the fixture, both sides
    assert counts == {"python": 1060, "javascript": 1679, "typescript": 587, "go": 964, "c": 1448, "cpp": 1918,
                      "csharp": 1190}


_LAYOUT = {tokenize.NEWLINE: "NEW_LINE", tokenize.INDENT: "INDENT", tokenize.DEDENT: "DEDENT"}


def _transcoder_python(code: str) -> str:
    """TransCoder's ``tokenize_python`` (keep_comments=False) on the dedented function: layout tokens, no
    comments, no NL, a string alone on its line dropped with its NEWLINE, an emptied block's INDENT dropped."""
    items = [token for token in tokenize.generate_tokens(io.StringIO(textwrap.dedent(code)).readline)
             if token.type not in (tokenize.NL, tokenize.COMMENT, tokenize.ENDMARKER)]
    out: list[str] = []
    skip_newline = False
    for i, token in enumerate(items):
        if skip_newline and token.type == tokenize.NEWLINE:
            skip_newline = False
        elif (token.type == tokenize.STRING and (i == 0 or items[i - 1].type in _LAYOUT)
              and i + 1 < len(items) and items[i + 1].type == tokenize.NEWLINE):
            skip_newline = True
        elif token.type == tokenize.DEDENT and out and out[-1] == "INDENT":
            out.pop()
        else:
            out.append(_LAYOUT.get(token.type, token.string))
    return " ".join(out)


def _pygments_text(code: str, language: str) -> str:
    """The function's characters outside comments and whitespace, as Pygments lexes it (preprocessor lines,
    which Pygments calls Comment.Preproc, are code)."""
    lexer = get_lexer_by_name(language, stripnl=False, ensurenl=False)
    return "".join("".join(text.split()) for kind, text in lexer.get_tokens(code)
                   if kind not in Comment or kind in Comment.Preproc or kind in Comment.PreprocFile)


def test_tokens_agree_with_independent_tokenizers(revisions):
    checked = 0
    for language, body in _every_function(revisions):
        raw = raw_tokens(body, language)
        if language == "python":
            assert raw == _transcoder_python(body), body[:300]
        else:
            assert "".join(raw.split()) == _pygments_text(body, language), (language, body[:300])
        checked += 1
    assert checked == 8846


def test_pairs_share_one_map(revisions):
    pairs = 0
    for row in revisions:
        language, before, after = row["language"], row["functions"]["before"], row["functions"]["after"]
        for name in before.keys() & after.keys():
            if len(before[name]) != 1 or len(after[name]) != 1:
                continue  # overloads: no one-to-one match by name
            old, new = before[name][0], after[name][0]
            pair = abstract_code_pair(old, new, language, IDIOMS[language])
            assert unabstract(pair.before, pair) == raw_tokens(old, language)
            assert unabstract(pair.after, pair) == raw_tokens(new, language)
            assert pair.before == abstract_code(old, language, IDIOMS[language]).code  # before is numbered first
            pairs += 1
    assert pairs == 3907  # lizard: functions with one definition of their name on each side


# -- roles by hand, one function per language -----------------------------------------------------------

HAND = {
    "python": (
        'def area(self, shape: Shape) -> float:\n'
        '    """Doc."""\n'
        '    if shape.kind == "circle":  # c\n'
        '        return math.pi * radius(shape) ** 2\n'
        "    return Point(0.5, 'a').x\n",
        "def METHOD_1 ( self , VAR_1 : TYPE_1 ) -> TYPE_2 : NEW_LINE INDENT if VAR_1 . VAR_2 == STRING_1 : NEW_LINE "
        "INDENT return VAR_3 . VAR_4 * METHOD_2 ( VAR_1 ) ** INT_1 NEW_LINE DEDENT return TYPE_3 ( FLOAT_1 , "
        "STRING_2 ) . VAR_5 NEW_LINE DEDENT",
    ),
    "javascript": (
        "function total(items, Tax) {\n"
        "  const sum = items.reduce((a, b) => a + b.price, 0); // c\n"
        "  const fmt = (n) => `${n} EUR`;\n"
        "  return new Intl.NumberFormat('en').format(sum * 1.5e3) + fmt(0x1F) + /ab+/g.source;\n"
        "}\n",
        "function METHOD_1 ( VAR_1 , TYPE_1 ) { const VAR_2 = VAR_1 . METHOD_2 ( ( VAR_3 , VAR_4 ) => VAR_3 + "
        "VAR_4 . VAR_5 , INT_1 ) ; const METHOD_3 = ( VAR_6 ) => STRING_1 ; return new TYPE_2 . TYPE_3 ( STRING_2 "
        ") . METHOD_4 ( VAR_2 * FLOAT_1 ) + METHOD_3 ( INT_2 ) + STRING_3 . VAR_7 ; }",
    ),
    "typescript": (
        "export async function load<T extends Base>(url: string, opts?: Options): Promise<T[]> {\n"
        "\tconst res: Response = await fetch(url, {method: 'GET', retries: 3});\n"
        "\treturn (await res.json()) as T[];\n"
        "}\n",
        "export async function METHOD_1 < TYPE_1 extends TYPE_2 > ( VAR_1 : string , VAR_2 ? : TYPE_3 ) : TYPE_4 "
        "< TYPE_1 [ ] > { const VAR_3 : TYPE_5 = await METHOD_2 ( VAR_1 , { VAR_4 : STRING_1 , VAR_5 : INT_1 } ) ; "
        "return ( await VAR_3 . METHOD_3 ( ) ) as TYPE_1 [ ] ; }",
    ),
    "go": (
        "func (s *Server) Handle(w http.ResponseWriter, name string) error {\n"
        "\tcount := len(s.items) + 0x10 // c\n"
        "\tfmt.Fprintf(w, \"%d %c\", count, 'x')\n"
        "\treturn s.next.Serve(w, 2.5)\n"
        "}\n",
        "func ( VAR_1 * TYPE_1 ) METHOD_1 ( VAR_2 TYPE_2 . TYPE_3 , VAR_3 TYPE_4 ) TYPE_5 { VAR_4 := METHOD_2 ( "
        "VAR_1 . VAR_5 ) + INT_1 VAR_6 . METHOD_3 ( VAR_2 , STRING_1 , VAR_4 , CHAR_1 ) return VAR_1 . VAR_7 . "
        "METHOD_4 ( VAR_2 , FLOAT_1 ) }",
    ),
    "c": (
        "static size_t pad(struct buf *b, const char *s, size_t n) {\n"
        "    if (n > MAX_LEN) return b->len; /* c */\n"
        "    b->data[0] = 'x';\n"
        "    b->len = strlen(s) * 2.0f;\n"
        "    return (size_t)0x1fUL;\n"
        "}\n",
        "static size_t METHOD_1 ( struct TYPE_1 * VAR_1 , const char * VAR_2 , size_t VAR_3 ) { if ( VAR_3 > VAR_4 "
        ") return VAR_1 -> VAR_5 ; VAR_1 -> VAR_6 [ INT_1 ] = CHAR_1 ; VAR_1 -> VAR_5 = METHOD_2 ( VAR_2 ) * FLOAT_1 "
        "; return ( size_t ) INT_2 ; }",
    ),
    "cpp": (
        "std::string Db::Get(const Options& opts, int k) const {\n"
        "  auto it = cache_.find(k);\n"
        "  if (it != cache_.end()) return it->second;\n"
        "  return std::to_string(k * 1e-3) + u8\"x\" + 'c';\n"
        "}\n",
        "TYPE_1 :: TYPE_2 TYPE_3 :: METHOD_1 ( const TYPE_4 & VAR_1 , int VAR_2 ) const { auto VAR_3 = VAR_4 . "
        "METHOD_2 ( VAR_2 ) ; if ( VAR_3 != VAR_4 . METHOD_3 ( ) ) return VAR_3 -> VAR_5 ; return TYPE_1 :: "
        "METHOD_4 ( VAR_2 * FLOAT_1 ) + STRING_1 + CHAR_1 ; }",
    ),
    "csharp": (
        '[Obsolete("x")]\n'
        "public static List<T> Wrap<T>(T item, int count) where T : IItem\n"
        "{\n"
        "    var list = new List<T>(count);\n"
        "    list.Add(item); // c\n"
        "    Console.WriteLine($\"{count} items\", 1.5m, 'c', 10L);\n"
        "    return list;\n"
        "}\n",
        "[ TYPE_1 ( STRING_1 ) ] public static TYPE_2 < TYPE_3 > METHOD_1 < TYPE_3 > ( TYPE_3 VAR_1 , int VAR_2 ) "
        "where TYPE_3 : TYPE_4 { var VAR_3 = new TYPE_2 < TYPE_3 > ( VAR_2 ) ; VAR_3 . METHOD_2 ( VAR_1 ) ; VAR_4 . "
        "METHOD_3 ( STRING_2 , FLOAT_1 , CHAR_1 , INT_1 ) ; return VAR_3 ; }",
    ),
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_roles_by_hand(language):
    code, expected = HAND[language]
    idioms = {"self"} if language == "python" else set()
    result = abstract_code(code, language, idioms)
    assert result.code == expected
    assert unabstract(result.code, result) == raw_tokens(code, language)


def test_idioms_stay_and_literals_with_spaces_stay_exact():
    code = "def f(a):\n    return len(a) + 0 + x('  ') + y('   ')\n"
    result = abstract_code(code, "python", IDIOMS["python"])
    # "'  '" is an idiom but holds two spaces: splitting the line would lose one, so it gets an id
    assert result.code == ("def METHOD_1 ( VAR_1 ) : NEW_LINE INDENT return len ( VAR_1 ) + 0 + METHOD_2 ( "
                           "STRING_1 ) + METHOD_3 ( STRING_2 ) NEW_LINE DEDENT")
    assert result.ids["STRING_1"] == "'  '" and unabstract(result.code, result) == raw_tokens(code, "python")


def test_pair_numbering_continues_in_after():
    before = "int f(int a) { return g(a, 1); }"
    after = "int f(int a, int b) { return h(g(b), a, 1.0); }"
    pair = abstract_code_pair(before, after, "c", set())
    assert pair.before == "int METHOD_1 ( int VAR_1 ) { return METHOD_2 ( VAR_1 , INT_1 ) ; }"
    assert pair.after == ("int METHOD_1 ( int VAR_1 , int VAR_2 ) { return METHOD_3 ( METHOD_2 ( VAR_2 ) , VAR_1 , "
                          "FLOAT_1 ) ; }")
    assert pair.mapping == {"f": "METHOD_1", "a": "VAR_1", "g": "METHOD_2", "b": "VAR_2", "h": "METHOD_3",
                            "1": "INT_1", "1.0": "FLOAT_1"}


def test_default_idioms_are_the_languages(monkeypatch):
    asked = []
    monkeypatch.setattr(treeabstraction, "default_idioms", lambda language: asked.append(language) or {"a"})
    assert abstract_code("func f(a int) {}", "go").code == "func METHOD_1 ( a TYPE_1 ) { }"
    assert asked == ["go"]


def test_an_unknown_language_is_one_clear_error():
    with pytest.raises(InputError, match="'rust'"):
        abstract_code("fn f() {}", "rust")
    with pytest.raises(InputError, match="'java'"):
        abstract_code_pair("void f() {}", "void f() {}", "java")


def test_a_method_that_only_parses_in_its_class():
    code = "  async read(chunk) {\n    return this.#buffer.push(chunk);\n  }\n"
    # alone this is a call followed by a block; inside a class, a method definition
    assert abstract_code(code, "javascript", set()).code == (
        "async METHOD_1 ( VAR_1 ) { return this . VAR_2 . METHOD_2 ( VAR_1 ) ; }")


# -- marking: a character range, hand-worked per language ------------------------------------------------

MARKED = {
    # language: (code, the text of the range to mark (its first occurrence), expected marked abstraction)
    "python": ("def f(a):\n    b = a\n    if b:\n        return g(b)\n    return a\n", "    if b:\n",
               "def METHOD_1 ( VAR_1 ) : NEW_LINE INDENT VAR_2 = VAR_1 NEW_LINE <START> if VAR_2 : NEW_LINE <END> "
               "INDENT return METHOD_2 ( VAR_2 ) NEW_LINE DEDENT return VAR_1 NEW_LINE DEDENT"),
    "javascript": ("function f(a) {\n  let b = a.c;\n  return b;\n}\n", "a.c",
                   "function METHOD_1 ( VAR_1 ) { let VAR_2 = <START> VAR_1 . VAR_3 <END> ; return VAR_2 ; }"),
    "typescript": ("function f(a: A): void {\n  g(`x ${a}`);\n}\n", "x ${",
                   "function METHOD_1 ( VAR_1 : TYPE_1 ) : void { METHOD_2 ( <START> STRING_1 <END> ) ; }"),
    "go": ("func f(a int) int {\n\tb := a // note\n\treturn b\n}\n", "// note\n",
           "func METHOD_1 ( VAR_1 TYPE_1 ) TYPE_1 { VAR_2 := VAR_1 <START> <END> return VAR_2 }"),
    "c": ("int f(int a) {\n  int b = a;\n  return b;\n}\n", "int b = a;\n  return",
          "int METHOD_1 ( int VAR_1 ) { <START> int VAR_2 = VAR_1 ; return <END> VAR_2 ; }"),
    "cpp": ("void f() {\n  std::vector<int> v;\n}\n", "vector",
            "void METHOD_1 ( ) { TYPE_1 :: <START> TYPE_2 <END> < int > VAR_1 ; }"),
    "csharp": ("void F(int a)\n{\n    var b = a;\n}\n", "ar b",
               "void METHOD_1 ( int VAR_1 ) { <START> var VAR_2 <END> = VAR_1 ; }"),
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_marking_a_character_range(language):
    code, text, expected = MARKED[language]
    start = code.index(text)
    pair = abstract_code_pair(code, code, language, set(), spans=True)
    assert pair.marked(start, start + len(text)) == expected
    assert pair.marked(start, start + len(text)).replace(" <START>", "").replace(" <END>", "") == pair.before


def test_spans_are_characters_not_bytes():
    code = "def f(é):\n    return 'ü' + g(é)\n"
    pair = abstract_code_pair(code, code, "python", set(), spans=True)
    start = code.index("g(")
    assert pair.marked(start, start + 1) == (
        "def METHOD_1 ( VAR_1 ) : NEW_LINE INDENT return STRING_1 + <START> METHOD_2 <END> ( VAR_1 ) NEW_LINE DEDENT")


@pytest.mark.parametrize(("language", "code", "literal", "kind"), [
    ("javascript", "x = 10n + 1_000 + 0b101", "1_000", "INT_2"),
    ("javascript", "x = .5 + 1e3", "1e3", "FLOAT_2"),
    ("python", "x = 0xEF + 2j", "0xEF", "INT_1"),
    ("python", "x = 0xEF + 2j", "2j", "FLOAT_1"),
    ("c", "double f() { return 0x1p3 + 0x1fUL; }", "0x1p3", "FLOAT_1"),
    ("c", "double f() { return 0x1p3 + 0x1fUL; }", "0x1fUL", "INT_1"),
    ("go", "func f() { x := 1i + 07 }", "1i", "FLOAT_1"),
    ("csharp", "void F() { var x = 1d + 2f + 3m + 4u + 0xFFL; }", "3m", "FLOAT_3"),
    ("csharp", "void F() { var x = 1d + 2f + 3m + 4u + 0xFFL; }", "0xFFL", "INT_2"),
    ("cpp", "auto f() { return \"ab\"s + 'c' + 10ms; }", '"ab"s', "STRING_1"),
    ("cpp", "auto f() { return \"ab\"s + 'c' + 10ms; }", "10ms", "INT_1"),
])
def test_literal_kinds(language, code, literal, kind):
    assert abstract_code(code, language, set()).mapping[literal] == kind


def test_the_time_budget_holds_inside_the_abstraction():
    """Issue 31: a function of one expression of 100,000 terms took seconds in the tree walk, past the file's
    budget, checked only between functions. The walk checks the deadline; without one the same pair abstracts."""
    import time

    from revmine.preprocess.methods import ExtractionError
    from revmine.schema import DropReason

    code = "function f() {\n  return " + "+".join(["a"] * 100_000) + ";\n}\n"
    started = time.monotonic()
    with pytest.raises(ExtractionError) as caught:
        abstract_code_pair(code, code, "javascript", deadline=started + 0.2)
    assert caught.value.reason == DropReason.TIMEOUT and time.monotonic() - started < 2
    small = "function f() {\n  return qzx + wvy;\n}\n"
    assert abstract_code_pair(small, small, "javascript", deadline=time.monotonic() + 60).before == \
        abstract_code_pair(small, small, "javascript").before == "function METHOD_1 ( ) { return VAR_1 + VAR_2 ; }"
