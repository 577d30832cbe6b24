"""A small project whose side effects live one module away from its tasks."""

from .billing import capture as capture_payment
