from django.core.mail import send_mail
from django.db import models


class Note(models.Model):
    email = models.EmailField()

    def post(self):
        send_mail("Note", "Posted", None, [self.email])
