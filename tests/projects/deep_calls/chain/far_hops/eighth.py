from django.core.mail import send_mail


def relay(address):
    send_mail("Eighth", "Eight modules away", None, [address])  # expect: IDM013
