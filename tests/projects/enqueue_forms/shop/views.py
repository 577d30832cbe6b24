from functools import partial

import requests
from redis import Redis
from rq import Queue
from rq.job import Job
from rq_scheduler import Scheduler

from shop import billing, capture, run_later
from shop.jobs import log
from shop.billing import Refunds

queue = Queue(connection=Redis())
scheduler = Scheduler(queue=queue)
send_notice = partial(queue.enqueue, billing.notify)
log_audit = partial(print, billing.audit)


def checkout(order_id):
    queue.enqueue(capture, order_id)


def refund(order_id):
    queue.enqueue_call(func=Refunds.refund, args=(order_id,))


def nightly():
    scheduler.cron("0 3 * * *", func=billing.cleanup)


def rebuild_later(order_id):
    job = Job.create(func=billing.rebuild, args=(order_id,), connection=Redis())
    return job


def export(order_id):
    requests.post("https://erp.example/export", json={"order": order_id})  # expect: IDM002


def close(order_id):
    run_later(billing.settle, order_id)
    run_later(export, order_id)
    log(billing.audit)
