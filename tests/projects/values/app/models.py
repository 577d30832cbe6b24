from django.db import models

from app.db import flask_db
from sqlalchemy.orm import Session
from sqlalchemy import Column, DateTime, select
from sqlalchemy.orm import declarative_base

Base = declarative_base()


class Row(Base):
    created = Column(DateTime)


class Note(models.Model):
    deleted = models.DateTimeField(null=True)
    class Meta:
        app_label = "app"

    def save(self, *args, **kwargs):
        self.full_clean()  # reach: library
        super().save(*args, **kwargs)  # reach: library library


class Repository:
    def __init__(self, session: "Session | None" = None) -> None:
        self.session = session

    @classmethod
    def made(cls):
        return cls(Session())  # reach: followed library

    def latest(self):
        return self.session.execute(Row.created.desc())  # reach: library library


class BaseQueries:
    def base_statement(self):
        return select(Row)  # reach: library


class SoftDeleteQueries:
    def base_statement(self):
        statement = super().base_statement()  # reach: library followed
        return statement.where(Row.created.is_(None))  # reach: library library


class NoteQueries(SoftDeleteQueries, BaseQueries):
    def latest(self):
        return self.base_statement().limit(1)  # reach: followed library


class SyncFailed(Exception):
    def __init__(self, reason):
        super().__init__(reason)  # reach: library library
        self.reason = reason


class Tag(flask_db.Model):
    @classmethod
    def named(cls, name):
        return cls.query.filter_by(name=name).one()  # reach: library library
