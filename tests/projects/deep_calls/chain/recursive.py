from django.core.mail import send_mail


def countdown(address, left):
    if left:
        countdown(address, left - 1)
    else:
        send_mail("Countdown", "Done", None, [address])  # expect: IDM013
