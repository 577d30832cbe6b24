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
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import libcst as cst
from libcst.metadata import CodeRange, CodePosition, MetadataWrapper, PositionProvider


def locate(
    module: cst.Module,
    tree: ast.Module,
    nodes: Sequence[cst.CSTNode],
    likely: Iterable[int] = (),
) -> Dict[int, CodeRange]:
    """``id(node) -> CodeRange`` for ``nodes``.

    ``likely`` holds ids of top-level statements (functions, classes) to
    search first: those a task's trace walked.
    """
    starts = _first_lines(module, tree)
    if starts is None:
        return _whole_module(module, nodes)
    wanted = {id(node): node for node in nodes}
    found: Dict[int, CodeRange] = {}
    first = set(likely)
    order = sorted(range(len(module.body)), key=lambda i: id(module.body[i]) not in first)
    for index in order:
        if len(found) == len(wanted):
            break
        statement = module.body[index]
        alone, positions = _statement_positions(module, statement)
        for key, node in wanted.items():
            where = positions.get(alone if node is statement else node)
            if key not in found and where is not None:
                found[key] = _shifted(where, starts[index] - 1)
    if len(found) < len(wanted):
        return _whole_module(module, nodes)
    return found


def _first_lines(module: cst.Module, tree: ast.Module) -> Optional[List[int]]:
    """The first line of each top-level libcst statement, from the CPython AST.

    ``a = 1; b = 2`` is one libcst statement and two AST statements.
    """
    starts: List[int] = []
    position = 0
    for statement in module.body:
        if position >= len(tree.body):
            return None
        counterpart = tree.body[position]
        decorators = getattr(counterpart, "decorator_list", [])
        starts.append(min([counterpart.lineno, *(d.lineno for d in decorators)]))
        position += len(statement.body) if isinstance(statement, cst.SimpleStatementLine) else 1
    return starts if position == len(tree.body) else None


def _statement_positions(
    module: cst.Module, statement: Union[cst.SimpleStatementLine, cst.BaseCompoundStatement]
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


def _shifted(where: CodeRange, lines: int) -> CodeRange:
    return CodeRange(
        CodePosition(where.start.line + lines, where.start.column),
        CodePosition(where.end.line + lines, where.end.column),
    )


def _whole_module(module: cst.Module, nodes: Sequence[cst.CSTNode]) -> Dict[int, CodeRange]:
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    return {id(node): positions[node] for node in nodes}
