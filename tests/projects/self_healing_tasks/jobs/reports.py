from jobs.celery_app import app


@app.task(acks_late=True)
def nightly_report():
    return "nightly"


@app.task(name="reports.weekly", acks_late=True)
def weekly_report():
    return "weekly"


@app.task(acks_late=True)  # expect: IDM009
def adhoc_report(requested_by):
    return requested_by
