import httpx
from celery import shared_task

from notify.clients import chat, hooks, partner
from notify.slack import slack

ALERTS = "https://slack.com/api"


@shared_task
async def post_report(channel: str) -> None:
    await slack.post_message(token="t", channel=channel, text="weekly report")


@shared_task
async def list_channels() -> None:
    await slack.list_channels(token="t")


@shared_task
def announce(text: str) -> None:
    chat.post("chat.postMessage", json={"channel": "#general", "text": text})  # expect: IDM013


@shared_task
async def alert(text: str) -> None:
    async with httpx.AsyncClient(base_url=ALERTS) as client:
        await client.post("/chat.postMessage", json={"channel": "#alerts", "text": text})  # expect: IDM013


@shared_task
def create_order(order_id: int) -> None:
    # Two base URLs: the request's service is one of two, an unknown API either way.
    partner.post("/orders", json={"order": order_id})  # expect: IDM002


@shared_task
def relay(text: str) -> None:
    # A base URL the code does not spell out.
    hooks.post("/chat.postMessage", json={"text": text})  # expect: IDM002


@shared_task
def token_check() -> None:
    chat.post("/auth.test")
