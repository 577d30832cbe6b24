"""What an ORM query call filters its rows by, in one spelling.

Django filters by keyword (``filter(status=Status.QUEUED)``,
``exclude(sent_at__isnull=False)``); SQLAlchemy by keyword in
``filter_by(cached=False)`` and by column expressions in ``filter(...)``
and ``where(...)``:

- ``Model.sent_at == None``, ``Model.sent_at.is_(None)``: ``sent_at__isnull=True``
  (``!= None``, ``is_not(None)``, ``isnot(None)``: ``sent_at__isnull=False``);
- ``Model.status == Status.QUEUED``, ``Model.notified.is_(False)``:
  ``status=Status.QUEUED``, ``notified=False``;
- ``Model.status != X``: ``status=X`` excluded;
- ``Model.status.in_([...])``: ``status__in=[...]`` (``not_in``, ``notin_``: excluded);
- ``~Model.notified``, ``not_(Model.notified)``: ``notified=False``; a bare
  ``Model.active``: ``active=True``;
- ``and_(a, b)``: each of ``a`` and ``b``.

Each is read as a :class:`Term`: the lookup as Django spells it, the value
and whether the rows it names are excluded.  A statement handed to a
session (``session.execute(select(M).where(...))``, ``scalars(stmt)``) is
followed by :func:`statement_of`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Optional

import libcst as cst

from idemlint import catalog
from idemlint.names import called_name, method_name

TRUE = cst.Name("True")
FALSE = cst.Name("False")

_POSITIVE_TESTS = {"is_": False, "in_": False}
_NEGATIVE_TESTS = {"is_not": True, "isnot": True, "not_in": True, "notin_": True}


@dataclass(frozen=True)
class Term:
    """One condition of a filter: ``lookup`` as Django spells it
    (``sent_at__isnull``), ``value`` and whether the rows it names are
    excluded (``exclude()``, ``!=``, ``not_in``)."""

    lookup: str
    value: cst.BaseExpression
    excluded: bool


def filter_terms(call: cst.Call) -> Iterator[Term]:
    """The conditions of a filtering call (``filter``, ``exclude``,
    ``filter_by``, ``where``, ``get``): its keywords and its column
    expressions."""
    method = method_name(call)
    if method not in catalog.FILTERING_METHODS:
        return
    excluded = method == "exclude"
    for arg in call.args:
        if arg.keyword is not None:
            yield Term(arg.keyword.value, arg.value, excluded)
        elif not arg.star and method in catalog.EXPRESSION_FILTERING_METHODS:
            yield from _expression_terms(arg.value, excluded)


def statement_of(call: cst.Call) -> Optional[cst.BaseExpression]:
    """The statement a session runs (``execute(stmt)``, ``scalars(stmt)``)."""
    if method_name(call) not in catalog.STATEMENT_RUNNERS:
        return None
    positional = [arg for arg in call.args if arg.keyword is None and not arg.star]
    return positional[0].value if positional else None


def _expression_terms(node: cst.BaseExpression, excluded: bool) -> Iterator[Term]:
    if isinstance(node, cst.Comparison) and len(node.comparisons) == 1:
        field = _column(node.left)
        target = node.comparisons[0]
        if field is None:
            return
        if isinstance(target.operator, (cst.Equal, cst.Is)):
            yield _compared(field, target.comparator, excluded)
        elif isinstance(target.operator, (cst.NotEqual, cst.IsNot)):
            yield _compared(field, target.comparator, not excluded)
    elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        field = _column(node.func.value)
        test = node.func.attr.value
        if field is not None and test in {**_POSITIVE_TESTS, **_NEGATIVE_TESTS} and len(node.args) == 1:
            negated = _NEGATIVE_TESTS.get(test, False) != excluded
            value = node.args[0].value
            if test in ("in_", "not_in", "notin_"):
                yield Term(f"{field}__in", value, negated)
            else:
                yield _compared(field, value, negated)
    elif isinstance(node, cst.Call) and called_name(node) in ("and_", "not_") and node.args:
        if called_name(node) == "and_":
            for arg in node.args:
                yield from _expression_terms(arg.value, excluded)
        else:
            field = _column(node.args[0].value)
            if field is not None:
                yield Term(field, FALSE, excluded)
    elif isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.BitInvert, cst.Not)):
        field = _column(node.expression)
        if field is not None:
            yield Term(field, FALSE, excluded)
    else:
        field = _column(node)
        if field is not None:
            yield Term(field, TRUE, excluded)


def _compared(field: str, value: cst.BaseExpression, excluded: bool) -> Term:
    """``field == value``: an empty field for ``None``."""
    if isinstance(value, cst.Name) and value.value == "None":
        return Term(f"{field}__isnull", FALSE if excluded else TRUE, False)
    return Term(field, value, excluded)


def _column(node: cst.BaseExpression) -> Optional[str]:
    """``Model.field`` (a class, spelled capitalised, or a table's ``c``):
    the field's name."""
    if not isinstance(node, cst.Attribute):
        return None
    owner = node.value
    name = owner.attr.value if isinstance(owner, cst.Attribute) else owner.value if isinstance(owner, cst.Name) else ""
    if name == "c" or name[:1].isupper():
        return node.attr.value
    return None
