from django.core.mail import send_mail

from svc.registry import Registry

email_backends = Registry()
sms_backends = Registry()


class SmtpBackend:
    def deliver(self, address):
        send_mail("Mailed", "body", None, [address])  # expect: IDM013


class DebugMailer:
    def send(self, address):
        return address


class SmtpMailer:
    def send(self, address):
        send_mail("Smtp", "body", None, [address])  # expect: IDM013


class MailerFactory:
    def __init__(self, kind):
        self.kind = kind

    def __call__(self, context, request):
        return SmtpMailer()


email_backends.register(SmtpBackend(), name="default")

mailer = SmtpMailer()


def smtp_mailer(request):
    return SmtpMailer()


def includeme(config):
    # A local name registered: what it holds here, not the module's ``mailer``.
    mailer = DebugMailer()
    config.register_service(mailer, name="debug.mailer")
    local_smtp = SmtpMailer()
    config.register_service(local_smtp, name="local.mailer")
    # A request method, not a service: no registration by name.
    config.add_request_method(smtp_mailer, name="request.mailer")
    # A factory object: what calling it returns.
    config.register_service_factory(MailerFactory("smtp"), name="factory.mailer")
