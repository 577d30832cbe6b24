task_acks_late = True  # expect: IDM009
