import legacy.base as shared

task_acks_late = shared.task_acks_late
worker_pool = "prefork"
