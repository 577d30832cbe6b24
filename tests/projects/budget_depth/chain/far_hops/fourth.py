from django.core.mail import send_mail

from chain.far_hops import fifth


def relay(address):
    send_mail("Fourth", "Within reach", None, [address])  # expect: IDM013
    fifth.relay(address)
