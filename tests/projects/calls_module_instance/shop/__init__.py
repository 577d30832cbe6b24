from .clients import client as default_client
