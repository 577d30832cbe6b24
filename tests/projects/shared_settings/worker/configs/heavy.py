from worker.configs import base

task_acks_late = base.task_acks_late
worker_pool = "solo"
