"""A project decorator that retries a function a few times."""

import functools


def retried(times):
    def decorate(function):
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            for _ in range(times - 1):
                try:
                    return function(*args, **kwargs)
                except OSError:
                    continue
            return function(*args, **kwargs)

        return wrapper

    return decorate
