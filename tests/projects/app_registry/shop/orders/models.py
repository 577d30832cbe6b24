from django.core.mail import send_mail
from django.db import models


class Order(models.Model):
    email = models.EmailField()

    def notify(self):
        send_mail("Shipped", "On its way", None, [self.email])  # expect: IDM013
