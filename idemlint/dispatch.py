"""Calls whose callee the code picks at run time, among functions it names.

``HANDLERS[kind](order)`` runs one of the functions a dict, list or tuple
literal holds; ``handler = HANDLERS.get(kind)`` then ``handler(order)`` the
same; ``send = by_mail if urgent else by_webhook`` then ``send(order)`` one
of two.  Which one depends on data, so each is a project definition the
call may run: the trace walks every candidate, each on a path of its own
(they exclude each other as the branches of an ``if`` do,
:class:`idemlint.analysis.TraceBuilder`), and a rule reports what any of
them does.

Only tables written as literals are read, in the function making the
call or at module level (its own module's, or imported from another
project module): a table filled at run time, by a registry decorator or
passed in, picks from nothing the code shows.  Classes in a table are not
candidates: calling one makes an instance, whose methods the call does
not run.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Iterator, List, Mapping, Optional, Tuple

import libcst as cst

from idemlint.calls import Calls, Definition, local_assignments
from idemlint.names import argument

from idemlint.project import LoadedModule

if TYPE_CHECKING:
    from idemlint.analysis import FunctionScope

# An expression that may name a candidate, and where it is written: in the
# function being walked (None) or at module level in that module.
_Written = Tuple[cst.BaseExpression, Optional[LoadedModule]]

# How many aliases and conditional expressions one question may pass
# through (``send = a if x else b``, ``handler = TABLE.get(kind)``), and how
# many candidates of one call are walked (the first ones written).
MAX_ALIASES = 8
MAX_CANDIDATES = 32


def candidates(calls: Calls, call: cst.Call, scope: "FunctionScope") -> Tuple[Definition, ...]:
    """The project functions ``call`` may run, picked from a table or an
    alias; each once, in the order the code writes them."""
    found: List[Definition] = []
    for expression, module in _picked(call.func, scope, calls, MAX_ALIASES):
        value = calls.value_of(expression, scope) if module is None else calls.module_value(expression, module)
        if isinstance(value, Definition) and all(value.function is not f.function for f in found):
            found.append(value)
            if len(found) == MAX_CANDIDATES:
                break
    return tuple(found)


def _picked(
    func: cst.BaseExpression, scope: "FunctionScope", calls: Calls, budget: int
) -> Iterator[_Written]:
    """What a call's callee may be: the entries of the table it indexes, or
    the values its local name is assigned."""
    if isinstance(func, cst.Subscript):
        yield from _entries(func.value, scope, calls)
    elif _is_table_get(func):
        assert isinstance(func, cst.Call) and isinstance(func.func, cst.Attribute)
        yield from _entries(func.func.value, scope, calls)
        default = argument(func, 1, "default")
        if default is not None:
            yield default, None
    elif isinstance(func, cst.Name) and budget > 0:
        for value in _local_values(func.value, scope):
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
    elif isinstance(value, (cst.Name, cst.Attribute)):
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
    """The values of the literal ``table`` is or names: assigned in the
    function (every assignment a literal), else at module level
    (``TABLE``, or ``module.TABLE`` of a project module)."""
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
    assigned = _local_values(table.value, scope)
    if assigned:
        tables = [_literal_entries(value) for value in assigned]
        if all(entries is not None for entries in tables):  # else filled at run time too
            yield from ((entry, None) for entries in tables for entry in entries or [])
        return
    constant = _module_constant(table.value, scope, calls) if table.value not in scope.parameters else None
    if constant is not None:
        yield from ((entry, constant[1]) for entry in _literal_entries(constant[0]) or [])


def _literal_entries(node: cst.BaseExpression) -> Optional[List[cst.BaseExpression]]:
    """The values a dict, list or tuple literal holds; None for anything else."""
    if isinstance(node, cst.Dict):
        return [element.value for element in node.elements if isinstance(element, cst.DictElement)]
    if isinstance(node, (cst.List, cst.Tuple)):
        return [element.value for element in node.elements if isinstance(element, cst.Element)]
    return None


def _local_values(name: str, scope: "FunctionScope") -> List[cst.BaseExpression]:
    """Every value the scope's function assigns ``name`` (none for a name it
    does not assign)."""
    return _assignments(scope.function).get(name, [])


@functools.lru_cache(maxsize=1024)  # asked at every call of a name the walk does not resolve
def _assignments(function: cst.FunctionDef) -> Mapping[str, List[cst.BaseExpression]]:
    return local_assignments(function.body.body)


def _module_constant(
    name: str, scope: "FunctionScope", calls: Calls
) -> Optional[Tuple[cst.BaseExpression, "LoadedModule"]]:
    """The module-level value ``name`` has where the scope's function is
    written: its module's own, or one imported from a project module."""
    index = scope.module.index
    if name in index.constants and not index.resolver().is_imported(name):
        return index.constants[name], scope.module
    return calls.constant_imported(name, scope.resolver)
