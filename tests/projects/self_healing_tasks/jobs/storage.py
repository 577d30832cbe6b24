session = None


def copy_to_cache(stored):
    return stored


def scan(upload):
    return upload
