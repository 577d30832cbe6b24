"""``idemlint tasks``: every task ``check`` analyses, one line each, with how
it was recognised and the options that matter; the same engine as
``check`` (discovery, configuration, byte screen, project index)."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import textwrap
from typing import Any, Dict, List, Set, Tuple

import pytest

from conftest import RunCli

from idemlint.semantic import trace

PROJECTS = pathlib.Path(__file__).parent / "projects"
FIXTURE_PROJECTS = [
    "shop", "decorator_alias", "decorator_instance", "decorator_partial", "decorator_wrapper",
    "enqueue_forms", "task_bases", "task_class_options", "send_by_name", "tasks_in_bodies",
    "enqueue_splats", "namespace_portions",
]
JSON_KEYS = {"path", "line", "framework", "name", "recognised", "options", "origins", "runs_again"}


def listed(run_cli: RunCli, *argv: str) -> List[str]:
    status, out, err = run_cli("tasks", *argv)
    assert (status, err) == (0, "")
    return out.splitlines()


def listed_json(run_cli: RunCli, *argv: str) -> List[Any]:
    status, out, err = run_cli("tasks", "--format", "json", *argv)
    assert (status, err) == (0, "")
    rows = json.loads(out)
    assert isinstance(rows, list)
    return rows


@pytest.mark.parametrize(
    "project, expected",
    [
        (
            "shop",
            [
                "shop/tasks.py:15  celery  shop.tasks.charge_order  @shared_task -> celery.shared_task",
                "shop/tasks.py:36  celery  shop.tasks.notify_partner  @background -> shop.taskutils.background",
            ],
        ),
        (
            "decorator_alias",
            [
                "app/jobs.py:10  celery  app.jobs.notify  @pt -> celery.shared_task",
                "app/jobs.py:15  celery  app.jobs.push  @task -> celery.Celery().task  bind=True",
            ],
        ),
        (
            "decorator_instance",
            [
                "pkg/tasks.py:7  celery  pkg.tasks.sync_order  @retrying_task -> "
                "celery.shared_task(bind=True, acks_late=True, autoretry_for=(IOError,))  "
                "bind=True; acks_late=True; autoretry_for=(IOError,)",
            ],
        ),
        (
            "decorator_partial",
            [
                "jobs/tasks.py:7  rq  jobs.tasks.refresh  "
                "@job -> functools.partial(RecordingJob, connection=None, failure_ttl=60)  timeout=300",
                "jobs/tasks.py:12  celery  jobs.tasks.push  "
                "@background -> functools.partial(app.task, bind=True)  bind=True",
            ],
        ),
        (
            "decorator_wrapper",
            [
                "app/exports.py:10  celery  app.exports.export  @instrumented -> core.instrumented",
                "app/tasks.py:9  dramatiq  app.tasks.export_order  @background_actor -> core.actor",
            ],
        ),
        (
            "enqueue_forms",
            [
                "shop/billing.py:4  rq  shop.billing.capture  enqueued in shop/views.py",
                "shop/billing.py:10  rq  shop.billing.Refunds.refund  enqueued in shop/views.py",
                "shop/views.py:36  rq  shop.views.export  enqueued in shop/views.py",
            ],
        ),
        (
            "namespace_portions",
            [
                "app/bg/jobs/sync.py:7  celery  app.bg.jobs.sync.refund_order  @shared_task -> celery.shared_task",
                "app/bg/tasks.py:9  celery  app.bg.tasks.charge  @shared_task -> celery.shared_task",
                "scripts/run.py:7  celery  run.run  @shared_task -> celery.shared_task",
            ],
        ),
        (
            "task_bases",
            [
                "proj/jobs.py:7  celery  proj.jobs.Sync  Task subclass of proj.Base",
                "proj/jobs.py:12  celery  proj.jobs.Registered  registered with register_task",
            ],
        ),
        (
            "tasks_in_bodies",
            [
                "proj/decorators.py:35  celery  proj.decorators.sync  @instrumented",
                "proj/views.py:6  celery  proj.views.push  registered by a call in AsyncView.__init_subclass__",
                "proj/views.py:12  celery  proj.views.AsyncView.__init_subclass__.<locals>.execute  "
                "registered by a call in AsyncView.__init_subclass__  bind=True",
                "proj/views.py:23  celery  proj.views.make_export_task.<locals>.export  "
                "@app.task -> proj.celery_app.app.task",
            ],
        ),
    ],
)
def test_fixture_projects_list_their_tasks(
    run_cli: RunCli, monkeypatch: pytest.MonkeyPatch, project: str, expected: List[str]
) -> None:
    monkeypatch.chdir(PROJECTS / project)
    lines = listed(run_cli, ".")
    shown = [line.replace("./", "") for line in lines]
    for line in expected:
        assert line in shown
    assert lines == sorted(lines, key=lambda line: (line.split(":")[0], int(line.split(":")[1].split()[0])))


def test_functions_in_splatted_dicts_are_rq_tasks_and_nothing_else(run_cli: RunCli) -> None:
    # Every positive of the fixture, and none of its negatives (a dict
    # without a callable, a "func" string, a registry that is no queue, a
    # dict given to a function that only logs it, a table no loop schedules).
    rows = listed_json(run_cli, str(PROJECTS / "enqueue_splats"))
    found = [(row["name"], row["framework"], row["recognised"].rpartition("/")[2]) for row in rows]
    assert sorted(found) == sorted(
        [
            ("jobs.work.direct", "rq", "schedule.py"),
            ("jobs.work.local_dict", "rq", "schedule.py"),
            ("jobs.work.through_wrapper", "rq", "schedule.py"),
            ("jobs.work.defined_first", "rq", "schedule.py"),
            ("jobs.work.defined_second", "rq", "schedule.py"),
            ("jobs.work.by_f", "rq", "schedule.py"),
            ("jobs.work.called", "rq", "schedule.py"),
            ("jobs.work.cross_wrapper", "rq", "cron.py"),
            ("jobs.work.nightly", "rq", "cron.py"),
            ("jobs.work.appended", "rq", "cron.py"),
            ("jobs.work.periodic", "rq", "periodic.py"),
        ]
    )


@pytest.mark.sweep  # every fixture project analysed whole
@pytest.mark.parametrize("project", FIXTURE_PROJECTS)
def test_as_many_tasks_as_check_traces(
    run_cli: RunCli, monkeypatch: pytest.MonkeyPatch, project: str
) -> None:
    traced: Set[Tuple[str, str]] = set()
    original = trace.TraceBuilder.__init__

    def spy(self: trace.TraceBuilder, module: Any, task: Any, *args: Any, **kwargs: Any) -> None:
        traced.add((module.path, task.name))
        original(self, module, task, *args, **kwargs)

    root = str(PROJECTS / project)
    monkeypatch.setattr(trace.TraceBuilder, "__init__", spy)
    status, _, err = run_cli("check", "--no-cache", "--jobs", "1", root)
    assert status in (0, 1) and err == ""
    rows = listed_json(run_cli, root)
    assert traced and len(rows) == len(traced)
    assert {row["path"] for row in rows} == {path for path, _ in traced}


def test_json_rows_have_stable_keys(run_cli: RunCli) -> None:
    rows = listed_json(run_cli, str(PROJECTS / "decorator_instance"))
    assert rows
    for row in rows:
        assert set(row) == JSON_KEYS | {"calls", "unresolved", "effects"}
        assert isinstance(row["line"], int) and isinstance(row["options"], dict)
    first = rows[0]
    assert first["framework"] == "celery"
    assert first["name"] == "pkg.tasks.sync_order"
    assert first["options"] == {"bind": "True", "acks_late": "True", "autoretry_for": "(IOError,)"}


def _marked(root: pathlib.Path, marker: str) -> List[Tuple[str, int, List[str]]]:
    """(path relative to ``root``'s parent, line, the words after ``# marker:``) for each marked line."""
    found = []
    for path in sorted(root.rglob("*.py")):
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
            for comment in line.split("#")[1:]:
                if comment.strip().startswith(f"{marker}:"):
                    words = comment.strip()[len(marker) + 1 :].split()
                    found.append((path.relative_to(root.parent).as_posix(), number, words))
    return found


def test_json_says_where_the_analysis_reaches_and_where_it_stops(run_cli: RunCli, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each call of the task on its paths counted once by how it resolved,
    the unresolved ones and the effects placed, as the fixture's comments say."""
    root = PROJECTS / "reach"
    monkeypatch.chdir(root.parent)
    rows = {row["name"]: row for row in listed_json(run_cli, "reach")}
    settle = rows["shop.tasks.settle"]
    assert set(settle) == JSON_KEYS | {"calls", "unresolved", "effects"}
    expected = dict.fromkeys(("followed", "enqueued", "library", "cut", "unresolved"), 0)
    unresolved = []
    for path, line, kinds in _marked(root, "reach"):
        for kind in kinds:
            expected[kind] += 1
            if kind == "unresolved":
                unresolved.append((path, line))
    assert settle["calls"] == expected
    assert [(site["path"], site["line"]) for site in settle["unresolved"]] == unresolved
    assert [site["call"] for site in settle["unresolved"]] == [
        "Order.objects.overdue()", "gateway.refresh(...)", "audit(...)", "self.note_progress(...)",
    ]
    effects = sorted((effect["path"], effect["line"], effect["kind"], effect["api"]) for effect in settle["effects"])
    assert effects == sorted((path, line, *words) for path, line, words in _marked(root, "effect"))
    assert rows["shop.tasks.archive"]["calls"] == dict.fromkeys(expected, 0)


def test_the_text_listing_traces_nothing(run_cli: RunCli, monkeypatch: pytest.MonkeyPatch) -> None:
    """Tracing costs what ``check`` costs: only ``--format json`` pays it."""
    built: List[str] = []
    original = trace.TraceBuilder.build

    def build(self: trace.TraceBuilder) -> trace.Trace:
        built.append(self.task.name)
        return original(self)

    monkeypatch.setattr(trace.TraceBuilder, "build", build)
    assert listed(run_cli, str(PROJECTS / "reach"))
    assert built == []
    listed_json(run_cli, str(PROJECTS / "reach"))
    assert sorted(built) == ["archive", "settle"]


def write(root: pathlib.Path, name: str, text: str) -> pathlib.Path:
    path = root / name
    path.write_text(textwrap.dedent(text), "utf-8")
    return path


def test_local_decorator_instance_names_what_it_is_bound_to(run_cli: RunCli, tmp_path: pathlib.Path) -> None:
    write(
        tmp_path,
        "jobs.py",
        """\
        from celery import shared_task

        retrying_task = shared_task(acks_late=True, max_retries=3)


        @retrying_task
        def sync(order_id):
            pass
        """,
    )
    (line,) = listed(run_cli, str(tmp_path))
    assert line == (
        f"{tmp_path}/jobs.py:7  celery  jobs.sync  "
        "@retrying_task -> celery.shared_task(acks_late=True, max_retries=3)  "
        "acks_late=True; max_retries=3"
    )


def test_periodic_schedules_and_time_limits_are_shown(run_cli: RunCli, tmp_path: pathlib.Path) -> None:
    write(
        tmp_path,
        "periodic.py",
        """\
        from celery.task import periodic_task
        from celery.schedules import crontab
        from huey import RedisHuey, crontab as every

        huey = RedisHuey()


        @periodic_task(run_every=crontab(minute=0), soft_time_limit=50, time_limit=60)
        def nightly():
            pass


        @huey.periodic_task(every(minute="*/5"), retries=2)
        def sweep():
            pass
        """,
    )
    rows = listed_json(run_cli, str(tmp_path))
    assert [(row["framework"], row["name"], row["line"]) for row in rows] == [
        ("celery", "periodic.nightly", 9),
        ("huey", "periodic.sweep", 14),
    ]
    assert rows[0]["options"] == {
        "soft_time_limit": "50", "time_limit": "60", "run_every": "crontab(minute=0)",
    }
    assert rows[1]["options"] == {"retries": "2", "schedule": 'every(minute="*/5")'}


def test_a_broken_file_is_one_line_on_stderr_and_exit_2(run_cli: RunCli, tmp_path: pathlib.Path) -> None:
    write(tmp_path, "broken.py", "from celery import shared_task\n@shared_task\ndef f(:\n")
    write(tmp_path, "good.py", "from celery import shared_task\n\n\n@shared_task\ndef g():\n    pass\n")
    status, out, err = run_cli("tasks", str(tmp_path))
    assert status == 2
    assert out == f"{tmp_path}/good.py:5  celery  good.g  @shared_task -> celery.shared_task\n"
    (problem,) = err.splitlines()
    assert problem.startswith(f"{tmp_path}/broken.py:") and " E999 " in problem


def test_no_tasks_prints_nothing_and_exits_0(run_cli: RunCli, tmp_path: pathlib.Path) -> None:
    write(tmp_path, "plain.py", "def helper():\n    return 1\n")
    assert run_cli("tasks", str(tmp_path)) == (0, "", "")
    assert run_cli("tasks", "--format", "json", str(tmp_path)) == (0, "[]\n", "")


def test_configured_decorator_and_exclude_are_honoured(run_cli: RunCli, tmp_path: pathlib.Path) -> None:
    write(tmp_path, "jobs.py", "from lib import background\n\n\n@background\ndef run():\n    pass\n")
    write(tmp_path, "skip.py", "from celery import shared_task\n\n\n@shared_task\ndef s():\n    pass\n")
    lines = listed(run_cli, "--task-decorator", "background", "--exclude", "skip.py", str(tmp_path))
    assert lines == [f"{tmp_path}/jobs.py:5  custom  jobs.run  @background -> lib.background"]


def test_project_lists_only_the_named_paths(run_cli: RunCli) -> None:
    root = PROJECTS / "decorator_wrapper"
    rows = listed_json(run_cli, "--project", str(root), str(root / "app" / "tasks.py"))
    assert {row["path"] for row in rows} == {str(root / "app" / "tasks.py")}
    assert {row["name"] for row in rows} == {"app.tasks.export_order", "app.tasks.sync"}


def test_a_file_name_is_escaped_in_text(run_cli: RunCli, tmp_path: pathlib.Path) -> None:
    write(tmp_path, "a\x1b[2Jb.py", "from celery import shared_task\n\n\n@shared_task\ndef f():\n    pass\n")
    (line,) = listed(run_cli, str(tmp_path))
    assert "\x1b" not in line and "a\\x1b[2Jb.py:5" in line


def test_the_installed_entry_point_lists_the_same(
    run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = os.path.join(os.path.dirname(sys.executable), "idemlint")
    root = PROJECTS / "enqueue_forms"
    done = subprocess.run(
        [script, "tasks", "--format", "json", "."], cwd=root, capture_output=True, text=True, timeout=120
    )
    assert (done.returncode, done.stderr) == (0, "")
    monkeypatch.chdir(root)
    assert json.loads(done.stdout) == listed_json(run_cli, ".")
    assert len(json.loads(done.stdout)) == 7


def options_by_task(run_cli: RunCli, project: str) -> Dict[str, Tuple[Dict[str, str], Dict[str, str]]]:
    rows = listed_json(run_cli, str(PROJECTS / project))
    return {row["name"]: (row["options"], row["origins"]) for row in rows}


def test_a_task_gets_the_options_of_its_task_class_unless_its_decorator_sets_them(
    run_cli: RunCli,
) -> None:
    tasks = options_by_task(run_cli, "task_class_options")
    # base= through a chain of bases in another module, re-exported by the package
    assert tasks["proj.tasks.sync"] == (
        {
            "acks_late": "True", "time_limit": "60", "autoretry_for": "(IOError,)",
            "max_retries": "5", "base": "RetryingTask",
        },
        {
            "acks_late": "base LateTask", "time_limit": "base LateTask",
            "autoretry_for": "base RetryingTask", "max_retries": "base RetryingTask",
        },
    )
    # the decorator wins, and is shown without an origin
    options, origins = tasks["proj.tasks.override"]
    assert (options["acks_late"], options["max_retries"]) == ("False", "1")
    assert origins == {"time_limit": "base LateTask", "autoretry_for": "base RetryingTask"}
    # a base that is no Task subclass gives nothing
    assert tasks["proj.tasks.plain"] == ({"base": "NotATask"}, {})
    # ``app.Task = DefaultTask`` in a module of its own
    assert tasks["proj.tasks.default"] == (
        {"soft_time_limit": "30", "default_retry_delay": "10"},
        {"soft_time_limit": "base DefaultTask", "default_retry_delay": "base DefaultTask"},
    )
    # ``Celery(task_cls="proj.bases:SafeTask")`` for ``other``, not for ``app``
    assert tasks["proj.tasks.on_other"][1] == {
        "acks_late": "base SafeTask", "reject_on_worker_lost": "base SafeTask",
    }
    # two apps: ``@shared_task`` gets neither's class
    assert tasks["proj.tasks.shared"] == ({}, {})
    # a class-based task: its own attributes, and its bases' with where they come from
    options, origins = tasks["proj.tasks.Export"]
    assert options["soft_time_limit"] == "20" and "soft_time_limit" not in origins
    assert origins == {
        "acks_late": "base LateTask", "time_limit": "base LateTask",
        "autoretry_for": "base RetryingTask", "max_retries": "base RetryingTask",
    }


def test_the_text_listing_says_which_class_an_option_comes_from(
    run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(PROJECTS / "task_class_options")
    shown = [line.replace("./", "") for line in listed(run_cli, ".")]
    assert (
        "proj/tasks.py:39  celery  proj.tasks.safe_sync  @app.task -> proj.app.task  "
        "acks_late=True; reject_on_worker_lost=True (base SafeTask); base=SafeTask"
    ) in shown


def test_the_only_app_gives_shared_tasks_its_task_cls(run_cli: RunCli) -> None:
    tasks = options_by_task(run_cli, "send_by_name")
    assert tasks["svc.tasks.refresh"] == (
        {"acks_late": "True", "reject_on_worker_lost": "True"},
        {"acks_late": "base BaseTask", "reject_on_worker_lost": "base BaseTask"},
    )


def test_a_function_sent_by_its_dotted_name_is_a_task(run_cli: RunCli) -> None:
    rows = listed_json(run_cli, str(PROJECTS / "send_by_name"))
    names = [row["name"] for row in rows]
    # once each; ``never_sent``, ``svc.reports.missing`` and ``send_task(name)`` make nothing
    assert names == ["svc.reports.build_report", "svc.tasks.refresh"]
    sent = rows[0]
    assert (sent["framework"], sent["line"]) == ("celery", 4)
    assert sent["recognised"] == f"sent by name in {PROJECTS / 'send_by_name' / 'svc' / 'views.py'}"


def test_an_apps_task_class_is_its_own_not_another_apps(
    run_cli: RunCli, tmp_path: pathlib.Path
) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    write(package, "__init__.py", "")
    write(
        package,
        "apps.py",
        """        from celery import Celery, Task


        class Late(Task):
            acks_late = True
            reject_on_worker_lost = True


        class ProjectCelery(Celery):
            task_cls = "pkg.apps:Late"


        main = Celery("main")
        other = Celery("other")
        other.Task = Late
        own = ProjectCelery("own")
        """,
    )
    write(
        package,
        "tasks.py",
        """        from pkg.apps import main, other, own


        @main.task
        def on_main():
            pass


        @other.task
        def on_other():
            pass


        @own.task
        def on_own():
            pass
        """,
    )
    tasks = {row["name"]: row["origins"] for row in listed_json(run_cli, str(tmp_path))}
    late = {"acks_late": "base Late", "reject_on_worker_lost": "base Late"}
    assert tasks == {"pkg.tasks.on_main": {}, "pkg.tasks.on_other": late, "pkg.tasks.on_own": late}
