import json

from django.core.mail import send_mail


class Receipt:
    def text(self, order_id):
        return json.dumps({"order": order_id})  # reach: library


def email_receipt(order_id):
    body = Receipt().text(order_id)  # reach: library followed
    send_mail("Receipt", body, "shop@example.com", ["buyer@example.com"])  # reach: library  # effect: message email
