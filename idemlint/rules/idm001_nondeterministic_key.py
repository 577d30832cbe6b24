"""IDM001 nondeterministic-key."""

from __future__ import annotations

from typing import Dict, Iterator, List, Tuple

import libcst as cst

from idemlint import catalog
from idemlint.analysis import Event, FunctionScope, Trace, call_label
from idemlint.effects import Knowledge
from idemlint.rules.base import Rule, Violation, where

_STRING_METHODS = frozenset({"format", "join", "encode", "replace", "lower", "upper"})


class NondeterministicKey(Rule):
    code = "IDM001"
    name = "nondeterministic-key"
    summary = "An idempotency, dedup or lock key is derived from a random or time-based value"
    what = (
        "Follows values from `uuid1`/`uuid4`, `time.time`/`time_ns`/`monotonic`, "
        "`datetime.now`/`utcnow`/`today`, `date.today`, `random.*`, `secrets.*`, "
        "`os.urandom` and `hash()` of a string through local assignments, "
        "f-strings, `str()`, `.hex`, `.strftime()`, `.isoformat()`, `%`, "
        "`.format` and `+` into an idempotency-key argument or header, a "
        "positional key parameter, a lock or dedup key, or a variable named as a key."
    )
    why = (
        "A key exists so that a second delivery of the same work is recognised. "
        "Generated inside the task, it is different on every run: the redelivered "
        "task sends a new key, the provider or the lock sees new work, and the "
        "deduplication never matches. `hash()` of a string is salted per process, "
        "so two workers disagree too."
    )
    fix = (
        "Derive the key from the task's arguments (the unit of work), e.g. "
        "`f\"charge-order-{order_id}\"`, or create it once where the task is "
        "enqueued and pass it in. A random value is fine as a lock *token* (the "
        "value stored under a deterministic lock key), never as the key."
    )
    example = '''\
@shared_task
def charge_order(order_id):
    key = str(uuid.uuid4())
    payment_gateway.charge(order_id=order_id, idempotency_key=key)
'''
    use_instead = '''\
@shared_task
def charge_order(order_id):
    key = f"charge-order-{order_id}"
    payment_gateway.charge(order_id=order_id, idempotency_key=key)
'''
    limits = (
        "Values are followed through local variables, helper parameters and "
        "helper return values in the same module, not through attributes, "
        "containers or other modules. `hash()` is reported only when its "
        "argument is visibly a string."
    )

    def check(self, trace: Trace, knowledge: Knowledge) -> Iterator[Violation]:
        flow = _Flow()
        reported: Dict[int, bool] = {}
        for event in trace.events:
            for sink in knowledge.key_sinks(event):
                for source in flow.sources(sink.expression, event.scope):
                    if id(source) in reported:
                        continue
                    reported[id(source)] = True
                    yield Violation(
                        source,
                        f"`{call_label(source)}` builds the {sink.description} in "
                        f"{where(event, trace.task.name)}; a redelivered task gets a "
                        "new key, so the deduplication never matches",
                    )
            flow.record(event)


class _Flow:
    """Which nondeterministic calls each local name may hold, in execution order."""

    def __init__(self) -> None:
        self.names: Dict[Tuple[int, str], List[cst.Call]] = {}
        self.returns: Dict[int, List[cst.Call]] = {}

    def record(self, event: Event) -> None:
        if event.kind in ("assign", "bind") and event.value is not None:
            value_scope = event.value_scope or event.scope
            sources = self.sources(event.value, value_scope)
            augmented = isinstance(event.node, cst.AugAssign)
            for target in event.targets:
                if isinstance(target, cst.Name):
                    key = (id(event.scope), target.value)
                    previous = self.names.get(key, []) if augmented else []
                    self.names[key] = previous + sources
        elif event.kind == "return" and event.value is not None and event.call_site:
            self.returns.setdefault(id(event.call_site), []).extend(
                self.sources(event.value, event.scope)
            )

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
        if callee == "hash" and call.args and _is_string(call.args[0].value, scope):
            return [call]
        if id(call) in self.returns:
            return list(self.returns[id(call)])
        found: List[cst.Call] = []
        func = call.func
        if isinstance(func, cst.Attribute):
            found += self.sources(func.value, scope)
            if func.attr.value in _STRING_METHODS:
                for arg in call.args:
                    found += self.sources(arg.value, scope)
        elif catalog.matches_any(catalog.DERIVING_CALLS, callee):
            for arg in call.args:
                found += self.sources(arg.value, scope)
        return found


def _is_string(node: cst.BaseExpression, scope: FunctionScope) -> bool:
    """Visibly a str: literals, f-strings, ``str()``, ``%``/``+`` with a literal, str params."""
    if isinstance(node, (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)):
        return not (isinstance(node, cst.SimpleString) and node.prefix.lower().startswith("b"))
    if isinstance(node, cst.Call):
        callee = scope.resolver.resolve(node.func)
        if callee == "str":
            return True
        return isinstance(node.func, cst.Attribute) and node.func.attr.value in (
            "format",
            "join",
            "lower",
            "upper",
            "strip",
        )
    if isinstance(node, cst.BinaryOperation):
        return _is_string(node.left, scope) or _is_string(node.right, scope)
    if isinstance(node, cst.Name):
        for param in (*scope.function.params.params, *scope.function.params.kwonly_params):
            if param.name.value == node.value and param.annotation is not None:
                annotation = param.annotation.annotation
                return isinstance(annotation, cst.Name) and annotation.value == "str"
    return False
