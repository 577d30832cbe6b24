from celery import Celery, shared_task

app = Celery("app")

project_task = shared_task
task = app.task
