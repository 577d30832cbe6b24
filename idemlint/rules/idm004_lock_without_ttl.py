"""IDM004 lock-without-ttl."""

from __future__ import annotations

from typing import Iterator

import libcst as cst

from idemlint.analysis import Trace, call_label
from idemlint.effects import Knowledge
from idemlint.rules.base import TaskRule, Violation, where


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

    def check(self, trace: Trace, knowledge: Knowledge) -> Iterator[Violation]:
        for event in trace.calls():
            api = knowledge.lock_api(event)
            if api is None or not isinstance(event.node, cst.Call):
                continue
            if knowledge.lock_has_ttl(event.node, api):
                continue
            yield Violation(
                event.node,
                f"`{call_label(event.node)}` in {where(event, trace.task.name)} takes "
                f"a lock ({api.label}) without expiry; if the worker dies holding it, "
                "the lock is never released and every retry is blocked",
                event=event,
            )
