import logging

from django.core.mail import send_mail
from zope.interface import implementer

from desk.interfaces import IAudit, IMailer

logger = logging.getLogger(__name__)


@implementer(IMailer)
class SmtpMailer:
    def send(self, recipient, body):
        send_mail("Note", body, None, [recipient])  # expect: IDM013


@implementer(IMailer)
class ConsoleMailer:
    def send(self, recipient, body):
        print(body)


@implementer(IAudit)
class LogAudit:
    def record(self, event):
        logger.info("audit %s", event)
