from .celery import Base, app
