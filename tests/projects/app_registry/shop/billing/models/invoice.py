from django.core.mail import send_mail
from django.db import models


class Invoice(models.Model):
    email = models.EmailField()

    def send(self):
        send_mail("Invoice", "Attached", None, [self.email])  # expect: IDM013


class ReceiptManager(models.Manager):
    def issue(self, email):
        send_mail("Receipt issued", "Attached", None, [email])  # expect: IDM013


class Receipt(models.Model):
    objects = ReceiptManager()
