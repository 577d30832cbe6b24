from django.core.mail import send_mail


def relay(address):
    send_mail("Fifth", "The fifth module: past the limit, not reported", None, [address])
