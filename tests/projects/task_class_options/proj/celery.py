from celery import Celery

app = Celery("proj")
other = Celery("other", task_cls="proj.bases:SafeTask")
