"""Call resolution (idemlint.semantic.resolution): which project definition a call runs.

Each resolution form that crosses modules is a fixture project under
tests/projects/calls_*/ run through the CLI, ``# expect: IDMnnn`` on every
finding and safe twins beside them; the unit tests below check the
resolution itself on one module: the method resolution order, ``super()``,
properties and class methods, closures, shadowing and what a helper's
summary is keyed on.
"""

from __future__ import annotations

import pathlib
import shutil
import textwrap
from typing import List, Set, Tuple

import libcst as cst
import pytest

from conftest import RunCli
from expectations import expectations, reported

from idemlint import lint_paths, lint_source
from idemlint.findings import Finding
from idemlint.semantic.trace import TraceBuilder, happens_before
from idemlint.semantic.resolution import Calls, Definition, ProjectClass, annotated_type, fetched_instance, parameters
from idemlint.names import Resolver
from idemlint.project import LoadedModule, Project, load_source
from idemlint.tasks import find_tasks, task_decorators

PROJECTS = pathlib.Path(__file__).parent / "projects"
FORMS = [
    "calls_inherited", "calls_module_instance", "calls_instance_attributes", "calls_factories",
    "calls_closures", "calls_orm", "calls_library_objects", "calls_dispatch", "calls_picked", "calls_library_bases",
    "calls_generic_bases", "calls_walrus", "calls_branch_bindings",
]




@pytest.mark.sweep
@pytest.mark.parametrize("form", FORMS)
def test_each_form_reaches_its_effect_through_the_cli(form: str, run_cli: RunCli) -> None:
    root = PROJECTS / form
    status, out, err = run_cli("check", "--no-cache", str(root))
    assert (status, err) == (1, "")
    assert reported(out) == expectations(root)


def test_an_inherited_method_runs_the_subclass_override() -> None:
    result = lint_paths([str(PROJECTS / "calls_inherited")])
    (deliver,) = [f for f in result.findings if f.path.endswith("clients.py")]
    assert deliver.task == "publish_event"
    # The hop from the inherited method to the override is a related place.
    assert "`BaseClient.publish` calls `self.deliver()`" in [related.note for related in deliver.related]


def _findings_keeping_one_task(tmp_path: pathlib.Path, project: str, module: str, task: str) -> Tuple[Finding, ...]:
    """The findings on a copy of the fixture ``project`` whose tasks
    ``module`` keeps only ``task`` (and what precedes the first task)."""
    root = tmp_path / "project"
    shutil.copytree(PROJECTS / project, root)
    tasks = root / module
    head, *bodies = tasks.read_text("utf-8").split("\n\n\n@shared_task\n")
    kept = [body for body in bodies if body.startswith(f"def {task}(")]
    tasks.write_text("\n\n\n@shared_task\n".join([head, *kept]), "utf-8")
    return tuple(lint_paths([str(root)]).findings)


@pytest.mark.parametrize("task", ["push_order", "push_through_module", "push_through_package"])
def test_a_module_instance_is_reached_from_each_import_form(task: str, tmp_path: pathlib.Path) -> None:
    (finding,) = _findings_keeping_one_task(tmp_path, "calls_module_instance", "shop/tasks.py", task)
    assert (pathlib.Path(finding.path).name, finding.task) == ("api.py", task)


GENERIC_BASE_FORMS = [
    "record_directly", "record_through_factory", "record_through_local", "record_through_self_type",
    "record_through_fluent_method", "record_through_typed_helper", "record_through_optional_helper",
    "record_through_union_helper", "record_through_new_style_helper", "record_from_a_subclass_elsewhere",
]
WALRUS_FORMS = [
    ("alert_from_table", "senders.py"), ("alert_through_instance", "clients.py"),
    ("page_through_factory", "clients.py"), ("page_through_annotated_factory", "clients.py"),
    ("page_in_a_loop", "clients.py"),
]


@pytest.mark.parametrize("task", GENERIC_BASE_FORMS)
def test_a_generic_base_method_is_reached_through_each_factory_form(task: str, tmp_path: pathlib.Path) -> None:
    (finding,) = _findings_keeping_one_task(tmp_path, "calls_generic_bases", "ledger/tasks.py", task)
    assert (pathlib.Path(finding.path).name, finding.task, finding.code) == ("base.py", task, "IDM002")


@pytest.mark.parametrize("task, effect_in", WALRUS_FORMS)
def test_a_value_bound_by_a_walrus_is_what_the_name_holds(task: str, effect_in: str, tmp_path: pathlib.Path) -> None:
    (finding,) = _findings_keeping_one_task(tmp_path, "calls_walrus", "alerts/tasks.py", task)
    assert (pathlib.Path(finding.path).name, finding.task, finding.code) == (effect_in, task, "IDM002")


def test_a_keyed_function_bound_by_a_walrus_is_safe(tmp_path: pathlib.Path) -> None:
    assert not _findings_keeping_one_task(tmp_path, "calls_walrus", "alerts/tasks.py", "alert_from_keyed_table")


BRANCH_FORMS = [
    "alert_first_branch", "alert_last_branch", "alert_chained", "alert_attempted", "alert_unless",
    "alert_through_the_module", "alert_local",
]


@pytest.mark.parametrize("task", BRANCH_FORMS)
def test_a_receiver_bound_on_branches_runs_either_method(task: str, tmp_path: pathlib.Path) -> None:
    (finding,) = _findings_keeping_one_task(tmp_path, "calls_branch_bindings", "notify/tasks.py", task)
    assert (pathlib.Path(finding.path).name, finding.task, finding.code) == ("clients.py", task, "IDM002")


@pytest.mark.parametrize("task", ["alert_keyed", "alert_rebound", "alert_each_given"])
def test_a_receiver_bound_on_branches_to_safe_senders_is_safe(task: str, tmp_path: pathlib.Path) -> None:
    assert not _findings_keeping_one_task(tmp_path, "calls_branch_bindings", "notify/tasks.py", task)


class _SwappedBranches(cst.CSTTransformer):
    """Every ``if test: A else: B`` (no ``elif``) written ``if not (test): B else: A``."""

    def leave_If(self, original: cst.If, updated: cst.If) -> cst.If:
        if not isinstance(updated.orelse, cst.Else):
            return updated
        test = cst.UnaryOperation(
            cst.Not(), updated.test.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        )
        return updated.with_changes(test=test, body=updated.orelse.body, orelse=cst.Else(body=updated.body))


@pytest.mark.parametrize(
    "project",
    [
        "calls_branch_bindings", "deep_calls", "shared_settings",
        "keys_on_paths", "http_base_url", "locks_around_sends",
    ],
)
def test_findings_do_not_depend_on_the_order_of_if_branches(project: str, tmp_path: pathlib.Path) -> None:
    """The same project with every ``if``/``else`` swapped: the same effects
    reported, for the same tasks."""
    swapped = tmp_path / "swapped"
    shutil.copytree(PROJECTS / project, swapped)
    changed = 0
    for path in swapped.rglob("*.py"):
        text = path.read_text("utf-8")
        written = cst.parse_module(text).visit(_SwappedBranches()).code
        changed += written != text
        path.write_text(written, "utf-8")
    assert changed

    def found(root: pathlib.Path) -> Set[Tuple[str, str, str, str]]:
        """Each finding's file, the code on its line (an effect inside a
        swapped ``if`` moves with it), its rule and its task."""
        return {
            (
                pathlib.Path(f.path).relative_to(root).as_posix(),
                pathlib.Path(f.path).read_text("utf-8").splitlines()[f.line - 1].strip(),
                f.code,
                f.task,
            )
            for f in lint_paths([str(root)]).findings
        }

    assert found(swapped) == found(PROJECTS / project)


def test_the_keyed_method_of_a_generic_base_is_safe(tmp_path: pathlib.Path) -> None:
    assert not _findings_keeping_one_task(tmp_path, "calls_generic_bases", "ledger/tasks.py", "record_once")


# -- one module, through the trace builder ------------------------------------


def loaded(source: str, path: str = "tasks.py") -> LoadedModule:
    module = load_source(textwrap.dedent(source), path)
    assert isinstance(module, LoadedModule)
    return module


def walked(source: str) -> List[Set[str]]:
    """For each task of the module, the functions its trace walks."""
    module = loaded(source)
    tasks = find_tasks(module.index, task_decorators(module.index, ()))
    return [
        {event.scope.qualified_name for event in TraceBuilder(module, task).build().events}
        for task in tasks
    ]


def codes(source: str) -> List[Tuple[int, str, str]]:
    return sorted((f.line, f.code, f.task) for f in lint_source(textwrap.dedent(source), "tasks.py").findings)


def test_method_order_is_c3_over_project_classes() -> None:
    module = loaded(
        """
        from django.db import models

        class A(models.Model): pass
        class B(A): pass
        class C(A): pass
        class D(B, C): pass
        """
    )
    owner = ProjectClass(module, "D")
    assert [k.node.name.value for k in Calls(None).method_order(owner)] == ["D", "B", "C", "A"]


def test_bases_that_cannot_be_linearised_fall_back_to_depth_first() -> None:
    module = loaded(
        """
        class X: pass
        class Y: pass
        class A(X, Y): pass
        class B(Y, X): pass
        class Z(A, B): pass
        """
    )
    owner = ProjectClass(module, "Z")
    assert [k.node.name.value for k in Calls(None).method_order(owner)] == ["Z", "A", "X", "Y", "B"]


def test_a_class_that_is_its_own_base_ends() -> None:
    module = loaded("class Loop(Loop):\n    pass\n")
    owner = ProjectClass(module, "Loop")
    assert [k.node.name.value for k in Calls(None).method_order(owner)] == ["Loop"]


def test_super_runs_the_next_class_in_the_order() -> None:
    source = """
        import requests
        from celery import shared_task

        class Base:
            def send(self):
                requests.post("https://a.example", json={})

        class Logged(Base):
            def send(self):
                super().send()

        @shared_task
        def push():
            Logged().send()
        """
    assert walked(source) == [{"push", "Logged.send", "Base.send"}]
    assert [code for _, code, _ in codes(source)] == ["IDM002"]


def test_a_property_returns_the_instance_a_call_runs_on() -> None:
    source = """
        import functools
        import requests
        from celery import shared_task

        class Api:
            def send(self):
                requests.post("https://a.example", json={})

        class Service:
            @functools.cached_property
            def api(self):
                return Api()

            def run(self):
                self.api.send()

        @shared_task
        def push():
            Service().run()
        """
    assert walked(source) == [{"push", "Service.run", "Api.send"}]


def test_a_classmethod_runs_through_its_class_and_a_plain_method_does_not() -> None:
    source = """
        from celery import shared_task

        class Order:
            @classmethod
            def create(cls, number):
                return cls.check(number)

            @classmethod
            def check(cls, number):
                return number

            def save(self):
                return self

        @shared_task
        def make(number):
            Order.create(number)
            Order.save()
        """
    assert walked(source) == [{"make", "Order.create", "Order.check"}]


def test_a_static_method_keeps_its_first_parameter() -> None:
    module = loaded(
        """
        class Util:
            @staticmethod
            def fold(a, b):
                return a

            def bound(self, a):
                return a
        """
    )
    owner = module.index.classes["Util"]
    methods = module.index.methods(owner)
    assert parameters(Definition(methods["fold"], owner, module)) == ("a", "b")
    assert parameters(Definition(methods["bound"], owner, module)) == ("a",)


def test_a_local_or_a_parameter_hides_a_module_level_name() -> None:
    source = """
        import requests
        from celery import shared_task

        class Api:
            def send(self):
                requests.post("https://a.example", json={})

        client = Api()

        def helper():
            return 1

        @shared_task
        def hidden(client, rows):
            client.send()
            helper = rows or None
            helper()

        @shared_task
        def seen():
            client.send()
            helper()
        """
    assert walked(source) == [{"hidden"}, {"seen", "Api.send", "helper"}]


def test_a_closure_sees_the_names_of_the_function_it_is_defined_in() -> None:
    source = """
        import requests
        from celery import shared_task

        class Loud:
            def send(self):
                requests.post("https://a.example", json={})

        class Quiet:
            def send(self):
                return None

        def run_with(client):
            def go():
                client.send()
            go()

        @shared_task
        def quiet():
            run_with(Quiet())

        @shared_task
        def loud():
            run_with(Loud())
        """
    # The closure walked for the quiet task is not replayed for the loud one.
    assert [(code, task) for _, code, task in codes(source)] == [("IDM002", "loud")]


def test_a_closure_calls_a_sibling_and_shadows_a_module_function() -> None:
    source = """
        from celery import shared_task

        def step():
            return 0

        @shared_task
        def outer():
            def step():
                return later()

            def later():
                return 1

            step()
        """
    assert walked(source) == [{"outer", "outer.step", "outer.later"}]


def test_an_inherited_method_is_walked_for_each_class_it_runs_for() -> None:
    source = """
        from celery import shared_task
        from django.core.mail import send_mail

        class Base:
            def publish(self):
                self.deliver()

            def deliver(self):
                return None

        class Quiet(Base):
            pass

        class Loud(Base):
            def deliver(self):
                send_mail("s", "b", None, ["a@example.com"])

        @shared_task
        def quiet():
            Quiet().publish()

        @shared_task
        def loud():
            Loud().publish()
        """
    assert [(code, task) for _, code, task in codes(source)] == [("IDM013", "loud")]


def test_a_factory_that_may_return_something_else_is_not_followed() -> None:
    source = """
        import requests
        from celery import shared_task

        class Api:
            def send(self):
                requests.post("https://a.example", json={})

        def made(flag):
            if flag:
                return Api()
            return make_other()

        @shared_task
        def push(flag):
            made(flag).send()
        """
    assert walked(source) == [{"push", "made"}]


def test_names_that_import_each_other_end() -> None:
    module = loaded(
        """
        from celery import shared_task

        a = b
        b = a

        @shared_task
        def loop():
            a.send()
        """
    )
    (task,) = find_tasks(module.index, task_decorators(module.index, ()))
    trace = TraceBuilder(module, task).build()
    assert {event.scope.qualified_name for event in trace.events} == {"loop"}


def test_a_queryset_call_does_not_parse_the_models_module(tmp_path: pathlib.Path) -> None:
    package = tmp_path / "shop"
    package.mkdir()
    (package / "__init__.py").write_text("", "utf-8")
    (package / "models.py").write_text("class Order:\n    def close(self):\n        pass\n", "utf-8")
    (package / "tasks.py").write_text(
        textwrap.dedent(
            """\
            from celery import shared_task
            from shop.models import Order

            @shared_task
            def close(order_id):
                Order.objects.filter(pk=order_id).update(closed=True)
            """
        ),
        "utf-8",
    )
    project = Project([str(path) for path in sorted(tmp_path.rglob("*.py"))])
    module = project.load("shop.tasks")
    assert module is not None
    (task,) = find_tasks(module.index, task_decorators(module.index, ()))
    TraceBuilder(module, task, project).build()
    assert [name for name, _, digest in project.lookups if digest is not None] == ["shop.tasks"]


@pytest.mark.parametrize(
    "value, expected",
    [
        ("get_object_or_404(Order, pk=1)", "shop.models.Order.objects.get()"),
        ("get_object_or_404(klass=Order, pk=1)", "shop.models.Order.objects.get()"),
        ("get_object_or_404(Order.objects, pk=1)", "shop.models.Order.objects.get()"),
        ("get_object_or_404(Order.objects.filter(a=1), pk=1)", "shop.models.Order.objects.filter().get()"),
        ("get_object_or_404(pk=1)", None),
        ("Order.objects.get(pk=1)", None),
    ],
)
def test_a_shortcut_fetch_is_spelled_as_the_orm_call_it_stands_for(value: str, expected: str) -> None:
    resolver = Resolver(
        {"get_object_or_404": "django.shortcuts.get_object_or_404", "Order": "shop.models.Order"}
    )
    assert fetched_instance(resolver, cst.parse_expression(value)) == expected


def test_a_branch_a_parameter_left_at_its_default_rules_out_does_not_run() -> None:
    source = """
        from celery import shared_task
        from django.core.mail import send_mail

        def report(text, blocking=False, silent=True):
            def send():
                send_mail("Report", text, None, ["ops@example.com"])

            if blocking:
                return send()
            if not silent:
                send_mail("Loud", text, None, ["ops@example.com"])

        @shared_task
        def in_background(text):
            report(text)

        @shared_task
        def right_now(text):
            report(text, blocking=True)

        @shared_task
        def as_told(text, options):
            report(text, **options)
        """
    found = sorted((f.line, f.code, f.tasks) for f in lint_source(textwrap.dedent(source), "tasks.py").findings)
    # in_background leaves blocking at False: it reaches neither send.
    assert found == [(7, "IDM013", ("tasks.as_told", "tasks.right_now")), (12, "IDM013", ("tasks.as_told",))]


def test_a_branch_a_flag_passed_rules_out_does_not_run() -> None:
    source = """
        from celery import shared_task
        from django.core.mail import send_mail

        def close(ticket, notify=True, changed=True):
            ticket.save()
            if notify and changed:
                send_mail("Closed", ticket.title, None, [ticket.owner])
            if notify or changed:
                send_mail("Changed", ticket.title, None, [ticket.owner])

        @shared_task
        def close_quietly(ticket_id):
            close(load(ticket_id), notify=False)

        @shared_task
        def close_unchanged(ticket_id):
            close(load(ticket_id), False, False)

        @shared_task
        def close_and_tell(ticket_id):
            close(load(ticket_id), notify=True, changed=load(ticket_id).dirty)
        """
    found = sorted((f.line, f.code, f.tasks) for f in lint_source(textwrap.dedent(source), "tasks.py").findings)
    # ``notify=False`` rules out the ``and``, both flags off the ``or``; a flag
    # passed as anything but a literal decides nothing.
    assert found == [
        (8, "IDM013", ("tasks.close_and_tell",)),
        (10, "IDM013", ("tasks.close_and_tell", "tasks.close_quietly")),
    ]


@pytest.mark.parametrize("inside_first", [True, False])
def test_a_branch_on_the_open_transaction_is_decided_by_the_trace(inside_first: bool) -> None:
    inside = """
        @shared_task
        def close_inside(address):
            with transaction.atomic():
                after_commit(send_receipt, address)
                unless_atomic(address)
        """
    outside = """
        @shared_task
        def close_outside(address):
            after_commit(send_receipt, address)
        """
    source = """
        from celery import shared_task
        from django.core.mail import send_mail
        from django.db import connection, transaction

        def send_receipt(address):
            send_mail("Receipt", "Thanks", None, [address])

        def after_commit(function, *args):
            if connection.in_atomic_block:
                transaction.on_commit(lambda: function(*args))
            else:
                function(*args)

        def unless_atomic(address):
            if not connection.in_atomic_block:
                send_receipt(address)

        @shared_task
        def close_directly(address):
            with transaction.atomic():
                send_receipt(address)

        @shared_task
        def close_in_another_database(address):
            with transaction.atomic(using="analytics"):
                after_commit(send_receipt, address)
        """ + (inside + outside if inside_first else outside + inside)
    found = sorted((f.line, f.code, f.tasks) for f in lint_source(textwrap.dedent(source), "tasks.py").findings)
    # Inside ``atomic()`` the helper defers the send to the commit (a
    # lambda: not walked) and ``unless_atomic`` sends nothing; outside, it
    # sends at once, and so it does in another database's atomic block,
    # which leaves the default connection's flag False. Whichever task
    # walks the helper first, its summary serves only a call in the same
    # context.
    assert found == [
        (7, "IDM010", ("tasks.close_directly", "tasks.close_in_another_database")),
        (7, "IDM013", ("tasks.close_directly", "tasks.close_in_another_database", "tasks.close_outside")),
    ]


def test_a_flag_the_helper_assigns_is_not_known() -> None:
    source = """
        from celery import shared_task
        from django.core.mail import send_mail

        def deliver(items, done=False):
            for item in items:
                if done:
                    send_mail("Again", item, None, ["ops@example.com"])
                done = True

        @shared_task
        def deliver_all(items):
            deliver(items)
        """
    found = [(f.line, f.code) for f in lint_source(textwrap.dedent(source), "tasks.py").findings]
    # The loop body is walked once, but ``done`` is True from its second round.
    assert found == [(8, "IDM013")]


def test_a_url_constant_another_module_defines_decides_the_post(tmp_path: pathlib.Path) -> None:
    package = tmp_path / "app"
    package.mkdir()
    (package / "__init__.py").write_text("from .settings import BASE\n", "utf-8")
    (package / "settings.py").write_text(
        'import os\nBASE = os.environ["API"]\n', "utf-8"
    )
    (package / "urls.py").write_text(
        "from app import BASE\n"
        'SEARCH_URL = f"{BASE}/orders/_search"\n'
        'TOKEN_URL = BASE + "/oauth/token"\n'
        'CHARGES_URL = f"{BASE}/charges"\n',
        "utf-8",
    )
    (package / "tasks.py").write_text(
        textwrap.dedent(
            """\
            import requests
            from celery import shared_task

            from app.urls import CHARGES_URL, SEARCH_URL, TOKEN_URL


            @shared_task
            def count_orders(query):
                return requests.post(SEARCH_URL, json=query).json()


            @shared_task
            def refresh_token(secret):
                return requests.post(TOKEN_URL, data={"secret": secret}).json()


            @shared_task
            def charge(order_id, SEARCH_URL=CHARGES_URL):
                requests.post(CHARGES_URL, json={"order": order_id})
                requests.post(SEARCH_URL, json={"order": order_id})
            """
        ),
        "utf-8",
    )
    found = [(f.line, f.code, f.task) for f in lint_paths([str(tmp_path)]).findings]
    # The parameter named like the search URL holds the charges URL: unknown, a POST.
    assert found == [(19, "IDM002", "charge"), (20, "IDM002", "charge")]


def test_a_factory_default_a_static_method_and_an_inline_run_name_their_tasks() -> None:
    findings = lint_paths([str(PROJECTS / "calls_dispatch")]).findings
    named = {(pathlib.Path(f.path).name, f.line, f.code): sorted(f.tasks) for f in findings}
    assert named == {
        ("managers.py", 14, "IDM013"): ["alerts.tasks.alert", "alerts.tasks.mail_customer"],
        ("managers.py", 47, "IDM002"): ["alerts.tasks.text_customer"],
        ("managers.py", 76, "IDM002"): ["alerts.tasks.page_customer"],
        ("coordination.py", 9, "IDM002"): ["alerts.tasks.finish_batch"],
        ("tasks.py", 34, "IDM013"): ["alerts.tasks.post_digest", "alerts.tasks.post_to_slack"],
    }


def test_each_candidate_a_table_or_an_alias_picks_names_its_tasks() -> None:
    findings = lint_paths([str(PROJECTS / "calls_picked")]).findings
    named = {(pathlib.Path(f.path).name, f.line, f.code): sorted(f.tasks) for f in findings}
    everywhere = ["notify.tasks.alert", "notify.tasks.alert_by_get", "notify.tasks.module_attribute"]
    assert named == {
        ("channels.py", 8, "IDM013"): everywhere,
        ("channels.py", 12, "IDM002"): everywhere,
        ("channels.py", 16, "IDM002"): ["notify.tasks.alert_if_urgent", "notify.tasks.alert_locally"],
        ("channels.py", 24, "IDM002"): ["notify.tasks.alert_by_get"],  # the default of .get
        ("steps.py", 14, "IDM007"): ["notify.tasks.step"],
        # One side of the alias is a library function: the call stays work.
        ("partial.py", 17, "IDM003"): ["notify.partial.text_receipt"],
    }
    # No name hiding the module's table, nor an alias reassigned after the
    # call, reaches ``page`` (notify/shadows.py).


def test_candidates_exclude_each_other() -> None:
    source = textwrap.dedent(
        """
        import requests
        from celery import shared_task

        def first(order):
            requests.post("https://a.example", json={})

        def second(order):
            requests.post("https://b.example", json={})

        @shared_task
        def run(kind, order):
            {"a": first, "b": second}[kind](order)
        """
    )
    module = load_source(source, "t.py")
    assert isinstance(module, LoadedModule)
    (task,) = find_tasks(module.index, task_decorators(module.index))
    trace = TraceBuilder(module, task).build()
    posts = [e for e in trace.calls() if e.callee == "requests.post"]
    assert [e.scope.qualified_name for e in posts] == ["first", "second"]
    assert not happens_before(posts[0], posts[1]) and not happens_before(posts[1], posts[0])


def test_a_module_a_function_returns_is_followed_only_when_it_is_one_module() -> None:
    findings = lint_paths([str(PROJECTS / "calls_factories")]).findings
    payouts = next(f for f in findings if pathlib.Path(f.path).name == "payouts.py")
    assert payouts.tasks == ("billing.tasks.pay_seller",)


def test_a_string_annotation_nested_past_any_parser_is_no_type() -> None:
    """CPython never compiles a string annotation, so nothing bounds it:
    5,000 nested brackets (which would overflow libcst's native parser)
    name no type, and the module is analysed."""
    deep = "(" * 5000 + "Client" + ")" * 5000
    source = textwrap.dedent(
        f'''\
        import requests
        from celery import shared_task


        class Client:
            def send(self, order_id):
                requests.post("https://example.com", json={{"order": order_id}})


        def deliver(client: "{deep}", order_id):
            client.send(order_id)


        @shared_task
        def notify(order_id):
            deliver(None, order_id)
        '''
    )
    resolver = Resolver({"Optional": "typing.Optional"})
    assert annotated_type(cst.SimpleString(f'"{deep}"'), resolver) is None
    named = annotated_type(cst.SimpleString('"Optional[Client]"'), resolver)
    assert isinstance(named, cst.Name) and named.value == "Client"
    assert lint_source(source, "tasks.py").findings == ()
