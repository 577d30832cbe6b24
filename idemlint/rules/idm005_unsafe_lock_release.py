"""IDM005 unsafe-lock-release."""

from __future__ import annotations

from typing import Iterator, Optional

from idemlint.semantic.trace import call_label, source_text
from idemlint.facts import TaskFacts
from idemlint.facts.releases import UnsafeRelease
from idemlint.fixes import UNSAFE
from idemlint.rules.base import NodeEdit, SuggestedFix, TaskRule, Violation, where


class UnsafeLockRelease(TaskRule):
    code = "IDM005"
    name = "unsafe-lock-release"
    summary = "A lock key is deleted without an atomic ownership check"
    what = (
        "Finds `delete`/`unlink`/`getdel` (redis, redis.asyncio, pipelines) and "
        "`cache.delete`/`delete_many`/`adelete` calls in a task that remove a "
        "lock key: a key the same task (or a helper it calls) locks with "
        "`set(..., nx=True)`, `setnx`, `cache.add` or `redis.lock(name)`, matched "
        "by variable or by literal/f-string text, or a key whose text or "
        "variable name says lock. A `get()` comparison with the token before "
        "the delete does not make it safe. python-redis-lock's `reset()` is "
        "reported too. Releases through a Lua compare-and-delete "
        "(`eval`/`evalsha`/`register_script`), redis-py `Lock.release()` or the "
        "end of a `with redis.lock(...)` block are not reported."
    )
    why = (
        "A lock with a TTL can expire while its holder still runs (a slow API, "
        "a GC pause, a redelivered duplicate running in parallel). Another "
        "worker then takes the lock. When the first worker finishes and deletes "
        "the key, it deletes the other worker's lock, and a third worker "
        "acquires it and runs the same work concurrently with the second. "
        "`if r.get(key) == token: r.delete(key)` has the same hole: the lock "
        "can change hands between the two commands."
    )
    fix = (
        "Store a per-holder token as the lock's value and release with one "
        "atomic compare-and-delete: a Lua script (`register_script`/`eval`) "
        "that deletes the key only if it still holds your token, or redis-py's "
        "`Lock` (`with r.lock(key, timeout=ttl):` or `lock.release()`), which "
        "does exactly that."
    )
    example = '''\
@shared_task
def rebuild_report(report_id):
    lock_key = f"lock:report:{report_id}"
    token = uuid.uuid4().hex
    if not redis_client.set(lock_key, token, nx=True, ex=300):
        return
    try:
        build_report(report_id)
    finally:
        if redis_client.get(lock_key) == token.encode():
            redis_client.delete(lock_key)
'''
    use_instead = '''\
RELEASE = redis_client.register_script("""
if redis.call("get", KEYS[1]) == ARGV[1] then
    return redis.call("del", KEYS[1])
end
return 0
""")

@shared_task
def rebuild_report(report_id):
    lock_key = f"lock:report:{report_id}"
    token = uuid.uuid4().hex
    if not redis_client.set(lock_key, token, nx=True, ex=300):
        return
    try:
        build_report(report_id)
    finally:
        RELEASE(keys=[lock_key], args=[token])
'''
    limits = (
        "A key counts as a lock key only when this task locks the same variable "
        "or text, or when its text or name says lock; a lock taken in another "
        "module and released here under a neutral name is not seen. A "
        "compare-and-delete under `WATCH`/`MULTI` on the same pipeline, and a "
        "delete guarded by a `time.monotonic()` deadline check, are accepted, and "
        "so is a delete, on a failure path, of a claim the task never "
        "deletes otherwise (`r.set(k, 1, nx=True)`, then `try: publish() "
        "except: r.delete(k); raise`, or `ok = publish()`, then `if not ok: "
        "r.delete(k)`: a rollback of a dedup claim held until its TTL), and "
        "so is the release of a lock a heartbeat thread keeps alive "
        "(`Thread(target=beat, args=(key,))` where `beat` sets the key again). "
        "Lua scripts are not read: an unconditional `DEL` inside `eval` is not "
        "reported. A set-if-absent that stores data (a cache fill) does not make "
        "its key a lock key. Deletes of files (`os.unlink`) and HTTP `DELETE`s "
        "are not key deletes."
    )

    fix_availability = (
        "Sometimes, unsafe (`--fix --unsafe-fixes`): a `delete(key)`/`unlink(key)` "
        "in the task's own body, through a redis-py client (sync or asyncio, or "
        "django-redis's `get_redis_connection()`), of a key the task locked earlier "
        "in its body with `set(key, token, nx=True, ...)` or `setnx(key, token)` "
        "through the same client, becomes `eval(<compare-and-delete>, 1, key, token)`: "
        "a Lua script that deletes the key only while it still holds the token, as "
        "redis-py's `Lock.release()` does. Unsafe because a release that finds another "
        "holder's token now leaves the key alone (it expires with its TTL). Not offered "
        "when the stored value is a literal, a parameter or made from the arguments "
        "(another worker on the same work would store it too, so checking it proves nothing), in a helper (the token is not in its "
        "scope), through another client or a pipeline, or for the other shapes this "
        "rule reports. The token must be a variable of the task assigned once, from a "
        "random value (`uuid4().hex`) or the task's `request.id`, and the key must not be "
        "assigned again before the release. A `get()` comparison before the delete is left in place."
    )

    def check(self, facts: TaskFacts) -> Iterator[Violation]:
        for release in facts.unsafe_releases:
            call, event = release.call, release.event
            place = f"`{call_label(call)}` in {where(event, facts.task.name)}"
            if release.key is None:
                yield Violation(
                    call,
                    f"{place} force-deletes the lock whoever holds it; if another worker "
                    "holds it now, a third worker can take it and run the same work concurrently",
                    event=event,
                )
                continue
            note = ""
            if release.compared_first:
                note = (
                    " (the `get()` comparison before it is a separate command, "
                    "so the lock can change hands in between)"
                )
            yield Violation(
                call,
                f"{place} deletes the lock key `{source_text(release.key, 60)}` ({release.how}) "
                f"without an atomic ownership check{note}; if the TTL expired and another "
                "worker took the lock, this deletes that worker's lock and a third worker "
                "runs the same work concurrently",
                event=event,
                fix=_compare_and_delete(release),
            )


def _compare_and_delete(release: UnsafeRelease) -> Optional[SuggestedFix]:
    if release.compare_and_delete is None:
        return None
    edit = NodeEdit(release.call, release.compare_and_delete)
    return SuggestedFix("Release with a compare-and-delete of the lock's token", UNSAFE, (edit,))
