from celery import current_app

from svc import app


def start(report_id, name):
    app.send_task("svc.reports.build_report", args=[report_id])
    current_app.send_task("svc.tasks.refresh", args=[report_id])
    app.send_task("svc.reports.missing", args=[report_id])
    app.send_task(name, args=[report_id])
