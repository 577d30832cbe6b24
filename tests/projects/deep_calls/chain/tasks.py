"""Tasks whose effects are many calls away."""

from celery import shared_task

from chain import local_hops, recursive
from chain.far_hops import first
from chain.mixed_hops import first as mixed_first


@shared_task
def notify_far(address):
    first.relay(address)


@shared_task
def notify_mixed(address):
    mixed_first.relay(address)


@shared_task
def notify_near(address):
    local_hops.hop1(address)


@shared_task
def count_down(address):
    recursive.countdown(address, 3)
