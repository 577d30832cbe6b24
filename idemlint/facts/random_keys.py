"""Random keys: a key built from a value that changes on every run (IDM001).

An idempotency key, a lock key or a dedup key made from ``uuid4()``, the
clock, ``random``, or a salted ``hash()`` of text is new on every delivery,
so the deduplication it exists for never matches.  :func:`random_keys`
follows each nondeterministic call through locals, helper returns, string
building and hashing to the key arguments of catalogued calls
(:meth:`idemlint.effects.Knowledge.key_sinks`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Dict, List, Optional, Set, Tuple

import libcst as cst

from idemlint import catalog
from idemlint.semantic.trace import Event, FunctionScope
from idemlint.effects import KeySink
from idemlint.names import in_a_loop, names_in
from idemlint.unit_of_work import key_placeholders, work_key

if TYPE_CHECKING:
    from idemlint.facts import TaskFacts

_STRING_METHODS = frozenset({"format", "join", "encode", "replace", "lower", "upper"})


@dataclass(frozen=True)
class RandomKey:
    """A key (``sink``, read at ``event``) built from the nondeterministic
    call ``source``.  ``rewritable`` is the expression whose random part a
    fix may replace by the task's identifying arguments: the key built in
    the task's own body from a random source (not a clock), reading none of
    the task's parameters, outside a loop, and, through a local, one
    assigned once and read once as this key; None otherwise."""

    event: Event
    sink: KeySink
    source: cst.Call
    rewritable: Optional[cst.BaseExpression] = None


def random_keys(facts: "TaskFacts") -> Tuple[RandomKey, ...]:
    """Each nondeterministic call that reaches a key, once, where it first does."""
    flow = _Flow()
    found: List[RandomKey] = []
    seen: Set[int] = set()
    for event in facts.trace.events:
        for sink in facts.knowledge.key_sinks(event):
            for source in flow.sources(sink.expression, event.scope):
                if id(source) not in seen:
                    seen.add(id(source))
                    found.append(RandomKey(event, sink, source, _rewritable(sink, source, event, facts, flow)))
        flow.record(event)
    return tuple(found)


def _rewritable(
    sink: KeySink, source: cst.Call, event: Event, facts: "TaskFacts", flow: "_Flow"
) -> Optional[cst.BaseExpression]:
    """See :class:`RandomKey`: not for a clock (the time may name a period
    the work belongs to), nor for a key that already reads one of the task's
    parameters (the random part was added on purpose), nor where the random
    value is used other than spelled as text."""
    scope = event.scope
    if not scope.is_task or not catalog.matches_any(catalog.RANDOM_SOURCES, scope.resolver.resolve(source.func)):
        return None
    if key_placeholders(facts.task) is None or work_key(facts.task) is None:
        return None
    assigned = flow.only_value(sink.expression, scope)
    expression = assigned or sink.expression
    if set(names_in(expression)) & set(scope.parameters) or in_a_loop(scope.function, source):
        return None
    if assigned is not None and isinstance(sink.expression, cst.Name):
        # Assigned once and read once, as this key: a variable read elsewhere
        # (a lock's token too) would change there as well.
        if names_in(scope.function.body).count(sink.expression.value) != 2:
            return None
    return expression


class _Flow:
    """Which nondeterministic calls each local name may hold, in execution order."""

    def __init__(self) -> None:
        self.names: Dict[Tuple[int, str], List[cst.Call]] = {}
        self.returns: Dict[int, List[cst.Call]] = {}
        # Every value assigned to each local name in its own scope (None:
        # assigned some other way, augmented or bound from another scope).
        self.values: Dict[Tuple[int, str], List[Optional[cst.BaseExpression]]] = {}

    def record(self, event: Event) -> None:
        if event.kind in ("assign", "bind") and event.value is not None:
            value_scope = event.value_scope or event.scope
            sources = self.sources(event.value, value_scope)
            augmented = isinstance(event.node, cst.AugAssign)
            plain = event.kind == "assign" and not augmented and value_scope is event.scope and len(event.targets) == 1
            for target in event.targets:
                if isinstance(target, cst.Name):
                    key = (id(event.scope), target.value)
                    previous = self.names.get(key, []) if augmented else []
                    self.names[key] = previous + sources
                    self.values.setdefault(key, []).append(event.value if plain else None)
        elif event.kind == "return" and event.value is not None and event.call_site:
            self.returns.setdefault(id(event.call_site), []).extend(
                self.sources(event.value, event.scope)
            )

    def only_value(self, node: cst.BaseExpression, scope: FunctionScope) -> Optional[cst.BaseExpression]:
        """The value a name holds when one plain assignment in its scope gave it."""
        if not isinstance(node, cst.Name):
            return None
        values = self.values.get((id(scope), node.value), [])
        return values[0] if len(values) == 1 else None

    def sources(self, node: cst.BaseExpression, scope: FunctionScope) -> List[cst.Call]:
        if isinstance(node, cst.Name):
            return list(self.names.get((id(scope), node.value), []))
        if isinstance(node, cst.Call):
            return self._call_sources(node, scope)
        if isinstance(node, (cst.Attribute, cst.Subscript)):
            return self.sources(node.value, scope)
        if isinstance(node, cst.Await):
            return self.sources(node.expression, scope)
        if isinstance(node, cst.FormattedString):
            found: List[cst.Call] = []
            for part in node.parts:
                if isinstance(part, cst.FormattedStringExpression):
                    found += self.sources(part.expression, scope)
                    for spec in part.format_spec or ():
                        if isinstance(spec, cst.FormattedStringExpression):
                            found += self.sources(spec.expression, scope)
            return found
        if isinstance(node, (cst.BinaryOperation, cst.BooleanOperation)):
            return self.sources(node.left, scope) + self.sources(node.right, scope)
        if isinstance(node, cst.ConcatenatedString):
            return self.sources(node.left, scope) + self.sources(node.right, scope)
        if isinstance(node, cst.IfExp):
            return self.sources(node.body, scope) + self.sources(node.orelse, scope)
        if isinstance(node, (cst.Tuple, cst.List)):
            found = []
            for element in node.elements:
                found += self.sources(element.value, scope)
            return found
        return []

    def _call_sources(self, call: cst.Call, scope: FunctionScope) -> List[cst.Call]:
        callee = scope.resolver.resolve(call.func)
        if catalog.matches_any(catalog.NONDETERMINISTIC_SOURCES, callee):
            return [call]
        if callee == "hash" and call.args and _may_be_salted(call.args[0].value, scope):
            return [call]
        if id(call) in self.returns:
            return list(self.returns[id(call)])
        found: List[cst.Call] = []
        func = call.func
        reads_arguments = catalog.matches_any(catalog.DERIVING_CALLS, callee)  # ``hashlib.sha256(...)`` too
        if isinstance(func, cst.Attribute):
            found += self.sources(func.value, scope)
            reads_arguments = reads_arguments or func.attr.value in _STRING_METHODS
        if reads_arguments:
            for arg in call.args:
                found += self.sources(arg.value, scope)
        return found


_STRING_CALLS = frozenset({"str", "repr", "format", "json.dumps", "ascii", "bytes"})
_STRING_METHODS_RESULT = frozenset(
    {"format", "join", "lower", "upper", "strip", "encode", "decode", "replace", "hexdigest"}
)
_NUMERIC_NAME = re.compile(r"(^|_)(id|pk|count|num|number|index|idx|n|amount|total|seq)\Z", re.I)
_TEXT_ANNOTATIONS = frozenset({"str", "bytes"})


def _may_be_salted(node: cst.BaseExpression, scope: FunctionScope) -> bool:
    """Whether ``hash(node)`` may hash a str or bytes (salted per process).

    Literals, ``str()`` and string methods are text; numbers and ``int()`` are
    not.  A bare name or attribute is judged by its annotation, else by its
    name: ``order_id`` and ``pk`` hold numbers, ``email`` and ``slug`` text.
    """
    if isinstance(node, (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)):
        return True
    if isinstance(node, (cst.Integer, cst.Float)):
        return False
    if isinstance(node, cst.Call):
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in _STRING_METHODS_RESULT:
            return True
        return scope.resolver.resolve(func) in _STRING_CALLS
    if isinstance(node, cst.BinaryOperation):
        return _may_be_salted(node.left, scope) or _may_be_salted(node.right, scope)
    if isinstance(node, cst.Tuple):
        return any(_may_be_salted(element.value, scope) for element in node.elements)
    if isinstance(node, cst.Name):
        annotation = _annotation(node.value, scope)
        if annotation is not None:
            return annotation in _TEXT_ANNOTATIONS
        return not _NUMERIC_NAME.search(node.value)
    if isinstance(node, cst.Attribute):
        return not _NUMERIC_NAME.search(node.attr.value)
    return False


def _annotation(name: str, scope: FunctionScope) -> Optional[str]:
    params = scope.function.params
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        if param.name.value == name and param.annotation is not None:
            annotation = param.annotation.annotation
            return annotation.value if isinstance(annotation, cst.Name) else ""
    return None
