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
    send_mail("Eighth", "Eight calls away", None, [address])  # expect: IDM013
    hop9(address)


def hop9(address):
    hop10(address)


def hop10(address):
    hop11(address)


def hop11(address):
    hop12(address)


def hop12(address):
    send_mail("Twelfth", "Twelve calls away", None, [address])  # expect: IDM013
