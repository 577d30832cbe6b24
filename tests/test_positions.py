"""Positions from single statements equal libcst's whole-module positions."""

from __future__ import annotations

import ast
import io
import pathlib
from typing import Iterator

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from idemlint.positions import _generated, locate
from idemlint.segments import Piece

FIXTURES = sorted((pathlib.Path(__file__).parent / "fixtures").rglob("*.py"))

SAMPLE = '''\
"""Module docstring."""
import os; import sys

# a comment that libcst keeps in the next statement's leading lines


@decorator
@other(
    1,
)
def f(x):
    return [
        call(x),
    ]


class C:
    def m(self):
        if True:
            other.call()
x = 1; y = g(2)
'''

# Statements inside functions are positioned on their own too: blocks at
# several depths and indentations, one-line bodies, statements joined by
# semicolons, continuations, nested decorated functions, strings spanning
# lines inside expressions (whose statement cannot be shifted) and as
# docstrings (which can).
NESTED = '''\
def task(order):
    """Docstring
    over two lines."""
    if order:
      for item in order.items:
            call(item); other(item)
            with lock(item) as held:
                    held.use(call(1))
    else: call(2)
    total = compute(1,
                    2) \\
        + more(3)
    message = f"""line one
    {render(order)}""" + tail(4)
    try:
        send(order)
    except Error:
        retry(order)
    finally:
        close(order)

    @decorate(5)
    def inner():
        return nested(6)


def tabbed(order):
\tif order:
\t\ttabbed_call(7)
'''


def every_call(module: cst.Module) -> list:
    calls = []

    class Collect(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            calls.append(node)

        def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
            calls.append(node)

    module.visit(Collect())
    return calls


@pytest.mark.sweep  # every fixture, statement by statement
@pytest.mark.parametrize(
    "source",
    [SAMPLE, NESTED, *[path.read_text("utf-8") for path in FIXTURES]],
    ids=["sample", "nested", *[path.name for path in FIXTURES]],
)
def test_statement_positions_match_whole_module_positions(source: str) -> None:
    module = cst.parse_module(source)
    nodes = every_call(module)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    located = locate([Piece(module, ast.parse(source))], nodes, io.StringIO(source, newline="").readlines())
    assert {id(n): located[id(n)] for n in nodes} == {id(n): expected[n] for n in nodes}


def long_task(blocks: int) -> str:
    """One task whose body is ``blocks`` guarded calls of several shapes, each
    in its own compound statement, some nested, some in ``else`` branches
    (which stay positioned with their whole statement)."""
    shapes = (
        "    if not order.sent_{n}:\n        requests.post('u{n}', json={{'n': {n}}})\n",
        "    if order.ready_{n}:\n        if not order.sent_{n}:\n            notify({n})\n"
        "    else:\n        log({n})\n",
        "    for item in order.items_{n}:\n        post(item, {n})\n    else:\n        done({n})\n",
        "    with lock({n}) as held:\n        held.use(call({n}))\n",
        "    try:\n        send({n})\n    except Error:\n        retry({n})\n",
        "    total_{n} = compute({n}); post(total_{n})\n",
    )
    body = "".join(shapes[n % len(shapes)].format(n=n) for n in range(blocks))
    return f"@shared_task\ndef notify_all(order):\n{body}"


def test_long_task_body_positions_match_whole_module_positions() -> None:
    source = long_task(300)
    module = cst.parse_module(source)
    nodes = every_call(module)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    located = locate([Piece(module, ast.parse(source))], nodes, io.StringIO(source, newline="").readlines())
    assert {id(n): located[id(n)] for n in nodes} == {id(n): expected[n] for n in nodes}


def count_nodes(module: cst.Module) -> int:
    count = 0

    class Count(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            nonlocal count
            count += 1
            return True

    module.visit(Count())
    return count


def test_positions_walk_a_long_body_once_whatever_the_number_of_findings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # One walk of each statement per finding made 4 000 findings in one task
    # take 29 s; the walk must visit each node a bounded number of times.
    import idemlint.positions as positions

    visits = 0
    children = positions._children

    def counted(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
        nonlocal visits
        visits += 1
        return children(node)

    monkeypatch.setattr(positions, "_children", counted)
    source = long_task(600)
    module = cst.parse_module(source)
    nodes = every_call(module)
    locate([Piece(module, ast.parse(source))], nodes, io.StringIO(source, newline="").readlines())
    assert len(nodes) > 1000
    assert visits <= count_nodes(module)


@pytest.mark.parametrize("path", FIXTURES[:12], ids=lambda path: path.name)
def test_generating_the_code_gives_the_metadata_wrappers_positions_and_code(path: pathlib.Path) -> None:
    """``_generated`` runs ``PositionProvider``'s code generation itself (the
    wrapper's needless walk rebuilds every node); the same positions, the same code."""
    module = cst.parse_module(path.read_text(encoding="utf-8"))
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    positions, code = _generated(module)
    assert code == module.code
    assert dict(positions) == dict(expected)
