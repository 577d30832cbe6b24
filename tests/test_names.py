"""``names.children`` gives libcst's children, in the same order, less layout.

Every analysis walk reads children through it, so it is compared with
libcst's own ``CSTNode.children`` on every node of a module holding every
kind of statement and expression (including match statements, ``except*``
and PEP 695 type parameters, which libcst parses on any Python), on the
fixtures, the fixture projects and the examples.
"""

from __future__ import annotations

import pathlib
from typing import Iterator, List

import libcst as cst
import pytest

from idemlint.names import LAYOUT, children, descendants

ROOT = pathlib.Path(__file__).resolve().parent.parent

EVERY_SHAPE = '''\
import a.b as c
from ..x import (y as z, w)
from . import q
type Alias[T: int, *Ts, **P] = list[T]
@dec(1)
@other
async def f[T](a, /, b: int = 1, *args, c, d=2, **kw) -> int:
    global g
    x: int = (yield 1)
    y = yield from z
    a += 1
    async with a as b, c() as (d, e):
        pass
    with (open(p) as h):
        pass
    async for i, j in k:
        continue
    else:
        break
    while (n := 1) > 2:
        pass
    else:
        pass
    try:
        pass
    except (A, B) as e:
        raise X from e
    else:
        pass
    finally:
        del a[1:2:3], b.c
    try:
        pass
    except* C as e2:
        pass
    assert x, "m"
    lambda p, *q, r=1, **s: p
    [i for i in x if i async for j in y]
    {k: v for k, v in d}
    {*a, *b}
    {**a, 'b': 1}
    (i for i in x)
    f"{a!r:>{w}} {b=}"
    "a" "b"
    a if b else c
    not a and b or c
    a[b, c:d, *e]
    -a ** b @ c
    print(*a, **b, c=1)
    match cmd:
        case [1, 2, *rest] if rest:
            pass
        case {"k": v, **kw}:
            pass
        case Point(x=0, y=yy) | Other() as p:
            pass
        case (1 | 2) as n:
            pass
        case _:
            pass
    return await g()
class K[T = int](Base, metaclass=M):
    a: int
    def m(self): ...
if a: b = 1
elif c: pass
else: d = 2
'''


def every_node(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    yield node
    for child in node.children:
        yield from every_node(child)


def assert_same_as_libcst(module: cst.Module) -> int:
    checked = 0
    for node in every_node(module):
        expected: List[cst.CSTNode] = [c for c in node.children if not isinstance(c, LAYOUT)]
        assert [id(c) for c in children(node)] == [id(c) for c in expected], type(node).__name__
        checked += 1
    return checked


def test_every_shape_of_statement_and_expression() -> None:
    module = cst.parse_module(EVERY_SHAPE)
    kinds = {type(node) for node in every_node(module)}
    # The shapes whose fields are not declared in source order are all here.
    assert {cst.FunctionDef, cst.ClassDef, cst.IfExp, cst.ExceptHandler, cst.ExceptStarHandler,
            cst.Parameters, cst.MatchCase, cst.Arg, cst.For, cst.With, cst.CompFor, cst.TypeAlias} <= kinds
    assert assert_same_as_libcst(module) > 400


# The fixture tree, 4 s (`make test-all`); the projects and examples are quick.
@pytest.mark.parametrize(
    "folder", [pytest.param("tests/fixtures", marks=pytest.mark.slow), "tests/projects", "examples"]
)
def test_real_code(folder: str) -> None:
    checked = 0
    for path in sorted((ROOT / folder).rglob("*.py")):
        try:
            module = cst.parse_module(path.read_bytes())
        except cst.ParserSyntaxError:
            continue
        checked += assert_same_as_libcst(module)
    assert checked > 1000


def test_descendants_is_the_node_then_its_children_depth_first() -> None:
    call = cst.parse_expression("f(a.b, g(c))")
    spelled = [cst.Module([]).code_for_node(n) for n in descendants(call)
               if isinstance(n, (cst.Name, cst.Call, cst.Attribute))]
    assert spelled == ["f(a.b, g(c))", "f", "a.b", "a", "b", "g(c)", "g", "c"]
