"""Celery application for the shop.

All task settings come from Django settings with the ``CELERY_`` prefix
(see ``shop/settings.py``).
"""
import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shop.settings")

app = Celery("shop")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
