import requests
from celery import shared_task


@shared_task
def refresh(feed_id):
    requests.post("https://feeds.example/refresh", json={"feed": feed_id})  # expect: IDM002
