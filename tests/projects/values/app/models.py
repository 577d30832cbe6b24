from django.db import models
from sqlalchemy.orm import Session
from sqlalchemy import Column, DateTime
from sqlalchemy.orm import declarative_base

Base = declarative_base()


class Row(Base):
    created = Column(DateTime)


class Note(models.Model):
    class Meta:
        app_label = "app"


class Repository:
    # A constructor's body is not walked yet: ``Repository(...)`` counts as
    # the class's making, a library call; ``self.session`` is read from it.
    def __init__(self, session: "Session | None" = None) -> None:
        self.session = session

    def latest(self):
        return self.session.execute(Row.created.desc())  # reach: library library
