from django.apps import AppConfig


class CustomConfig(AppConfig):
    name = "shop.custom"
    label = "renamed"
