import logging
from contextlib import contextmanager
from typing import NewType, Optional

from flask_sqlalchemy import SQLAlchemy
from sqlalchemy.orm import Session as _Session

ReadSession = NewType("ReadSession", _Session)


def make_logger(name):
    return logging.getLogger(name)  # reach: library


log = make_logger("app")


class OurSQLAlchemy(SQLAlchemy):
    def apply_driver_hacks(self, app, info, options):
        return options


class Ledger:
    """Not a library's: what it lacks stays unknown."""


flask_db = OurSQLAlchemy()
ledger = Ledger()


@contextmanager
def session_scope(url: Optional[str] = None):
    session = _Session(url)  # reach: library
    try:
        yield session
    finally:
        session.close()  # reach: library
