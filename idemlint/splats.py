"""Functions handed to RQ inside a dict splatted with ``**``.

rq-scheduler users often keep their periodic jobs as a table of keyword
dicts, ``{"func": refresh, "interval": 60}``, and hand each to
``scheduler.schedule(time, **job)``.  The callable is then the dict's entry
under the name the API takes it by (see ``tasks._handed_function``).

What is followed stays within one function, plus one call: a dict literal
splatted in place, a local name bound once to one, a loop variable over a
list or tuple of dict literals (written in place, or a local list built
from literals with ``append``/``extend``), and the same list returned by a
function the loop iterates over (``for job in definitions():``).  No value
is followed through a parameter, an attribute or a comprehension.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, Iterator, List, Mapping, Optional, Sequence, Tuple

import libcst as cst


@dataclass(frozen=True)
class Splat:
    """An expression splatted with ``**`` into a call that hands RQ a
    function: the function is the dict's entry under one of ``keys``."""

    value: cst.BaseExpression
    keys: Tuple[str, ...]


@dataclass(frozen=True)
class Scope:
    """What one function body binds that a splatted name may stand for:
    locals bound once to a dict literal, locals built as a list of dict
    literals, and each loop variable with what it iterates."""

    dicts: Mapping[str, cst.Dict] = field(default_factory=dict)
    lists: Mapping[str, Tuple[cst.Dict, ...]] = field(default_factory=dict)
    loops: Mapping[str, Tuple[cst.BaseExpression, ...]] = field(default_factory=dict)
    returned: Tuple[cst.BaseExpression, ...] = ()


MODULE_SCOPE = Scope()


def scope_of(function: cst.FunctionDef) -> Scope:
    """The bindings of ``function``'s body (nested functions and classes apart)."""
    assigned: Dict[str, List[cst.BaseExpression]] = {}
    grown: Dict[str, List[cst.Dict]] = {}
    loops: Dict[str, List[cst.BaseExpression]] = {}
    returned: List[cst.BaseExpression] = []
    for statement in _statements(function.body.body):
        if isinstance(statement, cst.For) and isinstance(statement.target, cst.Name):
            loops.setdefault(statement.target.value, []).append(statement.iter)
        elif isinstance(statement, cst.Assign):
            for target in statement.targets:
                if isinstance(target.target, cst.Name):
                    assigned.setdefault(target.target.value, []).append(statement.value)
        elif isinstance(statement, cst.Return) and statement.value is not None:
            returned.append(statement.value)
        elif isinstance(statement, cst.Expr):
            _record_growth(statement.value, grown)
    dicts = {
        name: values[0]
        for name, values in assigned.items()
        if len(values) == 1 and isinstance(values[0], cst.Dict)
    }
    lists = {
        name: (*_dict_elements(values[0]), *grown.get(name, ()))
        for name, values in assigned.items()
        if len(values) == 1 and isinstance(values[0], (cst.List, cst.Tuple))
    }
    iterated = {name: tuple(iters) for name, iters in loops.items()}
    return Scope(dicts, lists, iterated, tuple(returned))


def _record_growth(value: cst.BaseExpression, grown: Dict[str, List[cst.Dict]]) -> None:
    """``jobs.append({...})`` and ``jobs.extend([{...}, ...])``."""
    if not (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and isinstance(value.func.value, cst.Name)
        and len(value.args) == 1
    ):
        return
    name, method, added = value.func.value.value, value.func.attr.value, value.args[0].value
    if method == "append" and isinstance(added, cst.Dict):
        grown.setdefault(name, []).append(added)
    elif method == "extend":
        grown.setdefault(name, []).extend(_dict_elements(added))


def _statements(statements: Sequence[cst.CSTNode]) -> Iterator[cst.CSTNode]:
    """Every small and compound statement of a body, into nested blocks."""
    for statement in statements:
        if isinstance(statement, cst.SimpleStatementLine):
            yield from statement.body
            continue
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            continue
        yield statement
        body = getattr(statement, "body", None)
        if isinstance(body, cst.BaseSuite):
            yield from _statements(body.body)
        for handler in getattr(statement, "handlers", ()):
            yield from _statements(handler.body.body)
        for name in ("orelse", "finalbody"):
            extra = getattr(statement, name, None)
            if isinstance(extra, cst.If):
                yield from _statements([extra])
            elif extra is not None:
                yield from _statements(extra.body.body)


def _dict_elements(value: cst.BaseExpression) -> Tuple[cst.Dict, ...]:
    if not isinstance(value, (cst.List, cst.Tuple)):
        return ()
    return tuple(e.value for e in value.elements if isinstance(e.value, cst.Dict))


def returned_dicts(function: cst.FunctionDef) -> Tuple[cst.Dict, ...]:
    """The dict literals of the list or tuple a function returns (its job
    definitions table), written in the ``return`` or built in a local."""
    scope = scope_of(function)
    found: List[cst.Dict] = []
    for value in scope.returned:
        if isinstance(value, cst.Name):
            found += scope.lists.get(value.value, ())
        else:
            found += _dict_elements(value)
    return tuple(found)


@dataclass(frozen=True)
class Reached:
    """The dicts a splatted expression may be: literals of this module, and
    the names of functions called for their tables (``for job in
    definitions():``), which the caller looks up; ``lost`` when it is a loop
    variable over something not followed."""

    dicts: Tuple[cst.Dict, ...] = ()
    tables: Tuple[cst.BaseExpression, ...] = ()
    lost: bool = False


def reached(value: cst.BaseExpression, scope: Scope) -> Reached:
    """What a splatted (or wrapper-handed) expression denotes, in ``scope``."""
    if isinstance(value, cst.Dict):
        return Reached(dicts=(value,))
    if not isinstance(value, cst.Name):
        return Reached()
    if value.value in scope.dicts:
        return Reached(dicts=(scope.dicts[value.value],))
    dicts: List[cst.Dict] = []
    tables: List[cst.BaseExpression] = []
    lost = False
    # A name several loops bind may be the variable of any of them.
    for iterated in scope.loops.get(value.value, ()):
        if isinstance(iterated, (cst.List, cst.Tuple)):
            dicts += _dict_elements(iterated)
        elif isinstance(iterated, cst.Name) and iterated.value in scope.lists:
            dicts += scope.lists[iterated.value]
        elif isinstance(iterated, cst.Call) and not iterated.args:
            tables.append(iterated.func)
        else:
            lost = True
    return Reached(tuple(dicts), tuple(tables), lost)


def entry(dictionary: cst.Dict, keys: Sequence[str]) -> Optional[cst.BaseExpression]:
    """The value a dict literal holds under one of ``keys`` (a string key)."""
    for element in dictionary.elements:
        if not isinstance(element, cst.DictElement):
            continue
        key = element.key
        if isinstance(key, cst.SimpleString) and key.evaluated_value in keys:
            return element.value
    return None
