import dramatiq
from celery import shared_task
from redis.asyncio import Redis

from render.locker import Locker, bump_counter, held, job_lock, prepared, prepared_by_hand

RENDER_LOCK_TTL = 120
locker = Locker(Redis())


@dramatiq.actor(time_limit=180_000)
async def render_receipt(order_id) -> None:
    async with locker.lock(f"receipt:{order_id}", timeout=RENDER_LOCK_TTL, blocking_timeout=1):
        await upload(order_id)


@dramatiq.actor(time_limit=100_000)
async def render_invoice(order_id) -> None:
    # The lock outlives the task's own limit: safe.
    async with locker.lock(f"invoice:{order_id}", timeout=RENDER_LOCK_TTL, blocking_timeout=1):
        await upload(order_id)


@shared_task(time_limit=900)
def rebuild(report_id):
    with held(f"report:{report_id}", 300):
        build(report_id)


@shared_task(time_limit=900)
def count(report_id):
    bump_counter(report_id, 30)
    build(report_id)


async def upload(order_id):
    pass


def build(report_id):
    pass


@dramatiq.actor(time_limit=180_000)
async def render_statement(order_id) -> None:
    # A helper enters the lock around its own part of the work.
    await render_locked(order_id)
    await upload(order_id)


async def render_locked(order_id):
    async with locker.lock(f"statement:{order_id}", timeout=RENDER_LOCK_TTL, blocking_timeout=1):
        await upload(order_id)


@shared_task(time_limit=900)
def run_job(job_id):
    with job_lock(job_id):
        build(job_id)


@shared_task(time_limit=900)
def prepare(report_id):
    with prepared(report_id, 30):
        build(report_id)
    with prepared_by_hand(report_id, 30):
        build(report_id)
