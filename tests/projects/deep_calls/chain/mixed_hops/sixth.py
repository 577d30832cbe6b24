from django.core.mail import send_mail


def post(address):
    send_mail("Welcome", "Eight calls through modules, a closure and methods", None, [address])  # expect: IDM013
