from celery import shared_task

from partner import sessions

from partner.client import KeyedApi, PartnerApi
from partner.sessions import (
    AuditedSession,
    CompatSession,
    Inventory,
    KeyedSession,
    LegacySession,
    TypedSession,
    payments,
    session,
)


@shared_task
def push_order(order_id):
    PartnerApi().create_order(order_id)


@shared_task
def reserve_stock(sku):
    Inventory().reserve(sku)


@shared_task
def check_stock(sku):
    Inventory().level(sku)


@shared_task
def notify_partner(order_id):
    session.post("https://partner.example/notices", json={"order": order_id})  # expect: IDM002


@shared_task
def notify_with_key(order_id):
    KeyedSession().post("https://partner.example/notices", f"notice-{order_id}", json={"order": order_id})


@shared_task
def refund_order(order_id):
    PartnerApi().call("/refunds", json={"order": order_id})


@shared_task
def refund_with_key(order_id):
    PartnerApi().call(
        "/refunds", json={"order": order_id}, headers={"Idempotency-Key": f"refund-{order_id}"}
    )


@shared_task
def refund_with_options(order_id, options):
    PartnerApi().call("/refunds", json={"order": order_id}, **options)


@shared_task
def audit_order(order_id):
    AuditedSession().post("https://partner.example/audits", json={"order": order_id})


@shared_task
def audit_with_key(order_id):
    AuditedSession().post(
        "https://partner.example/audits",
        json={"order": order_id},
        headers={"Idempotency-Key": f"audit-{order_id}"},
    )


@shared_task
def through_library_bases(order_id):
    TypedSession().post("https://partner.example/typed", json={"order": order_id})  # expect: IDM002
    CompatSession().post("https://partner.example/compat", json={"order": order_id})  # expect: IDM002
    LegacySession().post("https://partner.example/legacy", json={"order": order_id})


@shared_task
def keyed_through_wrappers(order_id):
    api = KeyedApi()
    api.with_headers("/orders", f"order-{order_id}", json={"order": order_id})
    api.with_setdefault("/orders", f"order-{order_id}", json={"order": order_id})
    api.with_update("/orders", f"order-{order_id}", json={"order": order_id})
    api.with_helper("/orders", f"order-{order_id}", json={"order": order_id})
    headers = {"Idempotency-Key": f"order-{order_id}"}
    api.with_own_headers("/orders", json={"order": order_id}, headers=headers)


@shared_task
def keyed_through_local_options(order_id):
    options = {"json": {"order": order_id}}
    options["headers"] = {"Idempotency-Key": f"order-{order_id}"}
    session.post("https://partner.example/orders", **options)


@shared_task
def pay_through_a_subclass_instance(amount):
    payments.payment_intents.create(params={"amount": amount})  # expect: IDM002


@shared_task
def pay_through_the_module(amount):
    sessions.payments.payment_intents.create(params={"amount": amount})  # expect: IDM002


@shared_task
def refund_through_a_member_the_subclass_defines(amount):
    sessions.books.refunds.create(amount=amount)
