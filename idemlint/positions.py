"""Source positions for the reported nodes only.

libcst's ``PositionProvider`` generates the code of the whole module and
visits every node; on a large module with one finding that costs twice the
parse.  Instead, each top-level statement's first line comes from the
CPython AST the engine already built when it screened the file, and
positions are generated only for the top-level statements that hold a
reported node, the ones a task walked first.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider

from idemlint.segments import Piece


def locate(
    pieces: Sequence[Piece],
    nodes: Sequence[cst.CSTNode],
    likely: Iterable[int] = (),
) -> Dict[int, CodeRange]:
    """``id(node) -> CodeRange`` for ``nodes``.

    ``pieces`` are a module's statements as parsed (the whole module, or
    what was parsed up front and each definition parsed later), each with
    its CPython counterparts, which hold the line numbers.  ``likely``
    holds ids of top-level statements (functions, classes) to search first:
    those a task's trace walked.  A class is searched method by method,
    since a model or client class can be thousands of lines long.
    """
    units: List[_Unit] = []
    for piece in pieces:
        found_units = _units(piece.module, piece.tree)
        if found_units is None:
            if len(pieces) == 1:
                return _whole_module(piece.module, nodes)
            raise ValueError("statements parsed apart do not line up with CPython's")
        units += found_units
    wanted = {id(node): node for node in nodes}
    found: Dict[int, CodeRange] = {}
    first = set(likely)
    for unit in sorted(units, key=lambda u: u.top not in first):
        if len(found) == len(wanted):
            break
        alone, positions = _statement_positions(unit.module, unit.statement)
        # Look the statement's own nodes up among the wanted ones, not the
        # other way round: with a finding per task, a module of thousands of
        # tasks would otherwise cost (tasks x findings) lookups.
        for node, where in positions.items():
            key = id(unit.statement) if node is alone else id(node)
            if key in wanted and key not in found:
                found[key] = _shifted(where, unit.first_line - 1, unit.indent)
    if len(found) < len(wanted):
        if len(pieces) == 1:
            return _whole_module(pieces[0].module, nodes)
        raise ValueError("a reported node is in no statement parsed")
    return found


@dataclass(frozen=True)
class _Unit:
    """A statement positioned on its own: its first line and the indentation
    to add to every column (a method inside a class)."""

    statement: Statement
    first_line: int
    indent: int
    top: int
    module: cst.Module  # whose indentation and newlines generate its code


def _units(module: cst.Module, tree: ast.Module) -> Optional[List[_Unit]]:
    starts = _first_lines(module.body, tree.body)
    if starts is None:
        return None
    units: List[_Unit] = []
    for statement, start, counterpart in starts:
        top = id(statement)
        body = statement.body if isinstance(statement, cst.ClassDef) else None
        if isinstance(body, cst.IndentedBlock) and isinstance(counterpart, ast.ClassDef):
            members = _first_lines(body.body, counterpart.body)
            indent = len(body.indent if body.indent is not None else module.default_indent)
            if members is not None and not _has_inline_multiline_strings(counterpart):
                units += [_Unit(member, line, indent, top, module) for member, line, _ in members]
        units.append(_Unit(statement, start, 0, top, module))
    return units


def _has_inline_multiline_strings(node: ast.AST) -> bool:
    """A multi-line string inside an expression: code after its last line is
    not indented with the class, so columns cannot be shifted.  Docstrings
    (a string statement of its own) are fine."""
    standalone = {id(n.value) for n in ast.walk(node) if isinstance(n, ast.Expr)}
    return any(
        isinstance(n, (ast.Constant, ast.JoinedStr))
        and n.end_lineno != n.lineno
        and id(n) not in standalone
        for n in ast.walk(node)
    )


Statement = Union[cst.SimpleStatementLine, cst.BaseCompoundStatement]


def _first_lines(
    statements: Sequence[cst.BaseStatement], counterparts: Sequence[ast.stmt]
) -> Optional[List[Tuple[Statement, int, ast.stmt]]]:
    """Each libcst statement with its first line and its CPython AST statement.

    ``a = 1; b = 2`` is one libcst statement and two AST statements.
    """
    starts: List[Tuple[Statement, int, ast.stmt]] = []
    position = 0
    for statement in statements:
        if position >= len(counterparts) or not isinstance(
            statement, (cst.SimpleStatementLine, cst.BaseCompoundStatement)
        ):
            return None
        counterpart = counterparts[position]
        decorators = getattr(counterpart, "decorator_list", [])
        starts.append((statement, min([counterpart.lineno, *(d.lineno for d in decorators)]), counterpart))
        position += len(statement.body) if isinstance(statement, cst.SimpleStatementLine) else 1
    return starts if position == len(counterparts) else None


def _statement_positions(
    module: cst.Module, statement: Statement
) -> Tuple[cst.CSTNode, Mapping[cst.CSTNode, CodeRange]]:
    """The statement on its own and the positions of its nodes there.

    Without its leading blank lines and comments the statement starts on
    line 1 of a module of its own; its children are the same objects.
    """
    alone = statement.with_changes(leading_lines=())
    single = cst.Module(
        body=[alone],
        default_indent=module.default_indent,
        default_newline=module.default_newline,
    )
    return alone, MetadataWrapper(single, unsafe_skip_copy=True).resolve(PositionProvider)


def _shifted(where: CodeRange, lines: int, columns: int) -> CodeRange:
    return CodeRange(
        CodePosition(where.start.line + lines, where.start.column + columns),
        CodePosition(where.end.line + lines, where.end.column + columns),
    )


def _whole_module(module: cst.Module, nodes: Sequence[cst.CSTNode]) -> Dict[int, CodeRange]:
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    return {id(node): positions[node] for node in nodes}
