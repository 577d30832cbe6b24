broker_url = "redis://localhost:6379/0"
task_acks_late = True
