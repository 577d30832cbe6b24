from django.core.mail import send_mail


def hop1(address):
    hop2(address)


def hop2(address):
    hop3(address)


def hop3(address):
    hop4(address)


def hop4(address):
    hop5(address)


def hop5(address):
    hop6(address)


def hop6(address):
    hop7(address)


def hop7(address):
    hop8(address)


def hop8(address):
    send_mail("Eighth", "Within reach", None, [address])  # expect: IDM013
    hop9(address)


def hop9(address):
    send_mail("Ninth", "Past the limit: not reported", None, [address])
