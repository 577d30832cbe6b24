"""Name resolution through a module's own import statements.

This is the cheap alternative to libcst's ``QualifiedNameProvider``: one
table of import aliases per module plus the simple local bindings of a
function (``client = stripe.StripeClient(key)``, ``with httpx.Client() as c``,
``r: redis.Redis``).  It is enough to tell ``from uuid import uuid4 as
make_id`` from a project function called ``uuid4``, and ``redis.Redis().lock``
from ``threading.Lock()``.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from typing import Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union, cast

import libcst as cst


# Nodes that only lay code out: whitespace, comments, brackets and
# punctuation.  No analysis looks for them, and leaving them out of
# ``children`` keeps its per-class field order short.
LAYOUT = (
    cst.BaseParenthesizableWhitespace,
    cst.TrailingWhitespace,
    cst.EmptyLine,
    cst.Newline,
    cst.Comment,
    cst.LeftParen,
    cst.RightParen,
    cst.LeftSquareBracket,
    cst.RightSquareBracket,
    cst.LeftCurlyBrace,
    cst.RightCurlyBrace,
    cst.Comma,
    cst.Semicolon,
    cst.Colon,
    cst.Dot,
    cst.AssignEqual,
)

# The classes whose dataclass fields are not declared in source order
# (decorators, a ``for``'s ``async``, a handler's body are declared late).
_SOURCE_ORDER: Dict[type, Tuple[str, ...]] = {
    cst.FunctionDef: ("decorators", "asynchronous", "name", "type_parameters", "params", "returns", "body"),
    cst.ClassDef: ("decorators", "name", "type_parameters", "bases", "keywords", "body"),
    cst.IfExp: ("body", "test", "orelse"),
    cst.ExceptHandler: ("type", "name", "body"),
    cst.ExceptStarHandler: ("type", "name", "body"),
    cst.Parameters: ("posonly_params", "posonly_ind", "params", "star_arg", "kwonly_params", "star_kwarg"),
    cst.MatchCase: ("pattern", "guard", "body"),
    cst.Arg: ("star", "keyword", "value"),
    cst.For: ("asynchronous", "target", "iter", "body", "orelse"),
    cst.With: ("asynchronous", "items", "body"),
    cst.CompFor: ("asynchronous", "target", "iter", "ifs", "inner_for_in"),
    cst.TypeAlias: ("name", "type_parameters", "value"),
}
_FIELDS: Dict[type, Tuple[str, ...]] = {}


def children(node: cst.CSTNode) -> List[cst.CSTNode]:
    """The code nodes directly under ``node``, in source order, layout left out.

    libcst's ``CSTNode.children`` rebuilds the node through a visitor on
    every call, which made walks over helper bodies cost more than the rest
    of a run; this reads the dataclass fields instead.  The same nodes in
    the same order, less ``LAYOUT`` (``tests/test_names.py`` compares both
    on every kind of statement and expression).
    """
    kind = type(node)
    fields = _FIELDS.get(kind)
    if fields is None:
        fields = _SOURCE_ORDER.get(kind) or tuple(f.name for f in dataclasses.fields(node))
        _FIELDS[kind] = fields
    found: List[cst.CSTNode] = []
    for name in fields:
        value = getattr(node, name)
        if isinstance(value, (list, tuple)):
            found.extend(v for v in value if _is_code(type(v)))
        elif _is_code(type(value)):
            found.append(value)
    return found


_CODE: Dict[type, bool] = {}


def _is_code(kind: type) -> bool:
    """Whether values of this type are code nodes (asked per type, once:
    ``isinstance`` against libcst's abstract bases is slow)."""
    known = _CODE.get(kind)
    if known is None:
        known = _CODE[kind] = issubclass(kind, cst.CSTNode) and not issubclass(kind, LAYOUT)
    return known


def descendants(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """A node and every code node under it, in source order (see ``children``)."""
    waiting = [node]  # a stack, not recursion: ``yield from`` costs a frame per level
    while waiting:
        current = waiting.pop()
        yield current
        waiting.extend(reversed(children(current)))


def path_to(root: cst.CSTNode, target: cst.CSTNode) -> Optional[List[cst.CSTNode]]:
    """The nodes from ``root`` down to ``target``, both included."""
    if root is target:
        return [root]
    for child in children(root):
        below = path_to(child, target)
        if below is not None:
            return [root, *below]
    return None


def names_in(node: cst.CSTNode) -> Sequence[str]:
    """Every plain name the expression reads."""
    found: List[str] = []
    if isinstance(node, cst.Name):
        found.append(node.value)
    for child in children(node):
        if not (isinstance(node, cst.Attribute) and child is node.attr):
            found.extend(names_in(child))
    return found


_LOOPS = (cst.For, cst.While, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


def in_a_loop(function: cst.FunctionDef, node: cst.CSTNode) -> bool:
    """Whether ``node`` runs in a loop or a comprehension of ``function``
    (a key made there is the same on every pass)."""
    path = path_to(function.body, node)
    return path is not None and any(isinstance(step, _LOOPS) for step in path[:-1])


def method_name(call: cst.Call) -> Optional[str]:
    """The method a call runs on its receiver (``send`` for ``mailer.send()``)."""
    return call.func.attr.value if isinstance(call.func, cst.Attribute) else None


def called_name(call: cst.Call) -> Optional[str]:
    """The last name a call is made by: a method's, or a function's
    (``update`` for ``update(Model)``)."""
    func = call.func
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return func.value if isinstance(func, cst.Name) else None


def dotted_name(node: cst.BaseExpression) -> Optional[str]:
    """The spelled dotted name of a Name/Attribute chain, or None."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = dotted_name(node.value)
        return f"{base}.{node.attr.value}" if base else None
    return None


def import_bindings(
    node: Union[cst.Import, cst.ImportFrom], package: Optional[str] = None
) -> Dict[str, str]:
    """Local name -> qualified name for one import statement.

    Relative imports resolve against ``package`` when it is known and keep a
    leading dot otherwise, so they never collide with a top-level library.
    """
    bindings: Dict[str, str] = {}
    if isinstance(node, cst.Import):
        for alias in node.names:
            qualified = dotted_name(alias.name) or ""
            if alias.asname is not None:
                local = dotted_name(alias.asname.name)
                if local:
                    bindings[local] = qualified
            else:
                top = qualified.split(".")[0]
                bindings[top] = top
        return bindings
    if isinstance(node.names, cst.ImportStar):
        return bindings
    module = dotted_name(node.module) if node.module is not None else ""
    dots = "." * len(node.relative)
    if dots:
        module = absolute_module(dots, module or "", package)
    for alias in node.names:
        name = dotted_name(alias.name) or ""
        local = name
        if alias.asname is not None:
            local = dotted_name(alias.asname.name) or name
        bindings[local] = f"{module}.{name}" if module else name
    return bindings


def absolute_module(dots: str, module: str, package: Optional[str]) -> str:
    """The module a relative import (``dots``, ``module``) names from ``package``."""
    if package is None:
        return dots + module
    parts = package.split(".")
    keep = len(parts) - (len(dots) - 1)
    base = ".".join(parts[: max(keep, 0)])
    return ".".join(part for part in (base, module) if part)


class Resolver:
    """Resolves expressions to dotted names in one scope.

    ``imports`` is the module's alias table; ``bindings`` are names bound in
    the current scope to the resolved name of an expression (an instance is
    written with a trailing ``()``).  Names bound nowhere resolve to their own
    spelling, which is what the catalogue's ``*gateway*`` patterns and
    project-local helpers need.
    """

    def __init__(
        self,
        imports: Mapping[str, str],
        bindings: Optional[Mapping[str, str]] = None,
        parent: Optional["Resolver"] = None,
    ) -> None:
        self.imports = imports
        self.bindings: Dict[str, str] = dict(bindings or {})
        self.parent = parent

    def child(self) -> "Resolver":
        return Resolver(self.imports, parent=self)

    def bind(self, name: str, expression: cst.BaseExpression) -> None:
        resolved = self.resolve(expression)
        if resolved is not None:
            self.bindings[name] = resolved

    def lookup(self, name: str) -> Optional[str]:
        scope: Optional[Resolver] = self
        while scope is not None:
            if name in scope.bindings:
                return scope.bindings[name]
            scope = scope.parent
        return self.imports.get(name)

    def is_imported(self, name: str) -> bool:
        return name in self.imports

    def resolve(self, node: cst.BaseExpression) -> Optional[str]:
        # Exact types (concrete classes libcst never subclasses): asked of
        # every call a walk meets, and ``isinstance`` against libcst's ABCs
        # is slow when it fails.
        kind = type(node)
        if kind is cst.Name:
            spelled = cast(cst.Name, node).value
            return self.lookup(spelled) or spelled
        if kind is cst.Attribute:
            return self._attribute(cast(cst.Attribute, node))
        if kind is cst.Call:
            base = self.resolve(cast(cst.Call, node).func)
            return f"{base}()" if base else None
        if kind is cst.Subscript:
            base = self.resolve(cast(cst.Subscript, node).value)
            return f"{base}[]" if base else None
        if kind is cst.Await:
            return self.resolve(cast(cst.Await, node).expression)
        return None

    def _attribute(self, node: cst.Attribute) -> Optional[str]:
        value = node.value
        if type(value) is cst.Name and value.value == "self":
            bound = self.lookup(f"self.{node.attr.value}")
            if bound is not None:
                return bound
        base = self.resolve(value)
        return f"{base}.{node.attr.value}" if base else None


def literal_text(node: cst.CSTNode) -> Optional[str]:
    """The value of a str literal; None for bytes, non-literals and bad escapes.

    ``evaluated_value`` runs ``ast.literal_eval``, which warns (an error under
    ``-W error``) on invalid escapes such as ``"lock:\\d+"``.
    """
    if not isinstance(node, cst.SimpleString):
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = node.evaluated_value
    except (SyntaxError, ValueError, MemoryError):
        return None
    return value if isinstance(value, str) else None


def literal_number(node: cst.CSTNode) -> Optional[float]:
    """The finite value of an int or float literal (``1e309`` and 300-digit ints are not)."""
    if not isinstance(node, (cst.Integer, cst.Float)):
        return None
    try:
        value = float(node.evaluated_value)
    except (OverflowError, ValueError):
        return None
    return value if math.isfinite(value) else None


def argument(
    call: cst.Call,
    position: Optional[int],
    keyword: Union[str, Sequence[str], None] = None,
) -> Optional[cst.BaseExpression]:
    """The argument passed by ``keyword`` (one name or several), else at
    ``position``; unknown behind a ``*args`` splat."""
    names = (keyword,) if isinstance(keyword, str) else tuple(keyword or ())
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in names:
            return arg.value
    if position is None or any(a.star == "*" for a in call.args):
        return None
    positional = [a for a in call.args if a.keyword is None and a.star == ""]
    return positional[position].value if position < len(positional) else None
