"""Whole-project analysis: tasks followed into the project's other modules."""

from __future__ import annotations

import pathlib

from expectations import expectations

from idemlint import lint_paths, lint_source
from idemlint.findings import Related

PROJECT = pathlib.Path(__file__).parent / "projects" / "shop"



def test_findings_in_other_modules_are_reported_where_they_are() -> None:
    result = lint_paths([str(PROJECT)])
    assert result.problems == ()
    assert sorted((f.path, f.line, f.code) for f in result.findings) == expectations(PROJECT)


def test_a_finding_names_the_task_and_the_call_that_leads_there() -> None:
    result = lint_paths([str(PROJECT)])
    (capture,) = [f for f in result.findings if f.path.endswith("billing.py")]
    assert (capture.task, capture.tasks) == ("charge_order", ("shop.tasks.charge_order",))
    assert capture.message.endswith(" (called from task `shop.tasks.charge_order`)")
    # `capture_payment` is `shop.billing.capture` re-exported by the package.
    assert capture.related == (
        Related(str(PROJECT / "shop" / "tasks.py"), 17, 5, "task `shop.tasks.charge_order` calls `capture_payment()`"),
    )


def test_project_mode_reports_only_the_named_files() -> None:
    billing = PROJECT / "shop" / "billing.py"
    result = lint_paths([str(billing)], project=str(PROJECT))
    assert [(pathlib.Path(f.path).name, f.line) for f in result.findings] == [("billing.py", 7)]


def test_without_the_project_a_helper_module_alone_reports_nothing() -> None:
    billing = PROJECT / "shop" / "billing.py"
    assert lint_paths([str(billing)]).findings == ()
    # flake8 sees one file at a time, as lint_source does.
    assert lint_source(billing.read_bytes(), str(billing)).findings == ()


def test_the_tasks_module_alone_reports_nothing_it_cannot_see() -> None:
    tasks = PROJECT / "shop" / "tasks.py"
    assert lint_source(tasks.read_bytes(), str(tasks)).findings == ()


def test_a_task_decorator_wrapped_in_another_module_is_recognised() -> None:
    result = lint_paths([str(PROJECT)])
    assert any(f.task == "notify_partner" for f in result.findings)
    # flake8 sees tasks.py alone and cannot know what `background` wraps.
    tasks = PROJECT / "shop" / "tasks.py"
    assert all(f.task != "notify_partner" for f in lint_source(tasks.read_bytes(), str(tasks)).findings)


SHARED_SETTINGS = pathlib.Path(__file__).parent / "projects" / "shared_settings"


def test_settings_and_constants_shared_across_modules_are_read_where_they_are_written() -> None:
    result = lint_paths([str(SHARED_SETTINGS)])
    assert result.problems == ()
    assert sorted((f.path, f.line, f.code) for f in result.findings) == expectations(SHARED_SETTINGS)


def test_a_shared_configuration_alone_cannot_show_the_pools_that_copy_it() -> None:
    base = SHARED_SETTINGS / "worker" / "configs" / "base.py"
    result = lint_source(base.read_text(), str(base))
    assert [(f.line, f.code) for f in result.findings] == [(2, "IDM009")]
