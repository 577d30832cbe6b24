from .celery import project_task, task
