"""Where a statement stands in its function: the block that holds it and what follows.

The trace records each event's path as container ids; some rules ask about
the statement itself: a ``with`` block and what runs after it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Optional, Sequence, Tuple, Union

import libcst as cst

from idemlint.names import children

Statement = cst.BaseStatement


@dataclass(frozen=True)
class PlacedWith:
    """A ``with`` statement and the statements after it in its block."""

    node: cst.With
    following: Tuple[Statement, ...]


def placed_with(function: cst.FunctionDef, container: int) -> Optional[PlacedWith]:
    """The ``with`` statement whose id is ``container`` in ``function``'s
    body (not inside a nested definition), with what follows it."""
    for block in _blocks(function.body):
        for position, statement in enumerate(block):
            if isinstance(statement, cst.With) and id(statement) == container:
                return PlacedWith(statement, tuple(block[position + 1 :]))
    return None


def only_tests_and_exits(block: Sequence[Statement]) -> bool:
    """Whether a block does nothing but test and leave: ``if``s whose
    bodies hold only an exit and expression statements (a log line before
    it), and ``pass``."""
    if not block:
        return False
    for statement in block:
        if isinstance(statement, cst.If):
            body = statement.body
            if statement.orelse is not None or not isinstance(body, cst.IndentedBlock) or not _exits(body.body):
                return False
        elif not (
            isinstance(statement, cst.SimpleStatementLine)
            and all(isinstance(small, cst.Pass) for small in statement.body)
        ):
            return False
    return True


def does_work(block: Sequence[Statement]) -> bool:
    """Whether a block holds anything besides ``pass``, ``return`` and ``raise``."""
    return any(
        not (
            isinstance(statement, cst.SimpleStatementLine)
            and all(isinstance(small, (cst.Pass, cst.Return, cst.Raise)) for small in statement.body)
        )
        for statement in block
    )


def _exits(block: Sequence[Statement]) -> bool:
    return all(_is_expression_or_pass(s) or is_exit(s) for s in block) and any(is_exit(s) for s in block)


def is_exit(statement: Union[cst.BaseStatement, cst.BaseSmallStatement]) -> bool:
    """A ``return`` or ``raise`` (or a line holding one)."""
    if isinstance(statement, cst.SimpleStatementLine):
        return any(isinstance(small, (cst.Return, cst.Raise)) for small in statement.body)
    return isinstance(statement, (cst.Return, cst.Raise))


def _is_expression_or_pass(statement: Statement) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and all(
        isinstance(small, (cst.Expr, cst.Pass)) for small in statement.body
    )


def _blocks(suite: cst.BaseSuite) -> Iterator[Sequence[Statement]]:
    """Every statement list of a function body, nested definitions left out."""
    if not isinstance(suite, cst.IndentedBlock):
        return
    yield suite.body
    for statement in suite.body:
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            continue
        for child in children(statement):
            if isinstance(child, cst.BaseSuite):
                yield from _blocks(child)
            elif isinstance(child, (cst.Else, cst.Finally, cst.ExceptHandler, cst.ExceptStarHandler, cst.If)):
                yield from _nested(child)


def _nested(node: cst.CSTNode) -> Iterator[Sequence[Statement]]:
    for child in children(node):
        if isinstance(child, cst.BaseSuite):
            yield from _blocks(child)
        elif isinstance(child, (cst.Else, cst.Finally, cst.ExceptHandler, cst.ExceptStarHandler, cst.If)):
            yield from _nested(child)


def alone_on_its_line(function: cst.FunctionDef, call: cst.Call) -> bool:
    """Whether ``call`` is an expression statement of ``function`` with its
    line to itself, unbracketed and without a semicolon: what a fix may wrap
    or replace as a whole statement."""
    return not call.lpar and any(
        is_call_statement(statement, call) for block in _blocks(function.body) for statement in block
    )


def is_call_statement(statement: Statement, call: cst.Call) -> bool:
    """Whether ``statement`` is the line holding ``call`` alone, with no semicolon."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return False
    small = statement.body[0]
    return isinstance(small, cst.Expr) and small.value is call and not isinstance(small.semicolon, cst.Semicolon)


def truth_tested(function: cst.FunctionDef, call: cst.Call) -> bool:
    """Whether ``call`` is the whole test of an ``if``, ``elif`` or
    ``while`` of ``function`` (``if X:``, ``if not X:``), where only its
    truth is read."""
    for block in _blocks(function.body):
        for statement in block:
            test: Optional[cst.CSTNode] = statement
            while isinstance(test, (cst.If, cst.While)):
                if _tested(test.test) is call:
                    return True
                test = test.orelse if isinstance(test, cst.If) else None
    return False


def _tested(test: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return test.expression
    return test
