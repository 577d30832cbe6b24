"""IDM012 lock-result-ignored."""

from __future__ import annotations

from typing import Iterator

from idemlint.semantic.trace import call_label
from idemlint.facts import TaskFacts
from idemlint.facts.lock_results import IgnoredLockResult
from idemlint.fixes import UNSAFE
from idemlint.rules.base import NodeEdit, SuggestedFix, TaskRule, Violation, where

_CONSEQUENCE = (
    "when another worker holds the lock the acquisition returns a false value, "
    "and the task runs the work anyway, concurrently with that worker"
)


class LockResultIgnored(TaskRule):
    code = "IDM012"
    name = "lock-result-ignored"
    summary = "A lock acquisition's result is discarded"
    what = (
        "Finds lock acquisitions in a task whose result nobody reads: a bare "
        "`r.set(k, token, nx=True, ex=ttl)`, `r.setnx(...)`, `cache.add(...)`, "
        "`cache.set(..., nx=True)`, a non-blocking or time-limited "
        "`lock.acquire(blocking=False)` / `acquire(False)` / "
        "`acquire(blocking_timeout=...)` (also when the lock was built with "
        "`blocking=False` or `blocking_timeout=`), their `await` forms, results "
        "assigned to `_` or to a variable never read, a helper's returned lock "
        "result thrown away by the task that calls it, a `redis.lock(...)` "
        "object created as a statement and never acquired, and a lock held by "
        "`with` whose block only tests whether it was taken (`if not held: "
        "return`), with the work after the block, once the lock is let go. A "
        "result tested in "
        "`if`/`while`, `with r.lock(...)`, a blocking `acquire()` without a "
        "timeout (it returns only once the lock is held) and `threading`/"
        "`asyncio` locks are not reported."
    )
    why = (
        "`SET NX` and `cache.add` do not fail when the key exists: they return "
        "`False`/`None` and the task goes on. Two deliveries of the same task "
        "(a redelivery after a visibility timeout, a retry racing the original) "
        "both pass the \"lock\" and both run the work: the lock exists in Redis "
        "but excludes no one."
    )
    fix = (
        "Test the result and stop (or retry later) when the lock is held "
        "elsewhere: `if not r.set(key, token, nx=True, ex=ttl): return`. For a "
        "lock object, use `with r.lock(key, timeout=ttl):` or a blocking "
        "`acquire()`, or test what a non-blocking `acquire()` returns."
    )
    example = '''\
@shared_task
def export_invoices(account_id):
    redis_client.set(f"lock:export:{account_id}", token(), nx=True, ex=600)
    build_export(account_id)
'''
    use_instead = '''\
@shared_task
def export_invoices(account_id):
    if not redis_client.set(f"lock:export:{account_id}", token(), nx=True, ex=600):
        return "already running"
    build_export(account_id)
'''
    limits = (
        "A result stored in a variable counts as read as soon as the variable "
        "is read anywhere (a log line included). Lock objects stored on "
        "attributes (`self.lock`) or received as parameters without a type "
        "annotation are not followed, so their `acquire(blocking=False)` is not "
        "reported. A set-if-absent that stores data (`cache.add(key, html, "
        "3600)`: the value is neither a literal nor a token, and the key does "
        "not say lock or claim) is taken for a cache fill, not a lock; "
        "`add(...)` counts only on a cache."
    )

    fix_availability = (
        "Sometimes, unsafe (`--fix --unsafe-fixes`): a bare acquisition in the "
        "task's own body, alone on its line, becomes `if not <acquisition>: "
        "return`, so a run that finds the lock taken does nothing. Unsafe because "
        "that run's work is then skipped, not waited for: make sure the holder "
        "does it. Not offered in a helper (`return` would only leave the helper), "
        "for a statement that shares its line, in a loop (where `continue` would "
        "be the answer) or a `try` (a `finally` would still release the lock), "
        "or for the other shapes this rule reports. The task then returns `None` "
        "on that run, not its result."
    )

    def check(self, facts: TaskFacts) -> Iterator[Violation]:
        task = facts.task.name
        for ignored in facts.ignored_lock_results:
            call, event, site = ignored.call, ignored.event, ignored.site
            acquisition = f"`{call_label(call)}` in {where(event, task)}"
            if ignored.kind == "released":
                yield Violation(
                    call,
                    f"{acquisition} is released at the end of its `with` block, which only "
                    "tests whether it was taken; the work after the block runs unlocked, "
                    "and a redelivered copy runs it concurrently",
                    event=event,
                )
            elif ignored.kind == "dropped":
                yield Violation(
                    call,
                    f"{acquisition} creates a lock object and drops it without acquiring "
                    "it; the task runs unlocked and a redelivered copy runs the same work "
                    "concurrently",
                    event=event,
                )
            elif ignored.kind == "lost":
                yield Violation(
                    call,
                    f"{acquisition} {ignored.takes} but {ignored.how}; {_CONSEQUENCE}",
                    event=event,
                    fix=_return_unless_taken(ignored) if ignored.returnable else None,
                )
            elif site is not None:  # lost by a caller
                yield Violation(
                    site.node,
                    f"`{call_label(site.node)}` in {where(site, task)} "  # type: ignore[arg-type]
                    f"{ignored.how}, which is what `{call_label(call)}` in "
                    f"`{event.scope.qualified_name}` returned: whether it took the "
                    f"lock; {_CONSEQUENCE}",
                    event=site,
                )


def _return_unless_taken(ignored: IgnoredLockResult) -> SuggestedFix:
    """``if not <acquisition>: return`` in place of the bare acquisition.
    Unsafe: a run that finds the lock taken now does nothing."""
    call = ignored.call
    edits = (
        NodeEdit(call, "if not ", "before"),
        NodeEdit(call, ":", "after"),
        NodeEdit(call, "return", "next_line_nested"),
    )
    return SuggestedFix(f"Return when `{call_label(call)}` does not take the lock", UNSAFE, edits)
