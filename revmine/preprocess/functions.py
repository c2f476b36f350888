"""The functions of a file in python, javascript, typescript, go, c, cpp, csharp, php or ruby, as :mod:`.methods`
gives Java's.

The result is the same :class:`~.methods.Method` list (:class:`~.methods.FileMethods`), so that
:func:`~.methods.match_methods` and the comment linking work unchanged; the rules are Java's, carried over:

* **Which functions.** A function with a body that is not inside another function (Java: a method
  inside another method's anonymous or local class belongs to the enclosing one). Nested functions,
  closures, lambdas, Go ``func`` literals, C++ lambdas, C# local functions, lambdas and anonymous methods
  are part of the function they are in and are not kept on their own. A declaration without a body is
  not a function: C/C++ prototypes, ``= default``/``= delete``, TypeScript overload signatures and
  interface/abstract members, C# abstract/interface members and auto-properties (``{ get; set; }``).
* **Where it is.** tree-sitter's node for the declaration: the grammar knows where a function ends
  (a Python body by indentation, a JavaScript arrow function's expression body, a C# property's
  accessors), which Lizard reads token by token and sometimes does not. Measured on the 420 sides
  (before, after) of the 210 revisions of ``code_revisions``, functions whose node has no error: a Lizard
  function named in the node's header with the node's end line, per language: python 1038/1054 (the 16
  others are one-line stubs ``def f(...) -> T: ...``, which Lizard does not report), javascript
  1096/1096, typescript 279/471 (161 not reported: ``#private`` methods, generic functions
  ``f<K extends keyof T>(...)``; 29 ended early: an arrow function's expression body on later lines, or
  Lizard losing the brackets in a body, e.g. at a regex literal; 2 one-line arrow functions ended a line
  late), go 655/655, c 1370/1378 (8: ``main``
  opened under ``#if``/``#else``), cpp 1890/1890, csharp 1100/1300 (200: properties and indexers, which
  Lizard does not read as functions). Where Lizard and the tree disagree on a clean node, the node is
  right in every case read. Lizard is used only where the tree has an error (c 64, cpp 10, csharp 7
  functions, on 91 of the 420 sides): tree-sitter's recovery may swallow what follows a construct it
  cannot read (``#ifdef`` closing a brace, ``extern "C"`` under ``#ifdef``) into one node, which
  Lizard, reading brackets and following the ``#if`` branch, does not. A function whose node has an
  error takes Lizard's end line, and a function Lizard finds where the tree has none (in an error, or in
  lines a node swallowed) is added: its lines parsed alone give its name and parameters, or else
  Lizard's. Every function the tree reads without error is kept as the tree reads it (3,459 of 3,459 on
  the sides with errors).
* **text** is whole lines, verbatim, each ending with ``"\\n"``, from the declaration's first line that is
  not annotation-only to the line its node ends on; modifiers, ``export``, C++ ``template <...>`` and
  return types above the name are in it. **link_start** is the line of its first token, annotations
  included. Annotations are Python decorators, C# attributes (``[Obsolete]``) and TypeScript
  decorators: as Java's annotations, their own lines link a comment to the function but are not in the
  text (the 2021 dataset's methods never start with an annotation-only line); one on the line of the
  code stays. Comments above (docstrings, JSDoc, ``///``) are in neither.
* **name**, so that ``signature`` pairs the right functions before and after:

  - python: the ``def`` name (a method and a module function of the same name are told apart by order,
    as Java's nested classes are).
  - javascript/typescript: a declaration's name; a class or object-literal method's name (getter and
    setter share it, their parameter lists differ); a function expression or arrow function bound to a
    name is a function named by it: ``const f = () => {}`` is ``f``, ``app.get = function () {}`` is
    ``app.get`` (the whole left side, so ``req.get`` and ``res.get`` differ), ``{ f: () => 1 }`` and a class
    field ``f = () => 1`` are ``f``. An unbound function expression (a callback, an IIFE) is not kept, and
    neither is what is inside it.
  - go: a method keeps its receiver's type, pointer or not: ``func (c *Command) Name()`` is
    ``Command.Name``, so ``String()`` of two types in one file do not pair.
  - c/cpp: the declarator as written, qualifier kept: ``DBImpl::Get`` (an out-of-class definition;
    overloads in different classes do not pair), ``Foo::Foo``, ``~Foo``, ``operator==``; whitespace is
    normalised. A method defined in its class is named without the class.
  - csharp: methods, constructors, destructors (``~Foo``), operators (``operator +``, ``operator int``),
    properties and indexers (``this``) whose accessors have a body or that have an expression body: a
    property is one function (all its accessors), with an empty parameter list; an indexer's parameters
    are its bracketed ones.
  - php: functions and methods by their name (a method of a class and a function of the same name are told
    apart by order); abstract and interface methods have no body and are not functions; closures
    (``function () use (...) {}``) and arrow functions (``fn ($x) => ...``) belong to the function they are in.
  - ruby: ``def`` methods by their name, singleton methods (``def self.build``) too (without ``self.``); a
    method is a function whatever its body (``def empty; end``, an endless ``def ok? = true``); lambdas and
    blocks belong to the method they are in.

* **params** is the parameter list's tokens joined as :func:`.methods` joins Java's (comments, C#
  attributes and TypeScript decorators left out), without the brackets.
* A file that does not parse still gives its functions: tree-sitter recovers around the error and
  every function node it builds is kept. Nesting deeper than ``max_depth`` brackets or blocks, the time
  budget, and functions sharing long lines past the text budget (minified code, :class:`~.methods.LineTexts`),
  fail the whole file with :class:`~.methods.ExtractionError`, as for Java.
"""

from __future__ import annotations

import time
from dataclasses import replace

from ..lang.languages import LANGUAGES, parser
from ..schema import DropReason
from .methods import ExtractionError, FileMethods, LineTexts, Method, _lizard_functions, check_deadline, join_tokens
from .options import MAX_DEPTH

__all__ = ["FUNCTION_LANGUAGES", "extract_functions"]

#: Declarations that are a function when they have a body.
_DECLARATIONS: dict[str, frozenset[str]] = {
    "python": frozenset({"function_definition"}),
    "javascript": frozenset({"function_declaration", "generator_function_declaration", "method_definition"}),
    "go": frozenset({"function_declaration", "method_declaration"}),
    "c": frozenset({"function_definition"}),
    "csharp": frozenset({"method_declaration", "constructor_declaration", "destructor_declaration",
                         "operator_declaration", "conversion_operator_declaration", "property_declaration",
                         "indexer_declaration"}),
    "php": frozenset({"function_definition", "method_declaration"}),
    "ruby": frozenset({"method", "singleton_method"}),
}
_DECLARATIONS["typescript"] = _DECLARATIONS["javascript"]
_DECLARATIONS["cpp"] = _DECLARATIONS["c"]
#: Function values: part of the function they are in (JavaScript/TypeScript ones bound to a name are kept).
_VALUES: dict[str, frozenset[str]] = {
    "python": frozenset({"lambda"}),
    "javascript": frozenset({"function_expression", "function", "arrow_function", "generator_function"}),
    "go": frozenset({"func_literal"}),
    "c": frozenset(),
    "cpp": frozenset({"lambda_expression"}),
    "csharp": frozenset({"local_function_statement", "lambda_expression", "anonymous_method_expression"}),
    "php": frozenset({"anonymous_function", "arrow_function"}),
    "ruby": frozenset({"lambda"}),
}
_VALUES["typescript"] = _VALUES["javascript"]
#: Bindings that name a JavaScript/TypeScript function value, and the field holding the name.
_BINDINGS = {"variable_declarator": "name", "assignment_expression": "left", "pair": "key",
             "field_definition": "property", "public_field_definition": "name"}
#: Wrappers whose first line is the declaration's: decorators, ``export``, ``template <...>``.
_WRAPPERS = frozenset({"decorated_definition", "export_statement", "template_declaration"})
_ANNOTATIONS = frozenset({"decorator", "attribute_list"})
#: Nodes that open a nesting level (besides the ones whose first child is a bracket).
_BLOCKS = frozenset({"block"})
_BRACKETS = frozenset("([{")
_DEADLINE_EVERY = 1024  # nodes between two clock reads

FUNCTION_LANGUAGES: tuple[str, ...] = tuple(_DECLARATIONS)


def extract_functions(source: str, language: str, deadline: float | None = None,
                      max_depth: int = MAX_DEPTH) -> FileMethods:
    """Every function of ``source`` (a ``language`` file) not inside another function, in file order.

    ``source`` is normalised text (``\\n`` line ends), as for :func:`.methods.extract_methods`; the rules
    per language are in the module doc. ``deadline`` is a :func:`time.monotonic` time: raises
    :class:`ExtractionError` past it, and on nesting deeper than ``max_depth``.
    """
    if language not in _DECLARATIONS:
        raise ValueError(f"extract_functions: no rules for {language!r} (known: {', '.join(_DECLARATIONS)})")
    data = source.encode()
    tree = _parse(data, language, deadline)
    texts = LineTexts(source)
    found = _functions(tree.root_node, data, language, deadline, max_depth)
    methods = []
    for node, decl, name in found:
        if deadline is not None and len(methods) % _DEADLINE_EVERY == 0:
            check_deadline(deadline, "reading the functions")
        methods.append(_method(node, decl, name, language, texts, data))
    if tree.root_node.has_error:
        methods = _mend(methods, [node.has_error for node, _, _ in found], tree.root_node, source, texts, language,
                        deadline, max_depth)
    return FileMethods(methods)


def _method(node, decl, name: str, language: str, texts: LineTexts, data: bytes, offset: int = 0) -> Method:
    """The :class:`Method` of a function node of the tree of ``data`` (``offset``: lines above ``data``)."""
    start, end = _first_code(decl, language).start_point[0] + 1 + offset, _end_line(decl) + offset
    return Method(name=name, params=_params(node, language, data), start_line=start, end_line=end,
                  link_start=_link_start(decl) + offset, text=texts.text(start, end))


def _mend(methods: list[Method], broken: list[bool], root, source: str, texts: LineTexts, language: str,
          deadline: float | None, max_depth: int) -> list[Method]:
    """Lizard's answer where the tree has errors: its end line for a function with an error inside, and
    the functions it finds in an error, or in lines a function of the tree swallowed, and that the tree
    has no function for.

    tree-sitter's recovery may swallow what follows a construct it cannot read (C macros, ``#if`` inside
    an initializer list) into one node; Lizard reads brackets and is not thrown off by them.
    """
    lizard_functions = _lizard_functions(source, deadline, "x" + LANGUAGES[language].extensions[0])
    outer = [f for f in lizard_functions
             if not any(g is not f and g.start_line <= f.start_line and f.end_line <= g.end_line
                        and (g.start_line, g.end_line) != (f.start_line, f.end_line) for g in lizard_functions)]
    mended: list[Method] = []
    misread = [(node.start_point[0] + 1, _end_line(node)) for node in _errors(root)]
    for method, error in zip(methods, broken):
        same = next((f for f in lizard_functions if method.link_start <= f.start_line <= method.end_line
                     and _last(f.name) == _last(method.name)), None) if error else None
        around = next((f for f in outer if f.start_line < method.start_line and method.end_line <= f.end_line
                       and any(a <= f.end_line and f.start_line <= b for a, b in misread)), None)
        if around is not None:  # the tree took a part for the whole (``#if`` in an initializer list)
            method = _from_lizard(around, texts, language, deadline, max_depth)
        elif same is not None and same.end_line != method.end_line:
            end = same.end_line
            misread.append((end + 1, method.end_line))  # what the tree swallowed, if it ended too late
            method = replace(method, end_line=end, text=texts.text(method.start_line, end))
        mended.append(method)
    for f in outer:
        if (any(a <= f.end_line and f.start_line <= b for a, b in misread)
                and not any(m.link_start <= f.end_line and f.start_line <= m.end_line for m in mended)):
            mended.append(_from_lizard(f, texts, language, deadline, max_depth))
    return sorted(mended, key=lambda m: (m.link_start, m.start_line))


def _from_lizard(f, texts: LineTexts, language: str, deadline: float | None, max_depth: int) -> Method:
    """A function only Lizard found: its lines parsed alone for the name and parameters, as elsewhere."""
    snippet = texts.text(f.start_line, f.end_line)
    data = snippet.encode()
    tree = _parse(data, language, deadline)
    found = _functions(tree.root_node, data, language, deadline, max_depth)
    if found and not tree.root_node.has_error:
        node, decl, name = found[0]
        return _method(node, decl, name, language, texts, data, f.start_line - 1)
    return Method(name=_last(f.name), params=", ".join(" ".join(p.split()) for p in f.full_parameters),
                  start_line=f.start_line, end_line=f.end_line, link_start=f.start_line,
                  text=snippet)


def _errors(root):
    """The outermost ERROR and MISSING nodes of the tree."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            yield node
        elif node.has_error:
            stack.extend(node.children)


def _last(name: str) -> str:
    """The last part of a qualified name (``leveldb::DB::Get``, ``app.get``: ``Get``, ``get``)."""
    return name.replace("::", ".").rsplit(".", 1)[-1].strip()


def _parse(data: bytes, language: str, deadline: float | None):
    """tree-sitter's tree of ``data``; its progress callback stops a parse that runs past ``deadline``.

    The callback is only honoured when the source is read through a callable (on bytes tree-sitter
    ignores it), and a parse it cancels raises ``ValueError("Parsing failed")``. Such a tree's ``Node.text``
    reads through the callable again (30-140 us a node, 10 s for 20,000 Go functions' parameters): the texts
    are sliced from ``data`` instead (:func:`_text`).
    """
    ts = parser(language)
    if deadline is None:
        return ts.parse(data)
    try:
        return ts.parse(lambda byte, point: data[byte:byte + 65536],
                        progress_callback=lambda offset, has_error: time.monotonic() > deadline)
    except ValueError:
        check_deadline(deadline, "parsing the file")
        raise


def _functions(root, data: bytes, language: str, deadline: float | None, max_depth: int):
    """(function node, declaration node, name) of every kept function, in file order.

    Walks the whole tree (iteratively: no recursion limit) to measure its nesting, but does not keep
    anything below a function: a function value or declaration inside one belongs to it.
    """
    declarations, values = _DECLARATIONS[language], _VALUES[language]
    stack = [(root, 0, False)]  # node, nesting depth, inside a function
    found = []
    n = 0
    while stack:
        node, depth, inside = stack.pop()
        n += 1
        if deadline is not None and n % _DEADLINE_EVERY == 0:
            check_deadline(deadline, "walking the tree")
        if node.type in _BLOCKS or (node.child_count and node.children[0].type in _BRACKETS):
            depth += 1
            if depth > max_depth:
                raise ExtractionError(DropReason.TOO_DEEP, f"nesting deeper than {max_depth} at line "
                                                           f"{node.start_point[0] + 1}")
        if not inside:
            kept = None
            if node.type in declarations and _has_body(node):
                kept = (node, _declaration(node), _name(node, language, data))
            elif node.type in values and language in ("javascript", "typescript"):
                binding = node.parent
                if binding is not None and binding.type in _BINDINGS and _is_value(node, binding):
                    kept = (node, _declaration(binding),
                            _text(binding.child_by_field_name(_BINDINGS[binding.type]), data))
                elif node.child_by_field_name("name") is not None:  # defineGetter(req, 'ip', function ip() {})
                    kept = (node, node, _text(node.child_by_field_name("name"), data))
            if kept is not None and kept[2]:
                found.append(kept)
            inside = node.type in declarations or node.type in values
        stack.extend((child, depth, inside) for child in reversed(node.children))
    return found


def _is_value(node, binding) -> bool:
    """Whether ``node`` is the value ``binding`` binds (not, say, a default inside its name's pattern)."""
    field = "right" if binding.type == "assignment_expression" else "value"
    value = binding.child_by_field_name(field)
    return value is not None and value.id == node.id


def _has_body(node) -> bool:
    """Whether a declaration has a body: a block, an expression body or (C# property) an accessor with one; a
    Ruby method always has one (``def f; end`` has an empty one)."""
    if node.type in ("method", "singleton_method"):
        return True
    if node.type in ("property_declaration", "indexer_declaration"):
        value = node.child_by_field_name("value")  # an expression body, or an auto-property's initializer
        if value is not None and value.type == "arrow_expression_clause":
            return True
        accessors = node.child_by_field_name("accessors")
        return accessors is not None and any(a.child_by_field_name("body") is not None for a in accessors.children)
    body = node.child_by_field_name("body")
    return body is not None and body.type != "default_method_clause" and body.type != "delete_method_clause"


def _declaration(node):
    """The node whose lines the function spans: itself, or the statement binding it or wrapping it."""
    if node.type == "variable_declarator":
        node = node.parent  # const f = ...: the whole lexical declaration
    elif node.type == "assignment_expression":  # res.contentType = res.type = function () {}: the statement
        while node.parent is not None and node.parent.type in ("assignment_expression", "expression_statement"):
            node = node.parent
    while node.parent is not None and node.parent.type in _WRAPPERS:
        node = node.parent
    return node


def _name(node, language: str, data: bytes) -> str:
    """The function's name as the module doc gives it, per language."""
    if language in ("c", "cpp"):
        declarator = _function_declarator(node)
        return _text(declarator.child_by_field_name("declarator"), data) if declarator is not None else ""
    if node.type == "method_declaration" and language == "go":
        receiver = node.child_by_field_name("receiver")
        owner = next((c.child_by_field_name("type") for c in receiver.named_children
                      if c.type == "parameter_declaration"), None)
        return f"{_text(owner, data).lstrip('*').strip()}.{_text(node.child_by_field_name('name'), data)}"
    if node.type == "destructor_declaration":
        return "~" + _text(node.child_by_field_name("name"), data)
    if node.type == "operator_declaration":
        return "operator " + _text(node.child_by_field_name("operator"), data)
    if node.type == "conversion_operator_declaration":
        return "operator " + _text(node.child_by_field_name("type"), data)
    if node.type == "indexer_declaration":
        return "this"
    return _text(node.child_by_field_name("name"), data)


def _function_declarator(node):
    """The ``name(params)`` part of a C/C++ definition, under its pointer and reference declarators."""
    declarator = node.child_by_field_name("declarator")
    while declarator is not None and declarator.type != "function_declarator":
        # a reference declarator (``T& f()``) holds its declarator as a child, not a field
        declarator = declarator.child_by_field_name("declarator") or next(
            (c for c in declarator.named_children if "declarator" in c.type), None)
    return declarator


def _params(node, language: str, data: bytes) -> str:
    """The parameter list's tokens joined as Java's are, brackets, comments and annotations left out."""
    params = node.child_by_field_name("parameters") or node.child_by_field_name("parameter")
    if language in ("c", "cpp"):
        declarator = _function_declarator(node)
        params = declarator.child_by_field_name("parameters") if declarator is not None else None
    if params is None:
        return ""
    tokens = [data[leaf.start_byte:leaf.end_byte].decode() for leaf in _leaves(params, language)]
    if tokens and tokens[0] in ("(", "[") and tokens[-1] in (")", "]"):
        tokens = tokens[1:-1]
    return join_tokens(tokens)


def _leaves(node, language: str):
    """The leaves under ``node`` in order (a string literal is one: the language's ``atomic_literals``); comments
    and annotations left out."""
    literals = LANGUAGES[language].atomic_literals
    stack = [node]
    while stack:
        node = stack.pop()
        if "comment" in node.type or node.type in _ANNOTATIONS:
            continue
        if not node.child_count or node.type in literals:
            if node.end_byte > node.start_byte:
                yield node
            continue
        stack.extend(reversed(node.children))


def _first_code(decl, language: str):
    """The declaration's first token that is not in an annotation: where its text starts."""
    return next(_leaves(decl, language), decl)


def _link_start(decl) -> int:
    """Line of the declaration's first token; TypeScript decorators before a class member included."""
    first = decl
    while first.prev_named_sibling is not None and first.prev_named_sibling.type == "decorator":
        first = first.prev_named_sibling
    return first.start_point[0] + 1


def _end_line(node) -> int:
    """1-based line of the node's last character (a node ending with a newline ends on the line before)."""
    row, column = node.end_point
    return row if column == 0 and row > node.start_point[0] else row + 1


def _text(node, data: bytes) -> str:
    """The node's text (sliced from the parsed ``data``: :func:`_parse`), whitespace normalised."""
    return " ".join(data[node.start_byte:node.end_byte].decode().split()) if node is not None else ""

