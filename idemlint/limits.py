"""Numbers a task's code states: its own time limit, a lock's expiry.

:class:`Values` evaluates what the code spells (literals, constants of any
project module, one-value locals and parameters, environment defaults,
``timedelta``); :func:`time_limit` reads the task's own run-time limit from
its options or its class, in seconds.  IDM006 compares a lock's expiry with
the limit; IDM004's fix takes the limit as the expiry it adds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Dict, List, Mapping, Optional, Tuple

import libcst as cst

from idemlint import catalog
from idemlint.semantic.trace import FunctionScope, Trace
from idemlint.semantic.resolution import Calls
from idemlint.names import Resolver, literal_number, literal_text
from idemlint.segments import Constants
from idemlint.tasks import Task, class_assignments

_MAX_DEPTH = 12


@dataclass(frozen=True)
class Number:
    """A statically known number; ``timedelta`` when it is a duration in seconds."""

    value: float
    timedelta: bool = False
    # Read from an environment variable's default (``os.environ.get(K) or 300``),
    # or the one branch of a module-level ``if`` whose value the code shows.
    default: bool = False


@dataclass(frozen=True)
class Limit:
    seconds: float
    option: str
    raw: float
    unit: float
    source: str
    default: bool = False

    def describe(self) -> str:
        amount = seconds_text(self.seconds) + (" by default" if self.default else "")
        if self.unit == 0.001:
            amount = f"{number_text(self.raw)} ms ({amount})"
        if self.source == "class attribute":
            return f"the `{self.option}` of {amount} set on its class"
        return f"the task's own `{self.option}` of {amount}"


def seconds_text(value: float) -> str:
    return f"{number_text(value)} s"


def number_text(value: float) -> str:
    if value == int(value):
        return str(int(value))
    return f"{value:.3f}".rstrip("0").rstrip(".")


def time_limit(task: Task, values: "Values", resolver: Resolver) -> Optional[Limit]:
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
    best: Optional[Limit] = None
    for expression, option, source in found:
        number = values.evaluate(expression, None, resolver)
        if number is None:
            continue
        unit = 1.0 if number.timedelta else units[option]
        seconds = number.value * unit
        if seconds > 0 and (best is None or seconds > best.seconds):
            best = Limit(seconds, option, number.value, unit, source, number.default)
    return best


class Values:
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
    ) -> "Values":
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
    ) -> Optional[Number]:
        if depth > _MAX_DEPTH:
            return None
        if isinstance(node, (cst.Integer, cst.Float)):
            number = literal_number(node)
            return Number(number) if number is not None else None
        if isinstance(node, cst.Name):
            return self._name(node.value, scope, resolver, depth)
        if isinstance(node, cst.Attribute):
            return self._attribute(node, scope, resolver, depth)
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
            inner = self.evaluate(node.expression, scope, resolver, depth + 1)
            return Number(-inner.value, inner.timedelta) if inner is not None else None
        if isinstance(node, cst.BinaryOperation):
            return self._arithmetic(node, scope, resolver, depth)
        if isinstance(node, cst.Call):
            return self._call(node, scope, resolver, depth)
        if isinstance(node, cst.IfExp) and self._tests_whether_set(node.test, scope, resolver):
            # ``int(raw) if raw else 300``: 300 when nothing is set, as ``raw or 300``.
            # A comparison (``budget if budget > 60 else 60``) is a floor: unknown.
            return self._one_of([node.body, node.orelse], resolver, depth, scope)
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
    ) -> Optional[Number]:
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
        alternatives = self.constants.alternatives.get(name) if isinstance(self.constants, Constants) else None
        if alternatives is not None:
            return self._one_of(alternatives, resolver, depth)
        constant = self.constants.get(name)
        if constant is not None:
            return self.evaluate(constant, None, resolver, depth + 1)
        imported = self.calls.binding_imported(name, resolver) if self.calls is not None else None
        if imported is None:
            return None
        constant_name, module = imported
        # Evaluated where it is written, with that module's constants and imports.
        there = Values(module.index.constants, self.calls, {})
        return there._name(constant_name, None, module.index.resolver(), depth + 1)

    def _tests_whether_set(
        self, test: cst.BaseExpression, scope: Optional[FunctionScope], resolver: Resolver
    ) -> bool:
        """A test of whether something is set: a name, an attribute, or an
        environment read, taken for its truth."""
        return isinstance(test, (cst.Name, cst.Attribute)) or self._environment_read(test, scope, resolver) is not None

    def _one_of(
        self,
        values: List[cst.BaseExpression],
        resolver: Resolver,
        depth: int,
        scope: Optional[FunctionScope] = None,
    ) -> Optional[Number]:
        """A value the branches of an ``if`` (a module-level one, or a
        conditional expression) decide: the number they all agree on; or
        the one number among values the code cannot see
        (``int(os.environ[...])`` on one branch, ``300`` on the other), which
        holds when nothing is set, as ``os.environ.get(...) or 300``.  Two
        different numbers are unknown: which one holds is the run's."""
        numbers = [self.evaluate(value, scope, resolver, depth + 1) for value in values]
        known = {(n.value, n.timedelta) for n in numbers if n is not None}
        if len(known) != 1:
            return None
        number = next(n for n in numbers if n is not None)
        return replace(number, default=number.default or any(n is None for n in numbers))

    def _attribute(
        self, node: cst.Attribute, scope: Optional[FunctionScope], resolver: Resolver, depth: int
    ) -> Optional[Number]:
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
    ) -> Optional[Number]:
        left = self.evaluate(node.left, scope, resolver, depth + 1)
        right = self.evaluate(node.right, scope, resolver, depth + 1)
        if left is None or right is None:
            return None
        result = self._combine(node.operator, left, right)
        # 1e308 * 10 is inf, inf - inf is nan: not a TTL anyone can compare.
        return result if result is not None and math.isfinite(result.value) else None

    @staticmethod
    def _combine(operator: cst.BaseBinaryOp, left: Number, right: Number) -> Optional[Number]:
        combined = Values._combine_values(operator, left, right)
        return replace(combined, default=left.default or right.default) if combined is not None else None

    @staticmethod
    def _combine_values(operator: cst.BaseBinaryOp, left: Number, right: Number) -> Optional[Number]:
        if isinstance(operator, (cst.Add, cst.Subtract)):
            if left.timedelta != right.timedelta:
                return None
            sign = 1.0 if isinstance(operator, cst.Add) else -1.0
            return Number(left.value + sign * right.value, left.timedelta)
        if isinstance(operator, cst.Multiply):
            if left.timedelta and right.timedelta:
                return None
            return Number(left.value * right.value, left.timedelta or right.timedelta)
        if isinstance(operator, (cst.Divide, cst.FloorDivide)) and right.value:
            quotient = left.value / right.value
            if isinstance(operator, cst.FloorDivide):
                quotient = math.floor(quotient)
            if right.timedelta:
                return Number(quotient) if left.timedelta else None
            return Number(quotient, left.timedelta)
        return None

    def _call(
        self, node: cst.Call, scope: Optional[FunctionScope], resolver: Resolver, depth: int
    ) -> Optional[Number]:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "total_seconds" and not node.args:
            inner = self.evaluate(func.value, scope, resolver, depth + 1)
            return Number(inner.value) if inner is not None and inner.timedelta else None
        callee = (scope.resolver if scope is not None else resolver).resolve(func)
        if callee in ("datetime.timedelta", "timedelta"):
            return self._timedelta(node, scope, resolver, depth)
        if callee in ("int", "float", "round") and len(node.args) == 1:
            inner = self.evaluate(node.args[0].value, scope, resolver, depth + 1)
            return Number(inner.value, default=inner.default) if inner is not None and not inner.timedelta else None
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
    ) -> Optional[Number]:
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
        return Number(total, timedelta=True, default=default)


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


def _numeric_text(node: cst.SimpleString) -> Optional[Number]:
    """``"300"``: an environment default written as text, read by ``int()``."""
    text = literal_text(node)
    try:
        number = float(text) if text is not None and text.strip() else None
    except ValueError:
        return None
    return Number(number) if number is not None and math.isfinite(number) else None


def _default(function: cst.FunctionDef, name: str) -> Optional[cst.BaseExpression]:
    params = function.params
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        if param.name.value == name:
            return param.default
    return None
