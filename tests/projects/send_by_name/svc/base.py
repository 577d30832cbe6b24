from celery import Task


class BaseTask(Task):
    acks_late = True
    reject_on_worker_lost = True
