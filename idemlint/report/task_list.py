"""``idemlint tasks``: the tasks the analysis sees, as text or JSON.

Text: one line per task, ``path:line  framework  name  recognised-by  options``
(options ``key=source`` joined by ``; ``, followed by ``(base X)`` when
the task's ``Task`` class gives it), every field through
:func:`visible`.  JSON: an array of objects with the keys ``path``,
``line``, ``framework``, ``name``, ``recognised``, ``options`` (an
object from option name to its source text) and ``origins`` (from option
name to where it came from, for those its class gives: ``"base X"``) and
``runs_again`` (what runs a Celery task lost with its worker again: its
schedule or a scheduled sweep, as IDM009 reads it; null when nothing is
seen to, and in text ``runs again: ...`` after the options);
for a task traced, also ``calls`` (how many call sites on its paths
resolved each way, see :mod:`idemlint.semantic.reach`), ``unresolved``
(each unresolved call site: ``path``, ``line``, ``column``, ``call`` as
written) and ``effects`` (``kind``, ``api``, and the same place keys).
"""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any, Dict, List

from idemlint.engine import TaskInfo
from idemlint.escape import visible
from idemlint.semantic.reach import Reach


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
    if task.runs_again is not None:
        fields.append(f"runs again: {task.runs_again}")
    return "  ".join(visible(field) for field in fields)


def render_tasks_text(tasks: List[TaskInfo]) -> str:
    return "".join(task_line(task) + "\n" for task in tasks)


def render_tasks_json(tasks: List[TaskInfo]) -> str:
    rows = [_task_object(task) for task in tasks]
    return json.dumps(rows, indent=2) + "\n"


def _task_object(task: TaskInfo) -> Dict[str, Any]:
    row: Dict[str, Any] = {
        "path": task.path,
        "line": task.line,
        "framework": task.framework,
        "name": task.name,
        "recognised": task.recognised,
        "options": dict(task.options),
        "origins": dict(task.origins),
        "runs_again": task.runs_again,
    }
    if task.reach is not None:
        row.update(_reach_object(task.reach))
    return row


def _reach_object(reach: Reach) -> Dict[str, Any]:
    return {
        "calls": dict(reach.counts),
        "unresolved": [asdict(site) for site in reach.unresolved],
        "effects": [asdict(effect) for effect in reach.effects],
    }
