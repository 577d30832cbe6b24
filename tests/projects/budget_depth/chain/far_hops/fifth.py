from django.core.mail import send_mail


def relay(address):
    send_mail("Fifth", "Past the limit: not reported", None, [address])
