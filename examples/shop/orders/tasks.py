"""Order lifecycle tasks: charging, stock reservation, cart cleanup, reports.

Every task here can run more than once for the same order: the broker
delivers at least once (acks_late, Redis visibility timeout, retries,
manual replays from Flower). Read each task with "what if it runs twice?"
in mind. Tasks marked BUG are deliberately wrong; see examples/README.md.
"""
import uuid
from datetime import timedelta

from celery import shared_task
from django.db import transaction
from django.db.models import Count, F, Sum
from django.utils import timezone

from orders.models import DailySalesReport, Order, Payment, Product
from payments.gateway import GatewayTimeout, payment_gateway
from shop.locks import RELEASE_LOCK_LUA, redis_client, release_lock

STALE_CART_AGE = timedelta(hours=48)
STALE_CARTS_LOCK_KEY = "lock:expire-stale-carts"


@shared_task(autoretry_for=(GatewayTimeout,), retry_backoff=True, max_retries=5)
def charge_order(order_id):
    """Charge a placed card order through the legacy gateway."""
    order = Order.objects.get(pk=order_id)
    # BUG (IDM002): no idempotency key. A GatewayTimeout is often raised
    # *after* the gateway accepted the charge; autoretry_for then runs the
    # task again and the customer is charged a second time. Same on any
    # redelivery after a worker crash. Fix: idempotency_key=str(order.idempotency_key).
    result = payment_gateway.charge(
        amount=order.total,
        currency=order.currency,
        card_token=order.card_token,
    )
    Payment.objects.create(
        order=order,
        provider="gateway",
        amount=order.total,
        currency=order.currency,
        status="succeeded",
        external_id=result.id,
    )
    order.status = "paid"
    order.save(update_fields=["status", "updated_at"])


@shared_task
def charge_preorder(order_id):
    """Charge a pre-order once the product is released."""
    order = Order.objects.get(pk=order_id, is_preorder=True)
    # BUG (IDM003): the order is marked paid *before* the charge. If the
    # worker dies between save() and charge(), or the card is declined, the
    # order says "paid": the warehouse ships it and the dunning job skips it,
    # and nobody is ever charged. Fix: write "processing" here and "paid"
    # only after the charge returns.
    order.status = "paid"
    order.save(update_fields=["status", "updated_at"])
    result = payment_gateway.charge(
        amount=order.total,
        currency=order.currency,
        card_token=order.card_token,
        idempotency_key=f"charge-preorder-{order.pk}",
    )
    Payment.objects.create(
        order=order,
        provider="gateway",
        amount=order.total,
        currency=order.currency,
        status="succeeded",
        external_id=result.id,
    )


@shared_task(bind=True, max_retries=10)
def reserve_stock(self, order_id):
    """Decrement stock for every line of a freshly placed order."""
    lock_key = f"lock:reserve-stock:{order_id}"
    token = str(uuid.uuid4())
    # BUG (IDM004): NX without EX. If the worker is killed while holding the
    # lock, the key never expires and every later reserve_stock for this
    # order retries until it gives up. Fix: nx=True, ex=60.
    if not redis_client.set(lock_key, token, nx=True):
        raise self.retry(countdown=5)
    try:
        order = Order.objects.get(pk=order_id)
        if order.stock_reserved:
            return
        with transaction.atomic():
            for line in order.lines.all():
                Product.objects.filter(pk=line.product_id).update(stock=F("stock") - line.quantity)
            order.stock_reserved = True
            order.save(update_fields=["stock_reserved", "updated_at"])
    finally:
        release_lock(lock_key, token)


@shared_task
def expire_stale_carts():
    """Periodic (every 15 min): mark carts untouched for 48 hours as abandoned."""
    token = str(uuid.uuid4())
    # BUG (IDM004): SETNX cannot set an expiry, and the EXPIRE on the next
    # line is a separate command: a crash (or deploy) between the two leaves
    # a lock that never expires, and cart cleanup silently stops for good.
    # Fix: redis_client.set(STALE_CARTS_LOCK_KEY, token, nx=True, ex=600).
    if not redis_client.setnx(STALE_CARTS_LOCK_KEY, token):
        return 0
    redis_client.expire(STALE_CARTS_LOCK_KEY, 600)
    try:
        cutoff = timezone.now() - STALE_CART_AGE
        return Order.objects.filter(status="cart", updated_at__lt=cutoff).update(status="abandoned")
    finally:
        release_lock(STALE_CARTS_LOCK_KEY, token)


@shared_task(autoretry_for=(GatewayTimeout,), retry_backoff=True, max_retries=5)
def collect_invoice_payment(order_id):
    """Charge a B2B invoice order on its due date.

    CORRECT: Order.idempotency_key was generated once, when the order row was
    inserted at checkout, and is persisted before any charge is attempted.
    Every run of this task (retry, redelivery, manual replay) reads the same
    key, so the gateway returns the first charge instead of making a second.
    """
    order = Order.objects.get(pk=order_id)
    result = payment_gateway.charge(
        amount=order.total,
        currency=order.currency,
        customer_ref=order.customer_email,
        idempotency_key=str(order.idempotency_key),
    )
    Payment.objects.update_or_create(
        order=order,
        provider="gateway",
        kind="order",
        defaults={
            "amount": order.total,
            "currency": order.currency,
            "status": "succeeded",
            "external_id": result.id,
        },
    )
    order.status = "paid"
    order.save(update_fields=["status", "updated_at"])


@shared_task(time_limit=45)
def rebuild_daily_sales_report(day):
    """Recompute the sales report for ``day`` (ISO date string).

    CORRECT: the lock key depends only on the argument; the random uuid4 is
    the lock *token* (the value), so only the holder can release it. The
    lock expires after 60 s, above the 45 s time limit, and is released with
    a Lua compare-and-delete. The work itself is an upsert, safe to repeat.
    """
    lock_key = f"lock:sales-report:{day}"
    token = uuid.uuid4().hex
    if not redis_client.set(lock_key, token, nx=True, ex=60):
        return "already-running"
    try:
        totals = Order.objects.filter(
            status__in=["paid", "shipped"], created_at__date=day
        ).aggregate(order_count=Count("id"), revenue=Sum("total"))
        DailySalesReport.objects.update_or_create(
            day=day,
            defaults={
                "order_count": totals["order_count"] or 0,
                "revenue": totals["revenue"] or 0,
            },
        )
        return "rebuilt"
    finally:
        redis_client.eval(RELEASE_LOCK_LUA, 1, lock_key, token)
