import logging
from contextlib import contextmanager
from typing import NewType, Optional

from sqlalchemy.orm import Session as _Session

ReadSession = NewType("ReadSession", _Session)


def make_logger(name):
    return logging.getLogger(name)  # reach: library


log = make_logger("app")


@contextmanager
def session_scope(url: Optional[str] = None):
    session = _Session(url)  # reach: library
    try:
        yield session
    finally:
        session.close()  # reach: library
