from .celery import app
