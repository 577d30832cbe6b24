from celery import shared_task
from sqlalchemy import Boolean, Column, Integer, select
from sqlalchemy.orm import declarative_base

from jobs.storage import copy_to_cache, scan, session

Base = declarative_base()


class StoredFile(Base):
    __tablename__ = "files"
    id = Column(Integer, primary_key=True)
    synced = Column(Boolean, default=False)


class Thumbnail(Base):
    __tablename__ = "thumbnails"
    id = Column(Integer, primary_key=True)
    rendered_at = Column(Integer, nullable=True)


class Upload(Base):
    __tablename__ = "uploads"
    id = Column(Integer, primary_key=True)
    scanned = Column(Boolean, default=False)


@shared_task(acks_late=True, time_limit=120)
def sync_file(file_id):
    stored = session.get(StoredFile, file_id)
    if stored is not None and not stored.synced:
        copy_to_cache(stored)
        stored.synced = True


@shared_task
def reconcile():
    batch = session.query(StoredFile).filter_by(synced=False).limit(100)
    for stored in batch.all():
        copy_to_cache(stored)
        stored.synced = True


@shared_task(acks_late=True)  # expect: IDM009
def scan_upload(upload_id):
    upload = session.get(Upload, upload_id)
    if not upload.scanned:
        scan(upload)
        upload.scanned = True


@shared_task
def purge_unscanned():
    for upload in session.query(Upload).filter_by(scanned=False):
        session.delete(upload)


@shared_task(acks_late=True)
def render_thumbnail(thumbnail_id):
    thumbnail = session.get(Thumbnail, thumbnail_id)
    if thumbnail.rendered_at is None:
        copy_to_cache(thumbnail)


@shared_task
def render_missing_thumbnails(now):
    for thumbnail in session.scalars(select(Thumbnail).where(Thumbnail.rendered_at.is_(None))):
        copy_to_cache(thumbnail)
        thumbnail.rendered_at = now
