"""Each task reaches ``Service.record`` one way; the last one is keyed."""

from typing import Optional, Union

from celery import shared_task

from ledger.refunds import RefundService
from ledger.services import PostingService


def settle(service: PostingService, entry_id: int) -> None:
    service.record({"entry": entry_id})


def settle_if_any(service: Optional[PostingService], entry_id: int) -> None:
    service.record({"entry": entry_id})


def settle_as_written(service: "Union[None, PostingService]", entry_id: int) -> None:
    service.record({"entry": entry_id})


def settle_new_style(service: "PostingService | None", entry_id: int) -> None:
    service.record({"entry": entry_id})


@shared_task
def record_directly(entry_id):
    PostingService("t").record({"entry": entry_id})


@shared_task
def record_through_factory(entry_id):
    PostingService.from_token("t").record({"entry": entry_id})


@shared_task
def record_through_local(entry_id):
    service = PostingService.from_token("t")
    service.record({"entry": entry_id})


@shared_task
def record_through_self_type(entry_id):
    PostingService.shared().record({"entry": entry_id})


@shared_task
def record_through_fluent_method(entry_id):
    PostingService("t").with_retries(3).record({"entry": entry_id})


@shared_task
def record_through_typed_helper(entry_id):
    settle(PostingService("t"), entry_id)


@shared_task
def record_through_optional_helper(entry_id):
    settle_if_any(PostingService("t"), entry_id)


@shared_task
def record_through_union_helper(entry_id):
    settle_as_written(PostingService("t"), entry_id)


@shared_task
def record_through_new_style_helper(entry_id):
    settle_new_style(PostingService("t"), entry_id)


@shared_task
def record_from_a_subclass_elsewhere(entry_id):
    RefundService.from_token("t").record({"entry": entry_id})


@shared_task
def record_once(entry_id):
    PostingService.from_token("t").record_once({"entry": entry_id}, f"entry-{entry_id}")
