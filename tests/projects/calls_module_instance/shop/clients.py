"""Clients built once, at import."""

from shop.api import ApiClient, Archive

client = ApiClient("https://partner.example")
archive = Archive()
