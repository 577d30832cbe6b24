from celery import shared_task

from partner.client import PartnerApi
from partner.sessions import AuditedSession, Inventory, KeyedSession, session


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
