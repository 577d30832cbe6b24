import functools

from celery import shared_task

retrying_task = shared_task(bind=True, acks_late=True, autoretry_for=(IOError,))  # expect: IDM009
memoised = functools.lru_cache(maxsize=16)
