from partner.sessions import PartnerSession


class PartnerApi:
    def __init__(self):
        self.http = PartnerSession("https://partner.example")

    def create_order(self, order_id):
        return self.http.post("/orders", json={"id": order_id})  # expect: IDM002

    def call(self, path, **kwargs):
        kwargs.setdefault("timeout", 5)
        return self.http.post(path, **kwargs)  # expect: IDM002
