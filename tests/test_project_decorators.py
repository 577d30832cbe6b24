"""The project's own task decorators, recognised without configuration in
every form projects write them, and functions handed to RQ from another
module (RULES.md, "What counts as a task"): each form is a fixture project
under tests/projects/ whose decorator (or function) is defined in one
module, re-exported by a package ``__init__`` and used in another, with
look-alikes that make no task.  ``# expect: IDMnnn`` marks every finding."""

from __future__ import annotations

import pathlib
import textwrap
from typing import List, Tuple

import libcst as cst
import pytest

from conftest import RunCli
from expectations import expectations, reported

from idemlint import engine
from idemlint.cache import DIRECTORY_NAME
from idemlint.engine import could_hold_tasks
from idemlint.project import LoadedModule, load_source
from idemlint.settings import DEFAULT_SETTINGS
from idemlint.tasks import build_index, find_tasks, task_decorators

PROJECTS = pathlib.Path(__file__).parent / "projects"
FORMS = [
    "decorator_alias", "decorator_instance", "decorator_partial", "decorator_wrapper", "enqueue_forms",
    "task_bases", "task_class_options", "send_by_name", "tasks_in_bodies", "enqueue_splats",
    "namespace_portions",
]




@pytest.mark.sweep
@pytest.mark.parametrize("form", FORMS)
def test_each_form_makes_tasks_through_the_cli(form: str, run_cli: RunCli) -> None:
    root = PROJECTS / form
    status, out, err = run_cli("check", "--no-cache", str(root))
    assert (status, err) == (1, "")
    assert reported(out) == expectations(root)


def task_options(source: str) -> List[Tuple[str, str, List[str], bool]]:
    index = build_index(cst.parse_module(textwrap.dedent(source)))
    return [
        (task.name, task.framework, sorted(task.options), task.bound)
        for task in find_tasks(index, task_decorators(index))
    ]


@pytest.mark.parametrize(
    "source, expected",
    [
        (
            """
            from celery import shared_task
            retrying_task = shared_task(bind=True, acks_late=True)
            @retrying_task
            def a(self): pass
            """,
            [("a", "celery", ["acks_late", "bind"], True)],
        ),
        (
            """
            from proj.celery import app
            task = app.task
            slow = task(time_limit=60)
            @slow
            def a(): pass
            """,
            [("a", "celery", ["time_limit"], False)],
        ),
        (
            """
            import functools
            from rq.decorators import job
            default_job = functools.partial(job, "default", timeout=30)
            @default_job(ttl=5)
            def a(): pass
            """,
            [("a", "rq", ["timeout", "ttl"], False)],
        ),
        (
            """
            from celery import shared_task
            a = b
            b = a
            @a
            def f(): pass
            """,
            [],
        ),
    ],
    ids=["instance options and bind", "alias of an alias, instance", "partial then call", "cycle"],
)
def test_the_options_a_binding_writes_count_for_its_tasks(
    source: str, expected: List[Tuple[str, str, List[str], bool]]
) -> None:
    assert task_options(source) == expected


def test_a_registration_bound_to_a_name_is_no_decorator() -> None:
    source = """
        from proj.celery import app
        def send(x): pass
        send_task = app.task(send)
        @send_task
        def other(): pass
        """
    assert [name for name, *_ in task_options(source)] == ["send"]


def test_editing_the_module_that_binds_the_decorator_checks_its_tasks_again(
    tmp_path: pathlib.Path, run_cli: RunCli
) -> None:
    package = tmp_path / "proj"
    package.mkdir()
    (package / "__init__.py").write_text("from proj.deco import project_task\n")
    (package / "deco.py").write_text("import functools\nproject_task = functools.lru_cache\n")
    (package / "jobs.py").write_text(
        "import requests\nfrom proj import project_task\n\n\n@project_task\n"
        "def notify(order_id):\n    requests.post('https://x.example', json={'o': order_id})\n"
    )
    cache = ["--cache-dir", str(tmp_path / DIRECTORY_NAME)]
    assert run_cli("check", *cache, str(package))[0] == 0
    (package / "deco.py").write_text("from celery import shared_task\nproject_task = shared_task\n")
    status, out, _ = run_cli("check", *cache, str(package))
    assert (status, reported(out)) == (1, [(str(package / "jobs.py"), 7, "IDM002")])
    (package / "deco.py").write_text("import functools\nproject_task = functools.lru_cache\n")
    assert run_cli("check", *cache, str(package))[0] == 0


@pytest.mark.parametrize(
    "source, framework",
    [
        (
            """
            import dramatiq
            def actor(fn=None, **options):
                def decorate(function):
                    return dramatiq.actor(function, **options)
                return decorate(fn) if fn is not None else decorate
            @actor(queue_name="q")
            def a(): pass
            """,
            "dramatiq",
        ),
        (
            """
            from functools import partial
            from rq.decorators import job as rq_job
            class RecordingJob(rq_job):
                queue_class = None
            job = partial(RecordingJob, connection=None)
            @job("default")
            def a(): pass
            """,
            "rq",
        ),
        (
            """
            from celery import shared_task
            class instrumented:
                def __call__(self, function):
                    return shared_task(bind=True)(function)
            @instrumented()
            def a(): pass
            """,
            "celery",
        ),
    ],
    ids=["dramatiq factory", "partial of an rq decorator class", "class applying shared_task"],
)
def test_a_wrapper_makes_tasks_of_the_framework_it_wraps(source: str, framework: str) -> None:
    assert [(name, made) for name, made, *_ in task_options(source)] == [("a", framework)]


def test_a_file_whose_only_task_text_is_a_project_decorator_is_analysed() -> None:
    """The text screen learns the names the project defines next to a task
    decorator (``instrumented``, not ``timed``) and lets their users through."""
    app = PROJECTS / "decorator_wrapper" / "app"
    files = sorted(str(path) for path in (PROJECTS / "decorator_wrapper").rglob("*.py"))
    assert not could_hold_tasks((app / "exports.py").read_bytes())
    candidates, problems, _, _, _ = engine._candidates(files, DEFAULT_SETTINGS.task_decorators)
    chosen = [path for path, _ in candidates]
    assert problems == [] and chosen == sorted(chosen)
    assert str(app / "exports.py") in chosen and str(app / "reports.py") not in chosen


@pytest.mark.parametrize(
    "source, expected",
    [
        (
            """
            from rq import Queue
            class Reports:
                def build(self): pass
            def purge(): pass
            def nightly(scheduler, queue):
                scheduler.schedule(None, purge)
                queue.enqueue_in(60, Reports.build)
            """,
            ["Reports.build", "purge"],
        ),
        (
            """
            import functools
            from rq.job import Job
            def a(): pass
            def b(): pass
            later = functools.partial(queue.enqueue, a)
            def f(redis):
                Job.create(b, connection=redis)
            """,
            ["a", "b"],
        ),
        ("def a(): pass\nlater = partial(print, a)\n", []),
    ],
    ids=["scheduler and Class.method", "partial and Job.create", "partial of something else"],
)
def test_functions_handed_to_rq_in_their_own_module(source: str, expected: List[str]) -> None:
    index = build_index(cst.parse_module(textwrap.dedent(source)), scan_bodies=True)
    assert sorted(task.name for task in find_tasks(index, task_decorators(index))) == expected


def test_editing_the_module_of_an_enqueued_function_checks_its_enqueuer_again(
    tmp_path: pathlib.Path, run_cli: RunCli
) -> None:
    package = tmp_path / "proj"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "views.py").write_text(
        "from rq import Queue\nfrom proj import billing\n\n\n"
        "def checkout(queue, order_id):\n    queue.enqueue(billing.capture, order_id)\n"
    )
    posting = "import requests\n\n\ndef capture(order_id):\n    requests.post('https://x.example', json={'o': order_id})\n"
    (package / "billing.py").write_text(posting)
    cache = ["--cache-dir", str(tmp_path / DIRECTORY_NAME)]
    status, out, _ = run_cli("check", *cache, str(package))
    assert (status, reported(out)) == (1, [(str(package / "billing.py"), 5, "IDM002")])
    (package / "billing.py").write_text("def capture(order_id):\n    return order_id\n")
    assert run_cli("check", *cache, str(package))[:2] == (0, "")
    (package / "billing.py").write_text(posting)
    assert reported(run_cli("check", *cache, str(package))[1]) == [(str(package / "billing.py"), 5, "IDM002")]


def test_editing_the_projects_enqueue_wrapper_checks_its_callers_again(
    tmp_path: pathlib.Path, run_cli: RunCli
) -> None:
    package = tmp_path / "proj"
    package.mkdir()
    (package / "__init__.py").write_text("from .jobs import run_later\n")
    wrapper = "from rq import Queue\n\nqueue = Queue()\n\n\ndef run_later(fn, *args):\n    return queue.enqueue(fn, *args)\n"
    (package / "jobs.py").write_text(wrapper)
    (package / "views.py").write_text(
        "import requests\nfrom proj import run_later\n\n\ndef export(order_id):\n"
        "    requests.post('https://x.example', json={'o': order_id})\n\n\n"
        "def close(order_id):\n    run_later(export, order_id)\n\n\n"
        # Task-shaped text of its own: what makes the file be read as task code.
        "def close_now(queue, order_id):\n    queue.enqueue(print, order_id)\n"
    )
    cache = ["--cache-dir", str(tmp_path / DIRECTORY_NAME)]
    expected = [(str(package / "views.py"), 6, "IDM002")]
    assert reported(run_cli("check", *cache, str(package))[1]) == expected
    (package / "jobs.py").write_text("def run_later(fn, *args):\n    return fn(*args)\n")
    assert run_cli("check", *cache, str(package))[:2] == (0, "")
    (package / "jobs.py").write_text(wrapper)
    assert reported(run_cli("check", *cache, str(package))[1]) == expected


def test_editing_the_module_of_a_project_task_base_checks_its_subclasses_again(
    tmp_path: pathlib.Path, run_cli: RunCli
) -> None:
    package = tmp_path / "proj"
    package.mkdir()
    (package / "__init__.py").write_text("")
    base = "from celery import Task\n\n\nclass Base(Task):\n    abstract = True\n"
    (package / "base.py").write_text(base)
    (package / "jobs.py").write_text(
        "import requests\nfrom celery import shared_task\nfrom proj.base import Base\n\n\n"
        "class Sync(Base):\n    def run(self, order_id):\n"
        "        requests.post('https://x.example', json={'o': order_id})\n\n\n"
        # Task-shaped text of its own: what makes the file be read as task code.
        "@shared_task\ndef ping():\n    return 'pong'\n"
    )
    cache = ["--cache-dir", str(tmp_path / DIRECTORY_NAME)]
    expected = [(str(package / "jobs.py"), 8, "IDM002")]
    assert reported(run_cli("check", *cache, str(package))[1]) == expected
    (package / "base.py").write_text("class Base:\n    abstract = True\n")
    assert run_cli("check", *cache, str(package))[:2] == (0, "")
    (package / "base.py").write_text(base)
    assert reported(run_cli("check", *cache, str(package))[1]) == expected


def test_a_cycle_of_re_exports_and_a_long_alias_chain_make_no_task_and_no_error(
    tmp_path: pathlib.Path, run_cli: RunCli
) -> None:
    package = tmp_path / "proj"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from proj.b import deco\n")
    (package / "b.py").write_text("from proj.a import deco\n")
    chain = "".join(f"a{n + 1} = a{n}\n" for n in range(5000))
    post = "    requests.post('https://x.example', json={'o': order_id})\n"
    (package / "jobs.py").write_text(
        "import requests\nfrom celery import shared_task\nfrom proj.a import deco\n\na0 = shared_task(acks_late=False)\n"
        + chain
        + "\n\n@deco\ndef cyclic(order_id):\n" + post
        + "\n\n@a5000\ndef too_deep(order_id):\n" + post
        + "\n\n@a3\ndef aliased(order_id):\n" + post
    )
    status, out, err = run_cli("check", "--no-cache", str(package))
    assert (status, err) == (1, "")
    assert [line for line in out.splitlines() if " IDM002 " in line and "in task `aliased`" in line] == [
        line for line in out.splitlines() if " IDM0" in line
    ]
    assert len(out.splitlines()) == 1


def test_idm009_reads_the_reject_setting_a_task_inherits(run_cli: RunCli, tmp_path: pathlib.Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "bases.py").write_text(
        "from celery import Task\n\n\nclass Safe(Task):\n    reject_on_worker_lost = True\n"
    )
    (package / "tasks.py").write_text(
        textwrap.dedent(
            """\
            from celery import shared_task

            from pkg.bases import Safe

            retrying = shared_task(reject_on_worker_lost=True)


            class Export(Safe):
                acks_late = True

                def run(self):
                    pass


            @shared_task(base=Safe, acks_late=True)
            def inherits():
                pass


            @retrying(acks_late=True)
            def bound():
                pass


            @shared_task(base=Safe, acks_late=True, reject_on_worker_lost=False)
            def overrides():
                pass
            """
        )
    )
    status, out, err = run_cli("check", "--no-cache", "--select", "IDM009", str(tmp_path))
    assert (status, err) == (1, "")
    assert reported(out) == [(str(package / "tasks.py"), 25, "IDM009")]
    assert "with `reject_on_worker_lost=False`" in out


def test_a_module_that_starts_setting_the_apps_task_class_checks_its_tasks_again(
    tmp_path: pathlib.Path, run_cli: RunCli
) -> None:
    package = tmp_path / "proj"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "app.py").write_text("from celery import Celery\n\napp = Celery('proj')\n")
    (package / "bases.py").write_text(
        "from celery import Task\n\n\nclass Safe(Task):\n    reject_on_worker_lost = True\n"
    )
    (package / "jobs.py").write_text(
        "from proj.app import app\n\n\n@app.task(acks_late=True)\ndef sync():\n    pass\n"
    )
    cache = ["--cache-dir", str(tmp_path / DIRECTORY_NAME), "--select", "IDM009"]
    status, out, _ = run_cli("check", *cache, str(package))
    assert (status, reported(out)) == (1, [(str(package / "jobs.py"), 4, "IDM009")])
    (package / "wiring.py").write_text("from proj.app import app\nfrom proj.bases import Safe\n\napp.Task = Safe\n")
    assert run_cli("check", *cache, str(package))[0] == 0
    (package / "wiring.py").write_text("from proj.app import app\n")
    assert run_cli("check", *cache, str(package))[0] == 1


@pytest.mark.parametrize(
    "source, expected",
    [
        (  # a method registering a function it defines; ``cls()`` is no wrapped function
            """
            from celery import shared_task
            class View:
                def __init_subclass__(cls):
                    def run(self, pk):
                        return cls()
                    cls.run = shared_task(bind=True)(run)
            """,
            [("View.__init_subclass__.<locals>.run", "celery", ["bind"], True)],
        ),
        (  # a function registering a module function by a call
            """
            from celery import shared_task
            def sync(pk): pass
            def register():
                return shared_task(name="sync")(sync)
            """,
            [("sync", "celery", ["name"], False)],
        ),
        (  # a factory decorating a nested def, inside an ``if``
            """
            from celery import shared_task
            def make(flag):
                if flag:
                    @shared_task(acks_late=True)
                    def sync(pk): pass
                    return sync
            """,
            [("make.<locals>.sync", "celery", ["acks_late"], False)],
        ),
        (  # the inside of a decorator: it calls the function it wraps
            """
            from celery import shared_task
            def instrumented(name):
                def wrapped(func):
                    def inner(*args):
                        return func(*args)
                    return shared_task(name=name)(inner)
                return wrapped
            """,
            [],
        ),
        (  # a parameter registered: a wrapper, not a task
            """
            from celery import shared_task
            def register(func):
                return shared_task(func)
            """,
            [],
        ),
        (  # a nested def under a decorator that makes no task, and a call that registers nothing
            """
            import functools
            from celery import shared_task
            def logged(func):
                @functools.wraps(func)
                def inner(*args):
                    return func(*args)
                helper = shared_task
                print(len)
                return inner
            """,
            [],
        ),
    ],
)
def test_tasks_made_inside_functions(source: str, expected: List[Tuple[str, str, List[str], bool]]) -> None:
    assert task_options(source) == expected


def test_a_task_base_two_modules_away_through_classes_left_as_text(
    tmp_path: pathlib.Path, run_cli: RunCli
) -> None:
    """``Middle`` and ``Local`` subclass a project class and can be tasks only
    through their bases: they are left as text and read when asked about."""
    package = tmp_path / "proj"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "base.py").write_text("from celery import Task\n\n\nclass Base(Task):\n    abstract = True\n")
    (package / "views.py").write_text("class View:\n    pass\n")
    mixins = (
        "from proj.base import Base\nfrom proj.views import View\n\n\n"
        "class Middle(Base):\n    retries = 3\n\n\n"
        "class Local(Middle):\n    pass\n\n\n"
        "class Page(View):\n    title = 'x'\n"
    )
    (package / "mixins.py").write_text(mixins)
    post = "        requests.post('https://x.example', json={'o': order_id})\n"
    (package / "jobs.py").write_text(
        "import requests\nfrom celery import shared_task\nfrom proj.mixins import Local, Page\n\n\n"
        "class Sync(Local):\n    def run(self, order_id):\n" + post + "\n\n"
        "class Render(Page):\n    def run(self, order_id):\n" + post + "\n\n"
        "@shared_task\ndef ping():\n    return 'pong'\n"
    )
    loaded = load_source(mixins.encode(), str(package / "mixins.py"), project_decorator=lambda name: True)
    assert isinstance(loaded, LoadedModule)
    # Local is left as text too, and read by detection: it subclasses a class detection reads.
    assert (list(loaded.index.classes.up_front()), loaded.index.classes.detected()) == ([], ["Middle", "Local", "Page"])
    status, out, err = run_cli("check", "--no-cache", str(package))
    assert (status, err) == (1, "")
    assert reported(out) == [(str(package / "jobs.py"), 8, "IDM002")]
    status, out, _ = run_cli("tasks", str(package))
    assert "Sync" in out and "Render" not in out


def test_a_local_mixin_without_run_leaves_its_subclass_as_text(
    tmp_path: pathlib.Path, run_cli: RunCli
) -> None:
    """``Page(Titled, View)`` has a base in its module, but neither defines
    ``run``: it can be a task only through ``View``, so it waits as text for
    detection to ask.  ``Sync(Runs, Base)`` inherits ``run`` from a mixin of
    its module (``Runs`` alone is no task: it has no task base), so it is
    parsed up front, where class-based tasks are found."""
    package = tmp_path / "proj"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "base.py").write_text("from celery import Task\n\n\nclass Base(Task):\n    abstract = True\n")
    (package / "views.py").write_text("class View:\n    pass\n")
    post = "        requests.post('https://x.example', json={'o': order_id})\n"
    jobs = (
        "# Task classes\nimport requests\nfrom proj.base import Base\nfrom proj.views import View\n\n\n"
        "class Titled:\n    title = 'x'\n\n\n"
        "class Page(Titled, View):\n    def render(self, order_id):\n" + post + "\n\n"
        "class Runs:\n    def run(self, order_id):\n" + post + "\n\n"
        "class Sync(Runs, Base):\n    pass\n"
    )
    (package / "jobs.py").write_text(jobs)
    loaded = load_source(jobs.encode(), str(package / "jobs.py"), project_decorator=lambda name: True)
    assert isinstance(loaded, LoadedModule)
    assert (list(loaded.index.classes.up_front()), loaded.index.classes.detected()) == (["Sync"], ["Page"])
    status, out, err = run_cli("check", "--no-cache", str(package))
    assert (status, err) == (1, "")
    assert reported(out) == [(str(package / "jobs.py"), 18, "IDM002")]
    status, out, _ = run_cli("tasks", str(package))
    assert "Sync" in out and "Page" not in out


def test_a_task_class_below_a_class_left_as_text_is_found(tmp_path: pathlib.Path, run_cli: RunCli) -> None:
    """``Mid`` subclasses a project task base and stays text for detection;
    ``Sync(Mid)`` defines ``run``, so it is parsed up front, where
    class-based tasks are found."""
    package = tmp_path / "app"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "base.py").write_text("from celery import Task\n\n\nclass Base(Task):\n    abstract = True\n")
    (package / "jobs.py").write_text(
        "# Task classes\nimport requests\nfrom app.base import Base\n\n\nclass Mid(Base):\n    pass\n\n\n"
        "class Sync(Mid):\n    def run(self, order_id):\n"
        "        requests.post('https://x.example', json={'o': order_id})\n"
    )
    status, out, err = run_cli("check", "--no-cache", str(package))
    assert (status, err) == (1, "")
    assert reported(out) == [(str(package / "jobs.py"), 12, "IDM002")]
    status, out, _ = run_cli("tasks", str(package))
    assert "app.jobs.Sync" in out

