import dramatiq

from billing import service


@dramatiq.actor
async def charge_order(order_id):
    await service.charge(load(order_id))


@dramatiq.actor
def pay_out_order(order_id):
    service.pay_out(load(order_id))


@dramatiq.actor
def pay_out_order_keyed(order_id):
    service.pay_out_keyed(load(order_id))


@dramatiq.actor
def transfer_order(order_id):
    service.transfer(load(order_id))


@dramatiq.actor
def refund_order(order_id):
    service.refund(load(order_id))


@dramatiq.actor
def refund_order_keyed(order_id):
    service.refund_given(load(order_id), f"refund:{order_id}")


def load(order_id):
    return order_id


@dramatiq.actor
def settle_order(order_id):
    service.settle(load(order_id))


@dramatiq.actor
def unsettle_order(order_id):
    service.unsettle(load(order_id))


@dramatiq.actor
async def charge_order_keyed(order_id):
    await service.charge_keyed(load(order_id))


@dramatiq.actor
def pay_out_order_once(order_id):
    service.pay_out_then_forget(load(order_id))


@dramatiq.actor
def reverse_order(order_id):
    service.reverse_stored(load(order_id))


@dramatiq.actor
def notify_partner(order_id):
    service.notify_partner(load(order_id))
