"""The semantic layer: what the checked code does, asked by the facts and
the rules above it, never re-derived by them.

The analysis moves here one question at a time, from the flat modules that
hold it today (call resolution in :mod:`idemlint.calls`, the trace in
:mod:`idemlint.analysis`).  Here now:

- :mod:`idemlint.semantic.reach`: where a task's analysis reaches and where
  it stops, call by call, and the effects it finds on the way.
"""
