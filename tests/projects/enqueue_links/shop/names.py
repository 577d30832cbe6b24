"""Task names, kept in one place as many projects do."""

from enum import Enum


class TaskNames:
    SEND_ALERT = "mail.send_alert"
    LOOKUP = "mail.lookup"


class Queued(str, Enum):
    NOTICE = "mail.send_notice"
    NOBODY = "mail.nobody"


RECEIPT_TASK = "shop.mail.send_receipt"
