from django.core.mail import send_mail
from django.db import models


class Ticket(models.Model):
    email = models.EmailField()

    def open(self):
        send_mail("Ticket", "Opened", None, [self.email])  # expect: IDM013
