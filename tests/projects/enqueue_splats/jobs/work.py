import requests


def direct():
    requests.post("https://api.example/direct")  # expect: IDM002


def local_dict():
    requests.post("https://api.example/local_dict")  # expect: IDM002


def through_wrapper():
    requests.post("https://api.example/through_wrapper")  # expect: IDM002


def defined_first():
    requests.post("https://api.example/defined_first")  # expect: IDM002


def defined_second():
    requests.post("https://api.example/defined_second")  # expect: IDM002


def by_f():
    requests.post("https://api.example/by_f")  # expect: IDM002


def called():
    requests.post("https://api.example/called")  # expect: IDM002


def cross_wrapper():
    requests.post("https://api.example/cross_wrapper")  # expect: IDM002


def nightly():
    requests.post("https://api.example/nightly")  # expect: IDM002


def appended():
    requests.post("https://api.example/appended")  # expect: IDM002


def periodic():
    requests.post("https://api.example/periodic")  # expect: IDM002


def by_string():
    requests.post("https://api.example/by_string")


def not_queued():
    requests.post("https://api.example/not_queued")


def described():
    requests.post("https://api.example/described")


def unscheduled():
    requests.post("https://api.example/unscheduled")
