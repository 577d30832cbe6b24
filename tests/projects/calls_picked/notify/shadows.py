"""Names that hide the module's table, or an alias reassigned after the call:
none of these reaches ``page``."""

from celery import shared_task

from notify.channels import log, page

CHANNELS = {"page": page}


@shared_task
def reassigned_after(kind, address, text):
    handler = log
    handler(address, text)
    handler = page
    return handler


@shared_task
def annotated_local(kind, address, text):
    CHANNELS: dict = {"log": log}
    CHANNELS[kind](address, text)


@shared_task
def loop_variable(kind, address, text, tables):
    for CHANNELS in tables:
        CHANNELS[kind](address, text)


@shared_task
def enclosing_parameter(CHANNELS, kind, address, text):
    def run():
        CHANNELS[kind](address, text)

    run()


@shared_task
def enclosing_local(kind, address, text):
    CHANNELS = {"log": log}

    def run():
        CHANNELS[kind](address, text)

    run()
