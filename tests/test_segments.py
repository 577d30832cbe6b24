"""Definitions parsed only when a task needs them (idemlint.segments).

Deferring is an optimisation: every test here holds it to giving exactly
what parsing the whole module gives, and checks that it defers at all.
"""

from __future__ import annotations

import ast
import pathlib
import textwrap
from typing import Dict, List, Tuple

import libcst as cst
import pytest

from idemlint import lint_paths, lint_source
from idemlint.engine import LintResult
from idemlint.project import LoadedModule, Project, load_source
from idemlint.segments import Later, Screen, Segment, split
from idemlint.settings import Settings
from idemlint.tasks import find_tasks

TESTS = pathlib.Path(__file__).parent
FIXTURES = TESTS / "fixtures"
SHOP = TESTS / "projects" / "shop"


def parse_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    def nothing_waits(self: Screen) -> Dict[int, Segment]:
        return {}

    monkeypatch.setattr(Screen, "deferred", nothing_waits)


def summary(result: LintResult) -> List[Tuple[str, int, int, int, int, str, str, str]]:
    return [
        (f.path, f.line, f.column, f.end_line, f.end_column, f.code, f.task, f.message)
        for f in result.findings
    ]


def parsed_later(monkeypatch: pytest.MonkeyPatch) -> List[str]:
    """The names of the definitions parsed after loading, as they are parsed."""
    names: List[str] = []
    parse = Later.parse

    def recording(self: Later, segment: Segment) -> object:
        definition = segment.definition()
        names.append(definition.name if definition is not None else "?")
        return parse(self, segment)

    monkeypatch.setattr(Later, "parse", recording)
    return names


def members_parsed(monkeypatch: pytest.MonkeyPatch) -> List[str]:
    """``Class.method`` for each method parsed alone (Later.parse_member)."""
    names: List[str] = []
    parse_member = Later.parse_member

    def recording(self: Later, segment: Segment, member: ast.stmt) -> object:
        definition = segment.definition()
        assert definition is not None
        names.append(f"{definition.name}.{getattr(member, 'name', '?')}")
        return parse_member(self, segment, member)

    monkeypatch.setattr(Later, "parse_member", recording)
    return names


def load(source: str) -> LoadedModule:
    loaded = load_source(textwrap.dedent(source), "tasks.py")
    assert isinstance(loaded, LoadedModule)
    return loaded


def waiting_definitions(loaded: LoadedModule) -> List[str]:
    """The names of the functions and classes left as text, in module order
    (imports and data wait too)."""
    assert loaded.later is not None
    definitions = (segment.definition() for segment in loaded.later.waiting.values())
    return [definition.name for definition in definitions if definition is not None]


@pytest.mark.slow  # every tree parsed whole and in segments, some 20 s (`make test-all`)
@pytest.mark.parametrize(
    "paths",
    [
        sorted(str(path) for path in FIXTURES.glob("*.py")),
        sorted(str(path) for path in (FIXTURES / "apps").glob("*.py")),
        [str(SHOP)],
        [str(TESTS.parent / "examples" / "shop")],
        [str(path) for path in sorted((TESTS / "projects").glob("decorator_*"))],
        [str(TESTS / "projects" / "enqueue_forms")],
        [str(TESTS / "projects" / "task_bases"), str(TESTS / "projects" / "decorator_instance")],
        [str(path) for path in sorted((TESTS / "projects").glob("calls_*"))],
    ],
    ids=[
        "rule fixtures", "blind-review apps", "shop project", "example shop", "decorator projects",
        "enqueue forms", "task bases", "call resolution projects",
    ],
)
def test_findings_are_those_of_parsing_every_module_whole(
    paths: List[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    deferred = lint_paths(paths, jobs=1)
    parse_everything(monkeypatch)
    whole = lint_paths(paths, jobs=1)
    assert summary(deferred) == summary(whole)
    assert deferred.problems == whole.problems
    assert len(deferred.findings) >= 5


_HEAD = "from celery import shared_task\nimport redis\nr = redis.Redis()\n"
_TASK = "@shared_task\ndef f(x):\n    g(x)\n"
_HELPER = "\ndef g(x):\n    r.set('k', x, nx=True)\n"
_METHOD_TASK = "@shared_task\ndef f(x):\n    Cls().m(x)\n"

# Sources where deferring once changed what was found (from a review of the
# deferral), and layouts where positions in a definition parsed later could
# drift: every one must give what parsing the module whole gives.
EQUIVALENT = {
    "alias of a local wrapper": (
        "from celery import shared_task\nimport redis\nr = redis.Redis()\n\n"
        "def mytask(**kw):\n    return shared_task(**kw)\n\njob2 = mytask\n\n"
        "@job2()\ndef f(x):\n    r.set('k', x, nx=True)\n"
    ),
    "local wrapper named through a module": (
        "from celery import shared_task\nimport redis\nimport helpers\nr = redis.Redis()\n\n"
        "def mytask(**kw):\n    return shared_task(**kw)\n\n"
        "@helpers.mytask()\ndef f(x):\n    r.set('k', x, nx=True)\n"
    ),
    "wrapper call split by a comment": (
        "from celery import shared_task\nimport redis\nr = redis.Redis()\n\n"
        "def mytask(**kw):\n    return (shared_task  # the real one\n            (**kw))\n\n"
        "@mytask()\ndef f(x):\n    r.set('k', x, nx=True)\n"
    ),
    "late acks in a class attribute's call": (
        "from celery import Celery\napp = Celery('w')\ntask_acks_late = True\n\n"
        "class Holder:\n    other = Celery('x', **load_settings())\n"
    ),
    "late acks through a wrapper's options": (
        "from celery import shared_task\n\nOPTS = {'acks_late': True}\n\n"
        "def mytask(*args, **kw):\n    return shared_task(*args, **kw)\n\n"
        "def send(x):\n    pass\n\ndef register():\n    mytask(send, **OPTS)\n"
    ),
    "late acks in a method's nested task": (
        "from celery import Celery\napp = Celery('w')\nOPTS = {'acks_late': True}\n\n"
        "class Jobs:\n    def setup(self):\n        @app.task(**OPTS)\n        def ping():\n            pass\n"
    ),
    "arq func in a body": (
        "from arq import func\nimport redis\nr = redis.Redis()\n\n"
        "async def handler(ctx, x):\n    r.set('k', x, nx=True)\n\n"
        "def worker_functions():\n    return func(handler, timeout=5)\n\n"
        "async def later(pool):\n    await pool.enqueue_job('handler', 1)\n"
    ),
    "late acks in an app factory": (
        "from celery import Celery\n\nCELERY_CONFIG = {'task_acks_late': True, 'broker_url': 'redis://'}\n\n"
        "def create_app():\n    app = Celery('proj')\n    app.conf.update(CELERY_CONFIG)\n    return app\n"
    ),
    "registration in a method": (
        "from celery import Celery\nimport redis\napp = Celery('w')\nr = redis.Redis()\n\n"
        "def send(x):\n    r.set('k', x, nx=True)\n\nclass Registry:\n    def setup(self):\n"
        "        app.task(send)\n\ndef trigger(q):\n    q.enqueue(print)\n"
    ),
    "backslash before a comment line": (
        "from celery import shared_task\nimport redis\nr = redis.Redis() \\\n# the client\n"
        "@shared_task\ndef f(x):\n    r.set('k', x, nx=True)\n\ndef unused():\n    pass\n"
    ),
    "backslash ending a waiting definition": _HEAD + _TASK + (
        "\ndef g(x):\n    r.set('k', x, nx=True) \\\n    # c\n"
    ),
    "CRLF": (_HEAD + "\n# c\n" + _TASK + _HELPER).replace("\n", "\r\n"),
    "no newline at the end": _HEAD + _TASK + _HELPER.rstrip("\n"),
    "tab indentation": _HEAD + _TASK + "\ndef g(x):\n\tr.set('k', x, nx=True)\n",
    "form feed before a definition": _HEAD + _TASK + "\n\x0c" + _HELPER,
    "form feed inside a body": _HEAD + _TASK + "\ndef g(x):\n    y = 1\n\x0c\n    r.set('k', x, nx=True)\n",
    "statements joined by semicolons": _HEAD + _TASK + "\ndef g(x): r.set('k', x, nx=True); y = 2\n",
    "indentation differing between definitions": _HEAD
    + "@shared_task\ndef f(x):\n  g(x)\n  Cls().m(x)\n"
    + "\nclass Cls:\n\tdef m(self, x):\n\t\tr.set('k', x, nx=True)\n"
    + "\ndef g(x):\n        r.set('k', x, nx=True)\n",
    "docstring spanning lines in a class": _HEAD + _METHOD_TASK
    + "\nclass Cls:\n    '''doc\n    '''\n    def m(self, x):\n        r.set('k', x, nx=True)\n",
    "comment between decorators": _HEAD + _TASK
    + "\n@staticmethod\n# comment\n@other\ndef g(x):\n    r.set('k', x, nx=True)\n",
    "string spanning lines in a class": _HEAD + _METHOD_TASK
    + "\nclass Cls:\n    A = '''x\ny'''\n    def m(self, x):\n        r.set('k', x, nx=True)\n",
    "first indentation only up front": "if True:\n  import redis\nfrom celery import shared_task\n"
    + "r = redis.Redis()\n" + _TASK + _HELPER,
    "data a task's options and a lock read": (
        '"""Jobs."""\nfrom celery import shared_task\nimport redis\nr = redis.Redis()\n'
        "LIMIT = 10 * 60\nTTL: int = 5 * 60\nUNUSED = {'a': [1, 2]}\n\n"
        "@shared_task(time_limit=LIMIT)\ndef f(x):\n    r.set('k', x, nx=True, ex=TTL)\n"
    ),
    # A POST through ``client`` is IDM002's only when the last binding is the session.
    "a name bound to data, then to a client": (
        "from celery import shared_task\nimport requests\nclient = {'a': None}\nclient = requests.Session()\n"
        "@shared_task\ndef f(x):\n    client.post('https://example.com', json=x)\n"
    ),
    "a name bound to a client, then to data": (
        "from celery import shared_task\nimport requests\nclient = requests.Session()\nclient = {'a': None}\n"
        "@shared_task\ndef f(x):\n    client.post('https://example.com', json=x)\n"
    ),
    # A POST is IDM002's only through requests itself.
    "an import replaced by a later conditional one": (
        "from celery import shared_task\nimport shelve as requests\nif True:\n    import requests\n"
        "@shared_task\ndef f(x):\n    requests.post('https://example.com', json=x)\n"
    ),
    "a conditional import replaced by a later one": (
        "from celery import shared_task\nif True:\n    import requests\nimport shelve as requests\n"
        "@shared_task\ndef f(x):\n    requests.post('https://example.com', json=x)\n"
    ),
    "a dispatch table of data": (
        "from celery import shared_task\nimport redis\nr = redis.Redis()\n\n"
        "def g(x):\n    r.set('k', x, nx=True)\n\nHANDLERS = {'a': g, 'b': print}\n\n"
        "@shared_task\ndef f(kind, x):\n    HANDLERS[kind](x)\n"
    ),
    "late acks beside a worker pool": (
        "from celery import Celery\napp = Celery('w')\napp.conf.task_acks_late = True\n"
        "worker_pool = 'threads'\nOTHER = ['x']\n\n@app.task\ndef f(x):\n    pass\n"
    ),
}


@pytest.mark.parametrize("source", list(EQUIVALENT.values()), ids=list(EQUIVALENT))
def test_deferring_changes_nothing_found(source: str, monkeypatch: pytest.MonkeyPatch) -> None:
    deferred = lint_source(source, "tasks.py")
    parse_everything(monkeypatch)
    assert deferred == lint_source(source, "tasks.py")
    assert deferred.problems == ()


def test_an_alias_of_an_imported_project_wrapper_is_parsed_up_front(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "shop"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "deco.py").write_text("from celery import shared_task\n\ndef mytask(**kw):\n    return shared_task(**kw)\n")
    (package / "tasks.py").write_text(
        "import redis\nfrom shop import deco\n\nr = redis.Redis()\nmytask = deco.mytask\n\n"
        "@deco.mytask()\ndef a(x):\n    pass\n\n@mytask()\ndef b(x):\n    r.set('k', x, nx=True)\n"
    )
    deferred = lint_paths([str(tmp_path)], jobs=1)
    assert [(f.line, f.code, f.task) for f in deferred.findings] == [(13, "IDM004", "b")]
    parse_everything(monkeypatch)
    assert summary(deferred) == summary(lint_paths([str(tmp_path)], jobs=1))


def test_code_no_task_reaches_is_never_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    parsed = parsed_later(monkeypatch)
    loaded = load(
        """\
        from celery import shared_task
        from django.db import migrations, models
        import requests


        class Migration(migrations.Migration):
            operations = [migrations.AddField("order", "paid", models.BooleanField())]


        def unrelated(order):
            return requests.post("https://example.com", json=order)


        def notify(order_id):
            requests.post("https://example.com/notify", json={"id": order_id})


        @shared_task
        def send(order_id):
            notify(order_id)
        """
    )
    assert loaded.later is not None
    assert sorted(loaded.index.functions) == ["notify", "send", "unrelated"]
    # The three definitions, and the imports, whose bindings CPython's statements tell.
    assert len(loaded.later.waiting) == 6
    assert loaded.index.imports == {
        "shared_task": "celery.shared_task",
        "migrations": "django.db.migrations",
        "models": "django.db.models",
        "requests": "requests",
    }
    assert parsed == []
    result = lint_source(loaded.text, "tasks.py")
    assert [(f.code, f.line) for f in result.findings] == [("IDM002", 15)]
    assert parsed == ["notify"]


def test_imports_data_and_docstrings_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    """An import's bindings are read from CPython's statement; a value that
    is data is parsed when its name is looked up; what name resolution
    reads (calls, aliases, subscripts), tuple targets and a worker pool
    setting are parsed up front."""
    values: List[str] = []
    parse_data = Later.parse_data

    def recording(self: Later, segment: Segment) -> object:
        values.append(",".join(segment.data_names()))
        return parse_data(self, segment)

    monkeypatch.setattr(Later, "parse_data", recording)
    loaded = load(
        """        \"\"\"Settings and jobs.\"\"\"
        import redis as cache, os.path
        from .shared import client as shared_client
        from . import *
        TABLE = {"a": [1, 2], "b": {3}}
        LIMIT: int = 10 * 60
        FIRST = SECOND = ("x", "y")
        made = cache.Redis()
        alias = os.path.join
        picked = TABLE["a"]
        one, two = 1, 2
        worker_pool = "solo"
        """
    )
    assert loaded.later is not None
    waiting = [loaded.text.splitlines()[s.first_line - 1] for s in loaded.later.waiting.values()]
    assert waiting == [
        '"""Settings and jobs."""',
        "import redis as cache, os.path",
        "from .shared import client as shared_client",
        "from . import *",
        'TABLE = {"a": [1, 2], "b": {3}}',
        "LIMIT: int = 10 * 60",
        'FIRST = SECOND = ("x", "y")',
    ]
    assert loaded.index.imports == {"cache": "redis", "os": "os", "shared_client": ".shared.client"}
    assert sorted(loaded.index.constants.up_front()) == ["alias", "made", "picked", "worker_pool"]
    assert values == []
    assert isinstance(loaded.index.constants["SECOND"], cst.Tuple)
    assert loaded.index.constants["FIRST"] is loaded.index.constants["SECOND"]
    assert "TABLE" in loaded.index.constants and "missing" not in loaded.index.constants
    assert values == ["FIRST,SECOND"]


def test_what_detection_needs_is_parsed_up_front() -> None:
    loaded = load(
        """\
        import celery
        from celery import Task as BaseTask, shared_task as background_task
        Base = celery.Task


        def wraps_a_task_decorator(**options):
            return background_task(**options)


        class Charge(BaseTask):
            def run(self):
                pass


        class Refund(Charge):
            def run(self):
                pass


        class Aliased(Base):
            def run(self):
                pass


        class Settings:
            functions = ["a"]


        def registered():
            pass
        """
    )
    assert loaded.later is not None
    assert waiting_definitions(loaded) == ["registered"]


@pytest.mark.parametrize(
    "body",
    ["Queue().enqueue(registered)", "app.conf.task_acks_late = True", "app.conf.update(CELERY_ACKS_LATE=True)"],
)
def test_where_every_body_is_read_what_is_read_is_parsed_up_front(body: str) -> None:
    """In a module that enqueues, registrations are looked for in every body;
    in one that sets late acks, IDM009 reads every statement."""
    loaded = load(f"from rq import Queue\n\n\ndef registered():\n    pass\n\n\ndef uses(app):\n    {body}\n")
    assert loaded.later is not None
    assert waiting_definitions(loaded) == ["registered"]


def test_a_function_registered_by_name_is_a_task_in_its_place() -> None:
    loaded = load(
        """\
        from celery import Celery

        app = Celery()


        def first(order_id):
            pass


        @app.task
        def second(order_id):
            pass


        def third(order_id):
            pass


        app.task(first)
        app.task(third)
        """
    )
    assert [task.name for task in find_tasks(loaded.index)] == ["first", "second", "third"]


@pytest.mark.parametrize(
    "source, tasks",
    [
        ("def send(): pass\n\n@shared_task\ndef send(): pass\n", ["send"]),
        ("@shared_task\ndef send(): pass\n\ndef send(): pass\n", []),
    ],
    ids=["task defined last", "plain function defined last"],
)
def test_the_last_definition_of_a_name_wins(source: str, tasks: List[str]) -> None:
    loaded = load("from celery import shared_task\n\n" + source)
    assert [task.name for task in find_tasks(loaded.index)] == tasks


def test_a_configured_decorator_called_in_a_body_makes_a_wrapper() -> None:
    source = textwrap.dedent(
        """\
        import requests
        from ourlib import deferred_call


        def deferred(**options):
            return deferred_call(**options)


        @deferred()
        def send(order_id):
            requests.post("https://example.com", json={"id": order_id})
        """
    )
    settings = Settings(task_decorators=("ourlib.deferred_call",))
    assert [f.code for f in lint_source(source, "tasks.py", settings).findings] == ["IDM002"]


def test_a_helper_far_from_its_task_is_parsed_once_and_positioned_exactly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    parsed = parsed_later(monkeypatch)
    filler = "".join(f"\n\ndef unrelated_{n}():\n    return {n}\n" for n in range(50))
    source = textwrap.dedent(
        """\
        import requests
        from celery import shared_task


        @shared_task
        def send(order_id):
            helper(order_id)
            helper(order_id)
        """
    ) + filler + textwrap.dedent(
        """\


        def helper(order_id):
            if order_id:
                requests.post(
                    "https://example.com", json={"id": order_id}
                )
        """
    )
    (finding,) = lint_source(source, "tasks.py").findings
    line = source.splitlines().index("        requests.post(") + 1
    assert (finding.code, finding.line, finding.column, finding.end_line) == ("IDM002", line, 9, line + 2)
    assert parsed == ["helper"]


def test_decorators_that_cannot_make_a_task_leave_the_function_for_later() -> None:
    loaded = load(
        """\
        from celery import shared_task
        from django.db.models.signals import post_save
        from django.dispatch import receiver


        @receiver(post_save)
        def on_save(sender, **kwargs):
            pass


        class Order:
            @property
            def total(self):
                return 1


        @shared_task
        def send(order_id):
            pass
        """
    )
    assert loaded.later is not None
    assert sorted(waiting_definitions(loaded)) == [
        "Order",
        "on_save",
    ]


def test_in_a_project_an_imported_decorator_from_the_project_is_parsed_up_front(
    tmp_path: pathlib.Path,
) -> None:
    package = tmp_path / "shop"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "taskutils.py").write_text(
        "from celery import shared_task\n\ndef background_task(function):\n    return shared_task(function)\n"
    )
    (package / "tasks.py").write_text(
        textwrap.dedent(
            """\
            import requests
            from django.dispatch import receiver
            from shop.taskutils import background_task


            @background_task
            def notify(order_id):
                requests.post("https://partner.example.com", json={"order": order_id})


            @receiver("saved")
            def on_save(order_id):
                requests.post("https://partner.example.com", json={"order": order_id})
            """
        )
    )
    result = lint_paths([str(tmp_path)])
    assert [(f.line, f.code, f.task) for f in result.findings] == [(8, "IDM002", "notify")]
    project = Project([str(path) for path in package.glob("*.py")])
    loaded = load_source(
        (package / "tasks.py").read_bytes(), str(package / "tasks.py"), None, (), project.may_be_task_decorator
    )
    assert isinstance(loaded, LoadedModule) and loaded.later is not None
    assert waiting_definitions(loaded) == ["on_save"]
    assert ("django.dispatch", None, None) in project.lookups


@pytest.mark.parametrize(
    "call",
    [
        "shared_task(**options)",
        "(shared_task)(**options)",
        "shared_task  # the decorator\n        (**options)",
        "shared_task \\\n        (**options)",
        "celery.shared_task(**options)(fn)",
    ],
    ids=["plain", "parenthesised", "comment before the bracket", "continuation", "called twice"],
)
def test_a_wrapper_is_parsed_up_front_however_its_call_is_spelled(call: str) -> None:
    source = (
        "import celery\nfrom celery import shared_task\n\n\n"
        f"def background(fn=None, **options):\n    return (\n        {call}\n    )\n\n\n"
        "def unrelated():\n    return 'shared_task'\n"
    )
    loaded = load_source(source, "tasks.py")
    assert isinstance(loaded, LoadedModule)
    assert list(loaded.index.functions.up_front()) == ["background"]


_MANY_METHODS = "".join(f"\n    def unrelated_{n}(self):\n        return {n}\n" for n in range(30))


@pytest.mark.parametrize(
    "source, up_front",
    [
        (
            "def background(fn):\n    # a wrapper\n    @shared_task(\n        bind=True,\n    )\n"
            "    def run(self):\n        return fn()\n\n    return run\n",
            ["background"],
        ),
        (
            "class Registry:\n    # registers a task (by name)" + _MANY_METHODS
            + "\n    def register(self, fn):\n        return shared_task(fn)\n",
            ["Registry"],
        ),
        (
            "class Component:\n    # No task (for example eager mode)" + _MANY_METHODS
            + "\n    def save(self):\n        return 'shared_task()'\n",
            [],
        ),
        ("def background(fn):\n    return f'{shared_task(fn)}'\n", ["background"]),
        ('def background(fn):\n    return f"""wrapped:\n{shared_task(fn)}"""\n', ["background"]),
        ("def background(fn):\n    label = 'shared_task('\n    return fn\n", []),
        (
            "class Registry:\n    # registers a task (by name) \u2014 once" + _MANY_METHODS
            + "\n    def register(self, fn):\n        return shared_task(fn)\n",
            ["Registry"],
        ),
        (
            "class Registry:\n    # wraps shared_task" + _MANY_METHODS
            + "\n    def register(self, fn):\n        return \uff53hared_task(fn)\n",
            ["Registry"],
        ),
        (
            "class Registry:\n    # wraps shared_task, caf\u00e9" + _MANY_METHODS
            + "\n    def register(self, fn):\n        return 'shared_task(fn)'\n",
            [],
        ),
    ],
    ids=[
        "decorating-a-nested-function",
        "in-the-last-method-of-a-class",
        "mentioned-in-a-comment-and-a-string",
        "in-an-f-string-field",
        "in-the-second-line-of-an-f-string",
        "spelled-in-a-string",
        "other-than-ascii-in-a-comment",
        "name-spelled-with-a-fullwidth-letter",
        "other-than-ascii-and-no-call",
    ],
)
def test_a_wrapper_is_found_where_its_text_calls_the_decorator(source: str, up_front: List[str]) -> None:
    """The tree confirms a call on the lines where the text shows one."""
    loaded = load_source("from celery import shared_task\n\n\n" + source, "tasks.py")
    assert isinstance(loaded, LoadedModule)
    assert [*loaded.index.functions.up_front(), *loaded.index.classes.up_front()] == up_front


@pytest.mark.parametrize(
    # libcst's 300 modules take as long as the four others together (`make test-all`).
    "package", ["idemlint", pytest.param("libcst", marks=pytest.mark.slow), "click", "flake8", "_pytest"]
)
def test_wrappers_found_on_the_text_s_lines_are_those_of_a_whole_walk(
    package: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every module of real packages, with each module's own words taken as
    task decorators (so that their calls are wrappers to find)."""
    import importlib
    import io

    from idemlint import segments

    root = pathlib.Path(getattr(importlib.import_module(package), "__file__")).parent
    compared = found = 0
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        lines = io.StringIO(text, newline="").readlines()
        called = sorted({n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)})
        chunks = split(tree, len(lines))
        narrowed = Screen(tree, chunks, lines, called[:40])._wrapper_names
        with monkeypatch.context() as patched:
            patched.setattr(segments, "_nodes_on", lambda root, lines: ast.walk(root))
            whole = Screen(tree, chunks, lines, called[:40])._wrapper_names
        assert narrowed == whole, path
        compared += 1
        found += len(whole)
    assert compared > 10 and found > 10


_LARGE_CLASS = (
    "\n\n@decorate(\n    'client',\n)\nclass Client(\n    Base,\n):  # the header spans lines\n"
    '    """A client of many methods."""\n\n    retries = 3\n'
    + "".join(f"\n    def unrelated_{n}(self):\n        return {n}\n" for n in range(40))
    + textwrap.indent(
        textwrap.dedent(
            """\

            @staticmethod
            def _url():
                return "https://example.com"

            @traced
            def send(self, order_id):
                # posts the order
                if order_id:
                    requests.post(
                        self._url(), json={"id": order_id}
                    )

            def close(self):
                return None
            """
        ),
        "    ",
    )
)


def test_a_method_of_a_large_class_is_parsed_alone_and_positioned_exactly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    parsed = parsed_later(monkeypatch)
    members = members_parsed(monkeypatch)
    source = textwrap.dedent(
        """\
        import requests
        from celery import shared_task


        def decorate(name):
            return lambda cls: cls


        def traced(function):
            return function


        class Base:
            pass


        @shared_task
        def send(order_id):
            Client().send(order_id)
        """
    ) + _LARGE_CLASS
    (finding,) = lint_source(source, "tasks.py").findings
    line = source.splitlines().index("            requests.post(") + 1
    assert (finding.code, finding.line, finding.column, finding.end_line) == ("IDM002", line, 13, line + 2)
    assert "Client" not in parsed
    assert members == ["Client.send", "Client._url"]
    parse_everything(monkeypatch)
    (whole,) = lint_source(source, "tasks.py").findings
    assert (whole.line, whole.column, whole.end_line, whole.end_column) == (
        finding.line, finding.column, finding.end_line, finding.end_column
    )


def test_a_class_without_the_method_called_is_never_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    parsed = parsed_later(monkeypatch)
    members = members_parsed(monkeypatch)
    source = textwrap.dedent(
        """\
        import requests
        from celery import shared_task


        @shared_task
        def send(order_id):
            Client().send(order_id)


        class Client: retries = 3; send = None
        """
    )
    assert lint_source(source, "tasks.py").findings == ()
    assert parsed == []  # no method named send: nothing to parse
    one_line = "class Client:  # one\n    def send(self, order_id): requests.post('https://example.com', json=order_id)"
    source = source.replace("class Client: retries = 3; send = None", one_line)
    (finding,) = lint_source(source, "tasks.py").findings
    assert (finding.code, finding.line) == ("IDM002", 11)
    assert (parsed, members) == ([], ["Client.send"])


def test_instance_attributes_of_an_unparsed_class_are_read_without_parsing_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    parsed = parsed_later(monkeypatch)
    members = members_parsed(monkeypatch)
    source = textwrap.dedent(
        """\
        import requests
        from celery import shared_task


        class Poster:
            def post(self, order_id):
                requests.post("https://example.com", json={"id": order_id})


        class Service:
            def __init__(self):
                self.name = "service"

            def connect(self, *args):
                self.poster = Poster(*args, timeout=[n for n in range(3)])

            def run(self, order_id):
                self.poster.post(order_id)


        @shared_task
        def send(order_id):
            Service().run(order_id)
        """
    )
    (finding,) = lint_source(source, "tasks.py").findings
    assert (finding.code, finding.line) == ("IDM002", 7)
    assert parsed == []
    # ``Service()`` runs the constructor: it is parsed alone, as each method is.
    assert members == ["Service.__init__", "Service.run", "Poster.post"]


# What ``called_at`` means, as a pattern: a name, then space, continuations,
# closing brackets and whole comments (each to its line's end), then ``(``.
# Exact, and fine on short text; on a banner of ``#`` it is the scan's job.
_CALLED_REFERENCE = r"\b(?:shared_task|task|job)\b(?:[\s\\)]|#[^\r\n]*(?=[\r\n]|\Z))*\("
_CALL_PIECES = ("task", "shared_task", "job", "jobs", "(", ")", " ", "\n", "\r\n", "\\", "#", "# x", "x", "=", "@", "\t")


def test_calls_are_found_where_the_pattern_says() -> None:
    import random
    import re

    from idemlint.segments import called_at, decorator_mentions

    reference = re.compile(_CALLED_REFERENCE)
    names = decorator_mentions(["task", "shared_task", "job"])
    generator = random.Random(20261206)
    for _ in range(20_000):
        text = "".join(generator.choice(_CALL_PIECES) for _ in range(generator.randint(0, 14)))
        assert called_at(names, text) == [m.start() for m in reference.finditer(text)], repr(text)


@pytest.mark.parametrize("banner", ["#" * 64, "# " + "#" * 62, "#" * 64 + "\n" + "#" * 64])
def test_a_comment_banner_after_a_task_word_is_read_once(banner: str, hang_guard: None) -> None:
    """A banner after a decorator's name used to cost 2**n (a pattern that
    could end a comment anywhere: 12 s for 26 ``#``); 4 000 of them now
    cost a read of the text."""
    from idemlint.segments import called_at, decorator_mentions

    names = decorator_mentions(["task", "shared_task"])
    text = ("# the nightly task\n" + banner + "\nx = 1\n") * 4_000 + "shared_task  # then\n  (f)\n"
    assert called_at(names, text) == [text.rindex("shared_task")]
