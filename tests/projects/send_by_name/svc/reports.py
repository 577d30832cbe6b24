import requests


def build_report(report_id):
    requests.post("https://reports.example/build", json={"report": report_id})  # expect: IDM002


def never_sent(report_id):
    requests.post("https://reports.example/never", json={"report": report_id})
