"""The evaluator of what an expression denotes (idemlint.semantic.values):
on a fixture project through ``idemlint tasks --format json``, and on
module-level names of small projects, where each answer can be read."""

from __future__ import annotations

import pathlib
import textwrap
from typing import Dict, List, Tuple

import libcst as cst
import pytest

from conftest import RunCli
from test_tasks_command import PROJECTS, _marked, listed_json

from idemlint.semantic.resolution import Calls
from idemlint.project import LoadedModule, Project
from idemlint.semantic.values import (
    CYCLE, MAX_DEPTH, NONE, Builtin, Library, ModuleLevel, OneOf, Unknown, Value, Values, runs_library_code,
)


def test_every_call_of_the_fixture_resolves_as_marked(run_cli: RunCli, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each binding form's variations are library calls; each unknown twin
    stays unresolved, at the place marked."""
    root = PROJECTS / "values"
    monkeypatch.chdir(root.parent)
    (row,) = listed_json(run_cli, "values")
    expected = dict.fromkeys(("followed", "enqueued", "library", "cut", "unresolved"), 0)
    unresolved: List[Tuple[str, int]] = []
    for path, line, kinds in _marked(root, "reach"):
        for kind in kinds:
            expected[kind] += 1
            if kind == "unresolved":
                unresolved.append((path, line))
    assert row["calls"] == expected
    assert sorted((site["path"], site["line"]) for site in row["unresolved"]) == sorted(unresolved)


def _module(tmp_path: pathlib.Path, files: Dict[str, str], name: str) -> Tuple[Values, LoadedModule]:
    for relative, text in files.items():
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), "utf-8")
    project = Project([str(path) for path in sorted(tmp_path.rglob("*.py"))])
    module = project.load(name)
    assert module is not None
    return Values(Calls(project)), module


def _denoted(values: Values, module: LoadedModule, expression: str) -> Value:
    return values.denote(cst.parse_expression(expression), ModuleLevel(module))


BRANCHES = """\
    import requests
    from app import clients

    if FLAG:
        client = requests.Session()
    else:
        client = clients.make()
"""


@pytest.mark.parametrize("swapped", [False, True])
def test_a_name_bound_on_both_branches_is_either_whichever_comes_last(tmp_path: pathlib.Path, swapped: bool) -> None:
    source = BRANCHES
    if swapped:
        source = source.replace("requests.Session()", "@A@").replace("clients.make()", "requests.Session()")
        source = source.replace("@A@", "clients.make()")
    files = {
        "app/__init__.py": "",
        "app/clients.py": "import stripe\n\ndef make():\n    return stripe.StripeClient('key')\n",
        "app/tasks.py": source,
    }
    values, module = _module(tmp_path, files, "app.tasks")
    found = _denoted(values, module, "client")
    assert isinstance(found, OneOf)
    assert set(found.members) == {Library("requests.Session()"), Library("stripe.StripeClient()")}
    assert runs_library_code(_denoted(values, module, "client.post"))


@pytest.mark.parametrize(
    "expression, expected",
    [
        ("'a'.upper()", Builtin("")),
        ("[1, 2]", Builtin("list")),
        ("{k: v for k, v in PAIRS}", Builtin("dict")),
        ("str(3)", Builtin("str")),
        ("len(PAIRS)", Builtin("int")),
        ("None", NONE),
        ("f'{PAIRS}'[0]", Builtin("str")),
        ("not PAIRS", Builtin("bool")),
        ("requests.get('u').json", Library("requests.get().json")),
        ("LOG.info", Library("logging.getLogger().info")),
    ],
)
def test_builtins_and_library_objects(tmp_path: pathlib.Path, expression: str, expected: Value) -> None:
    files = {
        "app/__init__.py": "",
        "app/tasks.py": "import logging\nimport requests\n\nPAIRS = []\nLOG = logging.getLogger(__name__)\n",
    }
    values, module = _module(tmp_path, files, "app.tasks")
    assert _denoted(values, module, expression) == expected


@pytest.mark.parametrize(
    "expression",
    [
        "getattr(THING, 'run')",  # an attribute looked up by name
        "import_module('app.jobs').run",  # code loaded by name
        "PAIRS[0]",  # an element of a container
        "PAIRS.pop()",  # the same, through a method
        "requests.Session().get_adapter('u')()",  # what a library object handed back, called
        "UNBOUND.run",  # a name bound nowhere
        "Job().run",  # a project class's attribute it does not define, no library base
    ],
)
def test_what_cannot_be_told_is_unknown(tmp_path: pathlib.Path, expression: str) -> None:
    files = {
        "app/__init__.py": "",
        "app/tasks.py": (
            "from importlib import import_module\nimport requests\n\nPAIRS = []\nTHING = object()\n\n"
            "class Job:\n    pass\n"
        ),
    }
    values, module = _module(tmp_path, files, "app.tasks")
    found = _denoted(values, module, expression)
    assert isinstance(found, Unknown), found


def test_a_project_class_gives_its_library_base_members_and_its_own_attributes(tmp_path: pathlib.Path) -> None:
    files = {
        "app/__init__.py": "",
        "app/models.py": textwrap.dedent(
            """\
            from django.db import models
            from sqlalchemy import Column, DateTime
            from sqlalchemy.orm import Session

            class Note(models.Model):
                pass

            class Row:
                created = Column(DateTime)

            class Repository:
                def __init__(self, session: Session):
                    if session is None:
                        self.session = Session()
                    else:
                        self.session = session
            """
        ),
    }
    values, module = _module(tmp_path, files, "app.models")
    assert _denoted(values, module, "Note().save") == Library("django.db.models.Model().save")
    assert _denoted(values, module, "Row.created.desc") == Library("sqlalchemy.Column().desc")
    assert _denoted(values, module, "Repository(None).session.execute") == Library("sqlalchemy.orm.Session().execute")


def test_values_that_refer_to_themselves_end(tmp_path: pathlib.Path) -> None:
    """A module-level loop of names, a function returning its own result,
    and a chain longer than the depth limit are unknown, and end; a value
    built on its own earlier binding is what that binding makes."""
    chain = "\n".join(f"N{n} = N{n + 1}" for n in range(MAX_DEPTH * 2))
    files = {
        "app/__init__.py": "",
        "app/loops.py": textwrap.dedent(
            """\
            from sqlalchemy import select

            A = B
            B = A

            def again():
                return again()

            def built(flag):
                statement = select(1)
                if flag:
                    statement = statement.where(flag)
                return statement

            def countdown(n):
                if n:
                    return countdown(n - 1)
                return select(n)
            """
        ) + f"{chain}\nN{MAX_DEPTH * 2} = 'end'\n",
    }
    values, module = _module(tmp_path, files, "app.loops")
    assert _denoted(values, module, "A") == CYCLE
    assert _denoted(values, module, "again()") == CYCLE
    assert _denoted(values, module, "built(True)") == OneOf((Library("sqlalchemy.select()"), Library("sqlalchemy.select().where()")))
    assert _denoted(values, module, "countdown(3)") == Library("sqlalchemy.select()")
    assert isinstance(_denoted(values, module, "N0"), Unknown)
    assert _denoted(values, module, f"N{MAX_DEPTH * 2 - 2}") == Builtin("str", "end")


TEXTS = {
    "app/__init__.py": "",
    "app/names.py": """\
        from enum import Enum

        class Names:
            SEND = "mail.send"

        class Kind(str, Enum):
            ALERT = "mail." "alert"

        DOTTED = "app.mail.send"
        EITHER = Names.SEND if FLAG else Kind.ALERT.value
        RAW = b"bytes"
        FORMATTED = f"mail.{FLAG}"
    """,
    "app/many.py": "".join(f"if FLAG{n}:\n    NAME = 'n{n}'\n" for n in range(12)),
}


@pytest.mark.parametrize(
    ("module_name", "expression", "texts"),
    [
        ("app.names", "Names.SEND", ("mail.send",)),
        ("app.names", "Kind.ALERT.value", ("mail.alert",)),
        ("app.names", "DOTTED", ("app.mail.send",)),
        ("app.names", "EITHER", ("mail.send", "mail.alert")),
        ("app.names", "RAW", None),
        ("app.names", "FORMATTED", None),
        ("app.names", "FLAG", None),
        ("app.many", "NAME", None),
    ],
)
def test_the_text_of_a_string_is_known_where_the_code_spells_it(
    tmp_path: pathlib.Path, module_name: str, expression: str, texts: Tuple[str, ...]
) -> None:
    """A literal, a class constant, an enum member's ``.value``, either
    branch's; not bytes, an f-string or a name bound nowhere.  Twelve
    texts are a string still, whichever."""
    values, module = _module(tmp_path, TEXTS, module_name)
    assert values.texts(cst.parse_expression(expression), ModuleLevel(module)) == texts
    if module_name == "app.many":
        assert _denoted(values, module, expression) == Builtin("str")


def test_a_name_reached_through_many_paths_is_evaluated_once(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each name bound on both branches to the one before: 2**16 paths to
    the first, one evaluation each (counted, not timed)."""
    lines = ["import requests", "N0 = requests.Session()"]
    for n in range(1, 17):
        lines += ["if FLAG:", f"    N{n} = N{n - 1}", "else:", f"    N{n} = N{n - 1} or N{n - 1}"]
    values, module = _module(tmp_path, {"app/__init__.py": "", "app/chain.py": "\n".join(lines) + "\n"}, "app.chain")
    evaluated: List[str] = []
    original = Values._denote

    def counted(self: Values, expression: cst.BaseExpression, where: ModuleLevel) -> Value:
        evaluated.append(type(expression).__name__)
        return original(self, expression, where)

    monkeypatch.setattr(Values, "_denote", counted)
    assert _denoted(values, module, "N16.post") == Library("requests.Session().post")
    assert len(evaluated) < 100
