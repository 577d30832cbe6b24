from .base import actor, instrumented, timed
