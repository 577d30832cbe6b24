"""IDM009 acks-late-without-reject-on-worker-lost.

The one rule that reads configuration rather than task bodies: it reports
what :mod:`idemlint.frameworks.celery_acks` finds, each late-acks setting
whose place does not turn ``reject_on_worker_lost`` on.
"""

from __future__ import annotations

from typing import Iterator, Optional

from idemlint.facts import ModuleFacts
from idemlint.fixes import UNSAFE
from idemlint.frameworks.celery_acks import OFF, TASK_ACKS, UNSET, LateAcks
from idemlint.rules.base import ModuleRule, NodeEdit, SuggestedFix, Violation
from idemlint.rules.edits import Layout, ends_its_line, in_brackets, line_repeated


class AcksLateWithoutRejectOnWorkerLost(ModuleRule):
    code = "IDM009"
    name = "acks-late-without-reject-on-worker-lost"
    summary = "Late acks are enabled without rejecting tasks whose worker process is lost"
    what = (
        "Finds Celery's `task_acks_late=True` / `acks_late=True` set without "
        "`task_reject_on_worker_lost=True` / `reject_on_worker_lost=True` in the same "
        "place: module-level settings (`celeryconfig.py`, Django `CELERY_TASK_ACKS_LATE`, "
        "old-style `CELERY_ACKS_LATE`), `app.conf.x = ...`, `app.conf.update(...)` and "
        "`Celery(...)` keyword arguments are one place per module (or per function "
        "body, for an app factory); a task decorator or `app.task(f, ...)` call and a "
        "`Task` subclass body are places of their own, which inherit the reject "
        "setting from the module's app-wide configuration (a class from its base "
        "classes first, in any project module; a task from its `Task` class first: "
        "`base=`, `app.Task = X`, `Celery(task_cls=X)`) when they do not set it "
        "themselves. Late acks a class sets are reported once, on the class "
        "attribute, not once per task that inherits them. An explicit "
        "`reject_on_worker_lost=False` is a finding."
    )
    why = (
        "Late acks are turned on so that a task interrupted by a crash runs again. "
        "But when the prefork pool's child process running it is killed (the OOM "
        "killer, a SIGKILL, the hard time limit), Celery records a WorkerLostError "
        "and acks the message anyway unless `reject_on_worker_lost` is on: the task "
        "is silently lost instead of redelivered, on exactly the failure late acks "
        "were meant to cover. (Turn it on only once the task is idempotent: a "
        "redelivered task runs a second time.)"
    )
    fix = (
        "Set `task_reject_on_worker_lost=True` next to `task_acks_late=True` "
        "(`CELERY_TASK_REJECT_ON_WORKER_LOST = True` in Django settings), or "
        "`reject_on_worker_lost=True` in the same task decorator or `Task` class."
    )
    example = '''\
# settings.py (Django, app.config_from_object("django.conf:settings", namespace="CELERY"))
CELERY_TASK_ACKS_LATE = True

# tasks.py
@shared_task(acks_late=True)
def capture_payment(payment_id):
    ...
'''
    use_instead = '''\
# settings.py
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True

# tasks.py
@shared_task(acks_late=True, reject_on_worker_lost=True)
def capture_payment(payment_id):
    ...
'''
    limits = (
        "A task that is run again anyway is not reported: one Celery runs on a "
        "schedule (an entry of a beat schedule, `beat_schedule` or "
        "`CELERY_BEAT_SCHEDULE`, also built of project constants, naming the task "
        "as beat does: its `name=`, else the dotted path of the module that "
        "defines it; an `add_periodic_task(schedule, task)` or `task.s(...)` call, "
        "also a framework directive of that name; a periodic decorator; not "
        "`run_every=` on a plain task, which Celery 4 ignores), and one a "
        "scheduled sweeper takes up: the sweeper loops (a `for`, also over the ids "
        "it collects, or a comprehension such as `group(task.s(r.id) for r in rows)`) "
        "over rows it selects by a "
        "state (`filter(status=X)`, `filter_by(cached=False)`, "
        "`where(Model.sent_at.is_(None))`) and in that loop enqueues the task "
        "again, or marks the work done itself (a done state, or the flag it "
        "selects unset now set) on rows of the model the task fetches; the task "
        "must fetch its row by the same state or test the field against it on "
        "entry, and never move it to a state of work in progress. Only the "
        "sweeper's and the task's own bodies are read, not their helpers. A "
        "setting is dropped only when every task it covers is run again: a "
        "decorator covers its task, and a decorator bound once at module level "
        "(`retrying = shared_task(...)`) the functions of that module it "
        "decorates, when the module uses the name for nothing else (tasks in "
        "other modules that import it are not counted); an app-wide or class "
        "setting is always reported. A configuration that runs its tasks in the worker process itself "
        "(`worker_pool = \"threads\"`, `\"solo\"`, `\"gevent\"` or `\"eventlet\"` "
        "in the same place) has no child process to lose and is not reported, "
        "nor is a shared configuration module whose setting every worker "
        "configuration copying it (`task_acks_late = base.task_acks_late`) runs "
        "so (in a whole-project run; a pool given on the command line, "
        "`celery worker -P threads`, is not seen). Otherwise only what one "
        "module shows is read: settings loaded through "
        "`config_from_object`, a star import, environment variables or another "
        "module are not assumed, so `@shared_task(acks_late=True)` in a tasks module "
        "is reported even when the project's settings turn reject on globally (add "
        "`reject_on_worker_lost=True` to the decorator, or `# noqa: IDM009`). Only a "
        "literal `True` counts as turning late acks on (`acks_late=settings.X` is not "
        "reported); a reject setting whose value cannot be read, or a `**options` / "
        "`update(variable)` that could hold it, is assumed to turn it on. Conditions "
        "are not evaluated: a reject setting in any module-level `if`/`try` block "
        "counts. Several apps configured in one module share one configuration. "
        "A settings dict is read only where it is passed to `app.conf.update(...)` "
        "or `Celery(changes=...)` in the same module. Django namespaces other than "
        "`CELERY` are not recognised. For the old `CELERY_ACKS_LATE` the message "
        "suggests `CELERY_REJECT_ON_WORKER_LOST` (the old name Celery derives); "
        "`CELERY_TASK_REJECT_ON_WORKER_LOST` is accepted too."
    )

    fix_availability = (
        "Sometimes, unsafe (`--fix --unsafe-fixes`): the reject setting is added "
        "beside the late-acks one, in its spelling: `reject_on_worker_lost=True` "
        "after `acks_late=True` (on a line of its own when the arguments are one a "
        "line), `\"task_reject_on_worker_lost\": True` after the dict entry, "
        "`app.conf.task_reject_on_worker_lost = True` on the line after the "
        "assignment (not when the assignment shares its line). Unsafe because a "
        "task whose worker dies is then redelivered and runs again: make sure it "
        "is idempotent. Not offered where a reject setting is turned off: that is "
        "a decision to revisit by hand."
    )

    def check_module(self, facts: ModuleFacts) -> Iterator[Violation]:
        layout = Layout(facts.module)  # read only if a fix asks
        for late in facts.late_acks:
            fixable = late.reject == UNSET and not late.reject_written
            fix = _fix(late, layout) if fixable else None
            yield Violation(late.setting.node, _message(late), fix=fix)


def _fix(late: LateAcks, layout: Layout) -> Optional[SuggestedFix]:
    """The reject setting beside the acks one, in its spelling: a keyword
    after ``acks_late=True``, an entry after ``"acks_late": True``, a line
    after ``task_acks_late = True`` (only when that assignment has its line
    to itself).  Unsafe: a task lost with its worker is then redelivered,
    so it runs again."""
    acks = late.setting
    anchor = acks.anchor
    if anchor is None or in_brackets(anchor):  # ``(True)``: the text would go inside
        return None
    edit: Optional[NodeEdit]
    if acks.form == "keyword" and layout.starts_line(acks.node) and ends_its_line(acks.node):
        edit = NodeEdit(anchor, f"{acks.reject}=True,", "next_line")
    elif acks.form == "keyword":
        edit = NodeEdit(anchor, f", {acks.reject}=True", "after")
    elif acks.form == "key":
        edit = NodeEdit(anchor, f', "{acks.reject}": True', "after")
    else:
        edit = line_repeated(anchor, acks.setting or TASK_ACKS, acks.reject, layout)
    if edit is None:
        return None
    return SuggestedFix(f"Set `{acks.reject}` beside `{acks.setting or TASK_ACKS}`", UNSAFE, (edit,))


def _message(late: LateAcks) -> str:
    acks, state = late.setting, late.reject
    value = "False" if state == OFF else "True"
    suggested = {
        "assign": f"{acks.reject} = {value}",
        "keyword": f"{acks.reject}={value}",
        "key": f'"{acks.reject}": {value}',
    }[acks.form]
    if state == OFF:
        problem = f"with `{suggested}`"
    else:
        problem = f"without `{suggested}`"
    return (
        f"{acks.shown}{late.subject} is set {problem}{late.scope}: a pool child "
        "process killed mid-task (OOM killer, SIGKILL, hard time limit) acks the "
        "message, so the task is lost instead of redelivered; with it on, a message "
        "that kills its worker is redelivered every time, so make the task idempotent "
        "and bounded first"
    )
