"""IDM012's fix: return when the lock is not taken, where returning ends the task."""

import redis
from celery import shared_task

r = redis.Redis()


@shared_task
def sync_account(account_id):
    r.set(f"lock:sync:{account_id}", "1", nx=True, ex=600)  # take the lock
    do_sync(account_id)


# No fix in a helper: `return` would leave the helper, not the task.
def take(account_id):
    r.set(f"lock:sync:{account_id}", "1", nx=True, ex=600)


@shared_task
def through_a_helper(account_id):
    take(account_id)
    do_sync(account_id)


# No fix for a statement that shares its line.
@shared_task
def on_one_line(account_id):
    x = 1; r.set(f"lock:x:{account_id}", "1", nx=True, ex=600)
    do_sync(account_id)


def do_sync(account_id):
    return account_id
