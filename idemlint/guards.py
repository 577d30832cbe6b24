"""Done-checks and claims: what stands between a task and a repeated effect.

The ordering rules (IDM007 check-then-act, IDM011 unique-constraint-only,
IDM013 unguarded side effect) ask the same two questions of a trace: which
``if`` tests read the state that records the work, and which calls claim the
work atomically. :class:`Guards` answers both, once per trace.
"""

from __future__ import annotations

import bisect
from typing import AbstractSet, Callable, Dict, FrozenSet, Iterator, List, Optional, Sequence, Set, Tuple

import libcst as cst

from idemlint import catalog
from idemlint.semantic.trace import Event, FunctionScope, Trace, happens_before, source_text
from idemlint.effects import Knowledge, is_none
from idemlint.names import argument, children, literal_text, method_name
from idemlint.semantic.queries import filter_terms, statement_of


# How many receivers, awaits and names one query is followed through.
MAX_QUERY_STEPS = 9


class Guards:
    """Done-checks and claims of one trace, for the ordering rules.

    A *done-check* is an ``if`` whose test reads the state that records the
    work (a cache/Redis lookup, an ``.exists()`` query, a done status or
    flag), with a *polarity*: ``if order.notified: return`` is true when the
    work is done, ``if not order.notified: send()`` when it is not.  It
    guards an effect that runs only when the work is not done: after the
    check, when the check exits early (``return``/``raise``, or ``continue``
    for an effect later in the same loop body) on "done"; in its body when
    the test says "not done"; in its ``else`` when the test says "done".

    A *claim* takes the work atomically.  A *test-and-set* claim records the
    work as taken for good (``get_or_create`` whose ``created`` flag is read,
    a unique insert caught by ``IntegrityError``, a conditional ``update()``
    whose row count is used, ``SET NX`` of a dedup key, ``ON CONFLICT``); a
    *lock* claim only excludes others while held (``redis.lock``,
    ``acquire``, ``select_for_update``, ``SET NX`` of a lock key), so it
    closes a check-then-act race only when the done-check runs inside it.
    """

    def __init__(self, trace: Trace, knowledge: Knowledge) -> None:
        """Built once per task, by :class:`idemlint.facts.TaskFacts`."""
        self.knowledge = knowledge
        self.trace = trace
        self._assigned: Dict[int, Event] = {}
        for event in trace.events:
            if event.kind == "assign" and event.value is not None:
                self._assigned[id(_unwrap(event.value))] = event
        self._assignments: Optional[Dict[Tuple[int, str], List[Event]]] = None
        self._bound_in: Optional[Dict[Tuple[int, int], FunctionScope]] = None
        self._decisions: Optional[Dict[int, List[Event]]] = None
        self._polarities: Dict[int, bool] = {}
        self._by_node: Dict[int, bool] = {}
        # The distinct ``return`` events of each call's helper, by the call's id.
        self._returns: Dict[int, List[Event]] = {}
        # (scope, key code) of the Redis keys a function deletes or trims.
        self._drained_keys: Set[Tuple[int, str]] = {
            (id(e.scope), source_text(e.node.args[0].value))
            for e in trace.calls()
            if isinstance(e.node, cst.Call) and e.node.args and method_name(e.node) in catalog.LIST_DRAINS
        }
        self._weak = False
        self._weak_checks: Set[int] = set()
        # ``if finding.has_ticket:``: a check that what an effect makes
        # exists guards only the effects that make it (by its words).
        self._made: FrozenSet[str] = frozenset()
        self._existence_checks: Dict[int, FrozenSet[str]] = {}
        self.checks: List[Event] = []
        for event in trace.events:
            if event.kind == "check" and event.value is not None:
                self._weak = False
                self._made = frozenset()
                polarity = self._polarity(event.value, event.scope, 0)
                if self._weak:
                    self._weak_checks.add(event.seq)
                if self._made:
                    self._existence_checks[event.seq] = self._made
                if polarity is not None:
                    self._polarities[event.seq] = polarity
                    self._by_node[id(event.node)] = polarity
                    self.checks.append(event)
        self._check_seqs = [check.seq for check in self.checks]  # ascending
        self.claims = [e for e in trace.calls() if self.is_claim(e)]
        # ``for reminder in Reminder.objects.filter(sent_at__isnull=True)``:
        # a loop over rows whose work is not done yet guards its body.
        self._loop_checks: Dict[int, Event] = {}
        for event in trace.calls():
            step = event.path[-1] if event.path else None
            if (
                step is not None
                and step.kind == "Loop"
                and step.branch == "test"
                and step.container not in self._loop_checks
                and isinstance(event.node, cst.Call)
                and self._selects_undone(event.node, event.scope)
            ):
                self._loop_checks[step.container] = event
        # ``for record in Record.objects.filter(status=Status.QUEUED)`` whose
        # body (or a bulk update after it) writes another ``status``: the
        # field the loop selects on is the one the work marks done.
        self._selections: Dict[int, Tuple[Event, str, str]] = {}
        # The writes of the selected field, for the loops they make checks:
        # the loop guards an effect one of them runs with (before or after
        # it), not one on a row the write skips (``mark; continue``).
        self._state_marks: Dict[int, List[Event]] = {}
        for event in trace.events:
            if event.kind == "loop" and event.value is not None and id(event.node) not in self._loop_checks:
                if isinstance(event.value, cst.Name) and self._selects_undone(event.value, event.scope):
                    # ``rows = Reminder.objects.filter(notified=False)``, then ``for row in rows``
                    self._loop_checks[id(event.node)] = event
                    continue
                for state in self._selected_states(event.value, event.scope, event):
                    marks = _state_marks(trace, event, *state)
                    if state[1] == "None" and not marks:
                        continue  # an empty field is a state only once the work fills it
                    self._selections.setdefault(id(event.node), (event, *state))
                    if marks:
                        self._selections[id(event.node)] = (event, *state)
                        self._loop_checks[id(event.node)] = event
                        self._state_marks[id(event.node)] = marks
                        break
        # ``Notification.objects.get(pk=pk, status="pending")`` raises once
        # the work is done: it guards what follows like an early exit.
        self._fetch_checks = [
            e for e in trace.calls()
            if isinstance(e.node, cst.Call)
            and method_name(e.node) in ("get", "aget")
            and not e.discarded
            and e.path and e.path[-1].kind != "Loop"
            and self._selects_undone(e.node, e.scope)
        ]

    # -- claims -----------------------------------------------------------

    def is_claim(self, event: Event) -> bool:
        call = event.node
        if event.kind != "call" or not isinstance(call, cst.Call):
            return False
        if self.knowledge.lock_api(event) is not None:
            # A set-if-absent whose answer is dropped claims nothing (IDM012);
            # a lock object is acquired by ``with`` or ``acquire()``.
            return not event.discarded or _spelled(call.func).lower().endswith("lock")
        if catalog.matches_any(catalog.CLAIM_CALLS, event.callee):
            if (event.callee or "").split(".")[0] in catalog.LOCAL_LOCK_MODULES:
                return False
            if method_name(call) in catalog.UPSERT_METHODS:
                return self._created_flag_used(event)
            return True
        method = method_name(call)
        if method in catalog.UNIQUE_INSERT_METHODS and any(
            catalog.DUPLICATE_ERRORS.search(name) for name in event.caught
        ):
            return True
        if method in ("update", "aupdate") and not event.discarded:
            # claimed = Order.objects.filter(pk=pk, state="new").update(state="sending");
            # a client's ``users.update(user)`` (an API call) claims nothing.
            return _is_conditional_update(call) and not self._another_library(event)
        if method in catalog.SQL_EXECUTE_METHODS and call.args:
            if self.inserts_for_good(event):
                return True
            statement = call.args[0].value
            if not event.discarded and _updates_conditionally(statement):
                return True
            text = self.knowledge.string_value(statement, event.scope)
            return text is not None and claims_in_sql(text)
        return False

    @staticmethod
    def _another_library(event: Event) -> bool:
        """Whether a call is known to run an API client's code: its name
        starts with a library the catalogue lists effects of
        (:data:`catalog.EFFECT_LIBRARY_ROOTS`), not a database's
        (:data:`catalog.QUERY_LIBRARIES`).  A name the analysis cannot place
        (a module of the user's own, when one file is linted alone) is
        not one."""
        head = (event.callee or "").split(".", 1)[0]
        return head in catalog.EFFECT_LIBRARY_ROOTS and head not in catalog.QUERY_LIBRARIES

    def inserts_for_good(self, event: Event) -> bool:
        """``execute(insert(T).values(...).on_conflict_do_nothing().returning(...))``
        with its result read: a unique insert, the test-and-set claim that
        stays recorded (a committed row), unlike a lock."""
        call = event.node
        return (
            isinstance(call, cst.Call)
            and method_name(call) in catalog.SQL_EXECUTE_METHODS
            and bool(call.args)
            and not event.discarded
            and self._skips_conflicts(call.args[0].value, event.scope, 0)
        )

    def _skips_conflicts(self, node: cst.BaseExpression, scope: FunctionScope, depth: int) -> bool:
        """``insert(T).values(...).on_conflict_do_nothing()`` (SQLAlchemy),
        through local names: executed with its result read, the rows
        returned are the ones this run inserted, a unique-insert claim."""
        if depth > 8:
            return False
        if isinstance(node, cst.Name):
            value = self.knowledge.assigned_value(node.value, scope)
            return value is not None and value is not node and self._skips_conflicts(value, scope, depth + 1)
        if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Attribute):
            return False
        if node.func.attr.value in catalog.CONFLICT_SKIPPING_METHODS:
            return True
        return self._skips_conflicts(node.func.value, scope, depth + 1)

    def is_lock(self, claim: Event) -> bool:
        """A claim that excludes others only while held (vs. test-and-set)."""
        call = claim.node
        assert isinstance(call, cst.Call)
        api = self.knowledge.lock_api(claim)
        if api is not None:
            if _spelled(call.func).lower().endswith("lock"):
                return True  # redis.lock(), redis_lock.Lock(): released when done
            key = argument(call, api.key_position, api.key_keyword)
            return key is not None and self._names_lock(key, claim.scope)
        method = method_name(call)
        if method in catalog.SQL_EXECUTE_METHODS:
            text = " ".join((self.knowledge.string_value(call.args[0].value, claim.scope) or "").lower().split())
            return "for update" in text or "advisory_lock" in text or "advisory_xact_lock" in text
        return method in catalog.HELD_LOCK_METHODS

    def _names_lock(self, key: cst.BaseExpression, scope: FunctionScope) -> bool:
        text = self.knowledge.string_value(key, scope) or ""
        if isinstance(key, cst.Name):
            text += " " + key.value
        return "lock" in catalog.words(text) or "mutex" in catalog.words(text)

    def _created_flag_used(self, event: Event) -> bool:
        """``_, created = X.objects.get_or_create(...)`` with ``created`` kept."""
        if event.discarded:
            return False
        assign = self._assigned.get(id(event.node))
        if assign is None:
            return not any(
                isinstance(e.value, cst.Subscript) and _unwrap(e.value.value) is event.node
                for e in self.trace.events
                if e.kind == "assign" and e.value is not None
            )
        flag = self._created_flag(event)
        return flag is None or flag.strip("_") != ""

    def _created_flag(self, claim: Event) -> Optional[str]:
        """The name an upsert's ``created`` flag is unpacked into."""
        assign = self._assigned.get(id(claim.node))
        call = claim.node
        if assign is None or not isinstance(call, cst.Call) or method_name(call) not in catalog.UPSERT_METHODS:
            return None
        for target in assign.targets:
            if isinstance(target, cst.Tuple) and len(target.elements) == 2:
                flag = target.elements[1].value
                return flag.value if isinstance(flag, cst.Name) else None
        return None

    def _flag_decides(self, claim: Event, flag: str, effect: Event) -> bool:
        """Whether the ``created`` flag of an upsert claim decides that
        ``effect`` runs: the effect is in the body of an ``if`` on it, an
        ``if`` on it ends the task before the effect, or the flag is
        returned for the caller to decide.  A flag read only to shape the
        effect (``if not created: headers[...] = thread.id``) claims nothing."""
        def mentions(node: cst.CSTNode) -> bool:
            return any(isinstance(n, cst.Name) and n.value == flag for n in _expression_nodes(node))

        if self._decisions is None:
            self._decisions = {}
            for event in self.trace.events:
                if event.kind in ("return", "check") and event.value is not None:
                    self._decisions.setdefault(id(event.scope), []).append(event)
        for event in self._decisions.get(id(claim.scope), []):
            if event.seq <= claim.seq or event.value is None:
                continue
            if event.kind == "return" and mentions(event.value):
                return True
            if event.kind == "check" and mentions(event.value):
                if _inside_branch(effect, id(event.node), "body") or (
                    event.exits and happens_before(event, effect)
                ):
                    return True
        return False

    def covers(self, claim: Event, effect: Event) -> bool:
        """Whether ``claim`` is taken before ``effect`` and still held there.

        A lock taken by ``with`` is released when the block ends.
        """
        if claim.seq >= effect.seq:
            return False
        flag = self._created_flag(claim)
        if flag is not None and not self._flag_decides(claim, flag, effect):
            return False
        step = claim.path[-1] if claim.path else None
        if step is not None and step.kind == "With" and step.branch == "items":
            return _inside_branch(effect, step.container, "body")
        return happens_before(claim, effect)

    def claimed_before(self, effect: Event) -> Optional[Event]:
        """A claim taken before ``effect`` and still in force when it runs."""
        return next(iter(self.claims_covering(effect)), None)

    def claims_covering(self, effect: Event) -> Tuple[Event, ...]:
        """Every claim taken before ``effect`` and still in force when it runs."""
        return tuple(claim for claim in self.claims if self.covers(claim, effect))

    # -- done-checks ------------------------------------------------------

    def guards(self, check: Event, effect: Event) -> bool:
        """Whether done-check ``check`` keeps ``effect`` from running on done work."""
        if check.seq >= effect.seq or not isinstance(check.node, cst.If):
            return False
        polarity = self._polarities.get(check.seq)
        if polarity is None:
            return False
        node = check.node
        if check.seq in self._weak_checks and not check.exits:
            return False  # if cache.get(memo_key) is None: compute and send
        made = self._existence_checks.get(check.seq)
        if made is not None and made.isdisjoint(self._effect_words(effect)):
            return False  # if user.has_profile: ... does not guard an e-mail
        if _inside_branch(effect, id(node), "body"):
            return polarity is False
        if _inside_branch(effect, id(node), "orelse"):
            return polarity is True
        if polarity is not True or not _same_frame(check, effect):
            return False
        if check.exits:
            return happens_before(check, effect)
        loop = _innermost_loop(check)
        return (
            loop is not None
            and _skips_iteration(node)
            and _inside_branch(effect, loop, "body")
            and happens_before(check, effect)
        )

    def _effect_words(self, effect: Event) -> AbstractSet[str]:
        """The words of what an effect makes (``Jira issue or comment``)."""
        knowledge = self.knowledge
        made = knowledge.keyable_effect(effect) or knowledge.non_keyable_effect(effect)
        labels = [made.label] if made is not None else [e.label for e in knowledge.enqueued_effects(effect)]
        return frozenset(word for label in labels for word in catalog.words(label))

    def selection_around(self, event: Event) -> Optional[Tuple[Event, str, str]]:
        """The innermost loop around ``event`` over rows selected by their
        state: the loop, the field and the code of the state selected."""
        for step in reversed(event.path):
            if step.kind == "Loop" and step.branch == "body" and step.container in self._selections:
                return self._selections[step.container]
        return None

    def checks_before(self, effect: Event) -> List[Event]:
        earlier = self.checks[: bisect.bisect_left(self._check_seqs, effect.seq)]
        checks = [check for check in earlier if self.guards(check, effect)]
        for step in effect.path:
            if step.kind == "Loop" and step.branch == "body" and step.container in self._loop_checks:
                marks = self._state_marks.get(step.container)
                if marks is None or any(
                    happens_before(effect, mark) or happens_before(mark, effect) for mark in marks
                ):
                    checks.append(self._loop_checks[step.container])
        checks += [
            fetch for fetch in self._fetch_checks
            if fetch.seq < effect.seq and happens_before(fetch, effect)
        ]
        return sorted(checks, key=lambda check: check.seq)

    def _query_calls(
        self,
        node: cst.BaseExpression,
        scope: FunctionScope,
        value_of: Callable[[str, FunctionScope], Optional[cst.BaseExpression]],
    ) -> Iterator[cst.Call]:
        """The calls a query is built of, outermost first, through its
        receivers, the statement a session runs (``execute(stmt)``),
        awaits, the local names ``value_of`` sees into, the
        parameters a helper was called with and the one value a project
        helper returns (``rows = pending_rows()``)."""
        for _ in range(MAX_QUERY_STEPS):
            if isinstance(node, cst.Name):
                name = node.value
                value = value_of(name, scope)
                if value is None or value is node:
                    return
                node, scope = value, self._scope_of(name, scope, value)
            elif isinstance(node, (cst.Subscript, cst.Attribute)):
                node = node.value
            elif isinstance(node, cst.Await):
                node = node.expression
            elif isinstance(node, cst.Call):
                returned = self.knowledge.returns_of(node)
                if len(returned) == 1 and returned[0].value is not None:
                    node, scope = returned[0].value, returned[0].scope
                    continue
                yield node
                node = statement_of(node) or node.func
            else:
                return

    def _reaching_assignment(self, name: str, at: Event) -> Optional[Event]:
        """The last plain assignment of ``name`` before ``at`` in its function
        that reaches it (none in between), when ``name`` is no parameter."""
        if name in at.scope.parameters:
            return None
        if self._assignments is None:
            self._assignments = {}
            for event in self.trace.events:
                if event.kind == "assign" and event.value is not None and not isinstance(event.node, cst.AugAssign):
                    for target in event.targets:
                        if isinstance(target, cst.Name):
                            self._assignments.setdefault((id(event.scope), target.value), []).append(event)
        earlier = [e for e in self._assignments.get((id(at.scope), name), []) if e.seq < at.seq]
        if not earlier or not happens_before(earlier[-1], at):
            return None
        return earlier[-1]

    def _scope_of(self, name: str, scope: FunctionScope, value: cst.BaseExpression) -> FunctionScope:
        """Where ``value``, the value of ``name`` in ``scope``, is written:
        the caller's scope for an argument bound to a parameter."""
        if name not in scope.parameters:
            return scope
        if self._bound_in is None:
            self._bound_in = {
                (id(e.scope), id(e.value)): e.value_scope
                for e in self.trace.events
                if e.kind == "bind" and e.value is not None and e.value_scope is not None
            }
        return self._bound_in.get((id(scope), id(value))) or scope

    def _selected_state(self, node: cst.BaseExpression, scope: FunctionScope) -> Optional[Tuple[str, str]]:
        """The state field a query selects rows by, and the code of the
        state it selects (``filter(status=Status.QUEUED)``: ``("status",
        "Status.QUEUED")``): a literal, a constant or an enum member.  A
        query's rows are what it selects, whatever ``update()`` does to them
        later: its names are seen into even when changed since."""
        return next(iter(self._selected_states(node, scope)), None)

    def _selected_states(
        self, node: cst.BaseExpression, scope: FunctionScope, at: Optional[Event] = None
    ) -> List[Tuple[str, str]]:
        """Every state a query selects rows by (see :meth:`_selected_state`),
        also a field selected empty (``warned_at__isnull=True``: the state
        ``None``), which only the writes after the work make a done state.
        A name assigned more than once in the loop's function holds what the
        last assignment before the loop ``at`` gave it."""

        def value_of(name: str, where: FunctionScope) -> Optional[cst.BaseExpression]:
            if at is not None and where is at.scope:
                reaching = self._reaching_assignment(name, at)
                if reaching is not None:
                    return reaching.value
            return self.knowledge.assigned_value(name, where)

        found: List[Tuple[str, str]] = []
        for call in self._query_calls(node, scope, value_of):
            if method_name(call) not in catalog.SELECTING_METHODS:
                continue
            for term in filter_terms(call):
                if term.excluded or not isinstance(term.value, (cst.SimpleString, cst.Name, cst.Attribute)):
                    continue
                field, _, operator = term.lookup.partition("__")
                if catalog.STATUS_FIELDS.match(field) and operator in ("", "exact"):
                    found.append((field, source_text(term.value)))
                elif operator == "isnull" and _literal_truth(term.value) is True:
                    found.append((field, "None"))
        return found

    def _selects_undone(self, node: cst.BaseExpression, scope: FunctionScope, flags_only: bool = False) -> bool:
        """A query (through its receivers and local names) filtered to undone rows.

        ``flags_only`` ignores ``status="pending"`` style filters: whether a
        pending row *exists* says "queued or in progress" as often as "not done".
        """
        for call in self._query_calls(node, scope, self.knowledge.visible_value):
            if any(
                _filters_undone(term.lookup, term.value, term.excluded, flags_only) for term in filter_terms(call)
            ):
                return True
        return False

    def checked_before(self, effect: Event) -> Optional[Event]:
        """A done-check that runs before ``effect`` and guards it."""
        checks = self.checks_before(effect)
        return checks[0] if checks else None

    def race_window(self, effect: Event) -> Optional[Event]:
        """The done-check of a check-then-act race on ``effect``, if any.

        The race is closed by a test-and-set claim held at the effect, or by
        a lock held at the effect inside which a guarding check runs.
        """
        checks = self.checks_before(effect)
        if not checks:
            return None
        for claim in self.claims:
            if not self.covers(claim, effect):
                continue
            if not self.is_lock(claim):
                return None
            if any(claim.seq < check.seq and happens_before(claim, check) for check in checks):
                return None
        return checks[0]

    # -- polarity of a test -----------------------------------------------

    def _polarity(
        self, node: cst.BaseExpression, scope: FunctionScope, depth: int
    ) -> Optional[bool]:
        if depth > 6:
            return None
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
            inner = self._polarity(node.expression, scope, depth + 1)
            return None if inner is None else not inner
        if isinstance(node, cst.BooleanOperation):
            return _combine(
                [
                    self._polarity(node.left, scope, depth + 1),
                    self._polarity(node.right, scope, depth + 1),
                ]
            )
        if isinstance(node, cst.Await):
            return self._polarity(node.expression, scope, depth + 1)
        if isinstance(node, cst.NamedExpr):
            return self._polarity(node.value, scope, depth + 1)
        if isinstance(node, cst.Comparison):
            return self._comparison(node, scope, depth)
        if isinstance(node, cst.Call):
            return self._call(node, scope, depth)
        if isinstance(node, cst.Attribute):
            if _is_done_flag(node.attr.value):
                return True
            made = _existence_flag(node.attr.value)
            if made:
                self._made = made
                return True
            return None
        if isinstance(node, cst.Name):
            if _says_checked_done(node.value):
                return True
            value = self.knowledge.visible_value(node.value, scope)
            if value is not None and self._reads_a_drained_list(value, scope, 0):
                return False  # if failures: ... pending work, deleted once handled
            if value is not None and value is not node and not isinstance(value, cst.Name):
                return self._polarity(value, scope, depth + 1)
        return None

    def _reads_a_drained_list(self, node: cst.BaseExpression, scope: FunctionScope, depth: int) -> bool:
        """``[json.loads(e) for e in redis.lrange(key, 0, -1)]`` where the
        same function deletes ``key`` later: the items still to handle,
        removed only once they are (a list a sweeper drains)."""
        if depth > 4:
            return False
        if isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
            return self._reads_a_drained_list(node.for_in.iter, scope, depth + 1)
        if not isinstance(node, cst.Call) or not node.args:
            return False
        if isinstance(node.func, cst.Name) and node.func.value in catalog.COLLECTION_CONVERSIONS:
            return self._reads_a_drained_list(node.args[0].value, scope, depth + 1)
        if method_name(node) not in catalog.PENDING_LIST_READS:
            return False
        return (id(scope), source_text(node.args[0].value)) in self._drained_keys

    def _comparison(
        self, node: cst.Comparison, scope: FunctionScope, depth: int
    ) -> Optional[bool]:
        if len(node.comparisons) != 1:
            return None
        target = node.comparisons[0]
        operator = target.operator
        right = target.comparator
        positive = isinstance(operator, (cst.Equal, cst.Is, cst.In))
        negative = isinstance(operator, (cst.NotEqual, cst.IsNot, cst.NotIn))
        left = node.left
        if is_none(right) or _is_literal(right, "False"):
            flipped = self._polarity(left, scope, depth + 1)
            if flipped is None or not (positive or negative):
                return None
            return flipped if negative else not flipped
        if _is_literal(right, "True"):
            same = self._polarity(left, scope, depth + 1)
            return None if same is None or not (positive or negative) else (same if positive else not same)
        if isinstance(right, cst.Integer) and right.value in ("0", "1"):
            same = self._polarity(left, scope, depth + 1)
            if same is None:
                return None
            zero = right.value == "0"
            if isinstance(operator, (cst.GreaterThan, cst.NotEqual)) and zero:
                return same
            if isinstance(operator, cst.GreaterThanEqual) and not zero:
                return same
            if isinstance(operator, (cst.Equal, cst.LessThanEqual)) and zero:
                return not same
            if isinstance(operator, cst.LessThan) and not zero:
                return not same
            return None
        if not (positive or negative):
            return None
        names_state = any(_names_checked_state(n) for n in _expression_nodes(right))
        if isinstance(left, cst.Attribute) and catalog.STATUS_FIELDS.match(left.attr.value):
            return (positive if names_state else None)
        if isinstance(left, cst.Name) and catalog.STATUS_FIELDS.match(left.value):
            return (positive if names_state else None)
        read = self._polarity(left, scope, depth + 1)
        if read is True and isinstance(operator, (cst.Equal, cst.NotEqual)):
            return read if positive else not read  # r.get(k) == b"sent"
        return None

    def _call(self, call: cst.Call, scope: FunctionScope, depth: int) -> Optional[bool]:
        if not catalog.words(_spelled(call.func)).isdisjoint(catalog.FAILURE_WORDS):
            return None  # get_config_failure(...): an earlier attempt failed, nothing was done
        method = method_name(call)
        if method is not None and method in catalog.LOOKUP_METHODS:
            if method in ("get", "aget"):
                lookup = self._key_lookup(call, scope)
                if lookup == "weak":
                    self._weak = True
                return True if lookup is not None else None
            # filter(sent_at__isnull=True).exists() is true while NOT done
            if method in ("first", "afirst"):
                return not self._selects_undone(call.func, scope)
            return not self._selects_undone(call.func, scope, flags_only=True)
        returned = self._returns.get(id(call))
        if returned is None:
            returned = self._returns[id(call)] = _distinct_returns(self.knowledge.returns_of(call))
        found = _combine([self._returned(e, depth) for e in returned])
        if found is not None:
            return found
        name = _spelled(call.func)
        verbs = catalog.words(name)
        if "mark" not in verbs and "set" not in verbs and _says_checked_done(name):
            return True  # if already_sent(order_id): return
        return None

    def _returned(self, event: Event, depth: int) -> Optional[bool]:
        """What a helper's ``return`` says: a done read, or ``return True``
        from the body of ``if order.notified:``."""
        value = event.value
        assert value is not None
        truth = _literal_truth(value)
        if truth is None:
            return self._polarity(value, event.scope, depth + 1)
        for step in reversed(event.path):
            if step.boundary:
                return None
            if step.kind == "If" and step.container in self._by_node:
                when_done = self._by_node[step.container] == (step.branch == "body")
                return truth if when_done else not truth
        return None

    def _key_lookup(self, call: cst.Call, scope: FunctionScope) -> Optional[str]:
        """``cache.get(k)``, ``redis_client.get(k)``; not ``payload.get("email")``.

        ``"weak"`` when the key is visible and says nothing about done work
        (``cache.get(f"fx-rate:{currency}")``): a memo, unless the task
        returns early on it.
        """
        func = call.func
        if not isinstance(func, cst.Attribute) or _is_orm_manager(call):
            return None
        key = argument(call, 0, "key") or argument(call, 0, "name")
        text = self.knowledge.string_value(key, scope) if key is not None else None
        receiver = scope.resolver.resolve(func.value) or ""
        if not catalog.words(f"{receiver} {_spelled(func.value)}").isdisjoint(catalog.KEY_STORE_WORDS):
            return "weak" if text is not None and not catalog.says_done(text) else "strong"
        if text is not None:
            if catalog.says_done(text):
                return "strong"
            return "weak" if ":" in text else None
        if key is not None and isinstance(key, cst.Name) and "key" in catalog.words(key.value):
            return "strong"
        return None


def _identifies_row(field: str) -> bool:
    """A filter on the row's identity, not on its state: ``pk``, ``order_id``."""
    name = field.lower()
    for suffix in ("__exact", "__in"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name in ("pk", "id", "uuid") or name.endswith(("_id", "_pk", "_uuid"))


def _spelled(node: cst.BaseExpression) -> str:
    """The last name of a called expression: ``lock`` for ``r.lock``."""
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return node.value if isinstance(node, cst.Name) else ""


def message_effect(knowledge: Knowledge, event: Event) -> Optional[catalog.NonKeyableEffect]:
    """The non-keyable side effect (email, SMS, push, chat) this call makes."""
    effect = knowledge.non_keyable_effect(event)
    if effect is None or (event.callee or "").rsplit(".", 1)[-1] in catalog.ENQUEUE_CALL_METHODS:
        return None
    return effect


def _filters_undone(
    lookup: str, value: cst.BaseExpression, exclude: bool, flags_only: bool = False
) -> bool:
    """``sent_at__isnull=True``, ``notified=False``, ``status="pending"``;
    under ``exclude()``: ``status="sent"``, ``notified=True``."""
    field, _, operator = lookup.partition("__")
    truth = _literal_truth(value)
    if _is_done_flag(field):
        if operator == "isnull":
            return truth is (not exclude)
        if operator in ("", "exact"):
            return truth is exclude or (not exclude and is_none(value))
        return False
    if flags_only or not catalog.STATUS_FIELDS.match(field) or operator not in ("", "exact", "in"):
        return False
    texts = [text for text in map(literal_text, _expression_nodes(value)) if text is not None]
    if not texts:
        return False
    if exclude:
        return all(_is_checked_state_text(t) for t in texts)
    return all(not catalog.words(t).isdisjoint(catalog.UNDONE_STATE_WORDS) for t in texts)


def _state_marks(trace: Trace, loop: Event, field: str, selected: str) -> List[Event]:
    """The writes that give the rows a loop goes over another ``field``
    state: an assignment ``row.status = ...`` or an ``update(status=...)``
    in the loop's body (in the helpers it calls too), or an ``update`` of
    the loop's own query after it (``rows.update(status=...)``)."""
    container = id(loop.node)
    over = loop.value.value if isinstance(loop.value, cst.Name) else None
    marks: List[Event] = []
    for event in trace.after(loop):
        inside = _inside_branch(event, container, "body")
        if event.kind == "assign" and inside:
            for target in event.targets:
                if (
                    isinstance(target, cst.Attribute)
                    and target.attr.value == field
                    and event.value is not None
                    and source_text(event.value) != selected
                ):
                    marks.append(event)
        elif (
            event.kind == "call"
            and isinstance(event.node, cst.Call)
            and method_name(event.node) in catalog.STATE_WRITE_METHODS
        ):
            func = event.node.func
            on_the_rows = inside or (
                over is not None
                and isinstance(func, cst.Attribute)
                and isinstance(func.value, cst.Name)
                and func.value.value == over
                and _same_frame(loop, event)
            )
            if on_the_rows and any(
                arg.keyword is not None and arg.keyword.value == field and source_text(arg.value) != selected
                for arg in event.node.args
            ):
                marks.append(event)
    return marks


def _literal_truth(node: cst.BaseExpression) -> Optional[bool]:
    if isinstance(node, cst.Name) and node.value in ("True", "False"):
        return node.value == "True"
    return None


def _combine(polarities: List[Optional[bool]]) -> Optional[bool]:
    known = {p for p in polarities if p is not None}
    return known.pop() if len(known) == 1 else None


def _unwrap(node: cst.BaseExpression) -> cst.BaseExpression:
    return node.expression if isinstance(node, cst.Await) else node


def _is_literal(node: cst.BaseExpression, value: str) -> bool:
    return isinstance(node, cst.Name) and node.value == value


def _says_checked_done(name: str) -> bool:
    return not catalog.words(name).isdisjoint(catalog.CHECKED_DONE_STATES | {"done"})


def _existence_flag(field: str) -> FrozenSet[str]:
    """The words of what ``has_jira_issue`` says exists (``jira``,
    ``issue``); nothing for a field that is not a ``has_`` flag."""
    words = catalog.words(field)
    if not field.lower().startswith("has_") or len(words) < 2:
        return frozenset()
    return frozenset(words - {"has"})


def _is_done_flag(field: str) -> bool:
    return bool(catalog.DONE_FLAG_FIELDS.match(field)) and catalog.words(field).isdisjoint(
        {"cancelled", "canceled", "voided"}
    )


def claims_in_sql(text: str) -> bool:
    """Whether SQL text claims its rows: a row or advisory lock, an insert
    that skips a conflict, or a conditional UPDATE (its words in order)."""
    if catalog.SQL_CLAIM.search(text):
        return True
    position = 0
    for part in catalog.SQL_CONDITIONAL_UPDATE:
        found = part.search(text, position)
        if found is None:
            return False
        position = found.end()
    return True


def _is_conditional_update(call: cst.Call) -> bool:
    """``filter(pk=pk, state="new").update(...)``: the row count says who won.

    An ``update()`` on a query we cannot see gets the benefit of the doubt;
    one filtered on the row's identity alone claims nothing.
    """
    node: cst.BaseExpression = call.func
    while isinstance(node, cst.Attribute) and isinstance(node.value, cst.Call):
        inner = node.value
        if isinstance(inner.func, cst.Attribute) and inner.func.attr.value in ("filter", "exclude", "where"):
            return _filters_more_than_the_row(inner)
        node = inner.func
    return True


def _filters_more_than_the_row(call: cst.Call) -> bool:
    """A filter with a condition other than the row's identity (``pk=``,
    ``Model.id == x``), or one not read."""
    terms = list(filter_terms(call))
    return len(terms) < len(call.args) or any(not _identifies_row(term.lookup) for term in terms)


def _updates_conditionally(statement: cst.BaseExpression) -> bool:
    """SQLAlchemy's ``update(Model).where(...).values(...)`` with a
    condition beyond the row's identity: run, its row count says who won."""
    node = statement
    conditional = False
    while isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        if node.func.attr.value == "where":
            conditional = conditional or _filters_more_than_the_row(node)
        node = node.func.value
    return (
        conditional
        and isinstance(node, cst.Call)
        and isinstance(node.func, (cst.Name, cst.Attribute))
        and _spelled(node.func).rpartition(".")[2] == "update"
    )


def _inside_branch(event: Event, container: int, branch: str) -> bool:
    return any(step.container == container and step.branch == branch for step in event.path)


def _frame(event: Event) -> Optional[int]:
    """The function body (task, or one helper call) an event runs in."""
    frame = None
    for step in event.path:
        if step.boundary:
            frame = step.container
    return frame


def _same_frame(check: Event, effect: Event) -> bool:
    """A ``return`` in ``check``'s function also skips ``effect``."""
    frame = _frame(check)
    return frame is None or any(step.container == frame for step in effect.path)


def _innermost_loop(event: Event) -> Optional[int]:
    loop = None
    for step in event.path:
        if step.boundary:
            loop = None  # ``continue`` cannot leave a function
        if step.kind == "Loop" and step.branch == "body":
            loop = step.container
    return loop


def _skips_iteration(node: cst.If) -> bool:
    return any(
        isinstance(statement, cst.SimpleStatementLine)
        and any(isinstance(small, cst.Continue) for small in statement.body)
        for statement in node.body.body
    )


def _names_checked_state(node: cst.CSTNode) -> bool:
    if isinstance(node, cst.SimpleString):
        text = literal_text(node) or ""
    elif isinstance(node, cst.Attribute):
        text = node.attr.value
    else:
        return False
    return _is_checked_state_text(text)


def _is_checked_state_text(text: str) -> bool:
    """``"sent"``, ``PAID``; not ``NOT_SENT`` or ``"payment_failed"``."""
    names = catalog.words(text)
    return names.isdisjoint(catalog.NOT_DONE_WORDS) and not names.isdisjoint(
        catalog.CHECKED_DONE_STATES
    )


def _is_orm_manager(call: cst.Call) -> bool:
    """``Order.objects.get(...)``: a row fetch, not a key lookup."""
    func = call.func
    return isinstance(func, cst.Attribute) and (
        isinstance(func.value, cst.Attribute) and func.value.attr.value == "objects"
    )


def _expression_nodes(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    yield node
    if isinstance(node, (cst.Lambda,)):
        return
    for child in children(node):
        yield from _expression_nodes(child)


def _distinct_returns(returned: Sequence[Event]) -> List[Event]:
    """The ``return`` events that hold a value, one of each that reads
    alike.  A helper called at many places is replayed there, each replay's
    ``return`` an event of its own.  A literal (``return True``) reads the
    same in each, by the branches of the helper it is on; any other value
    is read in its own replay's scope, where a parameter holds what that
    call passed, so those are kept apart."""
    distinct: Dict[Tuple[object, ...], Event] = {}
    for event in returned:
        if event.value is None:
            continue
        own_steps: List[Tuple[int, str, str]] = []
        for step in reversed(event.path):
            if step.boundary:
                break
            own_steps.append((step.container, step.kind, step.branch))
        scope = None if _literal_truth(event.value) is not None else id(event.scope)
        distinct.setdefault((id(event.value), scope, tuple(own_steps)), event)
    return list(distinct.values())


def tested_code(check: Event) -> str:
    """What a check tests, as a message quotes it: an ``if``'s test, a
    selection loop's iterable."""
    node = check.node
    tested = node.test if isinstance(node, cst.If) else node.iter if isinstance(node, cst.For) else node
    return source_text(tested, 60)
