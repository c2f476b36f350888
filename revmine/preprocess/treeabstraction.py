"""src2abs-style abstraction of functions in nine more languages, read off tree-sitter trees, with an exact inverse.

Java keeps its src2abs-exact abstraction (:mod:`.abstraction`); this module gives python, javascript,
typescript, go, c, cpp, csharp, php and ruby the same abstraction in src2abs's spirit (Tufano et al., ICSE 2019 and
2021: identifiers become ``TYPE_n``, ``METHOD_n``, ``VAR_n`` by role, literals ``STRING_n``, ``CHAR_n``,
``INT_n``, ``FLOAT_n`` by kind, idioms stay, comments go, tokens are joined by one space) and the same result
objects (:class:`.abstraction.Abstracted`, :class:`.abstraction.AbstractedPair`, :class:`.abstraction.Unit`),
so that :func:`.abstraction.unabstract` maps ids back. Ids are numbered per kind in order of first occurrence,
``before`` then ``after`` in pair mode (design card rules 9-10); a name can hold ids of several kinds.

**Tokens** (:func:`raw_tokens`, the meaning of ``raw`` in the replication package's ``*_raw.txt``) are the
leaves of the tree-sitter tree of the function as written, comments dropped (every node type ending in
``comment``), zero-width leaves (tree-sitter's MISSING tokens) dropped, leaves under ERROR nodes kept: a
function tree-sitter cannot read (lizard cuts an anonymous function mid-expression) still gives all its
tokens. A function that only parses inside its class (a JS/TS/C# method, a C++ in-class method) is parsed
inside a dummy class (:func:`revmine.lang.languages.parse_member`), as src2abs wraps Java methods, and only its
own leaves are used. Decisions:

* a string literal is one token (the language's ``atomic_literals``), whatever parts the grammar splits it
  into: Python f-strings, JS/TS template strings and C# interpolated strings included, with the expressions
  inside them (they are part of the literal's text, as a Java string is, and so the literal's id restores it
  exactly); adjacent literals (``"a" "b"``) stay separate tokens; a JS regular expression literal counts as
  a string;
* a literal keeps its exact text, newlines included; other leaves holding spaces (the unparsed body
  ``preproc_arg`` of a C ``#define``, an ERROR leaf) are split at whitespace and kept as they are, names
  inside them included: the tree does not say what they are;
* keywords, operators and the grammar's primitive types stay (C's grammar counts ``size_t``, ``uint8_t``
  as primitive types, C#'s ``int``/``string`` are ``predefined_type``); a statement end that is only a line
  break (Go, JavaScript without ``;``) is no leaf and so no token;
* Python's layout follows TransCoder (Lachaux et al., NeurIPS 2020, facebookresearch/TransCoder,
  ``preprocessing/src/code_tokenizer.py``, ``tokenize_python``), which reads Python with the standard
  ``tokenize``: ``NEW_LINE`` ends each logical line, ``INDENT``/``DEDENT`` open and close blocks, a string
  that is a statement on its own (a docstring) is removed with its line like a comment. Logical lines are
  those of the Python reference (2.1.5-2.1.8): a line break inside brackets or after ``\\`` continues the
  line, tabs indent to the next multiple of 8; the function's first line sets the base level, so a method
  indented in its class starts at level 0.

**Roles** come from node types and field names (tables :data:`RULES` below): a leaf that is an idiom stays;
else a name that a declaration or a call names is ``METHOD`` (the callee is followed through member access,
qualification and template/generic arguments to its last name, so ``a.b.c(x)`` makes ``c`` the method);
a name a type declaration names, or one that is in a type (grammar type leaves such as ``type_identifier``,
C++ ``namespace_identifier``, Go ``package_identifier``, or any name inside a type context such as Python
annotations and C# ``type``/``returns`` fields) is ``TYPE``; every other name (locals, parameters, fields,
properties, keyword-argument names, labels) is ``VAR``. Member access: the object keeps its own role and the
member is a ``VAR`` unless it is called (``obj.x`` is ``VAR . VAR``, ``obj.f()`` is ``VAR . METHOD``); a
qualified C++ type is one ``TYPE`` per part, as rule 11 splits dotted Java types. Per language:

* python: ``def`` names and callees METHOD, decorators METHOD (a decorator is a function applied), class
  names, superclasses and annotations TYPE; ``self`` is a name like any other (an idiom list keeps it);
* javascript/typescript: function, method and signature names, callees, and a variable or property a
  function or arrow function is assigned to (``const f = () => ...``, ``res.send = function ...``) METHOD;
  class/interface/enum/type-alias names, ``extends``/``implements`` clauses, ``new X`` and TS type names TYPE;
* python, javascript, typescript: a name that would be VAR or METHOD and is capitalised but not all upper
  case (``Session``, ``Error``, ``Object``) is TYPE: PEP 8 and JS's constructor convention, and the test
  Java's rule 12 applies; go, c, cpp and csharp do not (Go capitalises exported functions, C# all methods);
* go: functions, methods and interface methods METHOD; ``pkg.Type`` gives TYPE . TYPE, but a package in an
  expression (``fmt.Println``) is a plain name, VAR, since the tree does not tell it from a variable;
* c/cpp: the name of a ``function_declarator`` and callees METHOD (macros called like functions too),
  constructors and destructors are functions (METHOD); typedef names and namespaces TYPE;
* csharp: methods, local functions, constructors, destructors and callees METHOD; type declarations,
  ``type``/``returns`` fields, type arguments and parameters, base lists, constraints and attributes TYPE.
* php: functions, methods and callees (``f()``, ``$o->m()``, ``$o?->m()``, ``A::m()``) METHOD; class,
  interface, trait and enum names, parameter and return types, ``extends``/``implements`` and namespace parts
  TYPE; a variable is ``$`` (kept) and its name (VAR), as the grammar reads it;
* ruby: ``def`` names and callees METHOD (a call without arguments or parentheses is a call to the grammar
  only when it has a receiver or arguments: a bare ``foo`` is an identifier, VAR); constants (class and module
  names, ``CONSTANTS``) TYPE, as Ruby's grammar makes every capitalised name a constant; instance, class and
  global variables VAR with their sigils; a symbol (``:name``) is a STRING literal, as it is one token.

Literals: strings, characters (C/C++ ``char``, C# ``char``, Go runes) and numbers, which are ``INT`` unless
their text is a float (a ``.``, a decimal exponent, a hex ``p`` exponent, an imaginary suffix or C#'s
``f``/``d``/``m`` suffix); booleans and null/None/nil are keywords and stay. An idiom literal is kept only
when its text holds no whitespace but single spaces, so that splitting the line at spaces gives it back.

**Marking** as Java's (``spans=True``, :meth:`AbstractedPair.marked`): each unit has the characters of its
leaf; a Python ``NEW_LINE`` and the ``DEDENT``s that close the function carry the span of the token before
them, an ``INDENT``/``DEDENT`` within it that of the token after it, so marking a line marks its layout.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Iterable, NamedTuple

from ..errors import InputError
from ..lang.idioms import default_idioms
from ..lang.languages import LANGUAGES, parse_member
from .abstraction import Abstracted, AbstractedPair, Unit, Ids
from .methods import _DEADLINE_EVERY, check_deadline

__all__ = ["DEDENT", "INDENT", "NEW_LINE", "TREE_LANGUAGES", "abstract_code", "abstract_code_pair", "raw_tokens"]

NEW_LINE, INDENT, DEDENT = "NEW_LINE", "INDENT", "DEDENT"

# what a leaf is; names get their role (TYPE, METHOD, VAR), the rest are printed or literals
TYPE, METHOD, VAR, STRING, CHAR, INT, FLOAT, NUMBER, KEEP = (
    "TYPE_", "METHOD_", "VAR_", "STRING_", "CHAR_", "INT_", "FLOAT_", "NUMBER", "KEEP")
_NAME_ROLES = (TYPE, VAR, METHOD)
_LITERALS = (STRING, CHAR, INT, FLOAT)


@dataclass(frozen=True)
class _Rules:
    """One language's roles by node type and field name (module docstring)."""

    names: frozenset[str]  #: leaf types that are names
    #: node type -> literal kind (the node is one token): numbers, and the language's ``atomic_literals``
    #: (:mod:`revmine.lang.languages`), which are STRING unless given another kind here
    literals: dict[str, str]
    calls: dict[str, str]  #: call node -> the field holding its callee (METHOD)
    declares: dict[str, str]  #: declaration node -> field holding its name (METHOD)
    type_names: dict[str, str] = field(default_factory=dict)  #: node -> field naming a type (TYPE)
    type_leaves: frozenset[str] = frozenset()  #: leaf types that are always TYPE
    type_nodes: frozenset[str] = frozenset()  #: nodes whose names are all TYPE
    type_fields: frozenset[str] = frozenset()  #: fields whose names are all TYPE
    #: compound name -> the field (None: the first named child) holding its last name
    descend: dict[str, str | None] = field(default_factory=dict)
    #: declarator or assignment -> (name field, value field, value types that make the name a function)
    function_values: dict[str, tuple[str, str, frozenset[str]]] = field(default_factory=dict)
    capwords: bool = False  #: capitalised VAR/METHOD names are TYPE (module docstring)
    layout: bool = False  #: Python's NEW_LINE / INDENT / DEDENT
    skip: frozenset[str] = frozenset()  #: extras dropped besides comments


_JS_NAMES = frozenset({"identifier", "property_identifier", "shorthand_property_identifier",
                       "shorthand_property_identifier_pattern", "private_property_identifier", "statement_identifier"})
_JS_FUNCTIONS = frozenset({"arrow_function", "function_expression", "function", "generator_function"})
_JS = dict(
    literals={"number": NUMBER},
    calls={"call_expression": "function"},
    declares={"function_declaration": "name", "generator_function_declaration": "name", "function_expression": "name",
              "function": "name", "generator_function": "name", "method_definition": "name"},
    type_names={"class_declaration": "name", "class": "name", "new_expression": "constructor"},
    type_nodes=frozenset({"class_heritage"}),
    descend={"member_expression": "property", "parenthesized_expression": None},
    function_values={"variable_declarator": ("name", "value", _JS_FUNCTIONS),
                     "assignment_expression": ("left", "right", _JS_FUNCTIONS)},
    capwords=True,
)
_C = dict(
    names=frozenset({"identifier", "field_identifier", "type_identifier", "statement_identifier"}),
    literals={"char_literal": CHAR, "number_literal": NUMBER},
    calls={"call_expression": "function"},
    declares={"function_declarator": "declarator"},
    type_leaves=frozenset({"type_identifier"}),
    descend={"field_expression": "field", "parenthesized_declarator": None, "pointer_declarator": "declarator"},
)

_TABLES: dict[str, _Rules] = {
    "python": _Rules(
        names=frozenset({"identifier"}),
        literals={"integer": NUMBER, "float": NUMBER},
        calls={"call": "function", "decorator": None},
        declares={"function_definition": "name"},
        type_names={"class_definition": "name"},
        type_nodes=frozenset({"type"}),
        type_fields=frozenset({"superclasses"}),
        descend={"attribute": "attribute", "call": "function"},
        capwords=True,
        layout=True,
        skip=frozenset({"line_continuation"}),
    ),
    "javascript": _Rules(names=_JS_NAMES, **_JS),
    "typescript": _Rules(
        names=_JS_NAMES | {"type_identifier"},
        **{**_JS,
           "declares": {**_JS["declares"], "method_signature": "name", "abstract_method_signature": "name",
                        "function_signature": "name"},
           "type_names": {**_JS["type_names"], "abstract_class_declaration": "name", "enum_declaration": "name",
                          "interface_declaration": "name", "type_alias_declaration": "name"},
           "type_nodes": frozenset({"class_heritage", "extends_clause", "implements_clause",
                                    "nested_type_identifier"})},
        type_leaves=frozenset({"type_identifier"}),
    ),
    "go": _Rules(
        names=frozenset({"identifier", "field_identifier", "type_identifier", "package_identifier", "label_name"}),
        literals={"rune_literal": CHAR, "int_literal": INT, "float_literal": FLOAT, "imaginary_literal": FLOAT},
        calls={"call_expression": "function"},
        declares={"function_declaration": "name", "method_declaration": "name", "method_elem": "name",
                  "method_spec": "name"},
        type_names={"type_parameter_declaration": "name"},
        type_leaves=frozenset({"type_identifier", "package_identifier"}),
        descend={"selector_expression": "field", "parenthesized_expression": None, "generic_type": "type",
                 "index_expression": "operand"},
    ),
    "c": _Rules(**_C),
    "cpp": _Rules(
        **{**_C,
           "names": _C["names"] | {"namespace_identifier"},
           "literals": {**_C["literals"], "user_defined_literal": NUMBER},
           "type_leaves": frozenset({"type_identifier", "namespace_identifier"}),
           "descend": {**_C["descend"], "qualified_identifier": "name", "template_function": "name",
                       "template_method": "name", "destructor_name": None, "reference_declarator": None}},
    ),
    "csharp": _Rules(
        names=frozenset({"identifier", "implicit_parameter"}),
        literals={"character_literal": CHAR, "integer_literal": INT, "real_literal": FLOAT},
        calls={"invocation_expression": "function"},
        declares={"method_declaration": "name", "local_function_statement": "name",
                  "constructor_declaration": "name", "destructor_declaration": "name"},
        type_names={"class_declaration": "name", "struct_declaration": "name", "interface_declaration": "name",
                    "enum_declaration": "name", "record_declaration": "name", "delegate_declaration": "name",
                    "attribute": "name"},
        type_nodes=frozenset({"type_argument_list", "type_parameter", "type_parameter_constraints_clause",
                              "base_list", "qualified_name"}),
        type_fields=frozenset({"type", "returns"}),
        descend={"member_access_expression": "name", "generic_name": None, "parenthesized_expression": None,
                 "member_binding_expression": "name"},
    ),
    "php": _Rules(
        names=frozenset({"name"}),
        literals={"integer": INT, "float": FLOAT},
        calls={"function_call_expression": "function", "member_call_expression": "name",
               "nullsafe_member_call_expression": "name", "scoped_call_expression": "name"},
        declares={"function_definition": "name", "method_declaration": "name"},
        type_names={"class_declaration": "name", "interface_declaration": "name", "trait_declaration": "name",
                    "enum_declaration": "name"},
        type_nodes=frozenset({"named_type", "base_clause", "class_interface_clause", "namespace_name"}),
        type_fields=frozenset({"type", "return_type"}),
        descend={"parenthesized_expression": None},
    ),
    "ruby": _Rules(
        names=frozenset({"identifier", "constant", "instance_variable", "class_variable", "global_variable",
                         "hash_key_symbol"}),
        literals={"integer": INT, "float": FLOAT, "character": CHAR, "simple_symbol": STRING},
        calls={"call": "method"},
        declares={"method": "name", "singleton_method": "name"},
        type_names={"class": "name", "module": "name"},
        type_leaves=frozenset({"constant"}),
        type_nodes=frozenset({"superclass"}),
        descend={"scope_resolution": "name"},
    ),
}
#: the tables with each language's one-token literals (``atomic_literals``) added as STRING where not given
RULES: dict[str, _Rules] = {name: replace(rules, literals={**dict.fromkeys(LANGUAGES[name].atomic_literals, STRING),
                                                           **rules.literals})
                            for name, rules in _TABLES.items()}
#: the languages this module abstracts (Java has its own module)
TREE_LANGUAGES = tuple(RULES)

_WHITESPACE = re.compile(r"\S+")
_SPACE = re.compile(r"\s")
_HEX = re.compile(r"0[xX]")
_FLOAT_TEXT = re.compile(r"[.eE]|[jJiI]$|[fFdDmM]$")


class _Leaf(NamedTuple):
    text: str
    kind: str  # a name role, a literal kind or KEEP
    start: int  # characters of the source
    end: int


def raw_tokens(code: str, language: str) -> str:
    """The function's token line: its tree-sitter tokens with comments removed, un-abstracted, one space apart."""
    return " ".join(leaf.text for leaf in _tokens(code, language))


def abstract_code(code: str, language: str, idioms: Iterable[str] | None = None) -> Abstracted:
    """Abstract one function of ``language`` on its own (``idioms=None``: the language's shipped list)."""
    leaves = _tokens(code, language)  # first: an unknown language is an InputError, not a missing idiom file
    run = _Run(_idiom_set(idioms, language))
    printed = run.walk(leaves)
    mapping, ids = run.finish()
    return Abstracted(" ".join(printed), mapping, ids)


def abstract_code_pair(before: str, after: str, language: str, idioms: Iterable[str] | None = None,
                       spans: bool = False, deadline: float | None = None) -> AbstractedPair:
    """Abstract ``before`` then ``after`` with one map, as a dataset's src/tgt lines are made.

    ``spans``: also record where each unit of ``before`` comes from, for :meth:`AbstractedPair.marked`.
    ``deadline`` (:func:`time.monotonic`) is checked in the walk of each tree, the Python part that grows with
    the function (one expression of 100,000 terms: seconds), raising the ``timeout``
    :class:`~.methods.ExtractionError`.
    """
    leaves, leaves_after = _tokens(before, language, deadline), _tokens(after, language, deadline)
    run = _Run(_idiom_set(idioms, language))
    printed_before = run.walk(leaves)
    printed_after = run.walk(leaves_after)
    mapping, ids = run.finish()
    units = tuple(Unit(text, leaf.start, leaf.end) for text, leaf in zip(printed_before, leaves)) if spans else None
    return AbstractedPair(" ".join(printed_before), " ".join(printed_after), mapping, ids, units)


def _idiom_set(idioms: Iterable[str] | None, language: str) -> frozenset[str]:
    if idioms is None:
        return default_idioms(language)
    return idioms if isinstance(idioms, frozenset) else frozenset(idioms)


class _Run:
    """One abstraction: an id counter per kind, shared by both sides of a pair."""

    def __init__(self, idioms: frozenset[str]):
        self.idioms = idioms
        self.kinds = {kind: Ids(kind) for kind in (*_NAME_ROLES, *_LITERALS)}

    def walk(self, leaves: list[_Leaf]) -> list[str]:
        idioms, kinds = self.idioms, self.kinds
        out = []
        for text, kind, _, _ in leaves:
            if kind == KEEP or (text in idioms and (kind in _NAME_ROLES or " ".join(text.split()) == text)):
                out.append(text)
            else:
                out.append(kinds[kind].id(text))
        return out

    def finish(self) -> tuple[dict[str, str], dict[str, str]]:
        """The map (a name with ids of several kinds keeps its TYPE, then VAR, then METHOD id, as Java's) and
        its exact inverse."""
        mapping: dict[str, str] = {}
        ids: dict[str, str] = {}
        for kind in self.kinds.values():
            for name, abstract_id in kind.ids.items():
                mapping.setdefault(name, abstract_id)
                ids[abstract_id] = name
        return mapping, ids


# -- tokens and roles from the tree ---------------------------------------------------------------------


def _tokens(code: str, language: str, deadline: float | None = None) -> list[_Leaf]:
    """The function's leaves with their kinds and source characters (module docstring)."""
    rules = RULES.get(language)
    if rules is None:
        raise InputError.setting("language", f"{language!r} has no tree abstraction (known: {', '.join(RULES)}; "
                                 "Java's is revmine.preprocess.abstraction)")
    source = code.encode("utf-8")
    tree, offset = parse_member(language, source)
    leaves = _Walk(rules, source, offset).run(tree, deadline)
    if rules.layout:
        leaves = _layout(leaves, source)
    if len(source) == len(code):  # ASCII: bytes are characters
        return leaves
    chars = _char_offsets(code)
    return [_Leaf(text, kind, chars[start], chars[end]) for text, kind, start, end in leaves]


def _char_offsets(code: str) -> list[int]:
    """For each byte offset of ``code``'s UTF-8 (that starts a character, and the end), its character offset."""
    offsets = [0] * (len(code.encode("utf-8")) + 1)
    position = 0
    for index, char in enumerate(code):
        offsets[position] = index
        position += len(char.encode("utf-8"))
    offsets[position] = len(code)
    return offsets


class _Walk:
    """A pre-order walk of the tree with a cursor, collecting the leaves inside the function's bytes (``source``,
    at ``offset`` in the text parsed)."""

    def __init__(self, rules: _Rules, source: bytes, offset: int):
        self.rules, self.source, self.offset = rules, source, offset
        self.methods: set[int] = set()  # start bytes of names marked METHOD by a call or declaration
        self.types: set[int] = set()

    def mark(self, node, marks: set[int]) -> None:
        """Follow a callee or declared name to its last name and mark it."""
        descend, names = self.rules.descend, self.rules.names
        while node is not None:
            if node.type in names:
                marks.add(node.start_byte)
                return
            if node.type not in descend:
                return
            name = descend[node.type]
            node = node.named_children[0] if name is None and node.named_child_count else (
                node.child_by_field_name(name) if name else None)

    def run(self, tree, deadline: float | None = None) -> list[_Leaf]:
        rules, source, offset = self.rules, self.source, self.offset
        low, high = offset, offset + len(source)
        names, literals, skip = rules.names, rules.literals, rules.skip
        calls, declares, type_names, values = rules.calls, rules.declares, rules.type_names, rules.function_values
        type_nodes, type_fields = rules.type_nodes, rules.type_fields
        methods, types = self.methods, self.types
        out: list[_Leaf] = []
        cursor = tree.walk()
        depth, type_depth, visited = 0, -1, 0
        while True:
            visited += 1
            if deadline is not None and visited % _DEADLINE_EVERY == 0:
                check_deadline(deadline, "abstracting a function")
            node = cursor.node
            kind = node.type
            start, end = node.start_byte, node.end_byte
            if 0 <= type_depth and depth <= type_depth:
                type_depth = -1
            descend = end > low and start < high and not kind.endswith("comment") and kind not in skip and not (
                kind == "expression_statement" and rules.layout and _is_docstring(node))
            named = node.is_named
            if descend and type_depth < 0 and named and (kind in type_nodes or cursor.field_name in type_fields):
                type_depth = depth
            if descend and (named and kind in literals or node.child_count == 0):
                descend = False
                if end > start:
                    text = source[max(start - offset, 0):end - offset].decode("utf-8")
                    if named and kind in literals:
                        out.append(_Leaf(text, _literal_kind(literals[kind], node, text), start - offset, end - offset))
                    elif named and kind in names:
                        out.append(_Leaf(text, self.role(kind, text, start, type_depth >= 0), start - offset,
                                         end - offset))
                    elif not _SPACE.search(text):
                        out.append(_Leaf(text, KEEP, start - offset, end - offset))
                    else:  # kept, split at whitespace (C's preproc_arg; a directive's line end is dropped)
                        out += [_Leaf(m.group(), KEEP, start + m.start() - offset, start + m.end() - offset)
                                for m in _WHITESPACE.finditer(text)]
            elif descend and named:
                if kind in calls:
                    callee = calls[kind]
                    self.mark(node.child_by_field_name(callee) if callee else node.named_children[0], methods)
                if kind in declares:
                    self.mark(node.child_by_field_name(declares[kind]), methods)
                if kind in type_names:
                    self.mark(node.child_by_field_name(type_names[kind]), types)
                if kind in values:
                    name_field, value_field, functions = values[kind]
                    value = node.child_by_field_name(value_field)
                    if value is not None and value.type in functions:
                        self.mark(node.child_by_field_name(name_field), methods)
            if descend and cursor.goto_first_child():
                depth += 1
                continue
            while not cursor.goto_next_sibling():
                if not cursor.goto_parent():
                    return out
                depth -= 1

    def role(self, leaf_type: str, text: str, start: int, in_type: bool) -> str:
        if start in self.types or in_type or leaf_type in self.rules.type_leaves:
            return TYPE
        if self.rules.capwords and text[0].isupper() and text != text.upper():
            return TYPE
        return METHOD if start in self.methods else VAR


def _is_docstring(statement) -> bool:
    """A string that is a statement on its own: documentation, dropped like a comment (TransCoder)."""
    return statement.child_count == 1 and statement.children[0].type == "string"


def _layout(leaves: list[_Leaf], source: bytes) -> list[_Leaf]:
    """Python's leaves with ``NEW_LINE``/``INDENT``/``DEDENT`` as ``tokenize`` emits them (module docstring)."""
    out: list[_Leaf] = []
    levels: list[int] = []
    depth = 0
    previous = None
    for leaf in leaves:
        text, kind, start, end = leaf
        if previous is None or depth == 0 and _line_break(source[previous[3]:start]):
            line_start = source.rfind(b"\n", 0, start) + 1
            column = len(source[line_start:start].decode("utf-8").rsplit("\f", 1)[-1].expandtabs(8))
            if previous is None:
                levels.append(column)
            else:
                out.append(_Leaf(NEW_LINE, KEEP, previous[2], previous[3]))
                while len(levels) > 1 and column < levels[-1]:
                    levels.pop()
                    out.append(_Leaf(DEDENT, KEEP, start, end))
                if column > levels[-1]:
                    levels.append(column)
                    out.append(_Leaf(INDENT, KEEP, start, end))
        out.append(leaf)
        if kind == KEEP:
            if text in ("(", "[", "{"):
                depth += 1
            elif text in (")", "]", "}") and depth:
                depth -= 1
        previous = leaf
    if previous is not None:
        out.append(_Leaf(NEW_LINE, KEEP, previous[2], previous[3]))
        out += [_Leaf(DEDENT, KEEP, previous[2], previous[3])] * (len(levels) - 1)
    return out


def _line_break(gap: bytes) -> bool:
    """Whether the text between two tokens ends a logical line: a line break not escaped by a backslash."""
    lines = gap.split(b"\n")
    return any(not line.rstrip(b"\r").endswith(b"\\") for line in lines[:-1])


def _literal_kind(kind: str, node, text: str) -> str:
    """A literal's kind; a number's from its text, a C++ user-defined literal's (``"ab"s``, ``10ms``) from its
    literal part."""
    if kind != NUMBER:
        return kind
    if node.type == "user_defined_literal":
        inner = node.named_children[0].type
        if inner != "number_literal":
            return CHAR if inner == "char_literal" else STRING
    if _HEX.match(text):
        return FLOAT if "p" in text or "P" in text else INT
    return FLOAT if _FLOAT_TEXT.search(text) else INT
