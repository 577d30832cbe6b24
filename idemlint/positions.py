"""Source positions for the reported nodes only.

libcst's ``PositionProvider`` generates the code of the whole module and
visits every node; on a large module with one finding that costs twice the
parse.  Instead, each top-level statement's first line comes from the
CPython AST the engine already built to decide what to parse up front, and
positions are generated only for the innermost statements that hold a
reported node.  A module the running CPython cannot parse has no such AST
and is positioned by libcst's provider, whole.
"""

from __future__ import annotations

import ast
import dataclasses
import io
from dataclasses import dataclass
from typing import Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Set, Tuple, Union, cast

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, PositionProvider
from libcst.metadata.position_provider import PositionProvidingCodegenState

from idemlint.segments import Piece


def locate(
    pieces: Sequence[Piece],
    nodes: Sequence[cst.CSTNode],
    lines: Sequence[str],
    likely: Iterable[int] = (),
) -> Dict[int, CodeRange]:
    """``id(node) -> CodeRange`` for ``nodes``.

    ``pieces`` are a module's statements as parsed (the whole module, or
    what was parsed up front and each definition parsed later), each with
    its CPython counterparts, which hold the line numbers; ``lines`` the
    module's text, which gives each line's indentation.  ``likely`` holds
    ids of top-level statements (functions, classes) to search first: those
    a task's trace walked.
    """
    units: List[_Unit] = []
    for piece in pieces:
        found_units = _units(piece.module, piece.tree)
        if found_units is None:
            if len(pieces) == 1:
                return _whole_module(piece.module, nodes)
            raise ValueError("statements parsed apart do not line up with CPython's")
        units += found_units
    wanted = {id(node) for node in nodes}
    # Each unit's tree is walked once (a tenth of the cost of generating its
    # code), assigning every wanted node to the innermost statement holding
    # it; only those statements are generated.  One walk per unit, whatever
    # the number of findings in it, keeps a long task body linear.
    holders: Dict[int, _Unit] = {}
    first = set(likely)
    for unit in sorted(units, key=lambda u: u.top not in first):
        if len(holders) == len(wanted):
            break
        _assign_innermost(unit, wanted, holders)
    if len(holders) < len(wanted):
        if len(pieces) == 1:
            return _whole_module(pieces[0].module, nodes)
        raise ValueError("a reported node is in no statement parsed")
    by_unit: Dict[int, Tuple[_Unit, Set[int]]] = {}
    for key, unit in holders.items():
        by_unit.setdefault(id(unit.statement), (unit, set()))[1].add(key)
    found: Dict[int, CodeRange] = {}
    for unit, keys in by_unit.values():
        alone, positions, code = _statement_positions(unit.module, unit.statement)
        for node, where in positions.items():
            key = id(unit.statement) if node is alone else id(node)
            if key in keys:
                found[key] = _shifted(where, unit.first_line, code, lines)
    if len(found) < len(wanted):
        if len(pieces) == 1:
            return _whole_module(pieces[0].module, nodes)
        raise ValueError("a reported node was not positioned in its statement")
    return found


def _assign_innermost(unit: _Unit, wanted: Set[int], holders: Dict[int, _Unit]) -> None:
    """Record in ``holders`` the innermost unit under ``unit`` (itself, or a
    statement of its block at any depth) holding each node of ``wanted``
    not placed yet.

    Every node under ``unit`` is visited once: a walk hands each statement
    of a block that can be positioned on its own to that statement's walk.
    """
    pending: List[_Unit] = [unit]
    while pending:
        current = pending.pop()
        members = {id(member.statement): member for member in _members(current)}
        stack: List[cst.CSTNode] = [current.statement]
        while stack:
            node = stack.pop()
            member = members.get(id(node))
            if member is not None:
                pending.append(member)
                continue
            if id(node) in wanted and id(node) not in holders:
                holders[id(node)] = current
            stack.extend(_children(node))


def _children(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    for name in _child_fields(type(node)):
        value = getattr(node, name)
        if _is_node(type(value)):
            yield value
        elif isinstance(value, (list, tuple)):
            yield from (item for item in value if _is_node(type(item)))


_NODE_TYPES: Dict[type, bool] = {}


def _is_node(kind: type) -> bool:
    """Asked per type, once: ``isinstance`` against ``CSTNode`` (an ABC) is
    slow when it fails, as it does for every ``str`` and ``None`` field."""
    known = _NODE_TYPES.get(kind)
    if known is None:
        known = _NODE_TYPES[kind] = issubclass(kind, cst.CSTNode)
    return known


_FIELDS: Dict[type, Tuple[str, ...]] = {}


def _child_fields(kind: type) -> Tuple[str, ...]:
    if kind not in _FIELDS:
        _FIELDS[kind] = tuple(field.name for field in dataclasses.fields(kind))
    return _FIELDS[kind]


def _members(unit: _Unit) -> List[_Unit]:
    """The statements of ``unit``'s block (a function's, or a compound
    statement's first block) that can be positioned on their own."""
    statement, counterpart = unit.statement, unit.counterpart
    block = getattr(statement, "body", None)
    if isinstance(statement, cst.ClassDef) or not isinstance(block, cst.IndentedBlock):
        return []  # a class's methods are units already; one-line bodies stay whole
    members = _first_lines(block.body, getattr(counterpart, "body", None) or [])
    return [
        _Unit(member, line, unit.top, unit.module, member_counterpart)
        for member, line, member_counterpart in members or []
    ]


@dataclass(frozen=True)
class _Unit:
    """A statement positioned on its own (a top-level statement, a method, a
    statement inside a function), and its first line."""

    statement: Statement
    first_line: int
    top: int
    module: cst.Module  # whose indentation and newlines generate its code
    counterpart: ast.stmt  # CPython's, for the statements inside it


def _units(module: cst.Module, tree: ast.Module) -> Optional[List[_Unit]]:
    starts = _first_lines(module.body, tree.body)
    if starts is None:
        return None
    units: List[_Unit] = []
    for statement, start, counterpart in starts:
        top = id(statement)
        body = statement.body if isinstance(statement, cst.ClassDef) else None
        if isinstance(body, cst.IndentedBlock) and isinstance(counterpart, ast.ClassDef):
            members = _first_lines(body.body, counterpart.body) or []
            units += [
                _Unit(member, line, top, module, member_counterpart)
                for member, line, member_counterpart in members
            ]
        units.append(_Unit(statement, start, top, module, counterpart))
    return units


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
) -> Tuple[cst.CSTNode, Mapping[cst.CSTNode, CodeRange], List[str]]:
    """The statement on its own, the positions of its nodes there, and its code's lines.

    Without its leading blank lines and comments the statement starts on
    line 1 of a module of its own; its children are the same objects.
    """
    alone = statement.with_changes(leading_lines=())
    single = cst.Module(
        body=[alone],
        default_indent=module.default_indent,
        default_newline=module.default_newline,
    )
    positions, code = _generated(single)
    return alone, positions, io.StringIO(code, newline="").readlines()


def _shifted(where: CodeRange, first_line: int, code: Sequence[str], lines: Sequence[str]) -> CodeRange:
    """A position in a statement's own code, moved to the module.

    Most lines of a statement generated on its own lack the indentation of
    the block it sits in; a line that continues a string spanning lines or
    a backslash continuation does not (libcst keeps it as written).  The
    module's own line says which.
    """
    def column(line: int, offset: int) -> int:
        generated = code[line - 1].rstrip("\r\n")
        actual = lines[first_line + line - 2].rstrip("\r\n")
        if not actual.endswith(generated):
            raise ValueError(f"line {first_line + line - 1} does not end with its statement's code")
        return offset + len(actual) - len(generated)

    return CodeRange(
        CodePosition(where.start.line + first_line - 1, column(where.start.line, where.start.column)),
        CodePosition(where.end.line + first_line - 1, column(where.end.line, where.end.column)),
    )


def _whole_module(module: cst.Module, nodes: Sequence[cst.CSTNode]) -> Dict[int, CodeRange]:
    positions = _generated(module)[0]
    return {id(node): positions[node] for node in nodes}


def _generated(module: cst.Module) -> Tuple[Mapping[cst.CSTNode, CodeRange], str]:
    """The positions libcst's ``PositionProvider`` records for every node
    of ``module`` as it generates its code, and that code.

    ``MetadataWrapper.resolve`` would also walk the module with a visitor
    for the batchable providers, even when there are none, and a walk
    rebuilds every node: more than the code generation costs.
    """
    provider = PositionProvider()
    state = PositionProvidingCodegenState(module.default_indent, module.default_newline, provider=provider)
    module._codegen(state)
    return cast(Mapping[cst.CSTNode, CodeRange], provider._computed), "".join(state.tokens)
