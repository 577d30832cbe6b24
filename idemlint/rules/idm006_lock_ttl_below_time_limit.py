"""IDM006 lock-ttl-below-time-limit."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Dict, Iterator, List, Mapping, Optional, Tuple

import libcst as cst

from idemlint import catalog
from idemlint.analysis import Event, FunctionScope, Trace, call_label, source_text
from idemlint.calls import Calls
from idemlint.lock_scope import handed_to_other_code, released_where_taken, taken_per_item, work_claimed_apart
from idemlint.effects import Knowledge, is_none
from idemlint.names import Resolver, argument, literal_number, literal_text
from idemlint.rules.base import TaskRule, Violation, where
from idemlint.tasks import Task, class_assignments

_MAX_DEPTH = 12


class LockTtlBelowTimeLimit(TaskRule):
    code = "IDM006"
    name = "lock-ttl-below-time-limit"
    summary = "A lock's expiry is shorter than the task's own time limit"
    what = (
        "Compares the expiry of a distributed lock taken in a task (redis "
        "`set(..., nx=True, ex=/px=)`, `redis.lock(name, timeout=)`, "
        "`redis_lock.Lock(..., expire=)`, Django `cache.add(k, v, timeout)`) with "
        "the task's own explicit run-time limit: Celery `time_limit` / "
        "`soft_time_limit` (seconds, the larger of the two; decorator, "
        "`app.task(func, ...)` registration or class attribute of a `Task` "
        "subclass), Dramatiq `time_limit` (milliseconds), RQ `@job(timeout=)`, "
        "arq `func(..., timeout=)` and taskiq `timeout` (seconds). The TTL must be "
        "statically known: a literal, a module constant (also one imported from "
        "another project module), a local or helper parameter with one visible "
        "value, a class attribute, simple arithmetic, a `timedelta`, or an "
        "environment variable's default (`int(os.environ.get(K) or 300)`, "
        "`os.getenv(K, \"300\")`: what a deployment that sets nothing runs, "
        "said as \"by default\"). Locks renewed while held (`auto_renewal=True`, "
        "`lock.extend()`/`reacquire()`, an `expire` of the same key) are not "
        "reported, nor are locks the task's limit says nothing about: one a "
        "helper takes and lets go again (its `with` block, a `release()` "
        "there), one taken in a loop (a key per item), a lock object handed "
        "to other code as an argument (a progress callback may renew it), "
        "a set-if-absent lock whose token goes to a task it enqueues, and a "
        "lock whose every side effect and enqueue after it is claimed on its "
        "own (a SET NX per item): a lapsed lock lets a second run in, not a "
        "second copy of any effect."
    )
    why = (
        "A lock exists so that a second delivery of the same work waits or "
        "gives up while the first one runs. A task is allowed to run until its "
        "time limit; a lock that expires earlier is gone while the task is still "
        "legitimately working. A redelivery (expired visibility timeout, a retry, "
        "a manual replay) then takes the free lock and both executions run the "
        "side effects at the same time, exactly what the lock was meant to "
        "prevent. The owner's final release may even delete the second worker's lock."
    )
    fix = (
        "Give the lock a TTL comfortably above the task's hard time limit, "
        "derived from it so the two cannot drift apart, or renew it while the "
        "work runs (`redis_lock.Lock(..., auto_renewal=True)`, `lock.extend()`)."
    )
    example = '''\
@shared_task(time_limit=600)
def rebuild_report(report_id):
    if not redis_client.set(f"lock:report:{report_id}", token, nx=True, ex=60):
        return
    build_report(report_id)
'''
    use_instead = '''\
REPORT_TIME_LIMIT = 600

@shared_task(time_limit=REPORT_TIME_LIMIT)
def rebuild_report(report_id):
    lock_ttl = REPORT_TIME_LIMIT + 60
    if not redis_client.set(f"lock:report:{report_id}", token, nx=True, ex=lock_ttl):
        return
    build_report(report_id)
'''
    limits = (
        "Only the task's own limit is used: worker-wide defaults (Celery's "
        "`task_time_limit`, Dramatiq's 10 minutes, RQ's 180 s), per-call limits "
        "(`apply_async(time_limit=)`, `enqueue(job_timeout=)`) and limits "
        "inherited from a `base=` class are not assumed. A TTL read from "
        "settings, computed by a call or passed through `**kwargs` is unknown "
        "and not reported. A lock the task itself holds only around a short "
        "part of a long task is still compared with the whole task's limit."
    )

    def check(self, trace: Trace, knowledge: Knowledge) -> Iterator[Violation]:
        task_scope = next((e.scope for e in trace.events if e.scope.is_task), None)
        if task_scope is None:
            return
        values = _Values.of_trace(trace, knowledge.constants, knowledge.calls)
        limit = _time_limit(trace.task, values, task_scope.resolver)
        if limit is None:
            return
        calls = list(trace.calls())
        for event in calls:
            api = knowledge.lock_api(event)
            call = event.node
            if api is None or api.never_expires or not isinstance(call, cst.Call):
                continue
            ttl = _ttl_argument(call, api)
            if ttl is None or _renewed(event, call, api, calls):
                continue
            if (
                released_where_taken(event, trace)
                or taken_per_item(event)
                or handed_to_other_code(event, trace, knowledge)
                or work_claimed_apart(event, trace, knowledge)
            ):
                continue
            expression, keyword = ttl
            duration = values.evaluate(expression, event.scope, event.scope.resolver)
            if duration is None:
                continue
            unit = 1.0 if duration.timedelta else catalog.LOCK_TTL_SECONDS_PER_UNIT.get(keyword)
            if unit is None:
                continue
            seconds = duration.value * unit
            if seconds <= 0 or seconds >= limit.seconds:
                continue
            yield Violation(
                call,
                f"`{call_label(call)}` in {where(event, trace.task.name)} takes a lock "
                f"that expires after {_seconds(seconds)}{' by default' if duration.default else ''} "
                f"(`{keyword}={source_text(expression, 40)}`), "
                f"shorter than {limit.describe()}; the lock can expire while the task "
                "still runs, and a redelivery then takes it and both executions run at once",
                event=event,
            )


@dataclass(frozen=True)
class _Number:
    """A statically known number; ``timedelta`` when it is a duration in seconds."""

    value: float
    timedelta: bool = False
    # Read from an environment variable's default (``os.environ.get(K) or 300``).
    default: bool = False


@dataclass(frozen=True)
class _Limit:
    seconds: float
    option: str
    raw: float
    unit: float
    source: str
    default: bool = False

    def describe(self) -> str:
        amount = _seconds(self.seconds) + (" by default" if self.default else "")
        if self.unit == 0.001:
            amount = f"{_format(self.raw)} ms ({amount})"
        if self.source == "class attribute":
            return f"the `{self.option}` of {amount} set on its class"
        return f"the task's own `{self.option}` of {amount}"


def _seconds(value: float) -> str:
    return f"{_format(value)} s"


def _format(value: float) -> str:
    if value == int(value):
        return str(int(value))
    return f"{value:.3f}".rstrip("0").rstrip(".")


def _time_limit(task: Task, values: "_Values", resolver: Resolver) -> Optional[_Limit]:
    """The larger of the task's own explicit run-time limits, in seconds."""
    units = catalog.TASK_TIME_LIMITS.get(task.framework)
    if not units:
        return None
    found: List[Tuple[cst.BaseExpression, str, str]] = []
    if task.owner is not None:
        for option, value in class_assignments(task.owner).items():
            if option in units:
                found.append((value, option, "class attribute"))
    for option, value in task.options.items():
        if option in units:
            # An option the task's ``Task`` class gives (``base=``) is set on its class.
            found.append((value, option, "class attribute" if option in task.origins else "option"))
    best: Optional[_Limit] = None
    for expression, option, source in found:
        number = values.evaluate(expression, None, resolver)
        if number is None:
            continue
        unit = 1.0 if number.timedelta else units[option]
        seconds = number.value * unit
        if seconds > 0 and (best is None or seconds > best.seconds):
            best = _Limit(seconds, option, number.value, unit, source, number.default)
    return best


def _ttl_argument(
    call: cst.Call, api: catalog.LockApi
) -> Optional[Tuple[cst.BaseExpression, str]]:
    """The expiry expression and the keyword that gives its unit."""
    if any(a.star for a in call.args):
        return None
    for arg in call.args:
        if arg.keyword is None:
            continue
        name = arg.keyword.value
        if name in catalog.ABSOLUTE_LOCK_TTL_KEYWORDS:
            return None
        if name in api.ttl_keywords:
            return None if is_none(arg.value) else (arg.value, name)
    if api.ttl_position is None or not api.ttl_keywords:
        return None
    value = argument(call, api.ttl_position, None)
    if value is None or is_none(value):
        return None
    return value, api.ttl_keywords[0]


def _renewed(event: Event, call: cst.Call, api: catalog.LockApi, calls: List[Event]) -> bool:
    """Whether the lock is kept alive while held: auto-renewal, extend, expire."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in catalog.LOCK_AUTO_RENEWAL_KEYWORDS:
            if not (isinstance(arg.value, cst.Name) and arg.value.value in ("False", "None")):
                return True
    renewals = {f"{event.callee}().{method}" for method in catalog.LOCK_RENEWAL_METHODS}
    key = argument(call, api.key_position, api.key_keyword)
    for other in calls:
        if other.seq <= event.seq or not isinstance(other.node, cst.Call):
            continue
        if other.callee in renewals:
            return True
        func = other.node.func
        if (
            key is not None
            and isinstance(func, cst.Attribute)
            and func.attr.value in catalog.KEY_EXPIRE_METHODS
            and other.node.args
            and other.node.args[0].value.deep_equals(key)
        ):
            return True
    return False


class _Values:
    """Numbers we can see: literals, constants, one-value locals and parameters."""

    def __init__(
        self,
        constants: Mapping[str, cst.BaseExpression],
        calls: Optional[Calls],
        assigned: Dict[Tuple[int, str], List[Optional[Tuple[cst.BaseExpression, FunctionScope]]]],
    ) -> None:
        self.constants = constants
        self.calls = calls  # for the constants other project modules define
        self.assigned = assigned

    @classmethod
    def of_trace(
        cls, trace: Trace, constants: Mapping[str, cst.BaseExpression], calls: Optional[Calls]
    ) -> "_Values":
        assigned: Dict[Tuple[int, str], List[Optional[Tuple[cst.BaseExpression, FunctionScope]]]] = {}
        for event in trace.events:
            if event.kind not in ("assign", "bind") or event.value is None:
                continue
            for target in event.targets:
                if not isinstance(target, cst.Name):
                    continue
                values = assigned.setdefault((id(event.scope), target.value), [])
                if isinstance(event.node, cst.AugAssign):
                    values.append(None)
                else:
                    values.append((event.value, event.value_scope or event.scope))
        return cls(constants, calls, assigned)

    def evaluate(
        self,
        node: cst.BaseExpression,
        scope: Optional[FunctionScope],
        resolver: Resolver,
        depth: int = 0,
    ) -> Optional[_Number]:
        if depth > _MAX_DEPTH:
            return None
        if isinstance(node, (cst.Integer, cst.Float)):
            number = literal_number(node)
            return _Number(number) if number is not None else None
        if isinstance(node, cst.Name):
            return self._name(node.value, scope, resolver, depth)
        if isinstance(node, cst.Attribute):
            return self._attribute(node, scope, resolver, depth)
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
            inner = self.evaluate(node.expression, scope, resolver, depth + 1)
            return _Number(-inner.value, inner.timedelta) if inner is not None else None
        if isinstance(node, cst.BinaryOperation):
            return self._arithmetic(node, scope, resolver, depth)
        if isinstance(node, cst.Call):
            return self._call(node, scope, resolver, depth)
        if isinstance(node, cst.BooleanOperation) and isinstance(node.operator, cst.Or):
            # ``os.environ.get("TTL") or 300``: the default when nothing is set.
            if self._environment_read(node.left, scope, resolver) is not None:
                fallback = self.evaluate(node.right, scope, resolver, depth + 1)
                return replace(fallback, default=True) if fallback is not None else None
        return None

    def _environment_read(
        self, node: cst.BaseExpression, scope: Optional[FunctionScope], resolver: Resolver
    ) -> Optional[cst.Call]:
        """``os.environ.get(...)`` / ``os.getenv(...)``, the call itself."""
        if not isinstance(node, cst.Call):
            return None
        callee = (scope.resolver if scope is not None else resolver).resolve(node.func)
        return node if callee in catalog.ENVIRONMENT_READS else None

    def _name(
        self, name: str, scope: Optional[FunctionScope], resolver: Resolver, depth: int
    ) -> Optional[_Number]:
        if scope is not None:
            values = self.assigned.get((id(scope), name))
            if values is not None:
                if len(values) != 1 or values[0] is None:
                    return None
                value, value_scope = values[0]
                return self.evaluate(value, value_scope, resolver, depth + 1)
            if name in scope.parameters:
                if scope.is_task:
                    return None
                default = _default(scope.function, name)
                return self.evaluate(default, None, resolver, depth + 1) if default else None
        constant = self.constants.get(name)
        if constant is not None:
            return self.evaluate(constant, None, resolver, depth + 1)
        imported = self.calls.constant_imported(name, resolver) if self.calls is not None else None
        if imported is None:
            return None
        value, module = imported
        # Evaluated where it is written, with that module's constants and imports.
        there = _Values(module.index.constants, self.calls, {})
        return there.evaluate(value, None, module.index.resolver(), depth + 1)

    def _attribute(
        self, node: cst.Attribute, scope: Optional[FunctionScope], resolver: Resolver, depth: int
    ) -> Optional[_Number]:
        """``self.lock_ttl`` read from the class-based task's class body."""
        if scope is None or scope.instance is None:
            return None
        if not (isinstance(node.value, cst.Name) and node.value.value in ("self", "cls")):
            return None
        value = class_assignments(scope.instance.node).get(node.attr.value)
        return self.evaluate(value, None, resolver, depth + 1) if value is not None else None

    def _arithmetic(
        self,
        node: cst.BinaryOperation,
        scope: Optional[FunctionScope],
        resolver: Resolver,
        depth: int,
    ) -> Optional[_Number]:
        left = self.evaluate(node.left, scope, resolver, depth + 1)
        right = self.evaluate(node.right, scope, resolver, depth + 1)
        if left is None or right is None:
            return None
        result = self._combine(node.operator, left, right)
        # 1e308 * 10 is inf, inf - inf is nan: not a TTL anyone can compare.
        return result if result is not None and math.isfinite(result.value) else None

    @staticmethod
    def _combine(operator: cst.BaseBinaryOp, left: _Number, right: _Number) -> Optional[_Number]:
        combined = _Values._combine_values(operator, left, right)
        return replace(combined, default=left.default or right.default) if combined is not None else None

    @staticmethod
    def _combine_values(operator: cst.BaseBinaryOp, left: _Number, right: _Number) -> Optional[_Number]:
        if isinstance(operator, (cst.Add, cst.Subtract)):
            if left.timedelta != right.timedelta:
                return None
            sign = 1.0 if isinstance(operator, cst.Add) else -1.0
            return _Number(left.value + sign * right.value, left.timedelta)
        if isinstance(operator, cst.Multiply):
            if left.timedelta and right.timedelta:
                return None
            return _Number(left.value * right.value, left.timedelta or right.timedelta)
        if isinstance(operator, (cst.Divide, cst.FloorDivide)) and right.value:
            quotient = left.value / right.value
            if isinstance(operator, cst.FloorDivide):
                quotient = math.floor(quotient)
            if right.timedelta:
                return _Number(quotient) if left.timedelta else None
            return _Number(quotient, left.timedelta)
        return None

    def _call(
        self, node: cst.Call, scope: Optional[FunctionScope], resolver: Resolver, depth: int
    ) -> Optional[_Number]:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "total_seconds" and not node.args:
            inner = self.evaluate(func.value, scope, resolver, depth + 1)
            return _Number(inner.value) if inner is not None and inner.timedelta else None
        callee = (scope.resolver if scope is not None else resolver).resolve(func)
        if callee in ("datetime.timedelta", "timedelta"):
            return self._timedelta(node, scope, resolver, depth)
        if callee in ("int", "float", "round") and len(node.args) == 1:
            inner = self.evaluate(node.args[0].value, scope, resolver, depth + 1)
            return _Number(inner.value, default=inner.default) if inner is not None and not inner.timedelta else None
        if callee in catalog.ENVIRONMENT_READS and len(node.args) == 2 and not node.args[1].keyword:
            # ``os.environ.get("TTL", "300")``: the default when nothing is set.
            written = node.args[1].value
            fallback = (
                _numeric_text(written)
                if isinstance(written, cst.SimpleString)
                else self.evaluate(written, scope, resolver, depth + 1)
            )
            return replace(fallback, default=True) if fallback is not None else None
        return None

    def _timedelta(
        self, node: cst.Call, scope: Optional[FunctionScope], resolver: Resolver, depth: int
    ) -> Optional[_Number]:
        total, default = 0.0, False
        for position, arg in enumerate(node.args):
            if arg.star:
                return None
            if arg.keyword is not None:
                unit = arg.keyword.value
            elif position < len(_TIMEDELTA_POSITIONS):
                unit = _TIMEDELTA_POSITIONS[position]
            else:
                return None
            seconds_per_unit = _TIMEDELTA_UNITS.get(unit)
            value = self.evaluate(arg.value, scope, resolver, depth + 1)
            if seconds_per_unit is None or value is None or value.timedelta:
                return None
            total += value.value * seconds_per_unit
            default = default or value.default
        return _Number(total, timedelta=True, default=default)


_TIMEDELTA_POSITIONS = (
    "days", "seconds", "microseconds", "milliseconds", "minutes", "hours", "weeks"
)
_TIMEDELTA_UNITS = {
    "weeks": 604800.0,
    "days": 86400.0,
    "hours": 3600.0,
    "minutes": 60.0,
    "seconds": 1.0,
    "milliseconds": 0.001,
    "microseconds": 0.000001,
}


def _numeric_text(node: cst.SimpleString) -> Optional[_Number]:
    """``"300"``: an environment default written as text, read by ``int()``."""
    text = literal_text(node)
    try:
        number = float(text) if text is not None and text.strip() else None
    except ValueError:
        return None
    return _Number(number) if number is not None and math.isfinite(number) else None


def _default(function: cst.FunctionDef, name: str) -> Optional[cst.BaseExpression]:
    params = function.params
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        if param.name.value == name:
            return param.default
    return None
