from django.core.mail import send_mail
from django.db import models


class Invoice(models.Model):
    email = models.EmailField()

    def send(self):
        send_mail("Invoice", "Attached", None, [self.email])  # expect: IDM013
