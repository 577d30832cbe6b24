"""Redis lock helpers shared by the task modules.

``acquire_lock`` takes the lock with ``SET key token NX EX ttl`` in one
command, so a crashed worker can never hold it for longer than ``ttl``.
``release_lock`` deletes the key only if it still holds *our* token (Lua
compare-and-delete), so a worker whose lock already expired cannot delete
the lock another worker has taken since.
"""
import uuid
from contextlib import contextmanager
from typing import Iterator, Optional

import redis
from django.conf import settings

redis_client = redis.Redis.from_url(settings.REDIS_URL)

DEFAULT_LOCK_TTL = 60  # seconds; keep it well above the task's p99 runtime

RELEASE_LOCK_LUA = """
if redis.call("get", KEYS[1]) == ARGV[1] then
    return redis.call("del", KEYS[1])
else
    return 0
end
"""

_release_script = redis_client.register_script(RELEASE_LOCK_LUA)


class LockNotAcquired(Exception):
    """Another worker holds the lock."""


def acquire_lock(key: str, ttl: int = DEFAULT_LOCK_TTL) -> Optional[str]:
    """Return the lock token if we got the lock, ``None`` otherwise."""
    token = uuid.uuid4().hex
    if redis_client.set(key, token, nx=True, ex=ttl):
        return token
    return None


def release_lock(key: str, token: str) -> bool:
    """Release the lock only if ``token`` still owns it."""
    return bool(_release_script(keys=[key], args=[token]))


@contextmanager
def redis_lock(key: str, ttl: int = DEFAULT_LOCK_TTL) -> Iterator[str]:
    """``with redis_lock("lock:thing"):`` - raises LockNotAcquired if held."""
    token = acquire_lock(key, ttl)
    if token is None:
        raise LockNotAcquired(key)
    try:
        yield token
    finally:
        release_lock(key, token)
