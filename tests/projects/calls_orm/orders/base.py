"""A project base model with behaviour every model inherits."""

import requests
from django.db import models


class AuditedModel(models.Model):
    class Meta:
        abstract = True

    def publish_audit(self):
        requests.post("https://audit.example/events", json={"id": self.pk})  # expect: IDM002
