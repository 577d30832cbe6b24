from requests import Session

__all__ = ["Session"]
