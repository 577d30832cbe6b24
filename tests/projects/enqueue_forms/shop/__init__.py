from .billing import capture
