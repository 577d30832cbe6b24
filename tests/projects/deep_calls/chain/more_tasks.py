"""Another file's tasks reaching the same chains: their summaries are replayed."""

from celery import shared_task

from chain import local_hops
from chain.far_hops import first


@shared_task
def notify_far_again(address):
    first.relay(address)


@shared_task
def notify_near_again(address):
    local_hops.hop1(address)
