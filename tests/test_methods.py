"""Method extraction (Lizard, refined) and before/after matching, on Java written for the test and on the
1,719 methods of the 2021 dataset."""

from __future__ import annotations

import csv
import time

import pytest

from revmine.preprocess.methods import ExtractionError, extract_methods, match_methods
from revmine.schema import DropReason

# Line numbers are in the comments; expectations below were worked out by hand from them.
SOURCE = """\
package demo;                                             // 1
/** Javadoc is not part of a method. */                   // 2
public class Shop {                                       // 3
  @Override                                               // 4
  @SuppressWarnings(value = {                             // 5
      "unchecked"})                                       // 6
  public String toString() { return "}{"; }               // 7
                                                          // 8
  public Shop(int a) {                                    // 9
    Runnable r = new Runnable() {                         // 10
      @Override                                           // 11
      public void run() { char c = '}'; /* } */ }         // 12
    };                                                    // 13
    Runnable q = () -> { run(); };                        // 14
  }                                                       // 15
  interface I { void bodyless(int x); default int d() { return 1; } }  // 16
  void foo(int a) {} void foo(final @NonNull String a) {} // 17
  public static                                           // 18
  <T> java.util.List<T> gen(java.util.Map<String, T> m,   // 19
      int... xs) throws Exception {                       // 20
    return null;                                          // 21
  }                                                       // 22
  @Test public void t() {                                 // 23
  }                                                       // 24
  record R(int x) { int y() { return x; } }               // 25
}                                                         // 26
"""


def test_methods_of_a_file():
    methods = extract_methods(SOURCE)
    got = [(m.signature, m.link_start, m.start_line, m.end_line) for m in methods]
    assert got == [
        ("toString()", 4, 7, 7),  # annotation-only lines 4-6 link, but are not in the text
        ("Shop(int a)", 9, 9, 15),  # the anonymous class's run() and the lambda are inside
        ("d()", 16, 16, 16),  # bodyless interface methods are not methods
        ("foo(int a)", 17, 17, 17),  # overloads on one line, each found once
        ("foo(final String a)", 17, 17, 17),  # parameter annotations left out of the signature
        ("gen(java.util.Map<String, T> m, int... xs)", 18, 18, 22),  # modifiers above the name line
        ("t()", 23, 23, 24),  # an annotation on the declaration's line stays in the text
        ("y()", 25, 25, 25),  # the record header is not a method
    ]
    lines = SOURCE.split("\n")
    assert methods[1].text == "\n".join(lines[8:15]) + "\n"
    assert methods[0].text.startswith('  public String toString() { return "}{"; }')
    assert methods[6].text.startswith("  @Test public void t() {")


def signatures(source: str) -> list[tuple[str, int, int]]:
    return [(m.signature, m.start_line, m.end_line) for m in extract_methods(source)]


@pytest.mark.parametrize("source, expected", [
    pytest.param("public record Point(int x, int y) {\n"
                 "  public Point(int x) {\n"
                 "    this(x, 0);\n"
                 "  }\n"
                 "  int sum() { return x + y; }\n"
                 "}\n",
                 [("Point(int x)", 2, 4), ("sum()", 5, 5)], id="top-level, constructor"),
    pytest.param("public record Point(int x, int y) {\n"
                 "  @Deprecated public Point {\n"
                 "    if (x < 0) throw new IllegalArgumentException();\n"
                 "    Runnable r = new Runnable() { public void run() { } };\n"
                 "  }\n"
                 "  public Point(int x) { this(x, 0); }\n"
                 "  int sum() { return x + y; }\n"
                 "  static Point origin() { return new Point(0, 0); }\n"
                 "}\n",
                 # the compact constructor is the canonical one: the record's components are its parameters
                 [("Point(int x, int y)", 2, 5), ("Point(int x)", 6, 6), ("sum()", 7, 7), ("origin()", 8, 8)],
                 id="top-level, compact constructor"),
    pytest.param("class C {\n"
                 "  record P<K extends Map<K, List<V>>>(K k, @NonNull int y) implements X<K> {\n"
                 "    int sum() { return y; }\n"
                 "  }\n"
                 "  void after() { }\n"
                 "}\n",
                 [("sum()", 3, 3), ("after()", 5, 5)], id="nested, generic"),
    pytest.param("class C {\n"
                 "  void f() {\n"
                 "    record L(int a) { int q() { return a; } }\n"
                 "    Object record = null; record(1);\n"
                 "  }\n"
                 "  void record(int a) { }\n"
                 "}\n",
                 [("f()", 2, 5), ("record(int a)", 6, 6)], id="local record, 'record' as a name"),
])
def test_records_keep_their_methods(source, expected):
    assert signatures(source) == expected


def test_dollar_in_names():
    """Lizard cuts names at '$'; the methods are still found, under their own names."""
    source = "class A$1 {\n  void $dollar_() { }\n  void a$b() { }\n  void b() { }\n  void _u$() { }\n}\n"
    assert signatures(source) == [("$dollar_()", 2, 2), ("a$b()", 3, 3), ("b()", 4, 4), ("_u$()", 5, 5)]


MODERN = """\
public enum Op {                                           // 1
  PLUS { @Override int apply(int a, int b) { return a + b; } },  // 2
  MINUS { int apply(int a, int b) { return a - b; } };     // 3
  abstract int apply(int a, int b);                        // 4
  Op() { }                                                 // 5
  interface Shape {                                        // 6
    double area();                                         // 7
    default String describe() { return "area " + area(); } // 8
    static Shape unit() { return () -> 1.0; }              // 9
    private void helper() { }                              // 10
  }                                                        // 11
  public <K, V extends List<K>> Map<K, V> group(Map<K, ? extends V> in) throws IOException, X {  // 12
    list.forEach(x -> { foo(x); });                        // 13
    class Local { void inner() { } }                       // 14
    return null;                                           // 15
  }                                                        // 16
  class Inner { Inner() { } void größe(int ä) { int π = 3; } }  // 17
  String 名前() {                                           // 18
    String s = \"\"\"
        void fake() {
        }\"\"\";                                               // 21
    return s;                                              // 22
  }                                                        // 23
  int k(Object o) {                                        // 24
    return switch (o) {                                    // 25
      case Integer i when i > 0 -> { yield i; }            // 26
      default -> 0;                                        // 27
    };                                                     // 28
  }                                                        // 29
  public synchronized int arr()[] { return null; }         // 30
}                                                          // 31
"""


def test_modern_java_keeps_every_method():
    assert signatures(MODERN) == [
        ("apply(int a, int b)", 2, 2),  # enum constant bodies
        ("apply(int a, int b)", 3, 3),
        ("Op()", 5, 5),
        ("describe()", 8, 8),  # interface default, static and private methods
        ("unit()", 9, 9),
        ("helper()", 10, 10),
        ("group(Map<K, ? extends V> in)", 12, 16),  # the lambda and the local class are inside
        ("Inner()", 17, 17),
        ("größe(int ä)", 17, 17),
        ("名前()", 18, 23),  # the text block's "method" is not one
        ("k(Object o)", 24, 29),
        ("arr()", 30, 30),  # old-style array return type
    ]


def test_method_text_is_the_dataset_form(tufano_dir):
    """Every m_s and m_r of the dataset, put in a class, comes back as one method with the same text."""
    with open(tufano_dir / "test.csv", encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    differs = []
    for i, row in enumerate(rows):
        for side in ("before", "after"):
            methods = extract_methods("class W {\n" + row[side] + "}\n")
            if [m.text for m in methods] != [row[side]]:
                differs.append((i, side))
    assert differs == [(1139, "before"), (1139, "after")]  # row 1139 is a for loop, not a method


def test_blank_lines_count_and_text_ends_with_newline():
    methods = extract_methods("class A {\n\n  void a() {\n  }\n}\n")
    assert [(m.start_line, m.end_line, m.text) for m in methods] == [(3, 4, "  void a() {\n  }\n")]


@pytest.mark.parametrize("source", [
    "class A { void a() { " + "if (a) {" * 2000 + "}" * 2000 + " } }",
    "class A {" * 2000 + "}" * 2000,
    "class A { ) " + "{" * 2000 + "}" * 2000 + " }",  # unbalanced first: the recovery checks the depth too
])
def test_files_nested_too_deep_raise_with_a_reason(source):
    started = time.monotonic()
    with pytest.raises(ExtractionError) as info:
        extract_methods(source)
    assert info.value.reason == DropReason.TOO_DEEP
    assert "line 1" in info.value.detail
    assert time.monotonic() - started < 1


# A file that does not compile; line numbers in the comments, expectations worked out by hand.
BROKEN = """public class A {                         // 1
  private int broken = (1 + 2;           // 2  '(' never closed: only this statement is lost
  int good() {                           // 3
    return f(1;                          // 4  '(' never closed inside a method: the method stays
  }                                      // 5
  void unfinished() {                    // 6  '{' never closed: it ends where the next member starts
    if (broken > 0) {                    // 7
      broken();                          // 8
    }                                    // 9
                                         // 10
  int after(int x) {                     // 11
    return x;                            // 12
  }                                      // 13
  void stray() {                         // 14
    x();                                 // 15
  }                                      // 16
  }                                      // 17 a '}' too many: it closes the class, the last one is left
  int last() { return 0; }               // 18
}                                        // 19
"""


def test_a_file_that_does_not_compile_keeps_the_methods_it_has():
    methods = extract_methods(BROKEN)
    assert [(m.signature, m.start_line, m.end_line) for m in methods] == [
        ("good()", 3, 5), ("after(int x)", 11, 13), ("stray()", 14, 16), ("last()", 18, 18)]
    assert methods[0].text == "".join(line + "\n" for line in BROKEN.split("\n")[2:5])
    assert [(u.bracket, u.line, u.first_line, u.last_line) for u in methods.unbalanced] == [
        ("(", 2, 2, 2),  # its statement
        ("(", 4, 4, 4),
        ("{", 6, 6, 9),  # its declaration to its last token: the next member starts on line 11
        ("}", 19, 19, 19),
    ]
    assert methods.unbalanced_in(7, 8).detail == "unbalanced '{' at line 6"
    assert methods.unbalanced_in(5, 5) is None
    assert extract_methods(SOURCE).unbalanced == ()


@pytest.mark.parametrize("source, signatures, unbalanced", [
    ("class A { void a() { if (x) { } }", ["a()"], [("{", 1)]),  # the class is left open
    ("class A { void a() ) }", [], [(")", 1)]),  # a() has no body: no method
    ("class A {\n  void a(int x {\n    y();\n  }\n  void b() {}\n}\n", ["b()"], [("(", 2)]),
    # a '}' at the class's indentation closes the class, so a() is the one left open
    ("class A {\n  void a() {\n    y();\n}\n  void b() {}\n", ["b()"], [("{", 2)]),
    # a() lacks its '}': the next member ends it ('synchronized' is a modifier there, a statement inside)
    ("class A {\n  void a() {\n    y();\n\n  synchronized void b() {\n    synchronized (this) {\n    }\n  }\n}\n",
     ["b()"], [("{", 2)]),
])
def test_unbalanced_brackets_lose_only_the_methods_they_break(source, signatures, unbalanced):
    methods = extract_methods(source)
    assert [m.signature for m in methods] == signatures
    assert [(u.bracket, u.line) for u in methods.unbalanced] == unbalanced


def test_time_budget_stops_lizard():
    source = "class A {\n" + "".join(f"  void m{i}(int a) {{ a++; }}\n" for i in range(5000)) + "}\n"
    with pytest.raises(ExtractionError) as info:
        extract_methods(source, deadline=time.monotonic() + 0.05)
    assert info.value.reason == DropReason.TIMEOUT


def test_match_by_signature_survives_shifted_lines():
    before = extract_methods("class A {\n void a() {}\n void b(int x) {}\n}")
    after = extract_methods("class A {\n\n\n void c() {}\n void b(int x) { x++; }\n void a() {}\n}")
    matching = match_methods(before, after)
    assert [(m.before.signature, m.after.signature, m.rule) for m in matching.matches] == [
        ("a()", "a()", "signature"), ("b(int x)", "b(int x)", "signature")]
    assert matching.deleted == [] and [m.signature for m in matching.added] == ["c()"]


def test_match_overloads_by_name_then_renames_by_parameters_in_order():
    before = extract_methods("class A {\n void s() {}\n void f(int x) {}\n void f(String y) {}\n"
                    " void old(int z) {}\n void gone() {}\n void e() {}\n}")
    after = extract_methods("class A {\n void s() {}\n void f(long x) {}\n void f(CharSequence y) {}\n"
                   " void renamed(int z) {}\n void added(int q) {}\n void e() {}\n}")
    matching = match_methods(before, after)
    assert [(m.before.signature, m.after.signature, m.rule) for m in matching.matches] == [
        ("s()", "s()", "signature"),
        ("f(int x)", "f(long x)", "name"),
        ("f(String y)", "f(CharSequence y)", "name"),
        ("old(int z)", "renamed(int z)", "rename"),
        ("e()", "e()", "signature"),
    ]
    assert [m.signature for m in matching.deleted] == ["gone()"]
    assert [m.signature for m in matching.added] == ["added(int q)"]


def test_match_unique_name_wherever_it_moved():
    """Reordered neighbours leave no slot; a name unique among the unmatched methods still pairs."""
    before = extract_methods("class C {\n void a() { }\n void x(int i) { }\n void b() { }\n}\n")
    after = extract_methods("class C {\n void b() { }\n void x(int j) { }\n void a() { }\n}\n")
    matching = match_methods(before, after)
    assert [(m.before.signature, m.after.signature, m.rule) for m in matching.matches] == [
        ("a()", "a()", "signature"), ("x(int i)", "x(int j)", "name"), ("b()", "b()", "signature")]
    assert matching.deleted == [] and matching.added == []


def test_match_anchors_are_the_methods_that_kept_their_order():
    """b() moved to the top: a() stays the anchor, so the overloads after it still pair in their slot."""
    before = extract_methods("class A {\n void a() {}\n void f(int x) {}\n void f(String s) {}\n void b() {}\n}")
    after = extract_methods("class A {\n void b() {}\n void a() {}\n void f(long x) {}\n"
                            " void f(CharSequence s) {}\n}")
    matching = match_methods(before, after)
    assert [(m.before.signature, m.after.signature, m.rule) for m in matching.matches] == [
        ("a()", "a()", "signature"), ("f(int x)", "f(long x)", "name"),
        ("f(String s)", "f(CharSequence s)", "name"), ("b()", "b()", "signature")]


def test_match_overloads_and_renames_only_within_the_slot():
    """Overloads (no unique name) or a rename that moved past a neighbour are deleted + added, not guessed."""
    before = extract_methods("class A {\n void f(int x) {}\n void f(String s) {}\n void old(int z) {}\n"
                             " void a() {}\n}")
    after = extract_methods("class A {\n void a() {}\n void f(long x) {}\n void f(CharSequence s) {}\n"
                            " void renamed(int z) {}\n}")
    matching = match_methods(before, after)
    assert [(m.before.signature, m.rule) for m in matching.matches] == [("a()", "signature")]
    assert [m.signature for m in matching.deleted] == ["f(int x)", "f(String s)", "old(int z)"]


def test_duplicate_signatures_pair_in_order():
    before = extract_methods("class A {\n void f() { 1; }\n class B { void f() { 2; } }\n}")
    after = extract_methods("class A {\n void f() { 3; }\n class B { void f() { 4; } }\n}")
    matching = match_methods(before, after)
    assert [(m.before.text.strip(), m.after.text.strip()) for m in matching.matches] == [
        ("void f() { 1; }", "void f() { 3; }"), ("class B { void f() { 2; } }", "class B { void f() { 4; } }")]
