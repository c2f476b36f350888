"""The tree-sitter name sets stand in for javalang's: on every method of the 2021 test split, and on the
constructs where tree-sitter accepts what javalang rejects (or the reverse), where javalang must decide.

The reference here is javalang itself (``_collect_with_javalang``, the path every method took before),
run in the test on the same input.
"""

from __future__ import annotations

import csv
import re
import time
from pathlib import Path

import pytest

from revmine.preprocess.abstraction import _prepare
from revmine.preprocess.javalex import KEYWORDS, tokenize
from revmine.preprocess.javanames import NameSets, _collect_with_javalang, collect_names
from revmine.preprocess.javatree import javalang_reason
from revmine.preprocess.methods import ExtractionError
from revmine.schema import DropReason

#: what the walk can look up: a name or two joined by a dot (rule 5), never a keyword. javalang's sets also
#: hold pieces nothing looks up (``""``, ``.Inner``, ``super`` from ``? super T``), which tree-sitter need not.
_LOOKED_UP = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)?\.?")


def _looked_up(sets: NameSets) -> tuple[set[str], ...]:
    return tuple({n for n in names if _LOOKED_UP.fullmatch(n) and n not in KEYWORDS}
                 for names in (sets.types, sets.methods, sets.annotations))


def _both(tokens, source: str | None = None):
    fast, slow = NameSets(), NameSets()
    return (collect_names(tokens, fast, source), _looked_up(fast)), (_collect_with_javalang(tokens, slow), _looked_up(slow))


def test_every_fixture_method_gets_javalangs_name_sets(tufano_dir: Path):
    with open(tufano_dir / "test.csv", newline="", encoding="utf-8") as handle:
        codes = [row[side] for row in csv.DictReader(handle) for side in ("before", "after")]
    differing = []
    for k, code in enumerate(codes):
        prepared = _prepare(code)
        fast, slow = _both(prepared.tokens, prepared.text)
        if fast != slow:
            differing.append((k // 2, ("before", "after")[k % 2]))
    assert len(codes) == 3438 and differing == []


@pytest.mark.parametrize("code", [
    "void go() { int x = a > > b; foo(); }",  # javalang reads `> >` as a shift, tree-sitter does not
    "void go(Object o) { if (o instanceof Foo f) { f.bar(); } }",  # Java 16: javalang rejects
    "void go() { int x = switch (k) { case 1 -> 2; default -> 3; }; }",  # Java 14
    "void go() { try (res) { res.use(); } }",  # Java 9
    "void go(int k) { switch (k) { case 1, 2: run(); } }",
    "void go() { Object o = (Runnable & Serializable) () -> run(); }",
    "void go() { record Point(int x) {} }",
    "void go() { List<@NonNull Item> items = Lists.make(); }",  # a type annotation: javalang's retry
    "void go() { IntFunction<int[]> f = int[]::new; Function<List<T>, Integer> g = List<T>::size; }",
    "void go() { Object o = (Foo) -x; Object p = (a) + b; }",  # javalang: casts of -x and +b
    "void go() { Foo.super.bar(); }",
])
def test_javalang_decides_what_tree_sitter_is_not_known_to_read_alike(code):
    assert javalang_reason(code) is not None
    fast, slow = _both(tokenize(code)[0])
    assert fast == slow


@pytest.mark.parametrize("code, methods", [
    ("void go() { outer: for (;;) { if (done()) break outer; } }", {"go", "done"}),
    ("long go() { return 0b101L + 017 + (long) 0x1.8p1; }", {"go"}),
    ("void go() { class Local extends Base implements Iface { void m() throws a.b.Ex {} } }", {"go", "m"}),
    ("@a.b.Ann(Foo.class) @Ann(value = {A.class, B.class}) void go() { }", {"go"}),
])
def test_kinds_verified_by_hand_take_the_tree_sitter_path(code, methods):
    assert javalang_reason(code) is None
    fast, slow = _both(tokenize(code)[0])
    assert fast == slow and fast[1][1] == methods


@pytest.mark.parametrize("body", [
    "a[0].B.c(); foo(-x).Bar.baz(); this.Foo.bar(); (a.b()).C.d(); super.x.Foo.bar();",  # call scopes
    'new Foo().Bar.baz(); "s".Foo.bar(); foo(x, "a b").C.d(); x.<T>y().Z.w(); a.b.<T>y(q).Z.w();',
    "a.b().c.D.e(); x[i].Y.z(); Foo.bar(x).Baz.qux(); a.b.c.D.e.F.g(); Lists.<String>make().add(x);",
    "Object o = (a.b) - 1; Object p = (a) * 2; Object q = (Comparable<Foo>) x; Object r = (int) 'a';",
    "String n = Foo.class.getName(); Class<?> e = Foo[].class; Class<?> g = a.b.Foo.class;",
    "list.forEach(System.out::println); Optional.of(x).map(Foo::getBar).orElseGet(this::make);",
    "Function<Map.Entry<K, V>, K> f = java.util.Map.Entry::getKey; Runnable r = super::foo;",
    "try { go(); } catch (final IOException | a.b.E e) { log(e); } try (Foo f = open()) { f.use(); }",
    "List<? super Foo> l; Map<String, List<Integer>> m = new HashMap<>(); Foo.Bar.Baz q = Foo.Bar.Baz.make();",
    "Object o = new Object() { <T> T id(T t) { return t; } }; new Foo<Bar>() {}.baz(); Inner i = a.new Inner();",
    "Runnable r = ok ? () -> a() : () -> b(); Op o = (int a, int b) -> a; new Thread(() -> run()).start();",
])
def test_tree_sitter_reads_names_as_javalang_beyond_the_fixture(body):
    code = f"void go() {{ {body} }}"
    assert javalang_reason(code) is None
    fast, slow = _both(tokenize(code)[0])
    assert fast == slow


def test_names_without_the_source_text_come_from_the_tokens():
    tokens, _ = tokenize("void go() { Map.Entry<K, V> e = Util.<T>make(a::b); }")
    fast, slow = _both(tokens)
    assert fast == slow
    assert {"Map", "Map.Entry", "K", "V", "T", "a"} <= fast[1][0] and fast[1][1] == {"go", "make", "b"}


def test_a_tree_deeper_than_the_query_can_follow_goes_to_javalang_in_linear_time():
    """Issue 31: past 65,535 levels tree-sitter's query (16-bit depths) explodes, uninterruptible in C (300,000
    terms: 516 s). Such a method is read by javalang, whose names it gets, in time linear in its length."""
    def method(terms: int) -> str:
        return "int f(Foo a) {\n  return a.size()" + "+1" * terms + ";\n}\n"

    assert javalang_reason(method(60_000)) is None  # shallow enough: the query's answer
    assert javalang_reason(method(70_000)) == "tree too deep for the query"
    started = time.perf_counter()
    deep = _prepare(method(140_000))
    tree_path, javalang_path = _both(deep.tokens, deep.text)
    assert tree_path == javalang_path == (True, ({"Foo"}, {"f", "size"}, set()))
    assert time.perf_counter() - started < 60  # minutes before; about 10 s on a loaded 2-core machine


def test_javalang_stops_at_the_deadline():
    """The time budget holds inside javalang's parse, the path such methods take (128,000 terms: 8 s a side)."""
    deep = _prepare("int f() {\n  return 1" + "+1" * 128_000 + ";\n}\n")
    started, worked = time.monotonic(), time.process_time()
    with pytest.raises(ExtractionError) as caught:
        collect_names(deep.tokens, NameSets(), deep.text, deadline=started + 0.5)
    assert caught.value.reason == DropReason.TIMEOUT and "javalang" in caught.value.detail
    # the work done, not the wall clock: on a machine shared by more processes than cores the parse can wait
    # its turn past 3 s of wall time after stopping on time (CI under load: 3.4 s); unbounded it works 8 s
    assert time.process_time() - worked < 3
