"""What names a task's unit of work: the arguments that identify it, and a
key built from them (the fixes of IDM001 and IDM002).

A redelivered task gets the arguments its first delivery got, so a key made
of them is the same on every run.  Only arguments whose names say they
identify something (``order_id``, ``pk``, ``invoice_uuid``, ``slug``) are
taken: a key made of an e-mail body or a list of ids would work but is not
what a reviewer would write, and an ``api_key`` must never travel in one.
"""

from __future__ import annotations

import re
from typing import Optional, Tuple

from idemlint.tasks import Task

_IDENTIFYING = re.compile(r"(?:^|_)(?:id|pk|uuid|guid|slug)\Z", re.IGNORECASE)


def identifying_arguments(task: Task) -> Tuple[str, ...]:
    """The task's parameters a caller fills in whose names say they identify the work."""
    keyword_only = tuple(param.name.value for param in task.function.params.kwonly_params)
    return tuple(name for name in (*task.positional_arguments, *keyword_only) if _IDENTIFYING.search(name))


def key_placeholders(task: Task) -> Optional[str]:
    """The identifying arguments as f-string placeholders (``{order_id}-{line_id}``),
    or None when the task has none."""
    names = identifying_arguments(task)
    return "-".join(f"{{{name}}}" for name in names) if names else None


def work_key(task: Task) -> Optional[str]:
    """Code for a key naming the task's unit of work (``f"charge-order-{order_id}"``),
    or None when no argument visibly identifies it."""
    placeholders = key_placeholders(task)
    if placeholders is None:
        return None
    prefix = task.name.rpartition(".")[2].replace("_", "-").strip("-")
    return f'f"{prefix}-{placeholders}"' if prefix else f'f"{placeholders}"'
