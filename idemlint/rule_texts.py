"""What the reports say of each rule, readable without the rule registry.

Generated from the rules' metadata by ``python -m idemlint.docs``; do not
edit (a test fails when this file differs from what the registry renders).
A run served from the cache never imports the registry, which imports
libcst: its reports describe codes from here (idemlint.report.meta).
"""

from __future__ import annotations

from typing import Dict, Tuple

# Each code's name, summary, why, fix and use_instead.
RULE_TEXTS: Dict[str, Tuple[str, str, str, str, str]] = {
    'IDM001': (
        'nondeterministic-key',
        'An idempotency, dedup or lock key is derived from a random or time-based value',
        'A key exists so that a second delivery of the same work is recognised. Generated inside the task, it is different on every run: the redelivered task sends a new key, the provider or the lock sees new work, and the deduplication never matches. `hash()` of a string is salted per process, so two workers disagree too.',
        'Derive the key from the task\'s arguments (the unit of work), e.g. `f"charge-order-{order_id}"`, or create it once where the task is enqueued and pass it in. A random value is fine as a lock *token* (the value stored under a deterministic lock key), never as the key.',
        '@shared_task\ndef charge_order(order_id):\n    key = f"charge-order-{order_id}"\n    payment_gateway.charge(order_id=order_id, idempotency_key=key)\n',
    ),
    'IDM002': (
        'missing-idempotency-key',
        'A keyable side effect in a task is called without an idempotency key',
        "Every durable queue delivers at least once: a worker killed after the charge but before the ack, an expired visibility timeout or a retry after partial success runs the task again, and the provider sees a brand-new request. Stripe's and YooKassa's SDKs add a random key per request when you pass none; that protects only the SDK's own network retries, never a redelivered task.",
        'Pass a key derived from the task\'s own arguments (the unit of work), for example `f"charge-order-{order_id}"`, or one created by the caller and passed in. For HTTP, send it as an `Idempotency-Key` header.',
        '@shared_task(acks_late=True)\ndef charge_order(order_id):\n    order = Order.objects.get(id=order_id)\n    stripe.PaymentIntent.create(amount=order.total, currency="eur",\n                                customer=order.customer_id,\n                                idempotency_key=f"charge-order-{order_id}")\n',
    ),
    'IDM003': (
        'marker-before-effect',
        "A 'done' marker is written before the side effect it records",
        'If the worker dies between the marker and the effect, the marker says the work is done while it is not. The redelivered task (or any check on the marker) skips it: the email is never sent, the customer is never charged, the webhook is never handled.',
        'Write a *pending* state first if you need a claim, do the side effect, then write the done marker. For database-only work, put the marker and the work in one `transaction.atomic()` block.',
        '@shared_task\ndef send_receipt(order_id):\n    order = Order.objects.get(id=order_id)\n    send_mail("Your receipt", render_receipt(order), None, [order.email])\n    order.receipt_sent = True\n    order.save(update_fields=["receipt_sent"])\n',
    ),
    'IDM004': (
        'lock-without-ttl',
        'A distributed lock is taken without an expiry',
        'Tasks are killed: OOM, deploys, SIGKILL after a time limit. A lock without expiry taken by a worker that dies is held forever, and every later delivery of that work waits or gives up until someone deletes the key by hand.',
        "Take the lock and its expiry in one atomic command, with a TTL longer than the task's time limit: `set(key, token, nx=True, ex=ttl)`, `redis.lock(name, timeout=ttl)`, `redis_lock.Lock(conn, name, expire=ttl)`.",
        '@shared_task\ndef sync_account(account_id):\n    token = str(uuid.uuid4())\n    if not redis_client.set(f"lock:sync:{account_id}", token, nx=True, ex=300):\n        return\n    do_sync(account_id)\n',
    ),
    'IDM005': (
        'unsafe-lock-release',
        'A lock key is deleted without an atomic ownership check',
        "A lock with a TTL can expire while its holder still runs (a slow API, a GC pause, a redelivered duplicate running in parallel). Another worker then takes the lock. When the first worker finishes and deletes the key, it deletes the other worker's lock, and a third worker acquires it and runs the same work concurrently with the second. `if r.get(key) == token: r.delete(key)` has the same hole: the lock can change hands between the two commands.",
        "Store a per-holder token as the lock's value and release with one atomic compare-and-delete: a Lua script (`register_script`/`eval`) that deletes the key only if it still holds your token, or redis-py's `Lock` (`with r.lock(key, timeout=ttl):` or `lock.release()`), which does exactly that.",
        'RELEASE = redis_client.register_script("""\nif redis.call("get", KEYS[1]) == ARGV[1] then\n    return redis.call("del", KEYS[1])\nend\nreturn 0\n""")\n\n@shared_task\ndef rebuild_report(report_id):\n    lock_key = f"lock:report:{report_id}"\n    token = uuid.uuid4().hex\n    if not redis_client.set(lock_key, token, nx=True, ex=300):\n        return\n    try:\n        build_report(report_id)\n    finally:\n        RELEASE(keys=[lock_key], args=[token])\n',
    ),
    'IDM006': (
        'lock-ttl-below-time-limit',
        "A lock's expiry is shorter than the task's own time limit",
        "A lock exists so that a second delivery of the same work waits or gives up while the first one runs. A task is allowed to run until its time limit; a lock that expires earlier is gone while the task is still legitimately working. A redelivery (expired visibility timeout, a retry, a manual replay) then takes the free lock and both executions run the side effects at the same time, exactly what the lock was meant to prevent. The owner's final release may even delete the second worker's lock.",
        "Give the lock a TTL comfortably above the task's hard time limit, derived from it so the two cannot drift apart, or renew it while the work runs (`redis_lock.Lock(..., auto_renewal=True)`, `lock.extend()`).",
        'REPORT_TIME_LIMIT = 600\n\n@shared_task(time_limit=REPORT_TIME_LIMIT)\ndef rebuild_report(report_id):\n    lock_ttl = REPORT_TIME_LIMIT + 60\n    if not redis_client.set(f"lock:report:{report_id}", token, nx=True, ex=lock_ttl):\n        return\n    build_report(report_id)\n',
    ),
    'IDM007': (
        'check-then-act-race',
        'A done-check guards a side effect, but nothing claims the work atomically',
        'Queues redeliver concurrently too: an expired visibility timeout hands the message to a second worker while the first still runs it, and a duplicate publish starts two copies at once. Both read the state before either writes it, both pass the check, and both send the email or make the charge. The check only protects against a redelivery that starts after the first run finished.',
        'Claim the work atomically before the effect: a conditional `update()` from a pending state (`filter(pk=pk, notified=False, sending=False).update(sending=True)`), `get_or_create` of a dedup row, or `SET NX EX` of a dedup key; or take a lock with a TTL and run the done-check *inside* it. For keyable APIs, passing a deterministic idempotency key lets the provider drop the concurrent duplicate.',
        '@shared_task\ndef send_welcome_email(user_id):\n    claimed = User.objects.filter(\n        pk=user_id, welcome_state="pending"\n    ).update(welcome_state="sending")\n    if not claimed:\n        return\n    user = User.objects.get(pk=user_id)\n    send_mail("Welcome", "...", None, [user.email])\n    User.objects.filter(pk=user_id).update(welcome_state="sent")\n',
    ),
    'IDM008': (
        'retry-changes-arguments',
        'A task retries or re-enqueues itself with changed arguments',
        "A task's arguments name its unit of work, and everything that makes a redelivery harmless is derived from them: the idempotency key sent to the provider, the lock key, the dedup row. A retry with new arguments is a different unit of work: its keys no longer match the ones the first attempt used, so the provider, the lock and the dedup table all see new work. And because the original message can still be redelivered (or the enqueueing attempt itself runs twice), the old and the new unit both run. `self.request.retries` counts attempts without changing the arguments.",
        'Retry with the original arguments (`raise self.retry(exc=exc, countdown=...)`), read the attempt number from `self.request.retries`, and fetch refreshed state (tokens, cursors) inside the task instead of passing it in. Work that must continue with new arguments belongs to a follow-up enqueued once, under a key derived from the original arguments.',
        '@shared_task(bind=True, max_retries=5)\ndef charge_order(self, order_id):\n    try:\n        gateway.charge(order_id, idempotency_key=f"charge-{order_id}")\n    except GatewayTimeout as exc:\n        countdown = 30 * 2 ** self.request.retries\n        raise self.retry(exc=exc, countdown=countdown)\n',
    ),
    'IDM009': (
        'acks-late-without-reject-on-worker-lost',
        'Late acks are enabled without rejecting tasks whose worker process is lost',
        "Late acks are turned on so that a task interrupted by a crash runs again. But when the prefork pool's child process running it is killed (the OOM killer, a SIGKILL, the hard time limit), Celery records a WorkerLostError and acks the message anyway unless `reject_on_worker_lost` is on: the task is silently lost instead of redelivered, on exactly the failure late acks were meant to cover. (Turn it on only once the task is idempotent: a redelivered task runs a second time.)",
        'Set `task_reject_on_worker_lost=True` next to `task_acks_late=True` (`CELERY_TASK_REJECT_ON_WORKER_LOST = True` in Django settings), or `reject_on_worker_lost=True` in the same task decorator or `Task` class.',
        '# settings.py\nCELERY_TASK_ACKS_LATE = True\nCELERY_TASK_REJECT_ON_WORKER_LOST = True\n\n# tasks.py\n@shared_task(acks_late=True, reject_on_worker_lost=True)\ndef capture_payment(payment_id):\n    ...\n',
    ),
    'IDM010': (
        'side-effect-in-transaction',
        'A side effect runs inside a database transaction',
        'A rollback undoes the rows, not the charge, the email or the webhook. When the transaction rolls back after the call (a later query fails, a constraint fires at commit, the worker is killed before the commit), the outside world has seen the effect while the database has no record of it, and the redelivered task does it again. Meanwhile the database connection, and any row locks taken with `select_for_update`, stay held for the whole network round trip, which under load exhausts the pool and blocks other workers.',
        'Keep the transaction for database work only: claim or record the work inside it, commit, then perform the side effect after the block, or register it with `transaction.on_commit(...)` so it runs only once the rows are committed.',
        '@shared_task\ndef charge_order(order_id):\n    with transaction.atomic():\n        order = Order.objects.select_for_update().get(pk=order_id)\n        if order.status != "new":\n            return\n        order.status = "charging"\n        order.save(update_fields=["status"])\n    stripe.PaymentIntent.create(amount=order.total, currency="eur",\n                                customer=order.customer_id, confirm=True,\n                                idempotency_key=f"charge-order-{order_id}")\n    Order.objects.filter(pk=order_id).update(status="paid")\n',
    ),
    'IDM011': (
        'unique-constraint-only',
        'A side effect runs before the insert whose unique constraint is the only duplicate check',
        'The unique constraint stops the second *row*, not the second *call*. When the task is redelivered, or two workers run it at the same moment, both reach the external call before either insert fails: the customer is charged twice or the webhook is delivered twice, and the `IntegrityError` handler then quietly treats the duplicate as success.',
        'Claim the unit of work before the side effect: insert the row first (status `pending`) and return on `IntegrityError`, take a lock (`set(key, token, nx=True, ex=ttl)`), or lock the row with `select_for_update`; then do the side effect and mark the row done. Keep the constraint as the second line of defence.',
        '@shared_task\ndef charge_customer(idempotency_key, order_id, amount_cents):\n    try:\n        db.session.add(Charge(idempotency_key=idempotency_key, order_id=order_id,\n                              status="pending"))\n        db.session.commit()\n    except IntegrityError:\n        db.session.rollback()\n        return  # another delivery owns (or finished) this charge\n    charge_id = payment_gateway.charge(order_id=order_id, amount_cents=amount_cents,\n                                       idempotency_key=idempotency_key)\n    db.session.query(Charge).filter_by(idempotency_key=idempotency_key).update(\n        {"status": "done", "gateway_charge_id": charge_id})\n    db.session.commit()\n',
    ),
    'IDM012': (
        'lock-result-ignored',
        "A lock acquisition's result is discarded",
        '`SET NX` and `cache.add` do not fail when the key exists: they return `False`/`None` and the task goes on. Two deliveries of the same task (a redelivery after a visibility timeout, a retry racing the original) both pass the "lock" and both run the work: the lock exists in Redis but excludes no one.',
        'Test the result and stop (or retry later) when the lock is held elsewhere: `if not r.set(key, token, nx=True, ex=ttl): return`. For a lock object, use `with r.lock(key, timeout=ttl):` or a blocking `acquire()`, or test what a non-blocking `acquire()` returns.',
        '@shared_task\ndef export_invoices(account_id):\n    if not redis_client.set(f"lock:export:{account_id}", token(), nx=True, ex=600):\n        return "already running"\n    build_export(account_id)\n',
    ),
    'IDM013': (
        'unguarded-side-effect',
        'An email, SMS, push or chat message is sent with no done-check or claim',
        'A worker crash after the send but before the ack, an expired visibility timeout, a retry after a later step failed, or a manual replay runs the task again, and the provider has no key to recognise the duplicate: the customer gets the message again, every time.',
        'Record that the message was sent (a `sent_at` field, a dedup row, a cache key) after sending it, return early when it is already recorded, and claim the work atomically before sending (a conditional `update()`, `get_or_create`, or `SET NX EX`) so concurrent deliveries do not both send.',
        '@shared_task\ndef send_shipping_notice(order_id):\n    claimed = Order.objects.filter(\n        pk=order_id, notice_state="pending"\n    ).update(notice_state="sending")\n    if not claimed:\n        return\n    order = Order.objects.get(pk=order_id)\n    send_mail("Shipped", f"Tracking: {order.tracking}", None, [order.email])\n    Order.objects.filter(pk=order_id).update(notice_state="sent")\n',
    ),
}
