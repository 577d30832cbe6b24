from celery import Celery, Task

app = Celery("proj")


class Base(Task):
    abstract = True
