"""The frameworks layer: what each task system does with a task, as data
and the readers of its configuration.  Here now:

- :mod:`idemlint.frameworks.celery_acks`: where Celery's late acks are
  turned on, and whether the same place turns ``reject_on_worker_lost`` on.
"""
