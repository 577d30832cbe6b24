from celery import shared_task

from partner.client import PartnerClient

client = PartnerClient("https://partner.example.com")


@shared_task
def sync_listing(sku, listing):
    client.authenticate("id", "secret")
    client.replace_listing(sku, listing)


@shared_task
def withdraw_listing(sku):
    client.authenticate("id", "secret")
    client.withdraw_listing(sku)


@shared_task
def place_order(payload):
    client.authenticate("id", "secret")
    client.create_order(payload)


@shared_task
def rotate_credentials():
    client.revoke_tokens()


@shared_task
def forward_event(event_pk, payload):
    client.notify(event_pk, payload)
