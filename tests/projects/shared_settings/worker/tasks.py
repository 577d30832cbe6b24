import redis
from celery import shared_task

from worker.crawl import crawl
from worker.limits import CRAWL_LOCK_TTL, JOB_TIMEOUT

r = redis.Redis()


@shared_task(soft_time_limit=JOB_TIMEOUT)
def crawl_source(source_id):
    lock = r.lock(f"crawl:{source_id}", timeout=CRAWL_LOCK_TTL)  # expect: IDM006
    if not lock.acquire(blocking=False):
        return
    try:
        crawl(source_id)
    finally:
        lock.release()
