"""IDM009's fix: the reject setting beside late acks, in the same spelling."""

from celery import Celery, Task, shared_task

app = Celery("shop")
app.conf.task_acks_late = True  # late acks for all
app.conf.task_reject_on_worker_lost = True
app.conf.update({"task_acks_late": True, "task_reject_on_worker_lost": True})


@shared_task(acks_late=True, reject_on_worker_lost=True)
def charge(order_id):
    return order_id


@app.task(
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
)
def refund(self, order_id):
    return order_id


class Base(Task):
    acks_late = True
    reject_on_worker_lost = True


class Oneliner(Task): acks_late = True


# No fix: a reject setting turned off is the user's decision.
@shared_task(acks_late=True, reject_on_worker_lost=False)
def restock(order_id):
    return order_id
