import requests

from pkg import memoised, retrying_task


@retrying_task
def sync_order(self, order_id):
    requests.post("https://partner.example/orders", json={"order": order_id})  # expect: IDM002


@retrying_task
def sync_invoice(self, invoice_id):
    requests.post("https://partner.example/invoices", json={"invoice": invoice_id})  # expect: IDM002


@memoised
def price(order_id):
    requests.post("https://partner.example/price", json={"order": order_id})
