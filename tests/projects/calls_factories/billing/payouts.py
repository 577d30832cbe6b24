"""Payout calls, in a module the services module imports only when asked."""

import requests


def send_payout(account, amount):
    requests.post("https://pay.example/payouts", json={"account": account, "amount": amount})  # expect: IDM002
