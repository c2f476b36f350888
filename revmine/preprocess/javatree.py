"""The name sets of a Java method from tree-sitter-java, for the methods whose javalang result it is known to match.

javalang decides what the reference abstraction calls a TYPE, a METHOD or an annotation (see
:mod:`revmine.preprocess.javanames`), but parsing with it is most of the abstraction's time. tree-sitter
parses several times faster, and the names can be read off its concrete tree with one query that runs
in C. This module does that, and answers "ask javalang" whenever the tree is one whose names were
not shown to agree with javalang's:

* the tree has an ERROR or MISSING node (javalang accepts a few things tree-sitter does not, such as
  ``a > > b``, so a broken tree is not enough to say the method does not parse);
* it holds a node kind outside :data:`VERIFIED_KINDS`, the kinds seen on the 2021 test split where
  both parsers were compared name set by name set. Newer Java (records, arrow ``switch``, ``yield``,
  patterns...) is among the rest, and javalang rejects it;
* it holds one of the constructs javalang rejects although their node kinds are verified elsewhere:
  an annotation outside a declaration's modifiers (a Java 8 type annotation: javalang fails, then
  retries without marker annotations), ``x instanceof Foo f``, a ``try (resource)`` naming an existing
  variable, ``case 1, 2:``, an intersection cast ``(A & B) x``, ``int[]::new`` or ``List<T>::size``;
* or one javalang reads differently: ``(a) - b`` (javalang: a cast of ``-b`` to type ``a``) and
  ``Foo.super.bar()`` (no call scope).

A tree deeper than tree-sitter's query can follow goes to javalang too: the query engine keeps a match's
depth in 16 bits, and past 65,535 levels its work explodes (issue 31: ``return 1+1+...`` of 66,000 terms
took 1.5 s against 0.3 s for 65,000, 300,000 terms 516 s, uninterruptible in C), while javalang reads such
a chain in linear time (8.5 s for 300,000 terms, within the caller's deadline). Only a method long enough
to be that deep (:data:`QUERY_SAFE_BYTES`) has its depth measured.

``default`` methods are answered here: the reference rejects them (javanames explains why), so a
``default`` member of the wrapper class means the method does not parse.

On the 3,438 methods of the 2021 test split, 6 go to javalang: 4 broken trees (javalang rejects them
too) and 2 type annotations; ``benchmarks/bench_abstraction.py`` prints the count of each path.
"""

from __future__ import annotations

import re
import threading

import tree_sitter_java
from tree_sitter import Language, Node, Parser, Query, QueryCursor

# JavaParser's filterString: a type's text is cut on these (not on dots) and every piece is a type name.
TYPE_SPLIT = re.compile(r"[\[\]()<>{},? ]|extends|implements")

#: Named node kinds whose names this module was checked to collect as javalang does: those of the 3,438
#: methods of the 2021 test split, plus (checked on hand-written methods in tests/test_javatree.py) three
#: literal kinds, labels, a local class's ``extends``/``implements``, qualified annotation names and
#: annotation elements. A tree with any other kind goes to javalang.
VERIFIED_KINDS = frozenset(
    """
    program class_declaration class_body identifier method_declaration constructor_declaration
    constructor_body formal_parameters formal_parameter spread_parameter modifiers marker_annotation
    annotation annotation_argument_list throws block expression_statement local_variable_declaration
    variable_declarator array_initializer assignment_expression binary_expression unary_expression
    update_expression ternary_expression cast_expression instanceof_expression lambda_expression
    inferred_parameters parenthesized_expression method_invocation argument_list method_reference
    field_access array_access object_creation_expression array_creation_expression dimensions
    dimensions_expr class_literal explicit_constructor_invocation this super if_statement
    while_statement do_statement for_statement enhanced_for_statement return_statement break_statement
    continue_statement throw_statement assert_statement synchronized_statement try_statement
    catch_clause catch_formal_parameter catch_type finally_clause try_with_resources_statement
    resource_specification resource switch_expression switch_block switch_block_statement_group
    switch_label type_identifier scoped_type_identifier generic_type type_arguments wildcard
    type_parameters type_parameter type_bound array_type integral_type floating_point_type boolean_type
    void_type decimal_integer_literal hex_integer_literal decimal_floating_point_literal
    octal_integer_literal binary_integer_literal hex_floating_point_literal labeled_statement
    superclass super_interfaces type_list scoped_identifier element_value_pair element_value_array_initializer
    character_literal string_literal string_fragment escape_sequence true false null_literal
    """.split()
)

_LANGUAGE = Language(tree_sitter_java.language())
_PARSERS = threading.local()  # a tree-sitter Parser is not safe to share between threads (Dask may run several)
_UNVERIFIED_KINDS = sorted(
    {_LANGUAGE.node_kind_for_id(k) for k in range(_LANGUAGE.node_kind_count)
     if _LANGUAGE.node_kind_is_named(k) and _LANGUAGE.node_kind_is_visible(k)} - VERIFIED_KINDS
)
# One query, one pass over the tree: what sends the method to javalang (@unverified_kind, @rejected,
# @reads_differently), and the names.
_QUERY = Query(_LANGUAGE, f"""
[{" ".join(f"({kind})" for kind in _UNVERIFIED_KINDS)}] @unverified_kind
(instanceof_expression name: (_)) @rejected
(resource . [(identifier) (field_access)] .) @rejected
(switch_label "," @rejected)
(cast_expression "&" @rejected)
(method_reference . [(array_type) (generic_type) (integral_type) (floating_point_type) (boolean_type)]) @rejected
(method_invocation object: (_) (super)) @reads_differently
(binary_expression left: (parenthesized_expression . [(identifier) (field_access)] .) operator: ["+" "-"]) @reads_differently
(type_identifier) @type
(scoped_type_identifier) @scoped
(method_declaration name: (identifier) @method)
(method_invocation name: (identifier) @method)
(method_invocation object: [(identifier) (field_access)] @scope)
(method_reference) @reference
(annotation name: (_) @annotation)
(marker_annotation name: (_) @annotation)
(modifiers [(annotation) (marker_annotation)] @declaration_annotation)
[(annotation) (marker_annotation)] @any_annotation
""")
_WRAPPER = b"class Dummy {\n%s\n}"
#: Deepest tree the query is run on (its depth counter is 16 bits), and the size under which no method's tree
#: comes near it: a level of nesting takes at least a token, and a token at most a few levels of unit nodes.
QUERY_MAX_DEPTH = 65_535
QUERY_SAFE_BYTES = 8_192
_EMPTY: list[Node] = []


def tree_names(source: str) -> tuple[set[str], set[str], set[str]] | bool | None:
    """``(types, methods, annotations)`` of one method (comments already removed), as javalang would collect.

    ``False``: the reference rejects the method (a ``default`` method). ``None``: the tree is not one this
    module knows to agree with javalang (see the module docstring); ask javalang.
    """
    parsed = _parse(source)
    if parsed is None or _needs_javalang(*parsed):
        return None
    root, captures = parsed
    if _has_default_member(root):
        return False
    types: set[str] = set()
    methods = {node.text.decode() for node in captures.get("method", _EMPTY)}
    split = TYPE_SPLIT.split
    scoped = captures.get("scoped", _EMPTY)
    # a.b.C is scoped(scoped(a, b), C): each prefix is a type, but its last part alone is not
    last_parts = {node.children[-1].start_byte for node in scoped}
    for node in scoped:
        types.update(split("".join(node.text.decode().split())))
    for node in captures.get("type", _EMPTY):
        if node.start_byte not in last_parts:
            types.update(split(node.text.decode()))
    for node in captures.get("reference", _EMPTY):
        _reference(node, types, methods)
    for node in captures.get("scope", _EMPTY):
        text = _text(node)
        last = text.rsplit(".", 1)[-1][:1]
        if last and last != last.lower():  # a call scope whose last part is capitalised is a type
            types.update(split(text))
    annotations = {"".join(node.text.decode().split()) for node in captures.get("annotation", _EMPTY)}
    return types, methods, annotations


def javalang_reason(source: str) -> str | None:
    """Why :func:`tree_names` leaves ``source`` to javalang (``None``: it does not), for counting the paths."""
    parsed = _parse(source)
    return "tree too deep for the query" if parsed is None else _needs_javalang(*parsed)


def _parse(source: str) -> tuple[Node, dict[str, list[Node]]] | None:
    """The tree and the query's captures; None for a tree too deep for the query (module doc)."""
    parser = getattr(_PARSERS, "parser", None)
    if parser is None:
        parser = _PARSERS.parser = Parser(_LANGUAGE)
    data = _WRAPPER % source.encode("utf-8")
    root = parser.parse(data).root_node
    if len(data) > QUERY_SAFE_BYTES and _deeper_than(root, QUERY_MAX_DEPTH):
        return None
    return root, QueryCursor(_QUERY).captures(root)


def _deeper_than(root: Node, limit: int) -> bool:
    """Whether a path of the tree has more than ``limit`` nodes below ``root`` (a cursor walk: no recursion)."""
    cursor = root.walk()
    depth = 0
    while True:
        if cursor.goto_first_child():
            depth += 1
            if depth > limit:
                return True
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return False
            depth -= 1


def _needs_javalang(root: Node, captures: dict[str, list[Node]]) -> str | None:
    if root.has_error:
        return "broken tree (ERROR or MISSING node)"
    if "unverified_kind" in captures:
        return f"node kind not verified: {captures['unverified_kind'][0].type}"
    if "rejected" in captures:
        node = captures["rejected"][0]
        return f"construct javalang rejects: {(node if node.is_named else node.parent).type}"
    if "reads_differently" in captures:
        return f"construct javalang reads differently: {captures['reads_differently'][0].type}"
    if len(captures.get("any_annotation", _EMPTY)) != len(captures.get("declaration_annotation", _EMPTY)):
        return "type annotation"  # javalang fails, then retries without marker annotations
    return None


def _has_default_member(root: Node) -> bool:
    """Whether the wrapper class has a ``default`` method (JavaParser: "'default' is not allowed here")."""
    body = root.children[0].child_by_field_name("body")
    for member in body.named_children:
        if member.type == "method_declaration":
            modifiers = member.children[0]
            if modifiers.type == "modifiers" and any(child.type == "default" for child in modifiers.children):
                return True
    return False


def _reference(node: Node, types: set[str], methods: set[str]) -> None:
    """``x::m``: ``m`` is a method and a name ``x`` (or ``a.b``) a type, prefixes included, whatever its case."""
    methods.add(node.children[-1].text.decode())
    scope = node.children[0]
    parts: list[str] = []
    while scope.type == "field_access":
        parts.append(scope.child_by_field_name("field").text.decode())
        scope = scope.child_by_field_name("object")
    if scope.type != "identifier":
        return
    parts.append(scope.text.decode())
    parts.reverse()
    for i in range(1, len(parts) + 1):
        types.update(TYPE_SPLIT.split(".".join(parts[:i])))


_LITERALS = frozenset(
    "identifier this decimal_integer_literal hex_integer_literal octal_integer_literal binary_integer_literal "
    "decimal_floating_point_literal hex_floating_point_literal character_literal string_literal true false "
    "null_literal".split()
)


_NAMES = ("identifier", "field_access")


def _text(node: Node) -> str:
    """An expression as javalang's printer in javanames renders it (``_expression_text``): names, calls with
    their arguments, array accesses, literals; anything else (a cast, ``new``, parentheses) is empty."""
    kind = node.type
    if kind in _LITERALS:
        return node.text.decode()
    if kind == "field_access":
        scope = node.child_by_field_name("object")
        return ("" if scope.type == "super" else _text(scope)) + "." + node.child_by_field_name("field").text.decode()
    if kind == "method_invocation":
        scope = node.child_by_field_name("object")
        if scope is not None and scope.type == "super":
            return ""
        args = ", ".join(_text(arg) for arg in node.child_by_field_name("arguments").named_children)
        if scope is not None and scope.type in _NAMES and node.child_by_field_name("type_arguments"):
            return f"{_text(scope)}({args})"  # javalang overwrites the name of a.<T>b() with the scope's last part
        call = f"{node.child_by_field_name('name').text.decode()}({args})"
        return call if scope is None else f"{_text(scope)}.{call}"
    if kind == "array_access":
        return f"{_text(node.child_by_field_name('array'))}[{_text(node.child_by_field_name('index'))}]"
    if kind in ("unary_expression", "update_expression"):  # javalang keeps operators apart from the primary
        return _text(node.named_children[0])
    return ""
