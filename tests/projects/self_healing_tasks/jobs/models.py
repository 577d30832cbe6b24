from django.db import models


class Event(models.Model):
    PENDING = "pending"
    DONE = "done"
    status = models.CharField(max_length=20, default=PENDING)
    kind = models.CharField(max_length=20)
