from .billing import capture
from .jobs import run_later
