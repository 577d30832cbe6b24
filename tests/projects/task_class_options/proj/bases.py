from celery import Task


class LateTask(Task):
    acks_late = True  # expect: IDM009
    time_limit = 60


class RetryingTask(LateTask):
    autoretry_for = (IOError,)
    max_retries = 5


class SafeTask(Task):
    acks_late = True
    reject_on_worker_lost = True


class DefaultTask(Task):
    soft_time_limit = 30
    default_retry_delay = 10


class NotATask:
    max_retries = 99
    time_limit = 1
