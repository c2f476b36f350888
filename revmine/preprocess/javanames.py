"""The type, method and annotation names of a Java method, as the reference abstraction collects them.

src2abs decides whether an identifier is a TYPE, a METHOD or a VAR by looking it up in three name sets
that JavaParser collects from the method wrapped in a dummy class. The sets are defined here by
**javalang** (the design card's parser), fed with the tokens of :mod:`revmine.preprocess.javalex` so that
each method is lexed once. javalang reproduces the reference on every row of the 2021 test split once
three differences are bridged here:

* JavaParser rejects an interface ``default`` method inside the class wrapper; javalang accepts it. The
  reference then collects nothing (rule 4 of the design note), so a ``default`` member is treated as a
  parse failure. So is any character the lexer had to drop (JavaParser would not parse it either).
* javalang represents a qualified type as a chain from the outside in (``java`` -> ``util`` -> ``List``)
  and keeps qualifiers of ``Foo.Bar.class``, ``throws`` and ``catch`` as plain strings; JavaParser's
  nested ``ClassOrInterfaceType`` makes every qualified prefix a type of its own, so prefixes are added.
* javalang loses the method name of ``Foo.<T>bar()`` (it overwrites it with ``Foo``) and the calls inside
  a parenthesised primary such as ``(a.b()).c()``; a parser subclass keeps both.

javalang's parse is slow (it was about 70% of the abstraction's time), so :func:`collect_names` first
asks :mod:`revmine.preprocess.javatree`, which reads the same sets off a tree-sitter tree (parse and
names about three times faster), and parses with javalang only the methods whose tree that module
cannot vouch for: a broken tree, a node kind or construct not verified against javalang. On the 2021
test split (3,438 methods) 3,432 take the tree-sitter path (18 of them rejected as ``default`` methods)
and 6 go to javalang: 4 parse with neither, 2 hold Java 8 type annotations
(``benchmarks/bench_abstraction.py`` counts the paths).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from javalang import parser as jparser
from javalang import tokenizer as jtok
from javalang import tree

from .javalex import CHAR, FLOAT, IDENT, INT, KEYWORDS, STRING, Token
from .javatree import TYPE_SPLIT as _TYPE_SPLIT
from .javatree import tree_names
from .methods import _DEADLINE_EVERY, check_deadline


@dataclass
class NameSets:
    """Names the abstraction classifies against; one instance collects both methods of a pair."""

    types: set[str] = field(default_factory=set)
    methods: set[str] = field(default_factory=set)
    annotations: set[str] = field(default_factory=set)


class _Parenthesized(tree.Primary):
    """``( expression )`` used as a primary, so that calls chained on it do not overwrite the inner ones."""

    attrs = ("expression",)


class _Parser(jparser.Parser):
    """javalang's parser with two losses fixed: the name of ``Foo.<T>bar()`` and the calls in ``(a.b()).c()``.

    javalang returns a parenthesised expression itself as the primary and then resets its ``selectors``,
    dropping ``.b()``; wrapping it keeps both, as JavaParser's ``EnclosedExpr`` does.
    """

    def __init__(self, tokens):
        super().__init__(tokens)
        # javalang's end-of-input token has the value None, and some of its loops test ``token.value in '[.'``:
        # a method cut inside an anonymous class or an array initializer (``void f() { T t = new T() {``) made
        # it raise TypeError. A string no token can equal ends those loops, and the parse then fails (or ends)
        # as it would on any other token it cannot take.
        self.tokens.set_default(jtok.EndOfInput("\x00"))

    # accept / would_accept / try_accept are javalang's hottest calls; these read the token list directly
    # (same results, about a third less parsing time).
    def accept(self, *accepts):  # noqa: D102 - same contract as the parent
        tokens = self.tokens
        items = tokens.list
        token = None
        for accept in accepts:
            if tokens.marker >= len(items):
                raise jparser.JavaSyntaxError("Unexpected end of input")
            token = items[tokens.marker]
            tokens.marker += 1
            if accept.__class__ is str:
                if token.value != accept:
                    self.illegal(f"Expected '{accept}'")
            elif not isinstance(token, accept):
                self.illegal(f"Expected {accept.__name__}")
        return token.value

    def would_accept(self, *accepts):  # noqa: D102 - same contract as the parent
        tokens = self.tokens
        items, marker = tokens.list, tokens.marker
        end = len(items)
        for i, accept in enumerate(accepts):
            token = items[marker + i] if marker + i < end else tokens.default
            if accept.__class__ is str:
                if token.value != accept:
                    return False
            elif not isinstance(token, accept):
                return False
        return True

    def try_accept(self, *accepts):  # noqa: D102 - same contract as the parent
        tokens = self.tokens
        if len(accepts) == 1:  # the common case, inlined
            accept = accepts[0]
            marker = tokens.marker
            token = tokens.list[marker] if marker < len(tokens.list) else tokens.default
            if token.value == accept if accept.__class__ is str else isinstance(token, accept):
                tokens.marker = marker + 1
                return True
            return False
        if self.would_accept(*accepts):
            tokens.marker += len(accepts)
            return True
        return False

    def parse_block_statement(self):  # noqa: D102 - same contract as the parent
        # javalang first tries every statement that starts with a name as a variable declaration and
        # backtracks. A declaration needs ``Name(.Name)*([])* Name``; when the tokens cannot start one
        # (and hold no ``<`` that could open type arguments), go straight to the statement, as the
        # failed attempt would.
        tokens = self.tokens
        items, i, end = tokens.list, tokens.marker, len(tokens.list)
        if i + 1 < end and items[i].__class__ is jtok.Identifier:
            i += 1
            while i + 1 < end and items[i].value == "." and items[i + 1].__class__ is jtok.Identifier:
                i += 2
            while i + 1 < end and items[i].value == "[" and items[i + 1].value == "]":
                i += 2
            if i < end and items[i].value not in ("<", ":") and items[i].__class__ is not jtok.Identifier:
                return self.parse_statement()
        return super().parse_block_statement()

    deadline: float | None = None
    _primaries = 0

    def parse_primary(self):  # noqa: D102 - same contract as the parent; every operand passes here (deadline)
        self._primaries += 1
        if self.deadline is not None and self._primaries % _DEADLINE_EVERY == 0:
            check_deadline(self.deadline, "parsing a method with javalang")
        if self.tokens.look().value == "(":
            return _Parenthesized(expression=self.parse_par_expression())
        return super().parse_primary()

    def parse_explicit_generic_invocation(self):  # noqa: D102 - same contract as the parent
        invocation = super().parse_explicit_generic_invocation()
        invocation.generic_member = invocation.member  # parse_primary may overwrite .member afterwards
        return invocation


_WRAPPER_OPEN = (jtok.Keyword("class"), jtok.Identifier("Dummy"), jtok.Separator("{"))
_WRAPPER_CLOSE = (jtok.Separator("}"),)
# The Java 7 lexer splits these; javalang's grammar needs them whole (only when written without a gap).
_MERGE = {("-", ">"): "->", (":", ":"): "::", ("<", "<"): "<<"}
# javalang's parser only asks whether a token is a Literal, so one class per literal kind is enough.
_CLASS_BY_KIND = {
    IDENT: jtok.Identifier,
    STRING: jtok.String,
    CHAR: jtok.Character,
    INT: jtok.DecimalInteger,
    FLOAT: jtok.DecimalFloatingPoint,
}
_CLASS_BY_TEXT = {
    **{word: jtok.Keyword for word in KEYWORDS},
    **{word: jtok.BasicType for word in jtok.BasicType.VALUES},
    **{word: jtok.Modifier for word in jtok.Modifier.VALUES},
    "true": jtok.Boolean,
    "false": jtok.Boolean,
    "null": jtok.Null,
    "@": jtok.Annotation,
    **{text: jtok.Separator for text in jtok.Separator.VALUES},
}


def _javalang_tokens(tokens: list[Token]) -> list[jtok.JavaToken]:
    """Convert lexed tokens to javalang's token classes, inside the dummy class the reference wraps."""
    out: list[jtok.JavaToken] = list(_WRAPPER_OPEN)
    append = out.append
    by_kind, by_text = _CLASS_BY_KIND, _CLASS_BY_TEXT
    previous_text, previous_end = "", -1
    for kind, text, start in tokens:
        cls = by_kind.get(kind)
        if cls is None:
            if start == previous_end and (previous_text, text) in _MERGE:
                out[-1] = jtok.Operator(_MERGE[previous_text, text])
                previous_end = -1  # a merged token does not merge again
                continue
            cls = by_text.get(text, jtok.Operator)
        append(cls(text))
        previous_text, previous_end = text, start + len(text)
    out.extend(_WRAPPER_CLOSE)
    return out


def collect_names(tokens: list[Token], sets: NameSets, source: str | None = None,
                  deadline: float | None = None) -> bool:
    """Add the names of one method (already lexed) to ``sets``; False, adding nothing, if it does not parse.

    ``source``: the text ``tokens`` were lexed from, when the caller has it (else it is rebuilt from them).
    ``deadline``: checked as javalang parses and as its tree is walked (see :func:`.methods.check_deadline`).
    """
    names = tree_names(_source(tokens) if source is None else source)
    if names is None:
        return _collect_with_javalang(tokens, sets, deadline)
    if names is False:
        return False
    types, methods, annotations = names
    sets.types |= types
    sets.methods |= methods
    sets.annotations |= annotations
    return True


def _source(tokens: list[Token]) -> str:
    """Text that lexes to ``tokens``: adjacent tokens stay adjacent (``-`` ``>`` is not ``->`` with a gap)."""
    out: list[str] = []
    end = 0
    for _, text, start in tokens:
        if start != end:
            out.append(" ")
        out.append(text)
        end = start + len(text)
    return "".join(out)


def _collect_with_javalang(tokens: list[Token], sets: NameSets, deadline: float | None = None) -> bool:
    """:func:`collect_names` by javalang alone: the definition the tree-sitter path is checked against."""
    unit = _parse(tokens, deadline)
    marker_names: list[str] = []
    if unit is None and any(tok.text == "@" for tok in tokens):
        # JavaParser accepts Java 8 type annotations (``new @NonNull Foo[n]``); javalang does not. Retry
        # without the annotations that have no arguments (type annotations rarely have any).
        tokens, marker_names = _without_marker_annotations(tokens)
        unit = _parse(tokens, deadline)
    if unit is None:
        return False
    wrapper = unit.types[0]
    if any("default" in member.modifiers for member in wrapper.body if isinstance(member, tree.MethodDeclaration)):
        return False  # JavaParser: "'default' is not allowed here"
    sets.annotations.update(marker_names)
    _Collector(sets).walk(unit, deadline)
    return True


def _parse(tokens: list[Token], deadline: float | None = None) -> tree.CompilationUnit | None:
    parser = _Parser(_javalang_tokens(tokens))
    parser.deadline = deadline
    try:
        return parser.parse()
    except (jparser.JavaParserBaseException, RecursionError):
        return None


def _without_marker_annotations(tokens: list[Token]) -> tuple[list[Token], list[str]]:
    """``tokens`` without ``@Name`` / ``@a.b.Name`` not followed by ``(``, and those names."""
    kept: list[Token] = []
    names: list[str] = []
    i, count = 0, len(tokens)
    while i < count:
        tok = tokens[i]
        if tok.text == "@" and i + 1 < count and tokens[i + 1].kind == IDENT:
            j = i + 2
            while j + 1 < count and tokens[j].text == "." and tokens[j + 1].kind == IDENT:
                j += 2
            if j >= count or tokens[j].text != "(":
                names.append("".join(t.text for t in tokens[i + 1 : j]))
                i = j
                continue
        kept.append(tok)
        i += 1
    return kept, names


_NODE_CLASSES = frozenset(
    [cls for cls in vars(tree).values() if isinstance(cls, type) and issubclass(cls, tree.Node)] + [_Parenthesized]
)
_HAS_SELECTORS = frozenset(cls for cls in _NODE_CLASSES if "selectors" in cls.attrs)


class _Collector:
    """One walk over a javalang tree, adding what JavaParser's ``findAll`` calls would find."""

    def __init__(self, sets: NameSets):
        self.types = sets.types
        self.methods = sets.methods
        self.annotations = sets.annotations
        self.handlers = {
            tree.ReferenceType: self._reference_type,
            tree.TypeParameter: self._type_parameter,
            tree.MethodDeclaration: self._declaration,
            tree.ConstructorDeclaration: self._declaration,
            tree.MethodInvocation: self._method_invocation,
            tree.SuperMethodInvocation: self._super_method_invocation,
            tree.MethodReference: self._method_reference,
            tree.ClassReference: self._class_reference,
            tree.CatchClauseParameter: self._catch_parameter,
            tree.Annotation: self._annotation,
        }

    def walk(self, root: tree.Node, deadline: float | None = None) -> None:
        stack: list = [root]
        handlers, selectors_of = self.handlers, _HAS_SELECTORS
        n = 0
        while stack:
            n += 1
            if deadline is not None and n % _DEADLINE_EVERY == 0:
                check_deadline(deadline, "collecting a method's names")
            item = stack.pop()
            cls = type(item)
            if cls is list:
                stack.extend(item)
            elif cls in _NODE_CLASSES:
                handler = handlers.get(cls)
                if handler is None:
                    stack.extend(item.children)
                else:
                    handler(item, stack)
                if cls in selectors_of and item.selectors:
                    self._selector_scopes(item)

    # -- types ------------------------------------------------------------------------------------

    def _add_type_text(self, text: str) -> None:
        self.types.update(_TYPE_SPLIT.split(text))

    def _add_qualified(self, parts: list[str]) -> None:
        """A ClassOrInterfaceType ``a.b.C``: JavaParser sees ``a.b.C``, ``a.b`` and ``a`` as types."""
        for i in range(1, len(parts) + 1):
            self._add_type_text(".".join(parts[:i]))

    def _reference_type(self, node: tree.ReferenceType, stack: list) -> None:
        text = ""
        while node is not None:
            text = f"{text}.{node.name}" if text else node.name
            if node.arguments:
                stack.extend(node.arguments)
                text += "<" + ",".join(_type_text(a) for a in node.arguments) + ">"
            self._add_type_text(text)
            node = node.sub_type

    def _type_parameter(self, node: tree.TypeParameter, stack: list) -> None:
        self.types.add(node.name)
        if node.extends:
            stack.extend(node.extends)

    def _class_reference(self, node: tree.ClassReference, stack: list) -> None:
        if isinstance(node.type, tree.ReferenceType) and node.type.sub_type is None:
            qualifier = node.qualifier.split(".") if node.qualifier else []
            self._add_qualified(qualifier + [node.type.name])
        else:
            stack.append(node.type)
        stack.extend(node.selectors or ())

    def _catch_parameter(self, node: tree.CatchClauseParameter, stack: list) -> None:
        for name in node.types:
            self._add_qualified(name.split("."))
        stack.extend(node.children)

    # -- methods ----------------------------------------------------------------------------------

    def _declaration(self, node: tree.Declaration, stack: list) -> None:
        if isinstance(node, tree.MethodDeclaration):
            self.methods.add(node.name)
        for name in node.throws or ():
            self._add_qualified(name.split("."))
        stack.extend(node.children)

    def _method_invocation(self, node: tree.MethodInvocation, stack: list) -> None:
        generic = getattr(node, "generic_member", None)
        qualifier = node.qualifier
        if generic is not None and generic != node.member:  # javalang overwrote the name with the scope's last part
            qualifier = f"{qualifier}.{node.member}" if qualifier else node.member
            self.methods.add(generic)
        else:
            self.methods.add(node.member)
        if qualifier:
            self._scope(qualifier)
        stack.extend(node.children)

    def _super_method_invocation(self, node: tree.SuperMethodInvocation, stack: list) -> None:
        self.methods.add(node.member)
        stack.extend(node.children)

    def _method_reference(self, node: tree.MethodReference, stack: list) -> None:
        self.methods.add(node.method.member)
        scope = node.expression
        if isinstance(scope, tree.MemberReference) and not scope.selectors:
            # JavaParser reads the left side of ``x::m`` as a type, whatever its case.
            self._add_qualified((scope.qualifier.split(".") if scope.qualifier else []) + [scope.member])
        else:
            stack.append(scope)
        stack.extend(node.type_arguments or ())

    def _scope(self, text: str) -> None:
        """The scope of a call that is a name or field access counts as a type if its last part is capitalised."""
        first = text.rsplit(".", 1)[-1][:1]
        if first and first != first.lower():
            self._add_type_text(text)

    def _selector_scopes(self, node: tree.Primary) -> None:
        """Scopes of calls chained on a primary: ``a.b().C.d()`` has scope ``a.b().C`` (a field access)."""
        text = _expression_text(node, with_selectors=False)
        is_name = isinstance(node, tree.MemberReference)
        for selector in node.selectors:
            if isinstance(selector, tree.MemberReference):
                text, is_name = f"{text}.{selector.member}", True
            elif isinstance(selector, tree.MethodInvocation):
                if is_name:
                    self._scope(text)
                text, is_name = f"{text}.{_expression_text(selector)}", False
            else:
                text, is_name = text + _expression_text(selector), False

    def _annotation(self, node: tree.Annotation, stack: list) -> None:
        self.annotations.add(node.name)
        stack.extend(node.children)


def _type_text(node) -> str:
    """Enough of JavaParser's ``Type.asString()`` for the pieces that matter (names between separators)."""
    if isinstance(node, tree.TypeArgument):
        inner = _type_text(node.type) if node.type is not None else ""
        return f"? {node.pattern_type} {inner}".strip() if node.pattern_type in ("extends", "super") else (inner or "?")
    if isinstance(node, tree.ReferenceType):
        text = node.name + ("<" + ",".join(_type_text(a) for a in node.arguments) + ">" if node.arguments else "")
        return f"{text}.{_type_text(node.sub_type)}" if node.sub_type is not None else text
    return getattr(node, "name", "") or ""


def _expression_text(node, with_selectors: bool = True) -> str:
    """Enough of JavaParser's ``Expression.toString()`` to cut a call scope into the same pieces."""
    if isinstance(node, tree.MemberReference):
        text = f"{node.qualifier}.{node.member}" if node.qualifier else node.member
    elif isinstance(node, tree.MethodInvocation):
        args = ", ".join(_expression_text(a) for a in node.arguments or ())
        text = f"{node.qualifier}.{node.member}({args})" if node.qualifier else f"{node.member}({args})"
    elif isinstance(node, tree.This):
        text = "this"
    elif isinstance(node, tree.Literal):
        text = node.value
    elif isinstance(node, tree.ArraySelector):
        text = f"[{_expression_text(node.index)}]"
    else:
        text = ""
    if with_selectors and getattr(node, "selectors", None):
        for selector in node.selectors:
            part = _expression_text(selector)
            text += part if isinstance(selector, tree.ArraySelector) else f".{part}"
    return text
