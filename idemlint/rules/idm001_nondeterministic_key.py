"""IDM001 nondeterministic-key."""

from __future__ import annotations

import re
from typing import Dict, Iterator, List, Optional, Tuple

import libcst as cst

from idemlint import catalog
from idemlint.analysis import Event, FunctionScope, Trace, call_label
from idemlint.effects import Knowledge, KeySink
from idemlint.fixes import UNSAFE
from idemlint.rules.base import SuggestedFix, TaskRule, Violation, where
from idemlint.rules.edits import in_a_loop, names_in, random_part_replaced, without_shared_keys
from idemlint.unit_of_work import identifying_arguments, key_placeholders, work_key

_STRING_METHODS = frozenset({"format", "join", "encode", "replace", "lower", "upper"})


class NondeterministicKey(TaskRule):
    code = "IDM001"
    name = "nondeterministic-key"
    summary = "An idempotency, dedup or lock key is derived from a random or time-based value"
    what = (
        "Follows values from `uuid1`/`uuid4`, `time.time`/`time_ns`/`monotonic`, "
        "`datetime.now`/`utcnow`/`today`, `date.today`, `random.*`, `secrets.*`, "
        "`os.urandom` and `hash()` of a string through local assignments, "
        "f-strings, `str()`, `.hex`, `.strftime()`, `.isoformat()`, `%`, "
        "`.format` and `+` into an idempotency-key argument or header, a "
        "positional key parameter, a lock or dedup key, or a variable named as a key. "
        "A delivery or event id sent as a header, so that the receiver can "
        "deduplicate, is a key too: `webhook-id` of the Standard Webhooks spec, and "
        "`X-<Vendor>-Delivery`, `X-<Vendor>-Delivery-Id`, `X-<Vendor>-Event-Id`, "
        "`X-<Vendor>-Message-Id` and `X-<Vendor>-Webhook-Id` in a `headers=` dict; "
        "request, trace and correlation ids (`X-Request-Id`, `traceparent`, "
        "`X-Correlation-Id`) identify one attempt and never are. A headers dict is "
        "read with the entries added to it after its literal "
        "(`headers[\"X-GitHub-Delivery\"] = str(uuid4())`, `headers.update(...)`)."
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
        "containers or other modules. Entries added to a headers dict count "
        "wherever they are added in the function, before or after the call. "
        "`hash()` is reported unless its argument "
        "is visibly a number (an `int` annotation, `int()`, or a name such as "
        "`order_id`)."
    )

    fix_availability = (
        "Sometimes, unsafe (`--fix --unsafe-fixes`): a random value (`uuid1`/`uuid4`, "
        "`random`, `secrets`, `os.urandom`) in a key built in the task's own body is "
        "replaced by the task's arguments whose names say they identify the work "
        "(`order_id`, `pk`, `invoice_uuid`, `slug`; a bound task's `self` is not one): "
        "a key that is only the random value (`str(uuid4())`, `uuid4().hex`) becomes "
        "`f\"<task-name>-{order_id}\"`, and the value's place in an f-string, a `+` "
        "with a string or a `.format()` becomes `{order_id}`. Unsafe because the key "
        "now repeats on purpose: check that the arguments name one unit of work, so "
        "that two different jobs never share it. Not offered for a time "
        "(`datetime.now()` may name the period the work belongs to), for a key that "
        "already reads one of the task's parameters (the random part was added on "
        "purpose), in a helper (its callers may do other work), in a loop or a "
        "comprehension (every pass would share the key), for a key variable assigned "
        "more than once or read anywhere else (a lock's token must stay random), for a "
        "random value used other than spelled as text (hashed, sliced, bytes, inside an "
        "f-string's expression), where two fixes in the task would write the same key, "
        "nor when no argument identifies the work (one that defaults to `None` does not)."
    )

    def check(self, trace: Trace, knowledge: Knowledge) -> Iterator[Violation]:
        return iter(without_shared_keys(list(self._violations(trace, knowledge))))

    def _violations(self, trace: Trace, knowledge: Knowledge) -> Iterator[Violation]:
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
                        event=event,
                        fix=_key_from_arguments(sink, source, event, trace, flow),
                    )
            flow.record(event)


def _key_from_arguments(
    sink: KeySink, source: cst.Call, event: Event, trace: Trace, flow: "_Flow"
) -> Optional[SuggestedFix]:
    """The random part of a key built in the task's own body replaced by the
    arguments that identify the work.  Not for a clock (the time may name a
    period the work belongs to), nor for a key that already reads one of the
    task's parameters (the random part was added on purpose), nor where the
    random value is used other than spelled as text."""
    scope = event.scope
    if not scope.is_task or not catalog.matches_any(catalog.RANDOM_SOURCES, scope.resolver.resolve(source.func)):
        return None
    placeholders, whole = key_placeholders(trace.task), work_key(trace.task)
    if placeholders is None or whole is None:
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
    edit = random_part_replaced(expression, source, whole, placeholders)
    if edit is None:
        return None
    names = ", ".join(f"`{name}`" for name in identifying_arguments(trace.task))
    return SuggestedFix(f"Build the key from the task's {names}", UNSAFE, (edit,))


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
