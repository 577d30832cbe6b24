"""Lookups that return instances (idemlint.semantic.values): a call given
a project class whose result is used as an instance of it, the
implementations of a zope interface, and a model class looked up in
Django's app registry by its app's label and its name.

tests/projects/lookups/ runs through the CLI with ``# expect:`` on each
send; every task that reaches one through a lookup is named on it, and the
twins are not.  Also: a member the class does not define stays unknown,
the answer does not depend on file order or jobs, and a cached analysis
follows an implementation added in another file.
"""

from __future__ import annotations

import json
import pathlib

import pytest

from conftest import RunCli
from expectations import assert_independent_of_order_and_jobs, expectations, reported
from test_subtasks import codes, write

from idemlint import lint_paths
from idemlint.cache import DIRECTORY_NAME, Cache
from idemlint.settings import DEFAULT_SETTINGS

PROJECT = pathlib.Path(__file__).parent / "projects" / "lookups"
APP_REGISTRY = pathlib.Path(__file__).parent / "projects" / "app_registry"
LOOKING_UP = {
    "chained", "through_a_local", "through_a_walrus", "through_a_module_alias", "from_an_untyped_registry",
}


def test_each_lookup_reaches_the_class_it_was_given(run_cli: RunCli) -> None:
    status, out, err = run_cli("check", "--no-cache", str(PROJECT))
    assert (status, err) == (1, "")
    assert reported(out) == expectations(PROJECT)
    findings = {pathlib.Path(f.path).name: f for f in lint_paths([str(PROJECT)]).findings}
    assert {task.rpartition(".")[2] for task in findings["services.py"].tasks} == LOOKING_UP
    assert findings["notifiers.py"].tasks == ("desk.tasks.from_the_project_container",)


def test_a_member_the_interface_does_not_declare_is_unresolved(run_cli: RunCli) -> None:
    status, out, err = run_cli("tasks", "--format", "json", str(PROJECT))
    assert (status, err) == (0, "")
    rows = {row["name"].rpartition(".")[2]: row for row in json.loads(out)}
    assert [site["call"] for site in rows["a_member_the_interface_does_not_define"]["unresolved"]] == [
        "current_request().find_service(IMailer).describe(...)",
    ]
    # Each implementation of the interface is followed: the mailer and the logger alike.
    assert all(rows[name]["calls"]["unresolved"] == 0 for name in LOOKING_UP | {"an_implementation_that_only_logs"})


def test_the_answer_does_not_depend_on_the_order_of_the_files_nor_on_jobs(tmp_path: pathlib.Path) -> None:
    assert_independent_of_order_and_jobs(PROJECT, tmp_path)


def test_a_model_looked_up_in_the_app_registry_is_the_app_s_class(run_cli: RunCli) -> None:
    status, out, err = run_cli("check", "--no-cache", str(APP_REGISTRY))
    assert (status, err) == (1, "")
    assert reported(out) == expectations(APP_REGISTRY)
    status, out, err = run_cli("tasks", "--format", "json", str(APP_REGISTRY))
    rows = {row["name"].rpartition(".")[2]: row for row in json.loads(out)}
    found = {"by_label_and_name", "by_a_dotted_name", "by_keywords_and_a_custom_label", "by_a_constant_label"}
    for name in found:
        assert rows[name]["calls"] == {"followed": 1, "enqueued": 0, "library": 3, "cut": 0, "unresolved": 0}, name
    manager = rows["through_the_manager_the_model_sets"]["calls"]
    assert manager == {"followed": 1, "enqueued": 0, "library": 2, "cut": 0, "unresolved": 0}
    found.add("through_the_manager_the_model_sets")
    # ``"orders.Order"``, ``Optional["billing.Invoice"]``, ``Union["renamed.Ticket", None]``:
    # three helpers, each model's method, each send.
    annotated = rows["through_string_annotations"]["calls"]
    assert annotated == {"followed": 6, "enqueued": 0, "library": 3, "cut": 0, "unresolved": 0}
    found.add("through_string_annotations")
    # Unknown, never guessed: each twin's query and the method on its row stay unresolved.
    twins = {
        "from_a_label_two_apps_have": 'apps.get_model("notes", "Note").objects.get(pk=note_id).post()',
        "by_the_package_name_of_a_relabelled_app": 'apps.get_model("custom", "Ticket").objects.get(pk=ticket_id).open()',
        "by_a_name_not_spelled_out": 'apps.get_model("orders", model_name).objects.get(pk=order_id).notify()',
        "by_a_name_no_class_can_have": 'apps.get_model("orders", "order-item").objects.get(pk=order_id).notify()',
    }
    assert [site["call"] for site in rows["through_a_label_no_app_has"]["unresolved"]] == ["order.notify()"]
    assert set(rows) == found | set(twins) | {"through_a_label_no_app_has"}
    for name, call in twins.items():
        query = call[: call.index("(pk=")] + "(...)"
        assert [site["call"] for site in rows[name]["unresolved"]] == [query, call], name


def test_the_app_registry_answer_does_not_depend_on_file_order_nor_jobs(tmp_path: pathlib.Path) -> None:
    assert_independent_of_order_and_jobs(APP_REGISTRY, tmp_path)


SERVICE = {
    "desk/__init__.py": "",
    "desk/interfaces.py": """
        from zope.interface import Interface

        class IPoster(Interface):
            def post(payload):
                "Post it."
    """,
    "desk/tasks.py": """
        from celery import shared_task
        from pyramid.request import Request
        from desk.interfaces import IPoster

        @shared_task
        def publish(request: Request, payload):
            request.find_service(IPoster).post(payload)
    """,
}
POSTER = """
    import requests
    from zope.interface import implementer
    from desk.interfaces import IPoster

    @implementer(IPoster)
    class HttpPoster:
        def post(self, payload):
            requests.post("https://hooks.example/publish", json=payload)
"""


def test_an_implementation_added_in_another_file_renews_the_cached_caller(tmp_path: pathlib.Path) -> None:
    write(tmp_path, SERVICE)
    cache_dir = str(tmp_path / DIRECTORY_NAME)
    project = [str(tmp_path / "desk")]
    assert codes(project, Cache(cache_dir, DEFAULT_SETTINGS)) == []
    write(tmp_path, {"desk/posters.py": POSTER})
    assert codes(project, Cache(cache_dir, DEFAULT_SETTINGS)) == [("posters.py", 9, "IDM002")]
    write(tmp_path, {"desk/posters.py": POSTER.replace("@implementer(IPoster)", "")})
    assert codes(project, Cache(cache_dir, DEFAULT_SETTINGS)) == []


REGISTRY = {
    "shop/__init__.py": "",
    "shop/orders/__init__.py": "",
    "shop/orders/models.py": """
        from django.core.mail import send_mail
        from django.db import models

        class Order(models.Model):
            def notify(self):
                send_mail("Shipped", "On its way", None, ["a@example.com"])
    """,
    "shop/tasks.py": """
        from celery import shared_task
        from django.apps import apps

        @shared_task
        def ship(order_id):
            apps.get_model("orders", "Order").objects.get(pk=order_id).notify()
    """,
}


def test_an_app_added_with_the_same_label_renews_the_cached_lookup(tmp_path: pathlib.Path) -> None:
    write(tmp_path, REGISTRY)
    cache_dir = str(tmp_path / DIRECTORY_NAME)
    project = [str(tmp_path / "shop")]
    assert codes(project, Cache(cache_dir, DEFAULT_SETTINGS)) == [("models.py", 7, "IDM013")]
    # Another package's ``orders`` app: the label is two apps', so unknown.
    write(tmp_path, {"shop/legacy/__init__.py": "", "shop/legacy/orders/__init__.py": "",
                     "shop/legacy/orders/models.py": "class Order:\n    pass\n"})
    assert codes(project, Cache(cache_dir, DEFAULT_SETTINGS)) == []


APPS_MODULE = """
    from django.apps import AppConfig

    LABEL = "orders"

    class OrdersConfig(AppConfig):
        label = {label}
"""


@pytest.mark.parametrize(
    "label, found",
    [
        ('"orders"', True),
        ('"sales"', False),
        # A label set in a way the analysis does not read could be any: every lookup is unknown.
        ("LABEL", False),
    ],
)
def test_an_app_config_s_label_decides_and_an_unread_one_is_unknown(
    tmp_path: pathlib.Path, label: str, found: bool
) -> None:
    write(tmp_path, {**REGISTRY, "shop/orders/apps.py": APPS_MODULE.format(label=label)})
    expected = [("models.py", 7, "IDM013")] if found else []
    assert codes([str(tmp_path / "shop")], Cache(str(tmp_path / DIRECTORY_NAME), DEFAULT_SETTINGS)) == expected


def test_an_app_relabelled_renews_the_cached_lookup(tmp_path: pathlib.Path) -> None:
    write(tmp_path, REGISTRY)
    cache_dir = str(tmp_path / DIRECTORY_NAME)
    project = [str(tmp_path / "shop")]
    assert codes(project, Cache(cache_dir, DEFAULT_SETTINGS)) == [("models.py", 7, "IDM013")]
    write(tmp_path, {"shop/orders/apps.py": APPS_MODULE.format(label='"sales"')})
    assert codes(project, Cache(cache_dir, DEFAULT_SETTINGS)) == []
    write(tmp_path, {"shop/orders/apps.py": APPS_MODULE.format(label='"orders"')})
    assert codes(project, Cache(cache_dir, DEFAULT_SETTINGS)) == [("models.py", 7, "IDM013")]


NAMED = {
    "desk/__init__.py": "",
    "desk/tasks.py": """
        from celery import shared_task

        @shared_task
        def publish(request, payload):
            request.find_service(name="desk.poster").post(payload)
    """,
}
NAMED_POSTER = """
    import requests

    class HttpPoster:
        def post(self, payload):
            requests.post("https://hooks.example/publish", json=payload)

    def includeme(config):
        config.register_service(HttpPoster(), name="desk.poster")
"""


def test_a_registration_by_name_added_in_another_file_renews_the_cached_caller(tmp_path: pathlib.Path) -> None:
    write(tmp_path, NAMED)
    cache_dir = str(tmp_path / DIRECTORY_NAME)
    project = [str(tmp_path / "desk")]
    assert codes(project, Cache(cache_dir, DEFAULT_SETTINGS)) == []
    write(tmp_path, {"desk/posters.py": NAMED_POSTER})
    assert codes(project, Cache(cache_dir, DEFAULT_SETTINGS)) == [("posters.py", 6, "IDM002")]
    write(tmp_path, {"desk/posters.py": NAMED_POSTER.replace('name="desk.poster"', 'name="desk.other"')})
    assert codes(project, Cache(cache_dir, DEFAULT_SETTINGS)) == []
