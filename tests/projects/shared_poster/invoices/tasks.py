from celery import shared_task

from partners import client


@shared_task
def export_invoice(invoice_id):
    client.push(invoice_id)


@shared_task
def export_credit_note(note_id):
    client.push_keyed(note_id)
