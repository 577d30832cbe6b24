import requests


def send_sms(alert_id):
    requests.post("https://sms.example/send", json={"alert": alert_id})  # expect: IDM002


def send_sms_once(alert_id):
    requests.post("https://sms.example/send", json={"alert": alert_id}, headers={"Idempotency-Key": f"alert-{alert_id}"})


def skip(alert_id):
    return None


HANDLERS = {"sms": send_sms, "none": skip}
KEYED_HANDLERS = {"sms": send_sms_once, "none": skip}
