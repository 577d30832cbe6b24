"""RQ jobs: plain functions handed to a queue."""

from django.core.mail import send_mail


def deliver_digest(address, lines):
    send_mail("Your digest", "\n".join(lines), None, [address])  # expect: IDM013
