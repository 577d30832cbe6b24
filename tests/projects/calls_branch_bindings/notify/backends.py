import os

from notify.clients import Quiet, Sms, SmsOnce

LOUD = os.environ.get("LOUD") == "1"

if LOUD:
    first_branch = Sms()
else:
    first_branch = Quiet()

if not LOUD:
    last_branch = Quiet()
else:
    last_branch = Sms()

if os.environ.get("CHANNEL") == "none":
    chained = Quiet()
elif os.environ.get("CHANNEL") == "sms":
    chained = Sms()
else:
    chained = Quiet()

try:
    from notify.optional import gateway
    attempted = Sms()
except ImportError:
    attempted = Quiet()

unless = Quiet()
if LOUD:
    unless = Sms()

if LOUD:
    keyed = SmsOnce()
else:
    keyed = Quiet()

if LOUD:
    rebound = Sms()
else:
    rebound = Quiet()
rebound = Quiet()
