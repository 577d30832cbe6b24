from django.db import models


class Event(models.Model):
    PENDING = "pending"
    DONE = "done"
    status = models.CharField(max_length=20, default=PENDING)
    kind = models.CharField(max_length=20)


class Invoice(models.Model):
    PENDING = "pending"
    EXPIRED = "expired"
    status = models.CharField(max_length=20, default=PENDING)


class Order(models.Model):
    QUEUED = "queued"
    PACKED = "packed"
    CONFIRMED = "confirmed"
    status = models.CharField(max_length=20, default=QUEUED)


class Shipment(models.Model):
    order_id = models.IntegerField()
    status = models.CharField(max_length=20)
