"""IDM005's fix: the release made a compare-and-delete of the lock's own token."""

import uuid

import redis
import redis.asyncio
from celery import shared_task

r = redis.Redis()
aio = redis.asyncio.Redis()


@shared_task
def rebuild_report(report_id):
    lock_key = f"lock:report:{report_id}"
    token = uuid.uuid4().hex
    if not r.set(lock_key, token, nx=True, ex=300):
        return
    try:
        build(report_id)
    finally:
        if r.get(lock_key) == token.encode():
            r.eval('if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end', 1, lock_key, token)


@shared_task
async def refresh(feed_id):
    key = f"lock:feed:{feed_id}"
    holder = str(uuid.uuid4())
    if await aio.set(key, holder, nx=True, ex=60):
        build(feed_id)
        await aio.eval('if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end', 1, key, holder)


# No fix: "1" is every holder's value, so checking it proves nothing.
@shared_task
def shared_marker(report_id):
    key = f"lock:marker:{report_id}"
    if r.set(key, "1", nx=True, ex=300):
        build(report_id)
        r.delete(key)


# No fix: the lock was taken through another client.
other = redis.Redis(db=1)


@shared_task
def two_clients(report_id):
    key = f"lock:two:{report_id}"
    token = uuid.uuid4().hex
    if other.set(key, token, nx=True, ex=300):
        build(report_id)
        r.delete(key)


# No fix in a helper: the token is not in its scope.
def release(key):
    r.delete(key)


@shared_task
def through_a_helper(report_id):
    key = f"lock:helper:{report_id}"
    token = uuid.uuid4().hex
    if r.set(key, token, nx=True, ex=300):
        build(report_id)
        release(key)


def build(x):
    return x


# No fix: a token made from the arguments is what another worker on the same work stores.
@shared_task
def argument_token(report_id):
    key = f"lock:arg:{report_id}"
    token = str(report_id)
    if r.set(key, token, nx=True, ex=300):
        build(report_id)
        r.delete(key)


# No fix: the token is read back before the release, so comparing it proves nothing.
@shared_task
def token_read_back(report_id):
    key = f"lock:back:{report_id}"
    token = uuid.uuid4().hex
    if r.set(key, token, nx=True, ex=300):
        build(report_id)
        token = r.get(key)
        r.delete(key)
