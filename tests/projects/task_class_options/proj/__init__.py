from .bases import NotATask, RetryingTask, SafeTask
from .celery import app
