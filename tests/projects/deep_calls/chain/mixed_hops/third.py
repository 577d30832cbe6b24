from chain.mixed_hops.fourth import Mailer


class Notifier:
    def __init__(self):
        self.mailer = Mailer()

    def notify(self, address):
        self.mailer.deliver(address)


def relay(address):
    Notifier().notify(address)
