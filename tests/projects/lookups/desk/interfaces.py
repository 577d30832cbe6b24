from zope.interface import Interface


class IMailer(Interface):
    def send(recipient, body):
        """Send one message to ``recipient``."""


class IAudit(Interface):
    def record(event):
        """Keep ``event`` for the auditors."""
