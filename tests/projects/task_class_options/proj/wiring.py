from proj.bases import DefaultTask
from proj.celery import app

app.Task = DefaultTask
