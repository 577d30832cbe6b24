from .worker import background, job, memo
