"""Objects built once, at import, as Flask applications do."""

import redis
from flask_mail import Mail

from app.outbox import Outbox

mail = Mail()
cache = redis.Redis()
outbox = Outbox()
