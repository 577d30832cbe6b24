"""Factories of SDK clients."""

import os

from slack_sdk import WebClient
from slack_sdk.webhook import WebhookClient


def slack():
    client = WebClient(token=os.environ["SLACK_TOKEN"])
    return client


def slack_or_hook(hook):
    if hook:
        return WebhookClient(hook)
    return WebClient(token=os.environ["SLACK_TOKEN"])
