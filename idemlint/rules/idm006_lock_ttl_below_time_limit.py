"""IDM006 lock-ttl-below-time-limit."""

from __future__ import annotations

from typing import Iterator

from idemlint import catalog
from idemlint.semantic.trace import call_label, source_text
from idemlint.lock_scope import (
    handed_to_other_code, lock_variable, released_where_taken, renewed, taken_per_item, ttl_argument,
    work_claimed_apart,
)
from idemlint.limits import Values, seconds_text, time_limit
from idemlint.facts import TaskFacts
from idemlint.rules.base import TaskRule, Violation, where


class LockTtlBelowTimeLimit(TaskRule):
    code = "IDM006"
    name = "lock-ttl-below-time-limit"
    summary = "A lock's expiry is shorter than the task's own time limit"
    what = (
        "Compares the expiry of a distributed lock taken in a task (redis "
        "`set(..., nx=True, ex=/px=)`, `redis.lock(name, timeout=)`, "
        "`redis_lock.Lock(..., expire=)`, Django `cache.add(k, v, timeout)`) with "
        "the task's own explicit run-time limit: Celery `time_limit` / "
        "`soft_time_limit` (seconds, the larger of the two; decorator, "
        "`app.task(func, ...)` registration or class attribute of a `Task` "
        "subclass), Dramatiq `time_limit` (milliseconds), RQ `@job(timeout=)`, "
        "arq `func(..., timeout=)` and taskiq `timeout` (seconds). The TTL must be "
        "statically known: a literal, a module constant (also one imported from "
        "another project module), a local or helper parameter with one visible "
        "value, a class attribute, simple arithmetic, a `timedelta`, or an "
        "environment variable's default (`int(os.environ.get(K) or 300)`, "
        "`os.getenv(K, \"300\")`: what a deployment that sets nothing runs, "
        "said as \"by default\"). Locks renewed while held (`auto_renewal=True`, "
        "`lock.extend()`/`reacquire()`, an `expire` of the same key) are not "
        "reported, nor are locks the task's limit says nothing about: one a "
        "helper takes and lets go again (its `with` block, a `release()` "
        "there; a context manager that yields while it holds the lock holds "
        "it for the `with` that enters it, the task's own or a helper's), one taken in a loop (a key per item), a lock object handed "
        "to other code as an argument (a progress callback may renew it), "
        "a set-if-absent lock whose token goes to a task it enqueues, and a "
        "lock whose every side effect and enqueue after it is claimed on its "
        "own (a SET NX per item): a lapsed lock lets a second run in, not a "
        "second copy of any effect."
    )
    why = (
        "A lock exists so that a second delivery of the same work waits or "
        "gives up while the first one runs. A task is allowed to run until its "
        "time limit; a lock that expires earlier is gone while the task is still "
        "legitimately working. A redelivery (expired visibility timeout, a retry, "
        "a manual replay) then takes the free lock and both executions run the "
        "side effects at the same time, exactly what the lock was meant to "
        "prevent. The owner's final release may even delete the second worker's lock."
    )
    fix = (
        "Give the lock a TTL comfortably above the task's hard time limit, "
        "derived from it so the two cannot drift apart, or renew it while the "
        "work runs (`redis_lock.Lock(..., auto_renewal=True)`, `lock.extend()`)."
    )
    example = '''\
@shared_task(time_limit=600)
def rebuild_report(report_id):
    if not redis_client.set(f"lock:report:{report_id}", token, nx=True, ex=60):
        return
    build_report(report_id)
'''
    use_instead = '''\
REPORT_TIME_LIMIT = 600

@shared_task(time_limit=REPORT_TIME_LIMIT)
def rebuild_report(report_id):
    lock_ttl = REPORT_TIME_LIMIT + 60
    if not redis_client.set(f"lock:report:{report_id}", token, nx=True, ex=lock_ttl):
        return
    build_report(report_id)
'''
    limits = (
        "Only the task's own limit is used: worker-wide defaults (Celery's "
        "`task_time_limit`, Dramatiq's 10 minutes, RQ's 180 s), per-call limits "
        "(`apply_async(time_limit=)`, `enqueue(job_timeout=)`) and limits "
        "inherited from a `base=` class are not assumed. A TTL read from "
        "settings, computed by a call or passed through `**kwargs` is unknown "
        "and not reported. A lock the task itself holds only around a short "
        "part of a long task is still compared with the whole task's limit."
    )

    def check(self, facts: TaskFacts) -> Iterator[Violation]:
        trace, knowledge = facts.trace, facts.knowledge
        task_scope = next((e.scope for e in trace.events if e.scope.is_task), None)
        if task_scope is None:
            return
        values = Values.of_trace(trace, knowledge.constants, knowledge.calls)
        limit = time_limit(trace.task, values, task_scope.resolver)
        if limit is None:
            return
        calls = list(trace.calls())
        for event in calls:
            api = knowledge.lock_api(event)
            call = event.call
            if api is None or api.never_expires or call is None:
                continue
            ttl = ttl_argument(call, api)
            if ttl is None or renewed(event, call, api, calls, lock_variable(event, trace)):
                continue
            if (
                released_where_taken(event, trace)
                or taken_per_item(event)
                or handed_to_other_code(event, trace, knowledge)
                or work_claimed_apart(event, facts)
            ):
                continue
            expression, keyword = ttl
            duration = values.evaluate(expression, event.scope, event.scope.resolver)
            if duration is None:
                continue
            unit = 1.0 if duration.timedelta else catalog.LOCK_TTL_SECONDS_PER_UNIT.get(keyword)
            if unit is None:
                continue
            seconds = duration.value * unit
            if seconds <= 0 or seconds >= limit.seconds:
                continue
            yield Violation(
                call,
                f"`{call_label(call)}` in {where(event, trace.task.name)} takes a lock "
                f"that expires after {seconds_text(seconds)}{' by default' if duration.default else ''} "
                f"(`{keyword}={source_text(expression, 40)}`), "
                f"shorter than {limit.describe()}; the lock can expire while the task "
                "still runs, and a redelivery then takes it and both executions run at once",
                event=event,
            )
