from partner.sessions import PartnerSession


class PartnerApi:
    def __init__(self):
        self.http = PartnerSession("https://partner.example")

    def create_order(self, order_id):
        return self.http.post("/orders", json={"id": order_id})  # expect: IDM002

    def call(self, path, **kwargs):
        kwargs.setdefault("timeout", 5)
        return self.http.post(path, **kwargs)  # expect: IDM002


def add_key(options, key):
    options.setdefault("headers", {})["Idempotency-Key"] = key


class KeyedApi:
    """Wrappers that add the key to the keywords they hand on."""

    def __init__(self):
        self.http = PartnerSession("https://partner.example")

    def with_headers(self, path, key, **kwargs):
        kwargs["headers"] = {**kwargs.get("headers", {}), "Idempotency-Key": key}
        return self.http.post(path, **kwargs)

    def with_setdefault(self, path, key, **kwargs):
        kwargs.setdefault("headers", {})["Idempotency-Key"] = key
        return self.http.post(path, **kwargs)

    def with_update(self, path, key, **kwargs):
        kwargs.update(headers={"Idempotency-Key": key})
        return self.http.post(path, **kwargs)

    def with_helper(self, path, key, **kwargs):
        add_key(kwargs, key)
        return self.http.post(path, **kwargs)

    def with_own_headers(self, path, **kwargs):
        headers = {"User-Agent": "partner-client"}
        print(headers)
        return self.http.post(path, **kwargs)
