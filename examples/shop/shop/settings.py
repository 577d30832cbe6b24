"""Django settings for the shop project (trimmed to what the demo needs)."""
import os
from pathlib import Path

from celery.schedules import crontab

BASE_DIR = Path(__file__).resolve().parent.parent

SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "dev-only-not-secret")
DEBUG = os.environ.get("DJANGO_DEBUG", "0") == "1"
ALLOWED_HOSTS = os.environ.get("DJANGO_ALLOWED_HOSTS", "localhost").split(",")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "orders",
    "payments",
    "notifications",
]

ROOT_URLCONF = "shop.urls"
WSGI_APPLICATION = "shop.wsgi.application"

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": os.environ.get("POSTGRES_DB", "shop"),
        "USER": os.environ.get("POSTGRES_USER", "shop"),
        "PASSWORD": os.environ.get("POSTGRES_PASSWORD", ""),
        "HOST": os.environ.get("POSTGRES_HOST", "localhost"),
        "PORT": os.environ.get("POSTGRES_PORT", "5432"),
    }
}

TIME_ZONE = "Europe/Madrid"
USE_TZ = True

REDIS_URL = os.environ.get("REDIS_URL", "redis://localhost:6379/0")

# --- Payments -------------------------------------------------------------
STRIPE_SECRET_KEY = os.environ.get("STRIPE_SECRET_KEY", "")
PAYMENT_GATEWAY_URL = os.environ.get("PAYMENT_GATEWAY_URL", "https://api.gateway.example/v2")
PAYMENT_GATEWAY_API_KEY = os.environ.get("PAYMENT_GATEWAY_API_KEY", "")

# --- Fulfilment partner -----------------------------------------------------
PARTNER_WEBHOOK_URL = os.environ.get("PARTNER_WEBHOOK_URL", "https://partner.example/hooks/shop")
PARTNER_API_TOKEN = os.environ.get("PARTNER_API_TOKEN", "")

# --- Celery ---------------------------------------------------------------
CELERY_BROKER_URL = REDIS_URL
CELERY_RESULT_BACKEND = REDIS_URL
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = TIME_ZONE
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600}
# BUG (IDM009): late acks are enabled, but the companion "reject on worker
# lost" setting is not. When the OOM killer or a deploy SIGKILLs a worker
# process mid-task, Celery still acks the message, so the task is lost
# instead of redelivered.
CELERY_TASK_ACKS_LATE = True

CELERY_BEAT_SCHEDULE = {
    "expire-stale-carts": {
        "task": "orders.tasks.expire_stale_carts",
        "schedule": crontab(minute="*/15"),
    },
}
