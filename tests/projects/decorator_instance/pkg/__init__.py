from pkg.decorators import memoised, retrying_task
