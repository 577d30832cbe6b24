import functools

cached = functools.lru_cache
