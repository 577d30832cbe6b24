"""The project's own wrappers around Celery's enqueue."""

from shop.celery import app


def later(task, *args):
    task.delay(*args)  # expect: IDM013


def later_by_name(name, *args):
    app.send_task(name, args=args)  # expect: IDM013
