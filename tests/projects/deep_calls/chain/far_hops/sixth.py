from django.core.mail import send_mail

from chain.far_hops import seventh


def relay(address):
    send_mail("Sixth", "Six modules away", None, [address])  # expect: IDM013
    seventh.relay(address)
