import requests

from proj.celery_app import app


def push(order_id):
    requests.post("https://partner.example/push", json={"order": order_id})  # expect: IDM002


class AsyncView:
    def __init_subclass__(cls):
        def execute(self, order_id):
            view = cls()
            requests.post("https://partner.example/orders", json={"order": order_id})  # expect: IDM002
            return view

        cls.execute = app.task(bind=True, name=cls.__name__ + ".execute")(execute)
        cls.push = app.task(name=cls.__name__ + ".push")(push)


def make_export_task():
    @app.task(name="proj.export")
    def export(order_id):
        requests.post("https://partner.example/export", json={"order": order_id})  # expect: IDM002

    return export
