import os

if os.environ.get("CRAWL_LOCK_TTL"):
    CRAWL_LOCK_TTL = int(os.environ["CRAWL_LOCK_TTL"])
else:
    CRAWL_LOCK_TTL = 300
JOB_TIMEOUT = int(os.environ.get("JOB_TIMEOUT_SECONDS") or 60 * 60 * 6)
