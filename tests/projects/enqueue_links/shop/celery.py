from celery import Celery

app = Celery("shop")
