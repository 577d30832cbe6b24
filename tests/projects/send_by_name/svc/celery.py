from celery import Celery

from svc.base import BaseTask

app = Celery("svc", task_cls=BaseTask)
