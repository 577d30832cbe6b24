"""A service that picks its backends outside ``__init__``."""

from alerts.backends import Archive, Mailer


class AlertService:
    def __init__(self, address):
        self.address = address
        self.archive = Archive()

    def connect(self):
        self.mailer = Mailer()

    def alert(self, text):
        self.mailer.deliver(self.address, text)

    def record(self, text):
        self.archive.deliver(self.address, text)


class SwitchingService:
    def use_mail(self):
        self.backend = Mailer()

    def use_archive(self):
        self.backend = Archive()

    def alert(self, address, text):
        self.backend.deliver(address, text)
