from django.core.mail import send_mail

from chain.mixed_hops import fifth


def relay(address):
    send_mail("Fourth", "Four modules, five calls deep: within reach", None, [address])  # expect: IDM013
    fifth.relay(address)
