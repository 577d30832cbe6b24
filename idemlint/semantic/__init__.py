"""The semantic layer: what the checked code does, asked by the facts and
the rules above it, never re-derived by them.

- :mod:`idemlint.semantic.values`: the evaluator of what an expression
  denotes (a project function, class, instance or module, a library
  object, a builtin, ``None``, a union, or unknown with why);
- :mod:`idemlint.semantic.resolution`: which project definition a call
  runs, through imports, receivers, factories and the ORM;
  :mod:`idemlint.semantic.dispatch` the functions a table the code writes
  may pick; :mod:`idemlint.semantic.registries` Django's app labels;
- :mod:`idemlint.semantic.trace`: a task's execution as ordered events,
  with the per-call summaries replayed where a walk gives the same events;
- :mod:`idemlint.semantic.enqueue`: every way the code hands a project
  task to a queue, linked to that task;
- :mod:`idemlint.semantic.transactions`: every way the code opens a
  database transaction;
- :mod:`idemlint.semantic.reach`: where a task's analysis reaches and where
  it stops, call by call, and the effects it finds on the way.
"""
