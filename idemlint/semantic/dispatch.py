"""Calls whose callee the code picks at run time, among functions it names.

``HANDLERS[kind](order)`` runs one of the functions a dict, list or tuple
literal holds; ``handler = HANDLERS.get(kind)`` then ``handler(order)`` the
same; ``send = by_mail if urgent else by_webhook`` then ``send(order)`` one
of two.  Which one depends on data, so each is a project definition the
call may run: the trace walks every candidate, each on a path of its own
(they exclude each other as the branches of an ``if`` do,
:class:`idemlint.semantic.trace.TraceBuilder`), and a rule reports what any of
them does.

Only tables written as literals are read, in the function making the
call or at module level (its own module's, or imported from another
project module): a table filled at run time, by a registry decorator or
passed in, picks from nothing the code shows.  Classes in a table are not
candidates: calling one makes an instance, whose methods the call does
not run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator, List, Optional, Tuple

import libcst as cst

from idemlint.semantic.resolution import Calls, Definition, assigned_in
from idemlint.names import argument
from idemlint.project import LoadedModule

if TYPE_CHECKING:
    from idemlint.semantic.trace import FunctionScope

# An expression that may name a candidate, and where it is written: in the
# function being walked (None) or at module level in that module.
_Written = Tuple[cst.BaseExpression, Optional[LoadedModule]]

# How many aliases and conditional expressions one question may pass
# through (``send = a if x else b``, ``handler = TABLE.get(kind)``), and how
# many candidates of one call are walked (the first ones written).
MAX_ALIASES = 8
MAX_CANDIDATES = 32


@dataclass(frozen=True)
class Picked:
    """The candidates of a call, and whether they are all it may run:
    every alternative the code writes is a project function (a library
    function or an unknown value among them leaves the call a call of
    its own, whose candidates are still walked)."""

    definitions: Tuple[Definition, ...]
    complete: bool


NOTHING = Picked((), False)


def candidates(calls: Calls, call: cst.Call, scope: "FunctionScope") -> Picked:
    """The project functions ``call`` may run, picked from a table or an
    alias; each once, in the order the code writes them."""
    found: List[Definition] = []
    complete = True
    for expression, module in _picked(call.func, scope, calls, MAX_ALIASES):
        if isinstance(expression, cst.Name) and expression.value == "None":
            continue  # ``TABLE.get(kind)`` finding nothing: calling it raises
        value = calls.value_of(expression, scope) if module is None else calls.module_value(expression, module)
        if not isinstance(value, Definition):
            complete = False
        elif all(value.function is not f.function for f in found):
            found.append(value)
            if len(found) == MAX_CANDIDATES:
                return Picked(tuple(found), False)
    return Picked(tuple(found), complete and bool(found))


def method_candidates(calls: Calls, call: cst.Call, scope: "FunctionScope") -> Picked:
    """The methods ``notifier.send()`` may run when ``notifier`` is a
    module-level name (of the scope's module, or imported from a project
    module) that the branches of an ``if`` or ``try`` bind to different
    values (``ModuleIndex.alternatives``): each value's method, in the order
    written.  Complete only when every value's method is a project
    definition; a name the function binds itself is its own."""
    func = call.func
    if not isinstance(func, cst.Attribute):
        return NOTHING
    held = _receiver_alternatives(func.value, scope, calls)
    if held is None:
        return NOTHING
    values, module = held
    found: List[Definition] = []
    complete = True
    for value in values:
        if isinstance(value, cst.Name) and value.value == "None":
            continue  # calling a method of None raises
        method = calls.module_value(cst.Attribute(value=value, attr=func.attr), module)
        if not isinstance(method, Definition):
            complete = False
        elif all(method.function is not f.function for f in found):
            found.append(method)
    return Picked(tuple(found[:MAX_CANDIDATES]), complete and bool(found) and len(found) <= MAX_CANDIDATES)


def _receiver_alternatives(
    receiver: cst.BaseExpression, scope: "FunctionScope", calls: Calls
) -> Optional[Tuple[List[cst.BaseExpression], LoadedModule]]:
    """The values a receiver spelled ``name`` or ``module.name`` may hold,
    with the module they are written in, when a module-level ``if`` or
    ``try`` binds it on several branches."""
    if isinstance(receiver, cst.Attribute) and isinstance(receiver.value, (cst.Name, cst.Attribute)):
        # Only a project module's name is looked into (``Order.objects`` parses no models module).
        dotted = scope.resolver.resolve(receiver.value)
        if calls.project is None or dotted not in calls.project.files:
            return None
        module = calls.value_of(receiver.value, scope)
        name = receiver.attr.value
        if isinstance(module, LoadedModule) and name in module.index.alternatives:
            return module.index.alternatives[name], module
        return None
    if not isinstance(receiver, cst.Name) or _values_before(receiver.value, scope) is not None:
        return None
    return _module_alternatives(receiver.value, scope, calls)


def _module_alternatives(
    name: str, scope: "FunctionScope", calls: Calls
) -> Optional[Tuple[List[cst.BaseExpression], LoadedModule]]:
    index = scope.module.index
    if name in index.constants and name not in index.imports:
        return (index.alternatives[name], scope.module) if name in index.alternatives else None
    bound = calls.binding_imported(name, scope.resolver)
    if bound is None or bound[0] not in bound[1].index.alternatives:
        return None
    return bound[1].index.alternatives[bound[0]], bound[1]


def _picked(
    func: cst.BaseExpression, scope: "FunctionScope", calls: Calls, budget: int
) -> Iterator[_Written]:
    """What a call's callee may be: the entries of the table it indexes, or
    the values its local name was assigned before the call."""
    if isinstance(func, cst.Subscript):
        yield from _entries(func.value, scope, calls)
    elif _is_table_get(func):
        assert isinstance(func, cst.Call) and isinstance(func.func, cst.Attribute)
        yield from _entries(func.func.value, scope, calls)
        default = argument(func, 1, "default")
        yield (default, None) if default is not None else (cst.Name("None"), None)
    elif isinstance(func, cst.Name) and budget > 0:
        for value in _values_before(func.value, scope) or ():
            yield from _alternatives(value, scope, calls, budget - 1)


def _alternatives(
    value: cst.BaseExpression, scope: "FunctionScope", calls: Calls, budget: int
) -> Iterator[_Written]:
    """The functions one assigned value may be: either side of a
    conditional expression, a table's entries, or the value itself."""
    if isinstance(value, cst.IfExp):
        yield from _alternatives(value.body, scope, calls, budget - 1)
        yield from _alternatives(value.orelse, scope, calls, budget - 1)
    elif isinstance(value, cst.Subscript) or _is_table_get(value):
        yield from _picked(value, scope, calls, budget)
    else:
        yield value, None


def _is_table_get(node: cst.BaseExpression) -> bool:
    """``table.get(key)`` or ``table.get(key, default)`` (``module.TABLE.get`` too)."""
    return (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "get"
        and isinstance(node.func.value, (cst.Name, cst.Attribute))
        and 1 <= len(node.args) <= 2
        and not any(arg.star for arg in node.args)
    )


def _entries(table: cst.BaseExpression, scope: "FunctionScope", calls: Calls) -> Iterator[_Written]:
    """The values of the literal ``table`` is or names: assigned before the
    call in the function that binds the name (every value a literal), else
    at module level (``TABLE``, or ``module.TABLE`` of a project module)."""
    literal = _literal_entries(table)
    if literal is not None:
        yield from ((entry, None) for entry in literal)
        return
    if isinstance(table, cst.Attribute):
        module = calls.value_of(table.value, scope)
        if isinstance(module, LoadedModule) and table.attr.value in module.index.constants:
            entries = _literal_entries(module.index.constants[table.attr.value]) or []
            yield from ((entry, module) for entry in entries)
        return
    if not isinstance(table, cst.Name):
        return
    local = _values_before(table.value, scope)
    if local is not None:
        tables = [_literal_entries(value) for value in local]
        if all(entries is not None for entries in tables):  # else filled at run time too
            yield from ((entry, None) for entries in tables for entry in entries or [])
        return
    constant = _module_constant(table.value, scope, calls)
    if constant is not None:
        yield from ((entry, constant[1]) for entry in _literal_entries(constant[0]) or [])


def _literal_entries(node: cst.BaseExpression) -> Optional[List[cst.BaseExpression]]:
    """The values a dict, list or tuple literal holds; None for anything else."""
    if isinstance(node, cst.Dict):
        return [element.value for element in node.elements if isinstance(element, cst.DictElement)]
    if isinstance(node, (cst.List, cst.Tuple)):
        return [element.value for element in node.elements if isinstance(element, cst.Element)]
    return None


def _values_before(name: str, scope: "FunctionScope") -> Optional[List[cst.BaseExpression]]:
    """The values the walk has seen assigned to ``name`` in the innermost
    function that binds it (a parameter, a loop variable, a ``with``
    target: no value the code shows), or None when no function around the
    call binds it (a module-level name)."""
    current: Optional["FunctionScope"] = scope
    while current is not None:
        if name in current.parameters:
            return []
        if name in assigned_in(current.function):
            return current.values.get(name, [])
        current = current.enclosing
    return None


def _module_constant(
    name: str, scope: "FunctionScope", calls: Calls
) -> Optional[Tuple[cst.BaseExpression, LoadedModule]]:
    """The module-level value ``name`` has where the scope's function is
    written: its module's own, or one imported from a project module."""
    index = scope.module.index
    if name in index.constants and name not in index.imports:
        return index.constants[name], scope.module
    return calls.constant_imported(name, scope.resolver)
