from sqlalchemy import create_engine

from app.db import log


def run_query(connection, statement):
    log.info("running")  # reach: library
    return connection.execute(statement)  # reach: library


def connect():
    engine = create_engine("sqlite://")  # reach: library
    return engine.connect()  # reach: library


def forward(thing):
    return thing.process()  # reach: unresolved
