"""Module-level clients, made once, each with its base URL."""

import os

import httpx

if os.environ.get("SLACK_ENTERPRISE"):
    chat = httpx.Client(base_url="https://slack.com/api/")
else:
    chat = httpx.Client(base_url="https://slack.com/api")

if os.environ.get("PARTNER_SANDBOX"):
    partner = httpx.Client(base_url="https://sandbox.partner.example/v1")
else:
    partner = httpx.Client(base_url="https://partner.example/v1")

hooks = httpx.Client(base_url=os.environ["HOOKS_URL"])
