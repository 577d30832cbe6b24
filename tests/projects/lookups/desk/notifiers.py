from django.core.mail import send_mail


class Notifier:
    def notify(self, user_id):
        send_mail("Hello", "", None, [f"{user_id}@example.com"])  # expect: IDM013
