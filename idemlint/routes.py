"""How a task reaches the event a finding is about: the calls on the way.

A helper's events carry, in their :attr:`~idemlint.semantic.trace.Event.path`, a
function-body step per call they are nested in (a ``Call`` step marked as a
boundary, whose container is the call's id; the task's own body is the
first such step, whose container is the task function).  The calls are
events of the same trace, so following the steps back gives the task's
own call that leads to the finding, then each hop between helpers: the
finding's related places (:class:`idemlint.findings.Related`).

The notes name the caller and the callee as they are written, never the
task's call chain, so that a hop shared by several tasks is one place.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

import libcst as cst

from idemlint.semantic.trace import Event, Trace, call_label

if TYPE_CHECKING:
    from idemlint.project import LoadedModule

# A place to report: the node, its module, and what it is to the finding.
Place = Tuple[cst.CSTNode, "LoadedModule", str]


class Routes:
    """The routes of one trace's events (the trace's calls indexed once, on
    the first question)."""

    def __init__(self, trace: Trace, task: str) -> None:
        self._trace = trace
        self._task = task
        self._calls: Optional[Dict[int, Event]] = None

    def of(self, event: Event) -> Tuple[Place, ...]:
        """The calls from the task's body to ``event``, outermost first."""
        if event.scope.is_task:
            return ()
        calls = self._indexed()
        places: List[Place] = []
        seen = set()
        for step in event.path:
            if step.kind != "Call" or not step.boundary or step.container in seen:
                continue
            seen.add(step.container)
            call = calls.get(step.container)
            if call is not None and isinstance(call.node, cst.Call):
                places.append((call.node, call.scope.module, self._note(call, call.node)))
        return tuple(places)

    def _note(self, event: Event, call: cst.Call) -> str:
        callee = call_label(call)
        if event.scope.is_task:
            return f"task `{self._task}` calls `{callee}`"
        return f"`{event.scope.qualified_name}` calls `{callee}`"

    def _indexed(self) -> Dict[int, Event]:
        if self._calls is None:
            self._calls = {}
            for event in self._trace.calls():
                self._calls.setdefault(id(event.node), event)
        return self._calls
