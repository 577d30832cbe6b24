"""IDM004 lock-without-ttl."""

from __future__ import annotations

import math
from typing import Iterator, Optional

import libcst as cst

from idemlint import catalog
from idemlint.analysis import Event, Trace, call_label
from idemlint.effects import Knowledge, is_none
from idemlint.fixes import UNSAFE
from idemlint.limits import Limit, Values, time_limit
from idemlint.names import argument
from idemlint.rules.base import NodeEdit, SuggestedFix, TaskRule, Violation, where
from idemlint.statements import truth_tested


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

    def check(self, trace: Trace, knowledge: Knowledge) -> Iterator[Violation]:
        limit: Optional[Limit] = None
        for event in trace.calls():
            api = knowledge.lock_api(event)
            if api is None or not isinstance(event.node, cst.Call):
                continue
            if knowledge.lock_has_ttl(event.node, api):
                continue
            if limit is None:
                limit = _task_limit(trace, knowledge)
            yield Violation(
                event.node,
                f"`{call_label(event.node)}` in {where(event, trace.task.name)} takes "
                f"a lock ({api.label}) without expiry; if the worker dies holding it, "
                "the lock is never released and every retry is blocked",
                event=event,
                fix=_expiry_fix(event, event.node, api, limit) if limit is not None else None,
            )


def _task_limit(trace: Trace, knowledge: Knowledge) -> Optional[Limit]:
    scope = next((e.scope for e in trace.events if e.scope.is_task), None)
    if scope is None:
        return None
    return time_limit(trace.task, Values.of_trace(trace, knowledge.constants, knowledge.calls), scope.resolver)


def _expiry_fix(event: Event, call: cst.Call, api: catalog.LockApi, limit: Limit) -> Optional[SuggestedFix]:
    """The lock taken with an expiry of the task's time limit, where the
    call can say it (no splat; a place for the expiry the API has; in the
    task's own body, since a helper may serve tasks with other limits)."""
    if not event.scope.is_task or any(arg.star for arg in call.args) or not call.args:
        return None
    if any(arg.keyword is not None and arg.keyword.value == "keepttl" for arg in call.args):
        return None  # Redis refuses an expiry beside KEEPTTL
    last = call.args[-1].value
    if getattr(last, "lpar", None):  # ``nx=(True)``: text after it would go inside the brackets
        return None
    if api.never_expires:  # ``setnx(k, v)``: SET NX with the expiry
        if not isinstance(call.func, cst.Attribute) or len(call.args) != 2 or call.args[1].keyword is not None:
            return None
        # SET NX answers None, not False, when the key exists: only a truth test reads both alike.
        if not (event.discarded or truth_tested(event.scope.function, call)):
            return None
        edits = (
            NodeEdit(call.func.attr, "set"),
            NodeEdit(last, f", nx=True, ex={_amount(limit, 'ex')}", "after"),
        )
        return SuggestedFix(f"Take the lock with `SET NX EX {_amount(limit, 'ex')}`", UNSAFE, edits)
    if not api.ttl_keywords:
        return None
    keyword = api.ttl_keywords[0]
    given = next(
        (arg for arg in call.args if arg.keyword is not None and arg.keyword.value in api.ttl_keywords), None
    )
    explicit = given.value if given is not None else None
    if given is not None and given.keyword is not None:
        keyword = given.keyword.value  # ``px=None`` takes milliseconds
    if keyword in catalog.ABSOLUTE_LOCK_TTL_KEYWORDS:
        return None  # a point in time, not a duration
    amount = _amount(limit, keyword)
    if explicit is None and api.ttl_position is not None:
        positional = argument(call, api.ttl_position, None)
        explicit = positional if positional is not None and is_none(positional) else None
    if explicit is not None:
        edit = NodeEdit(explicit, str(amount))
    else:
        edit = NodeEdit(last, f", {keyword}={amount}", "after")
    return SuggestedFix(f"Give the lock an expiry of {limit.describe()}", UNSAFE, (edit,))


def _amount(limit: Limit, keyword: str) -> int:
    """The limit in the unit of the API's expiry keyword, rounded up."""
    unit = catalog.LOCK_TTL_SECONDS_PER_UNIT.get(keyword, 1.0)
    return math.ceil(limit.seconds / unit)
