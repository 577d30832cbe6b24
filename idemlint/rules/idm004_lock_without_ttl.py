"""IDM004 lock-without-ttl."""

from __future__ import annotations

from typing import Iterator, Optional

from idemlint.semantic.trace import Trace, call_label
from idemlint.effects import Knowledge
from idemlint.facts import TaskFacts
from idemlint.limits import Limit, Values, time_limit
from idemlint.rules.base import TaskRule, Violation, where
from idemlint.rules.edits import lock_expiry_fix


class LockWithoutTtl(TaskRule):
    code = "IDM004"
    name = "lock-without-ttl"
    summary = "A distributed lock is taken without an expiry"
    what = (
        "Finds distributed locks taken in a task without an expiry: redis "
        "`set(k, v, nx=True)` without `ex`/`px`/`exat`/`pxat`, `setnx` (a later "
        "`expire` is not atomic with it), `redis.lock(name)` without `timeout`, "
        "`redis_lock.Lock(...)` without `expire`, `cache.add(k, v, timeout=None)`, "
        "and any explicit `ex=None`/`timeout=None`. Process-local locks "
        "(`threading`, `asyncio`, `multiprocessing`, file locks) are not reported."
    )
    why = (
        "Tasks are killed: OOM, deploys, SIGKILL after a time limit. A lock "
        "without expiry taken by a worker that dies is held forever, and every "
        "later delivery of that work waits or gives up until someone deletes "
        "the key by hand."
    )
    fix = (
        "Take the lock and its expiry in one atomic command, with a TTL longer "
        "than the task's time limit: `set(key, token, nx=True, ex=ttl)`, "
        "`redis.lock(name, timeout=ttl)`, `redis_lock.Lock(conn, name, expire=ttl)`."
    )
    example = '''\
@shared_task
def sync_account(account_id):
    if not redis_client.setnx(f"lock:sync:{account_id}", "1"):
        return
    redis_client.expire(f"lock:sync:{account_id}", 300)
    do_sync(account_id)
'''
    use_instead = '''\
@shared_task
def sync_account(account_id):
    token = str(uuid.uuid4())
    if not redis_client.set(f"lock:sync:{account_id}", token, nx=True, ex=300):
        return
    do_sync(account_id)
'''
    limits = (
        "An expiry passed through `**kwargs` is assumed present. `cache.add` "
        "without `timeout` uses the cache's default timeout and is not reported."
    )

    fix_availability = (
        "Sometimes, unsafe (`--fix --unsafe-fixes`), when the task states its own "
        "time limit (`time_limit`/`soft_time_limit`, the larger, as IDM006 reads "
        "them): the expiry added is that limit, rounded up, in the API's unit. "
        "`setnx(k, v)` becomes `set(k, v, nx=True, ex=N)`; `set(k, v, nx=True)` "
        "gets `ex=N`, `lock(name)` and redis-py's `Lock(...)` `timeout=N`, "
        "`redis_lock.Lock(...)` `expire=N`; an explicit `None` expiry becomes "
        "`N`. Unsafe because the lock now expires: check that the work behind it "
        "cannot outlast the limit. Not offered without a time limit, in a helper "
        "(it may serve tasks with other limits), where arguments are splatted, "
        "beside `keepttl`, for an absolute expiry (`exat`, `pxat`), nor for a "
        "`setnx` whose result is compared rather than tested for truth (SET NX "
        "answers `None`, not `False`)."
    )

    def check(self, facts: TaskFacts) -> Iterator[Violation]:
        trace, knowledge = facts.trace, facts.knowledge
        limit: Optional[Limit] = None
        for event in trace.calls():
            api = knowledge.lock_api(event)
            call = event.call
            if api is None or call is None or knowledge.lock_has_ttl(call, api):
                continue
            if limit is None:
                limit = _task_limit(trace, knowledge)
            yield Violation(
                call,
                f"`{call_label(call)}` in {where(event, trace.task.name)} takes "
                f"a lock ({api.label}) without expiry; if the worker dies holding it, "
                "the lock is never released and every retry is blocked",
                event=event,
                fix=lock_expiry_fix(event, call, api, limit) if limit is not None else None,
            )


def _task_limit(trace: Trace, knowledge: Knowledge) -> Optional[Limit]:
    scope = next((e.scope for e in trace.events if e.scope.is_task), None)
    if scope is None:
        return None
    return time_limit(trace.task, Values.of_trace(trace, knowledge.constants, knowledge.calls), scope.resolver)
