"""IDM004's fix: the lock taken with an expiry of the task's own time limit."""

import redis
import redis_lock
from celery import shared_task
from django.core.cache import cache

r = redis.Redis()


@shared_task(time_limit=600, soft_time_limit=550)
def sync_account(account_id):
    if not r.set(f"lock:sync:{account_id}", "1", nx=True, ex=600):
        return
    r.set(f"lock:b:{account_id}", "1", nx=True, ex=600)
    with r.lock(f"lock:c:{account_id}", timeout=600):
        pass
    redis_lock.Lock(r, f"lock:d:{account_id}", expire=600).acquire()
    cache.add(f"lock:e:{account_id}", 1, timeout=600)
    r.set(f"lock:f:{account_id}", "1", 600, nx=True)


# No fix: without a time limit, no expiry is known to be long enough.
@shared_task
def no_limit(account_id):
    r.setnx(f"lock:sync:{account_id}", "1")


# No fix: the splatted options may hold an expiry already.
@shared_task(time_limit=600)
def splatted(account_id, **options):
    r.set(f"lock:x:{account_id}", "1", nx=True, **options)
