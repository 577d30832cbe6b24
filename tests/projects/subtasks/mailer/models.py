from django.db import models


class User(models.Model):
    email = models.EmailField()
    active = models.BooleanField(default=True)
    welcome_sent = models.BooleanField(default=False)
    welcome_state = models.CharField(max_length=16)


class Order(models.Model):
    partner_url = models.URLField()
    partner_notified = models.BooleanField(default=False)
