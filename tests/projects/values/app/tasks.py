import json
from importlib import import_module
from json import load as read_json
from typing import Dict, Optional, Union, cast

import orjson

from celery import shared_task
from sqlalchemy import Connection, select
from sqlalchemy.orm import Session

from app import db
from app.db import ReadSession, ledger, log, make_logger, session_scope
from app.helpers import connect, forward, run_query
from app.models import Note, NoteQueries, Repository, SyncFailed, Tag


def literals(flag, *args, **kwargs):
    if flag:
        names = []
    else:
        names = ()
    names.count("a")  # reach: library
    parts = [kwargs.get("first")]  # reach: library
    parts.append(args.index(1))  # reach: library library
    key = f"sync:{flag}"
    key.encode().hex()  # reach: library library
    if (seen := {}) is not None:
        seen.setdefault("k", 1)  # reach: library
    return str(len(parts)).zfill(4)  # reach: library library library


def annotated(
    session: Session,
    maybe: Optional[Session],
    either: Session | None,
    spelled: "Session",
    pair: Union[Session, Connection],
    reading: ReadSession,
    options: Dict[str, str],
):
    session.commit()  # reach: library
    maybe.rollback()  # reach: library
    either.flush()  # reach: library
    spelled.close()  # reach: library
    pair.execute("select 1")  # reach: library
    reading.scalars("select 1")  # reach: library
    options.items()  # reach: library
    cast(Session, session).begin()  # reach: library library


def results():
    local = make_logger("results")  # reach: followed
    local.warning("made here")  # reach: library
    log.error("made in another module")  # reach: library
    with session_scope() as session:  # reach: followed
        session.add(Note())  # reach: library library
    with Session() as plain:  # reach: library
        plain.merge(Note())  # reach: library library
    note = Note()  # reach: library
    note.save()  # reach: followed
    Repository(session).latest()  # reach: followed followed


def accumulate(deleted: bool, limit):
    statement = select(Note)  # reach: library
    if not deleted:
        statement = statement.where(Note.deleted.is_(None))  # reach: library library
    if limit:
        statement = statement.limit(limit)  # reach: library
    NoteQueries().latest()  # reach: library followed
    if limit < 0:
        raise SyncFailed("negative limit")  # reach: followed
    return Repository.made().session.scalars(statement)  # reach: followed library


def rows(ids):
    for note in Note.objects.filter(pk__in=ids)[:10]:  # reach: library
        note.full_clean()  # reach: library
    for letter in "abc":
        letter.upper()  # reach: library


def imported_here():
    import traceback
    from json import dumps as to_json

    return to_json(traceback.format_stack())  # reach: library library


def decoded(raw, body: str, stream):
    data = json.loads(raw)  # reach: library
    data.get("x")  # reach: library
    for row in data.get("rows", []):  # reach: library
        row.get("id")  # reach: library
    for _, value in data.items():  # reach: library
        value.get("y")  # reach: library
    data["items"][0].pop("z")  # reach: library
    parsed = orjson.loads(body) if body else None  # reach: library
    parsed.keys()  # reach: library
    read_json(stream).copy()  # reach: library library
    for _, handler in {"read": read_json}.items():  # reach: library
        handler(stream)  # reach: unresolved
    data.get("notes", NoteQueries()).latest()  # reach: library library unresolved


def normalised(payload, spec, count, flag):
    payload = json.loads(payload)  # reach: library
    payload.get("x")  # reach: library
    spec = orjson.loads(spec) if spec is not None else None  # reach: library
    spec.get("y")  # reach: library
    if flag:
        count = json.loads(count)  # reach: library
    count.get("z")  # reach: unresolved


def read_before_decoded(model, raw):
    original = model
    model = json.loads(raw)  # reach: library
    original.save()  # reach: unresolved
    model.get("x")  # reach: unresolved


def defaulted(client):
    client = client or json.loads("{}")  # reach: library
    client.get("x")  # reach: unresolved
    for note, _ in Note.objects.all():  # reach: library
        note.full_clean()  # reach: unresolved


def decoded_on_a_condition(spec, strict):
    strict and (spec := json.loads(spec))  # reach: library
    spec.get("y")  # reach: unresolved


def stored_into(raw):
    jobs = json.loads(raw)  # reach: library
    jobs.append(NoteQueries())  # reach: library library
    for job in jobs:
        job.latest()  # reach: unresolved
    json.loads(raw, object_hook=dict)["q"].latest()  # reach: library unresolved
    (json.loads(raw) | {"q": NoteQueries()})["q"].latest()  # reach: library library unresolved


def through_a_parameter(repository, spelled: "Repository", session: Optional[Session] = None):
    # What the walked call passes (a project instance), with the annotation
    # or without it; a parameter left at ``None`` keeps its annotation.
    repository.latest()  # reach: followed
    spelled.latest()  # reach: followed
    session.commit()  # reach: library


@shared_task
def refresh(order_id, payload):
    imported_here()  # reach: followed
    rows([order_id])  # reach: followed
    accumulate(False, 10)  # reach: followed
    literals(True, 1, first=order_id)  # reach: followed
    annotated(None, None, None, None, None, None, {})  # reach: followed
    results()  # reach: followed
    run_query(connect(), "select 1")  # reach: followed followed
    forward(payload)  # reach: followed
    decoded(payload, "{}", payload)  # reach: followed
    normalised(payload, payload, payload, order_id)  # reach: followed
    Tag.named("x")  # reach: followed
    read_before_decoded(payload, payload)  # reach: followed
    decoded_on_a_condition(payload, order_id)  # reach: followed
    stored_into(payload)  # reach: followed
    defaulted(payload)  # reach: followed
    through_a_parameter(Repository(None), Repository(None))  # reach: followed followed followed
    db.flask_db.session.commit()  # reach: library
    ledger.entries.add(order_id)  # reach: unresolved
    payload.get("x")  # reach: unresolved
    items = payload["items"]
    items[0].run()  # reach: unresolved
    getattr(order_id, "sync")()  # reach: library unresolved
    import_module("app.jobs").job()  # reach: library unresolved
    plugin = Session().get_bind()  # reach: library library
    plugin()  # reach: unresolved
    for entry in payload:
        entry.close()  # reach: unresolved
    for _, (_, job) in payload.items():  # reach: unresolved
        job.start()  # reach: unresolved
