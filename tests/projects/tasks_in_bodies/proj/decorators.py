import functools

import requests

from proj.celery_app import app


def instrumented(name, **options):
    """The project's own task decorator: its inside is no task of its own."""

    def wrapped(func):
        @functools.wraps(func)
        def _wrapped(*args, **kwargs):
            return func(*args, **kwargs)

        return app.task(name=name, **options)(_wrapped)

    return wrapped


def register(func):
    return app.task(func)


def logged(func):
    @functools.wraps(func)
    def inner(*args):
        requests.post("https://logs.example/", json={"args": list(args)})
        return func(*args)

    return inner


@instrumented("proj.sync")
def sync(order_id):
    requests.post("https://partner.example/sync", json={"order": order_id})  # expect: IDM002
