"""``idemlint tasks``: the tasks the analysis sees, as text or JSON.

Text: one line per task, ``path:line  framework  name  recognised-by  options``
(options ``key=source`` joined by ``; ``, followed by ``(base X)`` when
the task's ``Task`` class gives it), every field through
:func:`visible`.  JSON: an array of objects with the keys ``path``,
``line``, ``framework``, ``name``, ``recognised``, ``options`` (an
object from option name to its source text) and ``origins`` (from option
name to where it came from, for those its class gives: ``"base X"``).
"""

from __future__ import annotations

import json
from typing import Dict, List, Union

from idemlint.engine import TaskInfo
from idemlint.escape import visible


def task_line(task: TaskInfo) -> str:
    fields = [f"{task.path}:{task.line}", task.framework, task.name, task.recognised]
    if task.options:
        origins = dict(task.origins)
        fields.append(
            "; ".join(
                f"{key}={value} ({origins[key]})" if key in origins else f"{key}={value}"
                for key, value in task.options
            )
        )
    return "  ".join(visible(field) for field in fields)


def render_tasks_text(tasks: List[TaskInfo]) -> str:
    return "".join(task_line(task) + "\n" for task in tasks)


def render_tasks_json(tasks: List[TaskInfo]) -> str:
    rows: List[Dict[str, Union[str, int, Dict[str, str]]]] = [
        {
            "path": task.path,
            "line": task.line,
            "framework": task.framework,
            "name": task.name,
            "recognised": task.recognised,
            "options": dict(task.options),
            "origins": dict(task.origins),
        }
        for task in tasks
    ]
    return json.dumps(rows, indent=2) + "\n"
