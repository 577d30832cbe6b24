"""Lock helpers in their own module, as the tasks' modules import them."""

import redis

r = redis.Redis()


def acquire_lock(lock_id, expire_time=300):
    return r.set(lock_id, "true", nx=True, ex=expire_time)


def release_lock(lock_id):
    r.delete(lock_id)  # expect: IDM005

