"""Project lock helpers: context managers that hold a Redis lock while
their caller's block runs, and one helper that takes and lets go of its
lock around its own work."""

import contextlib

import redis
from redis.asyncio import Redis
from redis.asyncio.lock import Lock


class Locker:
    def __init__(self, client: Redis) -> None:
        self.client = client

    @contextlib.asynccontextmanager
    async def lock(self, name: str, *, timeout: float, blocking_timeout: float):
        lock = Lock(self.client, f"lock:{name}", timeout=timeout, blocking=True, blocking_timeout=blocking_timeout)  # expect: IDM006
        if not await lock.acquire():
            raise TimeoutError(name)
        try:
            yield lock
        finally:
            await lock.release()


sync_client = redis.Redis()


@contextlib.contextmanager
def held(name, ttl):
    with sync_client.lock(f"lock:{name}", timeout=ttl, blocking_timeout=1):  # expect: IDM006
        yield


def bump_counter(name, ttl):
    """Takes the lock around its own short update only."""
    with sync_client.lock(f"lock:counter:{name}", timeout=ttl):
        sync_client.incr(f"counter:{name}")


@contextlib.contextmanager
def job_lock(job_id):
    """A context manager built on another: the lock is held for its caller's block."""
    with held(f"job:{job_id}", 60):
        yield


@contextlib.contextmanager
def prepared(name, ttl):
    """Takes its lock for its own preparation and lets it go before it yields."""
    with sync_client.lock(f"lock:prepare:{name}", timeout=ttl):
        sync_client.incr(f"prepared:{name}")
    yield


@contextlib.contextmanager
def prepared_by_hand(name, ttl):
    lock = sync_client.lock(f"lock:prepare-by-hand:{name}", timeout=ttl)
    lock.acquire()
    sync_client.incr(f"prepared:{name}")
    lock.release()
    yield
