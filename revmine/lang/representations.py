"""Token streams and simplified parse trees (SPT) of Java methods, the representations of Project CodeNet.

Project CodeNet (Puri et al., NeurIPS Datasets and Benchmarks 2021, arXiv 2105.12655, section "Code
representation and tools") gives each program as a token stream and as a *simplified parse tree*; this
module computes both for one method, raw or abstracted, and the export writes them (``revmine export
--representations tokens,spt``).

**Tokens** are the leaves of tree-sitter-java's concrete tree of the method, comments left out, each
with its kind after the Java Language Specification (§3.8-3.12): ``keyword`` (the 50 reserved keywords;
contextual ones such as ``var``/``record`` are identifiers), ``identifier``, the literal kinds
``integer_literal``, ``floating_point_literal``, ``boolean_literal``, ``character_literal``,
``string_literal``, ``text_block``, ``null_literal``, then ``operator`` and ``separator``; ``unknown`` for
a character no Java token has. A string literal is one token (tree-sitter splits it into quotes and
fragments). Where ``>>`` or ``>>>`` close nested type arguments (``List<List<T>>``) they are two or three
``>`` tokens, as javac's parser splits them and as CodeNet's ANTLR grammar always lexes them; in a shift
expression they are one operator.

**Abstracted tokens** are the abstraction's own tokens (the space-separated ``m_s_abstract`` text, token
for token the OpenNMT line): ``TYPE_n``, ``METHOD_n``, ``VAR_n`` are identifiers, ``STRING_n``,
``CHAR_n``, ``INT_n``, ``FLOAT_n`` the literal kinds they stand for, idioms are classified by their text
(``0`` an integer literal, ``""`` a string literal), and an annotation printed as one token (an idiom
such as ``@Override``, or ``ANNOTATION_n``, which stands for ``@`` and the name) is an ``annotation``.

**The SPT** follows CodeNet's definition and its tool (IBM/Project_CodeNet, ``tools/spt-generator``:
``SPTNode.simplify`` and ``aromaLabeling``; ``tools/json-graph/spt-schema.json``): from the full parse
tree, every internal node with one child is replaced by its (simplified) child, so internal nodes keep
at least two children and the leaves are the tokens, in order. A leaf is named by its text; an internal
node by the concatenation of its children's names, keeping a child's name when it is a reserved word and
writing ``#`` for any other child (an identifier, a literal, an internal node): the convention of Aroma
(Luan et al., OOPSLA 2019), e.g. ``return x;`` is ``return#;``. Reserved words are CodeNet's Java list
(``JavaReservedWordDecider``: the 50 keywords and 45 operators and separators, not ``@`` nor ``...``),
plus ``<<``, ``>>`` and ``>>>``, which CodeNet's lexer reads as two or three reserved ``<``/``>`` tokens
(so the name is the same). The full parse tree is tree-sitter-java's concrete tree (ANTLR's needs a Java
toolchain): rule names are tree-sitter's (``method_declaration``, ``binary_expression``).

The SPT is written in CodeNet's JSON graph format: ``{"graph": {"version": "1.0", "type": "tree",
"directed": true, "order": "bfs", "root": 0, "num-of-nodes", "num-of-edges", "errors", "nodes",
"edges"}}``. Node ids are breadth-first; each node has ``id``, ``label`` (its name), ``node-type``
(``Token`` or ``Rule``), ``type-rule-name`` (the token's or rule's tree-sitter type) and
``reserved-word-flag``; a token also has ``token-id`` (its index in :func:`token_stream`) and
``token-kind``. An edge is ``{"between": [parent, child]}``, in breadth-first order of parents and in
order of children; the format's edge ``label`` is where edge types can go later. ``errors`` counts the
ERROR and missing nodes of tree-sitter's parse (0 when it read the method as Java): the tree is built
all the same, from the tokens tree-sitter recovered. Code that is not one class member gives what
tree-sitter made of it inside the class: two methods hang from the ``class_body`` node (without the braces
revmine added), a bare statement is read with ERROR nodes.

**The abstracted SPT** is the SPT of the abstracted text parsed as Java. Abstracted text is Java with
placeholders for names and literals, except that the abstraction prints ``->`` and ``::`` as two tokens
(``- >``, ``: :``; ``revmine.preprocess.javalex``): these are joined back before parsing (neither pair
can occur in Java otherwise), and ``ANNOTATION_n`` is written ``@ANNOTATION_n``. Its leaves are the
abstracted tokens in order, except that an annotation token is two leaves, ``@`` and the name (an
``identifier``). Placeholders keep their literal kinds (``STRING_1`` is a ``string_literal`` token).
Where the abstracted text is still not Java (a shift ``> >``), ``errors`` says so.
"""

from __future__ import annotations

import re
from collections import deque
from functools import lru_cache
from typing import Any, NamedTuple

__all__ = ["TOKEN_KINDS", "Token", "token_stream", "token_kind", "simplified_parse_tree", "spt_size", "spt_tokens"]

KEYWORDS = frozenset(
    "abstract assert boolean break byte case catch char class const continue default do double else enum "
    "extends final finally float for if goto implements import instanceof int interface long native new "
    "package private protected public return short static strictfp super switch synchronized this throw "
    "throws transient try void volatile while _".split()
)
#: JLS §3.11.
SEPARATORS = frozenset("( ) { } [ ] ; , . ... @ ::".split())
#: JLS §3.12.
OPERATORS = frozenset(
    "= > < ! ~ ? : -> == >= <= != && || ++ -- + - * / & | ^ % << >> >>> += -= *= /= &= |= ^= %= <<= >>= >>>=".split()
)
#: CodeNet's ``JavaReservedWordDecider`` (keywords, then operators and separators), plus the shifts (module doc).
RESERVED = (KEYWORDS - {"_"}) | frozenset(
    "( ) { } [ ] ; , . = > < ! ~ ? : == <= >= != && || ++ -- + - * / & | ^ % += -= *= /= &= |= ^= %= <<= >>= "
    ">>>= -> :: << >> >>>".split()
)

KEYWORD, IDENTIFIER, OPERATOR, SEPARATOR, ANNOTATION, UNKNOWN = (
    "keyword", "identifier", "operator", "separator", "annotation", "unknown")
INTEGER, FLOATING, BOOLEAN, CHARACTER, STRING, TEXT_BLOCK, NULL = (
    "integer_literal", "floating_point_literal", "boolean_literal", "character_literal", "string_literal",
    "text_block", "null_literal")
TOKEN_KINDS = (KEYWORD, IDENTIFIER, INTEGER, FLOATING, BOOLEAN, CHARACTER, STRING, TEXT_BLOCK, NULL, OPERATOR,
               SEPARATOR, ANNOTATION, UNKNOWN)

#: The abstraction's placeholders and the kind of token each stands for.
_PLACEHOLDER = re.compile(r"(TYPE|METHOD|VAR|ANNOTATION|STRING|CHAR|INT|FLOAT)_[0-9]+")
_PLACEHOLDER_KINDS = {"TYPE": IDENTIFIER, "METHOD": IDENTIFIER, "VAR": IDENTIFIER, "ANNOTATION": ANNOTATION,
                      "STRING": STRING,
                      "CHAR": CHARACTER, "INT": INTEGER, "FLOAT": FLOATING}
#: Tree-sitter nodes that are one token although tree-sitter gives them children (quotes, fragments).
_ATOMIC = frozenset({"string_literal", "character_literal"})
#: Tree-sitter's "extra" nodes that are not tokens (its ERROR nodes are extras too, and hold tokens).
_COMMENTS = frozenset({"line_comment", "block_comment"})
#: What the method is parsed in: tree-sitter-java reads a class member, not a bare method, as Java.
_PREFIX, _SUFFIX = "class _ {\n", "\n}"
#: The abstraction's split operators (module doc), joined back before the abstracted text is parsed.
_SPLIT_OPERATORS = {("-", ">"): "->", (":", ":"): "::"}


class Token(NamedTuple):
    text: str
    kind: str


def token_kind(text: str, abstracted: bool = False) -> str:
    """The JLS kind of one token, read from its text (``abstracted``: placeholders and idioms too)."""
    if abstracted:
        placeholder = _PLACEHOLDER.fullmatch(text)
        if placeholder:
            return _PLACEHOLDER_KINDS[placeholder.group(1)]
        if len(text) > 1 and text[0] == "@":
            return ANNOTATION
    first = text[:1]
    if first == '"':
        return TEXT_BLOCK if text.startswith('"""') else STRING
    if first == "'":
        return CHARACTER
    if first.isdigit() or (first == "." and text[1:2].isdigit()):
        return _number_kind(text)
    if text in KEYWORDS:
        return KEYWORD
    if text in ("true", "false"):
        return BOOLEAN
    if text == "null":
        return NULL
    if text in SEPARATORS:
        return SEPARATOR
    if text in OPERATORS:
        return OPERATOR
    if first.isalpha() or first in "_$":
        return IDENTIFIER
    return UNKNOWN


def _number_kind(text: str) -> str:
    """JLS §3.10.1-2: hexadecimal floats have a ``p`` exponent; ``F``/``D`` are digits in hexadecimal."""
    lowered = text.lower()
    if lowered.startswith("0x"):
        return FLOATING if "p" in lowered else INTEGER
    if lowered.startswith("0b"):
        return INTEGER
    return FLOATING if any(c in lowered for c in ".efd") else INTEGER


def token_stream(code: str, abstracted: bool = False) -> list[Token]:
    """The tokens of a method with their kinds: the leaves of its parse tree, or (``abstracted``) the
    abstraction's space-separated tokens (module doc)."""
    if abstracted:
        return [Token(text, token_kind(text, abstracted=True)) for text in code.split()]
    root, _ = _parse(code, abstracted=False)
    return [Token(leaf.text, leaf.kind) for leaf in _leaves(root)]


class _Node:
    """A node of the parse tree being simplified; a leaf (a token) has ``text``."""

    __slots__ = ("type", "text", "kind", "children", "kept", "token_id", "node_id")

    def __init__(self, type_: str, text: str | None = None, kind: str = "") -> None:
        self.type, self.text, self.kind = type_, text, kind
        self.children: list[_Node] = []
        self.kept: _Node | None = None  # what the node is after simplification (None: nothing)
        self.token_id = self.node_id = 0


@lru_cache(maxsize=1)
def _parser() -> Any:
    try:
        import tree_sitter
        import tree_sitter_java
    except ImportError as exc:  # a core dependency; only a broken install lacks it
        raise ImportError("revmine's representations need tree-sitter and tree-sitter-java: "
                          "pip install tree-sitter tree-sitter-java") from exc
    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_java.language()))


def _parse(code: str, abstracted: bool) -> tuple[_Node | None, int]:
    """The simplified tree of ``code`` (None when it has no token) and the number of parse errors in it."""
    if abstracted:
        code = " ".join(_as_java(code.split()))
    prefix = _PREFIX.encode()
    source = prefix + code.encode("utf-8") + _SUFFIX.encode()
    lo, hi = len(prefix), len(source) - len(_SUFFIX)
    tree = _parser().parse(source)
    root = _Node(tree.root_node.type)
    errors = 0
    stack = [(tree.root_node, root)]
    while stack:
        ts_node, node = stack.pop()
        for child in ts_node.children:
            type_, start, end = child.type, child.start_byte, child.end_byte
            if start == end:  # a missing token (the wrapper is Java: every error is the code's)
                errors += child.is_missing
                continue
            errors += type_ == "ERROR"
            start, end = max(start, lo), min(end, hi)
            if type_ in _COMMENTS or start >= end:  # comments; the wrapper's tokens
                continue
            if type_ in _ATOMIC or child.child_count == 0:
                text = source[start:end].decode("utf-8")
                kind = token_kind(text, abstracted)
                node.children.append(_Node(type_, text, IDENTIFIER if kind == ANNOTATION else kind))
            else:
                made = _Node(type_)
                node.children.append(made)
                stack.append((child, made))
    return _simplify(root), errors


def _as_java(tokens: list[str]) -> list[str]:
    """Abstracted tokens as Java: split operators joined, ``ANNOTATION_n`` written ``@ANNOTATION_n``."""
    joined: list[str] = []
    for text in tokens:
        pair = (joined[-1], text) if joined else None
        if pair in _SPLIT_OPERATORS:
            joined[-1] = _SPLIT_OPERATORS[pair]
        else:
            joined.append("@" + text if text.startswith("ANNOTATION_") else text)
    return joined


def _simplify(root: _Node) -> _Node | None:
    """CodeNet's ``SPTNode.simplify``: a rule node with one child becomes that child (recursively); a rule
    node left with no child (all its tokens were outside the method) disappears."""
    order, stack = [], [root]
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(node.children)
    for node in reversed(order):  # children before their parents
        if node.text is not None:
            node.kept = node
            continue
        node.children = [c.kept for c in node.children if c.kept is not None]
        node.kept = None if not node.children else node.children[0] if len(node.children) == 1 else node
    simplified = root.kept
    for node in order:
        node.kept = None  # no reference cycle left for the garbage collector
    return simplified


def _leaves(root: _Node | None) -> list[_Node]:
    """The tokens, in order."""
    leaves, stack = [], [root] if root is not None else []
    while stack:
        node = stack.pop()
        if node.text is not None:
            leaves.append(node)
        else:
            stack.extend(reversed(node.children))
    return leaves


def simplified_parse_tree(code: str, abstracted: bool = False) -> dict[str, Any]:
    """The SPT of a method in CodeNet's JSON graph format (module doc); ``abstracted``: of the abstracted
    text. Code with no token gives a graph with no node (``root`` null)."""
    root, errors = _parse(code, abstracted)
    for i, leaf in enumerate(_leaves(root)):
        leaf.token_id = i
    order: list[_Node] = []
    queue = deque([root] if root is not None else [])
    while queue:
        node = queue.popleft()
        node.node_id = len(order)
        order.append(node)
        queue.extend(node.children)
    nodes, edges = [], []
    for i, node in enumerate(order):
        if node.text is not None:
            nodes.append({"id": i, "label": node.text, "node-type": "Token", "type-rule-name": node.type,
                          "reserved-word-flag": node.text in RESERVED, "token-id": node.token_id,
                          "token-kind": node.kind})
            continue
        label = "".join(c.text if c.text is not None and c.text in RESERVED else "#" for c in node.children)
        nodes.append({"id": i, "label": label, "node-type": "Rule", "type-rule-name": node.type,
                      "reserved-word-flag": False})
        edges += [{"between": [i, c.node_id]} for c in node.children]
    return {"graph": {"version": "1.0", "type": "tree", "directed": True, "order": "bfs",
                      "root": 0 if nodes else None, "num-of-nodes": len(nodes), "num-of-edges": len(edges),
                      "errors": errors, "nodes": nodes, "edges": edges}}


def spt_tokens(graph: dict[str, Any]) -> list[Token]:
    """The tokens of an SPT in order: for raw code, :func:`token_stream` without parsing again."""
    leaves = sorted((n for n in graph["graph"]["nodes"] if n["node-type"] == "Token"), key=lambda n: n["token-id"])
    return [Token(n["label"], n["token-kind"]) for n in leaves]


def spt_size(graph: dict[str, Any]) -> tuple[int, int]:
    """(nodes, edges) of an SPT as :func:`simplified_parse_tree` gives it."""
    return graph["graph"]["num-of-nodes"], graph["graph"]["num-of-edges"]
