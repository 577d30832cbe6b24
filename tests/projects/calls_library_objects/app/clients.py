"""Factories of SDK clients."""

import importlib
import os

from django.conf import settings
from jira import JIRA
from slack_sdk import WebClient
from slack_sdk.webhook import WebhookClient


def slack():
    client = WebClient(token=os.environ["SLACK_TOKEN"])
    return client


def slack_or_hook(hook):
    if hook:
        return WebhookClient(hook)
    return WebClient(token=os.environ["SLACK_TOKEN"])


def connect_to_tracker(server, user, password):
    return JIRA(server=server, basic_auth=(user, password))


def get_connect_method():
    # A setting may name another connector; connect_to_tracker is the default.
    if hasattr(settings, "TRACKER_CONNECT_METHOD"):
        module_name, _, name = settings.TRACKER_CONNECT_METHOD.rpartition(".")
        return getattr(importlib.import_module(module_name), name)
    return connect_to_tracker


def tracker_connection_raw(server, user, password):
    try:
        connect = get_connect_method()
        tracker = connect(server, user, password)
    except ConnectionError:
        raise
    return tracker


def tracker_connection(project):
    if project is None:
        return None
    return tracker_connection_raw(project.url, project.user, project.password)


def either_connect_method(plain):
    if plain:
        return WebClient
    return connect_to_tracker


def either_connection(plain):
    connect = either_connect_method(plain)
    return connect("https://tracker.example", "bot", "secret")
