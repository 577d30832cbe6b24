"""The order model and its side effects."""

from django.core.mail import send_mail
from django.db import models

from orders.base import AuditedModel


class Order(AuditedModel):
    email = models.EmailField()

    def send_receipt(self):
        send_mail("Receipt", f"Order {self.pk}", None, [self.email])  # expect: IDM013

    def send_reminder(self):
        send_mail("Reminder", f"Order {self.pk}", None, [self.email])  # expect: IDM013

    def send_invoice(self):
        send_mail("Invoice", f"Order {self.pk}", None, [self.email])  # expect: IDM013

    def send_confirmation(self):
        send_mail("Confirmed", f"Order {self.pk}", None, [self.email])  # expect: IDM013

    def send_survey(self):
        send_mail("Survey", f"Order {self.pk}", None, [self.email])  # expect: IDM013

    def send_apology(self):
        send_mail("Sorry", f"Order {self.pk}", None, [self.email])  # expect: IDM013

    def send_digest_line(self):
        send_mail("Digest", f"Order {self.pk}", None, [self.email])

    def summary(self):
        return f"Order {self.pk}"
