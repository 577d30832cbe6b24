"""A generic service base, as repositories and API clients are written."""

import typing
from typing import Generic, Optional, TypeVar

import requests
from typing_extensions import Self

Entry = TypeVar("Entry")
Key = TypeVar("Key")


class Service(Generic[Entry]):
    url = "https://ledger.example/v1"

    def __init__(self, token: str) -> None:
        self.token = token
        self.retries = 0

    @classmethod
    def from_token(cls, token: str) -> "Service[Entry]":
        return cls(token)

    @classmethod
    def shared(cls) -> Self:
        return _SHARED[cls.__name__]

    def with_retries(self, retries: int) -> "Self":
        self.retries = retries
        return self

    def record(self, entry: dict) -> None:
        requests.post(f"{self.url}/entries", json=entry)  # expect: IDM002

    def record_once(self, entry: dict, key: str) -> None:
        requests.post(f"{self.url}/entries", json=entry, headers={"Idempotency-Key": key})


class Lookup(typing.Generic[Entry, Key]):
    def find(self, key: Key) -> Optional[Entry]:
        return None


_SHARED: dict = {}
