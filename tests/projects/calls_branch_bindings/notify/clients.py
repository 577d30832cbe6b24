import requests


class Sms:
    def send(self, alert_id):
        requests.post("https://sms.example/send", json={"alert": alert_id})  # expect: IDM002


class SmsOnce:
    def send(self, alert_id):
        requests.post("https://sms.example/send", json={"alert": alert_id}, headers={"Idempotency-Key": str(alert_id)})


class Quiet:
    def send(self, alert_id):
        return None
