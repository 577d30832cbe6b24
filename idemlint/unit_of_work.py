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

import libcst as cst

from idemlint.tasks import Task

_IDENTIFYING = re.compile(r"(?:^|_)(?:id|pk|uuid|guid|slug)\Z", re.IGNORECASE)


def identifying_arguments(task: Task) -> Tuple[str, ...]:
    """The task's parameters a caller fills in whose names say they identify
    the work; not one that defaults to ``None`` (every call that leaves it
    out would share one key)."""
    params = task.function.params
    optional = {
        param.name.value
        for param in (*params.posonly_params, *params.params, *params.kwonly_params)
        if isinstance(param.default, cst.Name) and param.default.value == "None"
    }
    keyword_only = tuple(param.name.value for param in params.kwonly_params)
    return tuple(
        name
        for name in (*task.positional_arguments, *keyword_only)
        if _IDENTIFYING.search(name) and name not in optional
    )


def key_placeholders(task: Task) -> Optional[str]:
    """The identifying arguments as f-string placeholders (``{order_id}-{line_id}``),
    or None when the task has none."""
    names = identifying_arguments(task)
    return "-".join(f"{{{name}}}" for name in names) if names else None


def work_key(task: Task, operation: str = "") -> Optional[str]:
    """Code for a key naming the task's unit of work (``f"charge-order-{order_id}"``),
    and the operation when given (``f"charge-order-refund-create-{order_id}"``:
    two calls of one task must not share a key), or None when no argument
    visibly identifies the work."""
    placeholders = key_placeholders(task)
    if placeholders is None:
        return None
    words = [_spelled(task.name.rpartition(".")[2]), _spelled(operation)]
    prefix = "-".join(word for word in words if word)
    return f'f"{prefix}-{placeholders}"' if prefix else f'f"{placeholders}"'


def operation_of(callee: Optional[str]) -> str:
    """The last two names of a resolved call (``Refund.create`` of
    ``stripe.Refund.create``), what the key of its fix names."""
    names = [name for name in (callee or "").replace("()", "").split(".") if name]
    return ".".join(names[-2:])


def _spelled(name: str) -> str:
    """``PaymentIntent.create`` as ``payment-intent-create``."""
    dashed = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "-", name).lower()
    return re.sub(r"[^a-z0-9]+", "-", dashed).strip("-")
