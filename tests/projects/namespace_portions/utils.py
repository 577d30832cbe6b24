import logging


def describe(order_id):
    logging.info("order %s", order_id)
