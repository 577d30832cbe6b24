from .extensions import mail as default_mail
