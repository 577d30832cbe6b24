from django.db import models


class OrderManager(models.Manager):
    def overdue(self):
        return self.filter(paid=False)


class Order(models.Model):
    paid = models.BooleanField(default=False)

    objects = OrderManager()
