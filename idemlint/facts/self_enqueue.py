"""Self-enqueues: the calls that run the task again, and what they change.

A task that retries itself (``self.retry(...)``, ``retry(args=...)``) or
enqueues itself again (``charge_order.delay(...)``, ``queue.enqueue(
charge_order, ...)``, a signature ``charge_order.s(...).apply_async()``) with
other values than its own arguments sends a different unit of work: keys and
locks derived from the arguments no longer match what the first attempt did
(IDM008).  :func:`self_enqueues` finds those calls and says, for each, the
first argument it changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Tuple

import libcst as cst

from idemlint import catalog
from idemlint.semantic.trace import Event, FunctionScope, Trace, source_text
from idemlint.effects import Knowledge
from idemlint.names import argument, literal_text
from idemlint.tasks import Task

if TYPE_CHECKING:
    from idemlint.facts import TaskFacts

_MAX_DEPTH = 10
_MUTATING_METHODS = frozenset(
    {"update", "setdefault", "append", "extend", "insert", "pop", "popitem",
     "remove", "clear", "add", "discard", "__setitem__"}
)
# Celery's own methods on a bound task instance; other names on ``self`` may be
# the class's own methods.
_BOUND_TASK_METHODS = frozenset({"retry", "apply_async", "delay"})
# Celery signatures built from the task: ``t.s(x).apply_async(countdown=5)``.
_SIGNATURE_METHODS = frozenset({"s", "si"})


@dataclass(frozen=True)
class SelfEnqueue:
    """A call that runs the task again with a changed argument: ``retry`` is
    true for a retry (``self.retry``), false for a new message; ``change``
    says what changed (```order_id + 1` for its argument `order_id```)."""

    event: Event
    call: cst.Call
    retry: bool
    change: str


def self_enqueues(facts: "TaskFacts") -> Tuple[SelfEnqueue, ...]:
    """The calls of the task's trace that run the task itself again with
    other values than its own arguments, in order."""
    judge = _Judge(facts.trace, facts.knowledge)
    found: List[SelfEnqueue] = []
    for event in facts.trace.calls():
        call = event.node
        if not isinstance(call, cst.Call):
            continue
        enqueue = judge.enqueue_of_self(event, call)
        if enqueue is None:
            continue
        entry, retry, carrier = enqueue
        change = judge.changedargument(event, carrier, entry)
        if change is not None:
            found.append(SelfEnqueue(event, call, retry, change))
    return tuple(found)


@dataclass(frozen=True)
class _Signature:
    """The task's caller-visible parameters."""

    positional: Tuple[str, ...]
    names: Tuple[str, ...]
    star_arg: Optional[str]
    star_kwarg: Optional[str]


def _signature(task: Task) -> _Signature:
    params = task.function.params
    star_arg = params.star_arg.name.value if isinstance(params.star_arg, cst.Param) else None
    star_kwarg = params.star_kwarg.name.value if params.star_kwarg is not None else None
    return _Signature(task.positional_arguments, task.arguments, star_arg, star_kwarg)


def _first_parameter(function: cst.FunctionDef) -> Optional[str]:
    params = (*function.params.posonly_params, *function.params.params)
    return params[0].name.value if params else None


_Assignment = Tuple[int, Optional[cst.BaseExpression], FunctionScope]


class _Judge:
    """Whether the values passed to a retry are the task's own arguments."""

    def __init__(self, trace: Trace, knowledge: Knowledge) -> None:
        self.task = trace.task
        self.knowledge = knowledge
        self.signature = _signature(trace.task)
        self.assigned: Dict[Tuple[int, str], List[_Assignment]] = {}
        self.mutated: Dict[Tuple[int, str], List[int]] = {}
        self._memo: Dict[Tuple[int, str, int, int], bool] = {}
        for event in trace.events:
            self._remember(event)

    def _remember(self, event: Event) -> None:
        if event.kind in ("assign", "bind") and event.value is not None:
            for target in event.targets:
                if isinstance(target, cst.Name):
                    value = None if isinstance(event.node, cst.AugAssign) else event.value
                    self.assigned.setdefault((id(event.scope), target.value), []).append(
                        (event.seq, value, event.value_scope or event.scope)
                    )
                elif isinstance(target, (cst.Subscript, cst.Attribute)):
                    base = _base_name(target)
                    if base is not None:
                        self.mutated.setdefault((id(event.scope), base), []).append(event.seq)
        elif event.kind == "call" and isinstance(event.node, cst.Call):
            func = event.node.func
            if isinstance(func, cst.Attribute) and func.attr.value in _MUTATING_METHODS:
                base = _base_name(func.value)
                if base is not None:
                    self.mutated.setdefault((id(event.scope), base), []).append(event.seq)

    # -- which calls run this task again ------------------------------------

    def enqueue_of_self(
        self, event: Event, call: cst.Call
    ) -> Optional[Tuple[catalog.EnqueueCall, bool, cst.Call]]:
        """How ``call`` runs this very task again: the API, whether it is a
        retry, and the call that carries the arguments (``t.s(x)`` of
        ``t.s(x).apply_async()``)."""
        func = call.func
        scope = event.scope
        if isinstance(func, cst.Name):
            if self.task.framework in catalog.CALL_ENQUEUES and self._names_task(func, scope):
                return catalog.EnqueueCall("__call__", spread=True), False, call
            return None
        if not isinstance(func, cst.Attribute):
            return None
        method = func.attr.value
        for entry in catalog.TASK_ENQUEUE_CALLS:
            if entry.method != method:
                continue
            receiver = func.value
            is_self = method in _BOUND_TASK_METHODS and self._is_self(receiver, scope, event.seq)
            if method == "retry":
                if self.task.framework not in ("celery", "custom"):
                    return None
                if is_self or self._names_task(receiver, scope):
                    return entry, True, call
                return None
            signature = _signature_call(receiver)
            if signature is not None and method in _BOUND_TASK_METHODS:
                carrier, target, name = signature
                if self._is_self(target, scope, event.seq) or self._names_task(target, scope):
                    return catalog.EnqueueCall(name, spread=True), False, carrier
            if is_self or self._names_task(_chain_base(receiver), scope):
                return entry, False, call
            return None
        for entry in catalog.QUEUE_ENQUEUE_CALLS:
            if entry.method != method or entry.function_position is None:
                continue
            function = argument(call, entry.function_position, entry.function_keyword)
            if function is None:
                return None
            if entry.by_name:
                text = self.knowledge.string_value(function, scope)
                if text == self.task.function.name.value:
                    return entry, False, call
            elif self._names_task(function, scope):
                return entry, False, call
            return None
        return None

    def _names_task(self, node: cst.BaseExpression, scope: FunctionScope) -> bool:
        """``charge_order`` spelled inside the module that defines it."""
        if self.task.owner is not None or not isinstance(node, cst.Name):
            return False
        if node.value in scope.parameters or (id(scope), node.value) in self.assigned:
            return False
        function = self.task.function.name.value
        if node.value == function:
            return True
        # ``charge = app.task(_charge)``: the task object has another name.
        registered = self.knowledge.constants.get(node.value)
        return (
            isinstance(registered, cst.Call)
            and bool(registered.args)
            and registered.args[0].keyword is None
            and isinstance(registered.args[0].value, cst.Name)
            and registered.args[0].value.value == function
        )

    def _is_self(
        self, node: cst.BaseExpression, scope: FunctionScope, seq: int, depth: int = 0
    ) -> bool:
        """Whether ``node`` is the bound task instance (``self`` of a bound task)."""
        if not isinstance(node, cst.Name) or depth > _MAX_DEPTH:
            return False
        name = node.value
        if scope.is_task:
            return self.task.bound and name == _first_parameter(scope.function)
        if (
            self.task.owner is not None
            and scope.instance is not None
            and scope.instance.outline is None
            and scope.instance.node is self.task.owner
            and name == _first_parameter(scope.function)
        ):
            return True
        for _, value, value_scope in self._assignments(scope, name, seq):
            if value is None or not self._is_self(value, value_scope, seq, depth + 1):
                return False
            return True
        return False

    # -- what the call passes ---------------------------------------------------

    def changedargument(
        self, event: Event, call: cst.Call, entry: catalog.EnqueueCall
    ) -> Optional[str]:
        """How the call changes the task's arguments, or None when it passes them through."""
        scope, seq = event.scope, event.seq
        options = entry.options | catalog.TASK_ENQUEUE_OPTIONS.get(self.task.framework, frozenset())
        # ``args=``/``kwargs=`` hold the task's arguments in retry/apply_async
        # style calls and in RQ's ``enqueue(f, args=..., kwargs=...)``.
        containers = not entry.spread or (entry.function_position is not None and not entry.by_name)
        args_node: Optional[cst.BaseExpression] = None
        kwargs_node: Optional[cst.BaseExpression] = None
        positional: List[cst.Arg] = []
        keywords: List[cst.Arg] = []
        skip = -1 if entry.function_position is None else entry.function_position
        function_by_keyword = entry.function_keyword is not None and any(
            a.keyword is not None and a.keyword.value == entry.function_keyword for a in call.args
        )
        plain = [a for a in call.args if a.keyword is None]
        for index, arg in enumerate(plain):
            if arg.star == "**":
                keywords.append(arg)
            elif entry.spread:
                if function_by_keyword or index > skip:
                    positional.append(arg)
            elif index == entry.args_position and not arg.star:
                args_node = arg.value
            elif index == entry.kwargs_position and not arg.star:
                kwargs_node = arg.value
        for arg in call.args:
            if arg.keyword is None:
                continue
            name = arg.keyword.value
            if containers and name == "args":
                args_node = arg.value
            elif containers and name == "kwargs":
                kwargs_node = arg.value
            elif not entry.spread or name == entry.function_keyword or name in options:
                continue
            elif entry.option_prefix and name.startswith(entry.option_prefix):
                continue
            else:
                keywords.append(arg)
        if args_node is not None:
            change = self._container_args(args_node, scope, seq)
            if change is not None:
                return change
        if kwargs_node is not None:
            change = self._container_kwargs(kwargs_node, scope, seq)
            if change is not None:
                return change
        change = self._positional([(a.value, a.star == "*") for a in positional], scope, seq)
        if change is not None:
            return change
        return self._keywords(
            [(a.keyword.value if a.keyword is not None else None, a.value) for a in keywords],
            scope,
            seq,
        )

    def _container_args(
        self, node: cst.BaseExpression, scope: FunctionScope, seq: int, depth: int = 0
    ) -> Optional[str]:
        if depth > _MAX_DEPTH or self._passes_all_args(node, scope, seq):
            return None
        if isinstance(node, (cst.Tuple, cst.List)):
            elements = [
                (e.value, isinstance(e, cst.StarredElement)) for e in node.elements
            ]
            return self._positional(elements, scope, seq)
        if isinstance(node, cst.Name):
            for _, value, value_scope in self._single(scope, node.value, seq):
                return self._container_args(value, value_scope, seq, depth + 1)
        return None

    def _container_kwargs(
        self, node: cst.BaseExpression, scope: FunctionScope, seq: int, depth: int = 0
    ) -> Optional[str]:
        if depth > _MAX_DEPTH or self._passes_all_kwargs(node, scope, seq):
            return None
        if isinstance(node, cst.Dict):
            items: List[Tuple[Optional[str], cst.BaseExpression]] = []
            for element in node.elements:
                if not isinstance(element, cst.DictElement):
                    items.append((None, element.value))
                    continue
                key = self.knowledge.string_value(element.key, scope)
                if key is None or "{}" in key:
                    continue
                items.append((key, element.value))
            return self._keywords(items, scope, seq)
        if isinstance(node, cst.Call) and scope.resolver.resolve(node.func) == "dict":
            items = []
            for arg in node.args:
                if arg.keyword is not None:
                    items.append((arg.keyword.value, arg.value))
                elif arg.star == "**" or not arg.star:
                    items.append((None, arg.value))
            return self._keywords(items, scope, seq)
        if isinstance(node, cst.Name):
            for _, value, value_scope in self._single(scope, node.value, seq):
                return self._container_kwargs(value, value_scope, seq, depth + 1)
        return None

    def _positional(
        self, elements: Sequence[Tuple[cst.BaseExpression, bool]], scope: FunctionScope, seq: int
    ) -> Optional[str]:
        names = self.signature.positional
        unpacked = False
        for index, (value, starred) in enumerate(elements):
            if starred:
                if index == 0 and self._passes_all_args(value, scope, seq):
                    unpacked = True
                    continue
                return None  # positions after an unknown unpacking cannot be matched
            if unpacked:
                return f"`{source_text(value, 48)}` appended to its own arguments"
            if index >= len(names):
                return f"`{source_text(value, 48)}` as an extra positional argument"
            expected = names[index]
            if not self._unchanged(value, expected, scope, seq):
                return _replaces(value, expected)
        return None

    def _keywords(
        self,
        items: Sequence[Tuple[Optional[str], cst.BaseExpression]],
        scope: FunctionScope,
        seq: int,
    ) -> Optional[str]:
        for key, value in items:
            if key is None:
                # ``**self.request.kwargs`` passes through; unknown mappings are not judged.
                continue
            if key not in self.signature.names and self.signature.star_kwarg is None:
                return f"`{key}={source_text(value, 48)}`, which is not one of its arguments"
            if not self._unchanged(value, key, scope, seq):
                return _replaces(value, key)
        return None

    # -- one value ----------------------------------------------------------

    def _unchanged(
        self,
        node: cst.BaseExpression,
        expected: str,
        scope: FunctionScope,
        seq: int,
        depth: int = 0,
    ) -> bool:
        """Whether ``node`` holds the task's own argument ``expected``, unmodified."""
        if depth > _MAX_DEPTH:
            return True  # too deep to follow: not reported
        key = (id(node), expected, id(scope), seq)
        known = self._memo.get(key)
        if known is None:
            known = self._memo[key] = self._judge_value(node, expected, scope, seq, depth)
        return known

    def _judge_value(
        self, node: cst.BaseExpression, expected: str, scope: FunctionScope, seq: int, depth: int
    ) -> bool:
        if isinstance(node, cst.Name):
            name = node.value
            if self._mutated_before(scope, name, seq):
                return False
            assignments = self._assignments(scope, name, seq)
            if assignments:
                return all(
                    value is not None
                    and self._unchanged(value, expected, value_scope, at, depth + 1)
                    for at, value, value_scope in assignments
                )
            if scope.is_task:
                return name == expected and name in self.signature.names
            return False
        if isinstance(node, cst.Call):
            if len(node.args) == 1 and not node.args[0].keyword and not node.args[0].star:
                if scope.resolver.resolve(node.func) in catalog.VALUE_PRESERVING_CALLS:
                    return self._unchanged(node.args[0].value, expected, scope, seq, depth + 1)
            request_get = _request_kwargs_get(node)
            if request_get is not None:
                receiver, name = request_get
                return name == expected and self._is_request(receiver, "kwargs", scope, seq)
            return False
        if isinstance(node, cst.Subscript) and len(node.slice) == 1:
            index = node.slice[0].slice
            if not isinstance(index, cst.Index):
                return False
            subscript = index.value
            request_args = self._is_request(node.value, "args", scope, seq)
            if isinstance(subscript, cst.Integer) and request_args:
                position = int(subscript.value, 0)
                names = self.signature.positional
                return position < len(names) and names[position] == expected
            text = (
                self.knowledge.string_value(subscript, scope)
                if isinstance(subscript, cst.SimpleString)
                else None
            )
            if text is not None and self._is_request(node.value, "kwargs", scope, seq):
                return text == expected
        return False

    def _passes_all_args(self, node: cst.BaseExpression, scope: FunctionScope, seq: int) -> bool:
        node = _unwrap(node, scope, ("tuple", "list"))
        if self._is_request(node, "args", scope, seq):
            return True
        return (
            isinstance(node, cst.Name)
            and scope.is_task
            and node.value == self.signature.star_arg
            and not self._assignments(scope, node.value, seq)
            and not self._mutated_before(scope, node.value, seq)
        )

    def _passes_all_kwargs(self, node: cst.BaseExpression, scope: FunctionScope, seq: int) -> bool:
        node = _unwrap(node, scope, ("dict",))
        if self._is_request(node, "kwargs", scope, seq):
            return True
        return (
            isinstance(node, cst.Name)
            and scope.is_task
            and node.value == self.signature.star_kwarg
            and not self._assignments(scope, node.value, seq)
            and not self._mutated_before(scope, node.value, seq)
        )

    def _is_request(
        self, node: cst.BaseExpression, field: str, scope: FunctionScope, seq: int
    ) -> bool:
        """``self.request.args`` / ``self.request.kwargs`` of the bound task."""
        return (
            isinstance(node, cst.Attribute)
            and node.attr.value == field
            and isinstance(node.value, cst.Attribute)
            and node.value.attr.value == "request"
            and self._is_self(node.value.value, scope, seq)
        )

    # -- assignments ------------------------------------------------------------

    def _assignments(self, scope: FunctionScope, name: str, seq: int) -> List[_Assignment]:
        return [a for a in self.assigned.get((id(scope), name), []) if a[0] < seq]

    def _single(
        self, scope: FunctionScope, name: str, seq: int
    ) -> List[Tuple[int, cst.BaseExpression, FunctionScope]]:
        """The one visible value of a local, as a list of zero or one."""
        if self._mutated_before(scope, name, seq):
            return []
        found = self._assignments(scope, name, seq)
        if len(found) != 1:
            return []
        at, value, value_scope = found[0]
        return [] if value is None else [(at, value, value_scope)]

    def _mutated_before(self, scope: FunctionScope, name: str, seq: int) -> bool:
        return any(at < seq for at in self.mutated.get((id(scope), name), []))


def _replaces(value: cst.BaseExpression, expected: str) -> str:
    if isinstance(value, cst.Name) and value.value == expected:
        return f"`{expected}` after it was reassigned or modified"
    return f"`{source_text(value, 48)}` for its argument `{expected}`"


def _unwrap(
    node: cst.BaseExpression, scope: FunctionScope, wrappers: Tuple[str, ...]
) -> cst.BaseExpression:
    if (
        isinstance(node, cst.Call)
        and len(node.args) == 1
        and not node.args[0].keyword
        and node.args[0].star in ("", "**")
        and scope.resolver.resolve(node.func) in wrappers
    ):
        return node.args[0].value
    return node


def _request_kwargs_get(node: cst.Call) -> Optional[Tuple[cst.BaseExpression, str]]:
    """``self.request.kwargs.get("order_id")`` -> (``self.request.kwargs``, name)."""
    func = node.func
    if not (isinstance(func, cst.Attribute) and func.attr.value == "get" and node.args):
        return None
    key = node.args[0].value
    if not isinstance(key, cst.SimpleString):
        return None
    text = literal_text(key)
    return (func.value, text) if text is not None else None


def _signature_call(
    node: cst.BaseExpression,
) -> Optional[Tuple[cst.Call, cst.BaseExpression, str]]:
    """``t.s(a, b)`` / ``t.si(a, b)``: (the call, ``t``, ``s``), a Celery signature."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        if node.func.attr.value in _SIGNATURE_METHODS:
            return node, node.func.value, node.func.attr.value
    return None


def _chain_base(node: cst.BaseExpression) -> cst.BaseExpression:
    """``task`` of ``task.kicker().with_labels(delay=5)``."""
    while isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        node = node.func.value
    return node


def _base_name(node: cst.BaseExpression) -> Optional[str]:
    while isinstance(node, (cst.Subscript, cst.Attribute)):
        node = node.value
    return node.value if isinstance(node, cst.Name) else None


