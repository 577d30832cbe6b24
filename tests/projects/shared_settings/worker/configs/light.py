import worker.configs.base as shared_config

broker_url = shared_config.broker_url
task_acks_late = shared_config.task_acks_late
worker_pool = "threads"
