"""What a call does, asked of the catalogue: side effect, key, lock.

These are the questions several rules share (IDM001 needs the key argument
of a charge and of a lock, IDM002 whether a key is present, IDM003 whether a
call is a side effect), answered in one place so the rules never re-spell
APIs.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Dict, FrozenSet, Iterator, List, Mapping, Optional, Set, Tuple, TypeVar, Union, cast

import libcst as cst

from idemlint import catalog
from idemlint.semantic.trace import Event, FunctionScope, Trace, call_label, source_text
from idemlint.semantic.resolution import Calls, Definition
from idemlint.names import argument, literal_text, method_name
from idemlint.semantic.values import NONE, Library, Values, Walked, one_of, possibilities
from idemlint.settings import Settings

T = TypeVar("T")

# How many names or wrappers a value is followed through (``a = b; b = c``).
MAX_VALUE_DEPTH = 10


@dataclass(frozen=True)
class KeySink:
    """An expression used as an idempotency, dedup or lock key."""

    expression: cst.BaseExpression
    description: str


@dataclass(frozen=True)
class SubTaskEffect:
    """A side effect an enqueued project task makes with no done-check or
    claim of its own: what enqueueing that task amounts to.

    ``task`` is the task's dotted name; ``event`` the effect in its trace
    (a related place of a finding at the enqueue); ``message`` tells a
    non-keyable message (IDM013's kind) from an unkeyed keyable call,
    whose ``consequence`` a repeat has.  ``after_commit`` when the task's
    class enqueues it only once the caller's transaction commits.
    """

    task: str
    label: str
    message: bool
    consequence: str
    event: Event
    after_commit: bool = False  # the task's class enqueues it only once the transaction commits


# The unguarded side effects of the project task a definition is, each
# computed once a run (see idemlint.subtasks).
SubTaskEffects = Callable[[Definition], Tuple[SubTaskEffect, ...]]

# A dict entry's key: a keyword's name (``update(k=v)``) or an expression.
_EntryKey = Union[str, cst.BaseExpression]


class Knowledge:
    """The catalogue, extended by the project's settings, applied to a trace."""

    def __init__(
        self,
        trace: Trace,
        constants: Mapping[str, cst.BaseExpression],
        settings: Settings,
        calls: Optional[Calls] = None,
        sub_tasks: Optional[SubTaskEffects] = None,
    ) -> None:
        self.trace = trace
        self.constants = constants
        self.settings = settings
        self.calls = calls  # for constants other project modules define
        self._sub_tasks = sub_tasks
        self._values: Optional[Values] = None  # what a key's name holds, asked when a key is read
        self._enqueued: Dict[int, Tuple[SubTaskEffect, ...]] = {}
        self._assigned: Dict[Tuple[int, str], List[cst.BaseExpression]] = {}
        self._bound: Set[Tuple[int, str]] = set()  # helper parameters bound to arguments
        # The caller's scope of each bound argument: where its names are read.
        self._argument_scopes: Dict[Tuple[int, str], FunctionScope] = {}
        # What the names a dict literal's entries (or a wrapper's collected
        # ``**kwargs``) spell held when it was made, by entry key.
        self._held_entries: Dict[Tuple[int, str], Dict[str, Tuple[cst.BaseExpression, ...]]] = {}
        # What ``entries.append(x)`` adds to a list a name holds.
        self._appended: Dict[Tuple[int, str], List[cst.BaseExpression]] = {}
        self._mutated: Set[Tuple[int, str]] = set()
        # Entries added to a dict after its literal (``headers["k"] = v``,
        # ``headers.update(k=v)``), and the names changed in ways we cannot read.
        self._added: Dict[Tuple[int, str], List[Tuple[_EntryKey, cst.BaseExpression]]] = {}
        self._opaque_mutations: Set[Tuple[int, str]] = set()
        # What each project call returned, and the names a returned tuple
        # was unpacked into (``headers, body = self._request_details()``),
        # each value with the scope it is written in.
        self._returns: Dict[int, List[Event]] = {}
        self._unpacked: Dict[Tuple[int, str], List[Tuple[cst.BaseExpression, FunctionScope]]] = {}
        self._http: Dict[
            Tuple[int, int], Tuple[Optional[catalog.KeyableEffect], Optional[catalog.NonKeyableEffect]]
        ] = {}
        # What each call event is, asked by several rules and guards.
        self._keyable: Dict[int, Tuple[Event, Optional[catalog.KeyableEffect]]] = {}
        self._locks: Dict[int, Tuple[Event, Optional[catalog.LockApi]]] = {}
        for event in trace.events:
            self._remember(event)

    # -- visible values ---------------------------------------------------

    def _remember(self, event: Event) -> None:
        if event.kind == "return" and event.call_site is not None:
            self._returns.setdefault(id(event.call_site), []).append(event)
        elif event.kind in ("assign", "bind") and event.value is not None:
            for target in event.targets:
                if isinstance(target, cst.Tuple):
                    self._unpack(target, event)
                elif isinstance(target, cst.Name):
                    key = (id(event.scope), target.value)
                    self._assigned.setdefault(key, []).append(event.value)
                    if event.held:
                        self._held_entries[key] = dict(event.held)
                    else:
                        self._held_entries.pop(key, None)
                    if event.kind == "bind":
                        self._bound.add(key)
                        if event.value_scope is not None:
                            self._argument_scopes[key] = event.value_scope
                elif isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name):
                    key = (id(event.scope), target.value.value)
                    self._mutated.add(key)
                    self._record_item_set(key, _subscript_index(target), event.value)
                elif isinstance(target, cst.Subscript):
                    # ``opts["headers"]["k"] = v``, ``opts.setdefault("headers", {})["k"] = v``
                    root = _root_name(target)
                    if root is not None:
                        key = (id(event.scope), root)
                        self._mutated.add(key)
                        self._opaque_mutations.add(key)
                elif isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name):
                    # ``payload.alias = ...`` after ``payload = CreateAlertPayload(...)``
                    self._added.setdefault((id(event.scope), target.value.value), []).append(
                        (target.attr.value, event.value)
                    )
        elif event.kind == "call" and isinstance(event.node, cst.Call):
            self._remember_call(event, event.node)

    def _remember_call(self, event: Event, call: cst.Call) -> None:
        """What a call changes in the dicts and lists names hold."""
        func = call.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
            key = (id(event.scope), func.value.value)
            if func.attr.value in ("update", "setdefault", "__setitem__"):
                self._mutated.add(key)
                entries = _added_entries(call)
                if entries is None:
                    self._opaque_mutations.add(key)
                for entry_key, value in entries or ():
                    self._record_item_set(key, entry_key, value)
            elif func.attr.value == "append" and len(call.args) == 1 and not call.args[0].star:
                self._appended.setdefault(key, []).append(call.args[0].value)
            elif func.attr.value in ("extend", "insert", "__iadd__"):
                self._opaque_mutations.add(key)
        if event.followed:
            # A project helper handed a dict (``add_key(opts, key)``) may add to it.
            for arg in call.args:
                if not arg.star and isinstance(arg.value, cst.Name):
                    self._opaque_mutations.add((id(event.scope), arg.value.value))

    def _unpack(self, target: cst.Tuple, event: Event) -> None:
        """Bind the names of ``a, b = helper(...)`` to the elements of the
        tuples every return of the helper gives, when each return is a
        tuple of that length."""
        assert event.value is not None
        value = event.value.expression if isinstance(event.value, cst.Await) else event.value
        returns = self.returns_of(value)
        tuples = [r for r in returns if isinstance(r.value, cst.Tuple) and len(r.value.elements) == len(target.elements)]
        if not returns or len(tuples) != len(returns):
            return
        for position, element in enumerate(target.elements):
            if isinstance(element.value, cst.Name) and not isinstance(element, cst.StarredElement):
                self._unpacked[(id(event.scope), element.value.value)] = [
                    (cast(cst.Tuple, r.value).elements[position].value, r.scope) for r in tuples
                ]

    def returns_of(self, call: cst.CSTNode) -> List[Event]:
        """The ``return`` events of the project code ``call`` ran (none when
        the walk did not follow it)."""
        return self._returns.get(id(call), [])

    def unpacked_values(
        self, name: str, scope: FunctionScope
    ) -> Optional[List[Tuple[cst.BaseExpression, FunctionScope]]]:
        """What a name unpacked from the tuples a helper returns holds, each
        value with the scope of the return that gives it."""
        return self._unpacked.get((id(scope), name))

    def _record_item_set(
        self,
        key: Tuple[int, str],
        entry_key: Optional[_EntryKey],
        value: Optional[cst.BaseExpression],
    ) -> None:
        if entry_key is None or value is None:
            self._opaque_mutations.add(key)
        else:
            self._added.setdefault(key, []).append((entry_key, value))

    def visible_value(
        self, name: str, scope: FunctionScope
    ) -> Optional[cst.BaseExpression]:
        """The one value a local or module constant was given, if we can see it."""
        if (id(scope), name) in self._mutated:
            return None
        return self.assigned_value(name, scope)

    def assigned_value(
        self, name: str, scope: FunctionScope
    ) -> Optional[cst.BaseExpression]:
        """The one value a name was bound to, whatever was changed in it since."""
        key = (id(scope), name)
        values = self._assigned.get(key)
        if values is not None:
            # A parameter reassigned in the body (``key = key + ":lock"``) has
            # two values: the argument and the new one.
            if len(values) == 1 and (key in self._bound or name not in scope.parameters):
                return values[0]
            return None
        if name in scope.parameters:
            return None
        return scope.index.constants.get(name)

    def string_value(
        self, node: cst.BaseExpression, scope: FunctionScope, depth: int = 0
    ) -> Optional[str]:
        """The literal text of a string expression (f-string parts joined)."""
        if depth > MAX_VALUE_DEPTH:
            return None
        depth += 1
        if isinstance(node, cst.SimpleString):
            return literal_text(node)
        if isinstance(node, cst.FormattedString):
            return "".join(
                part.value if isinstance(part, cst.FormattedStringText) else "{}"
                for part in node.parts
            )
        if isinstance(node, cst.ConcatenatedString):
            left = self.string_value(node.left, scope, depth)
            right = self.string_value(node.right, scope, depth)
            return None if left is None or right is None else left + right
        if isinstance(node, cst.BinaryOperation) and isinstance(
            node.operator, (cst.Add, cst.Modulo)
        ):
            return self.string_value(node.left, scope, depth)
        if isinstance(node, cst.Name):
            value = self.visible_value(node.value, scope)
            if value is not None and value is not node:
                return self.string_value(value, scope, depth)
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            if node.func.attr.value == "format":
                return self.string_value(node.func.value, scope, depth)
        if isinstance(node, cst.Call) and node.args and catalog.matches_any(
            catalog.SQL_TEXT_WRAPPERS, scope.resolver.resolve(node.func)
        ):
            return self.string_value(node.args[0].value, scope, depth)
        return None

    # -- side effects -----------------------------------------------------

    def keyable_effect(self, event: Event) -> Optional[catalog.KeyableEffect]:
        if event.kind != "call":
            return None
        return _once_per_event(self._keyable, event, self._keyable_effect)

    def _keyable_effect(self, event: Event) -> Optional[catalog.KeyableEffect]:
        if not isinstance(event.node, cst.Call):
            return None
        effect = catalog.first_match(self.settings.keyable_effects, event.callee)
        if effect is not None and event.followed and not effect.library:
            return None  # a name alone (``gateway.charge``) stands for code we cannot see
        if effect is None or effect.url_position is None:
            return effect
        return self._http_reading(event, event.node, effect)[0]

    def _http_reading(
        self, event: Event, call: cst.Call, http: catalog.KeyableEffect
    ) -> Tuple[Optional[catalog.KeyableEffect], Optional[catalog.NonKeyableEffect]]:
        """What an HTTP call of the catalogue is, read once: the keyable
        effect it makes, or the message it sends."""
        memo = (id(call), id(event.scope))
        if memo not in self._http:
            self._http[memo] = self._http_effect(event, call, http)
        return self._http[memo]

    def is_http_call(self, event: Event) -> bool:
        """Whether the call is an HTTP request the catalogue knows, whatever its method."""
        if event.kind != "call":
            return False
        effect = catalog.first_match(self.settings.keyable_effects, event.callee)
        return effect is not None and effect.url_position is not None

    def _http_effect(
        self, event: Event, call: cst.Call, effect: catalog.KeyableEffect
    ) -> Tuple[Optional[catalog.KeyableEffect], Optional[catalog.NonKeyableEffect]]:
        """The effect an HTTP call makes, by its method and URL (RFC 9110):
        a keyable one, or a message to a service told by its URL."""
        method = self._http_method(event, call, effect)
        if method is None:
            return None, None
        assert effect.url_position is not None
        url = argument(call, effect.url_position, "url")
        url_text = self._with_base_url(self.url_text(url, event.scope) if url is not None else None, call, event.scope)
        if method in catalog.KEYABLE_HTTP_METHODS:
            api = catalog.http_message_api(url_text) if method == "POST" else None
            if api is not None:
                message = catalog.NonKeyableEffect(
                    api.url, api.label, family="HTTP", library=effect.library, read=api.read
                )
                return None, message
            if method == "POST" and url_text is not None and (
                catalog.is_token_exchange(url_text)
                or catalog.is_query(url_text)
                or catalog.is_read_url(url_text)
                or catalog.is_transition_url(url_text)
            ):
                return None, None
            return effect, None
        if method not in catalog.IDEMPOTENT_HTTP_METHODS:
            return None, None  # GET, HEAD, OPTIONS: safe
        non_idempotent = catalog.non_idempotent_http_api(
            self.settings.non_idempotent_http_apis, method, url_text
        )
        if non_idempotent is None:
            return None, None
        return replace(effect, label=non_idempotent.label, consequence=non_idempotent.consequence), None

    def _http_method(
        self, event: Event, call: cst.Call, effect: catalog.KeyableEffect
    ) -> Optional[str]:
        if effect.method_position is None:  # ``session.post(url)``: the verb is the name
            return (event.callee or "").rsplit(".", 1)[-1].upper()
        method = argument(call, effect.method_position, "method")
        text = self.string_value(method, event.scope) if method is not None else None
        return text.upper() if text is not None else None

    def _with_base_url(self, url_text: Optional[str], call: cst.Call, scope: FunctionScope) -> Optional[str]:
        """A relative URL joined to the base URL its client was made with
        (``httpx.AsyncClient(base_url=...)``, as an attribute, a module-level
        client or the one a ``with`` enters), when every client the
        receiver may be has the same one."""
        if url_text is None or "://" in url_text or url_text.startswith("{}") or not isinstance(call.func, cst.Attribute):
            return url_text
        receiver = self._evaluator().denote(call.func.value, Walked(scope))
        bases = {
            member.base_url.rstrip("/") if isinstance(member, Library) and member.base_url is not None else None
            for member in possibilities(receiver)
        }
        base = bases.pop() if len(bases) == 1 else None
        return url_text if base is None else base + "/" + url_text.lstrip("/")

    def url_text(
        self, node: cst.BaseExpression, scope: FunctionScope, depth: int = 0
    ) -> Optional[str]:
        """A URL's literal text, each part we cannot see as ``{}``: the
        literal parts of an f-string or a ``+``, with the module constants
        and locals they name filled in.  None when no part is visible."""
        if depth > MAX_VALUE_DEPTH:
            return None
        depth += 1
        if isinstance(node, cst.FormattedString):
            return "".join(
                part.value
                if isinstance(part, cst.FormattedStringText)
                else (
                    isinstance(part, cst.FormattedStringExpression)
                    and self.url_text(part.expression, scope, depth)
                )
                or "{}"
                for part in node.parts
            )
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
            left = self.url_text(node.left, scope, depth)
            right = self.url_text(node.right, scope, depth)
            if left is None and right is None:
                return None
            return (left or "{}") + (right or "{}")
        if isinstance(node, cst.Name):
            value = self.visible_value(node.value, scope)
            if value is None and self.calls is not None and (id(scope), node.value) not in self._assigned:
                imported = self.calls.imported_constant(node.value, scope)
                return _literal_parts(imported) if imported is not None else None
            if value is not None and value is not node:
                return self.url_text(value, scope, depth)
            return None
        if isinstance(node, cst.Call) and len(node.args) >= 2 and catalog.matches_any(
            catalog.URL_JOIN_CALLS, scope.resolver.resolve(node.func)
        ):
            path = self.url_text(node.args[1].value, scope, depth)
            return None if path is None else "{}/" + path
        return self.string_value(node, scope, depth)

    def enqueued_effects(self, event: Event) -> Tuple[SubTaskEffect, ...]:
        """The side effects the project task this call enqueues makes
        unguarded (none when the call enqueues nothing known)."""
        if not event.enqueued or self._sub_tasks is None:
            return ()
        found: Dict[Tuple[str, bool], SubTaskEffect] = {}
        for enqueued in event.enqueued:
            key = id(enqueued.function)
            if key not in self._enqueued:  # several rules ask about each enqueue
                self._enqueued[key] = self._sub_tasks(enqueued)
            for effect in self._enqueued[key]:
                found.setdefault((effect.label, effect.message), effect)
        return tuple(found.values())

    def enqueued_message(self, event: Event) -> Optional[SubTaskEffect]:
        """The first message the task this call enqueues sends unguarded."""
        return next((effect for effect in self.enqueued_effects(event) if effect.message), None)

    def non_keyable_effect(self, event: Event) -> Optional[catalog.NonKeyableEffect]:
        if event.kind != "call" or event.enqueued:
            return None
        effect = catalog.first_match(self.settings.non_keyable_effects, event.callee) or self._http_message(event)
        # An entry known by its name alone (``send_sms``) stands for project
        # code idemlint cannot see; code it walks speaks for itself.
        if effect is not None and event.followed and not effect.library:
            return None
        if effect is not None and effect.dedup_names and self.has_idempotency_key(
            event, catalog.dedup_key_effect(effect)
        ):
            return None  # the queue or topic drops the repeat (a FIFO one)
        return effect

    def _http_message(self, event: Event) -> Optional[catalog.NonKeyableEffect]:
        """A POST straight to a messaging service's API (Slack's
        ``chat.postMessage``, a Discord webhook): a message, by its URL."""
        call = event.node
        http = catalog.first_match(self.settings.keyable_effects, event.callee)
        if http is None or http.url_position is None or not isinstance(call, cst.Call):
            return None
        return self._http_reading(event, call, http)[1]

    def is_side_effect(self, event: Event) -> bool:
        return self.keyable_effect(event) is not None or self.non_keyable_effect(event) is not None

    def has_idempotency_key(
        self, event: Event, effect: catalog.KeyableEffect
    ) -> bool:
        """Whether the call passes a key, or might through what we cannot see."""
        call = event.node
        assert isinstance(call, cst.Call)
        positional = [a for a in call.args if a.keyword is None and a.star == ""]
        for arg in call.args:
            if arg.star == "**":
                # A dict we can read (``**kwargs`` of a wrapper, filled in
                # where it is called) holds the key or not; others may.
                if not self._is_visible_dict(arg.value, event.scope) or self._mapping_has_key(
                    arg.value, event.scope, effect, held=dict(event.held)
                ):
                    return True
            elif arg.keyword is not None:
                name = arg.keyword.value
                if self._is_key_name(name, effect):
                    return not self._may_be_none(arg.value, event, name)
                if name in effect.key_containers and self._mapping_has_key(
                    arg.value, event.scope, effect, held=dict(event.held)
                ):
                    return True
            elif arg.star == "" and self._is_visible_dict(arg.value, event.scope, effect):
                if self._mapping_has_key(arg.value, event.scope, effect):
                    return True
        if effect.key_position is not None and effect.key_position < len(positional):
            return not self._may_be_none(positional[effect.key_position].value, event)
        if effect.opaque_positional:
            return any(_is_opaque(a.value) for a in positional)
        return False

    def mapping_naming_the_key(self, event: Event, effect: catalog.KeyableEffect) -> Optional[str]:
        """The mapping the call passes that has an entry for the key, ``None``
        on some path or not (told apart from one with no entry): ``**`` for
        a splat, else the keyword that holds it (``headers``)."""
        call = event.call
        for arg in call.args if call is not None else ():
            container = arg.star == "**" or (arg.keyword is not None and arg.keyword.value in effect.key_containers)
            if container and self._mapping_has_key(
                arg.value, event.scope, effect, none_is_a_key=True, held=dict(event.held)
            ):
                return "**" if arg.star == "**" else cast(cst.Name, arg.keyword).value
        return None

    def _may_be_none(self, value: cst.BaseExpression, event: Event, keyword: Optional[str] = None) -> bool:
        """Whether a key may be ``None`` on some path: spelled so, or a name
        the evaluator says holds ``None`` on one (a parameter the call left
        at its default, a local bound to ``None`` on one branch), as it was
        when the call ran.  A value the analysis cannot tell is given the
        benefit of the doubt."""
        held = dict(event.held).get(keyword) if keyword is not None else None
        return self._none_on_a_path(value, event.scope, held)

    def _none_on_a_path(
        self, value: cst.BaseExpression, scope: FunctionScope, held: Optional[Tuple[cst.BaseExpression, ...]] = None
    ) -> bool:
        """Whether ``value`` is ``None``, or a name the evaluator says holds
        ``None`` on some path of ``scope``: of the values ``held`` when the
        call was made or the dict built, else of every value it is given
        (an entry of a dict a wrapper's ``**kwargs`` collects is read in the
        caller's scope)."""
        if is_none(value):
            return True
        if not isinstance(value, cst.Name):
            return False
        where = Walked(scope)
        if held is not None:
            return NONE in possibilities(one_of(self._evaluator().denote(bound, where) for bound in held))
        return NONE in possibilities(self._evaluator().denote(value, where))

    def _evaluator(self) -> Values:
        if self._values is None:
            self._values = Values(self.calls if self.calls is not None else Calls(None))
        return self._values

    def _is_visible_dict(
        self, node: cst.BaseExpression, scope: FunctionScope, effect: Optional[catalog.KeyableEffect] = None
    ) -> bool:
        """A dict literal or one of the entry's request objects, or a name
        bound to one (``send(params, options)``): a positional argument read
        for the key it may hold.  Other positional names (``distinct_id``)
        are not mappings and earn no benefit of the doubt."""
        if isinstance(node, cst.Name):
            node = self.assigned_value(node.value, scope) or node
        return isinstance(node, cst.Dict) or self._is_payload(node, scope, effect)

    @staticmethod
    def _is_payload(
        node: cst.BaseExpression, scope: FunctionScope, effect: Optional[catalog.KeyableEffect]
    ) -> bool:
        """``CreateAlertPayload(message=..., alias=...)``: a request object of the entry's SDK."""
        return (
            effect is not None
            and bool(effect.payload_classes)
            and isinstance(node, cst.Call)
            and catalog.matches_any(effect.payload_classes, scope.resolver.resolve(node.func))
        )

    def _is_key_name(self, name: str, effect: Optional[catalog.KeyableEffect] = None) -> bool:
        """An accepted key spelling, a configured key argument, or the entry's own key."""
        normalised = catalog.normalise_key_spelling(name)
        return (
            normalised in catalog.KEY_SPELLINGS
            or normalised in self.settings.key_arguments
            or (effect is not None and normalised in catalog.key_names_of(effect))
        )

    def _mapping_has_key(
        self,
        node: cst.BaseExpression,
        scope: FunctionScope,
        effect: Optional[catalog.KeyableEffect] = None,
        depth: int = 0,
        none_is_a_key: bool = False,
        held: Optional[Mapping[str, Tuple[cst.BaseExpression, ...]]] = None,
    ) -> bool:
        """A dict we can see holds a key; one we cannot see gets the benefit
        of the doubt.  ``held``: what the names its entries spell held when
        it was made, by entry key."""
        if depth > 4:
            return True
        unpacked = self.unpacked_values(node.value, scope) if isinstance(node, cst.Name) else None
        if unpacked is not None:
            return any(
                self._mapping_has_key(value, returned_in, effect, depth + 1, none_is_a_key)
                for value, returned_in in unpacked
            )
        if isinstance(node, cst.Name):
            name = (id(scope), node.value)
            value = self.assigned_value(node.value, scope)
            if value is None or name in self._opaque_mutations:
                return True
            if name in self._appended and isinstance(value, cst.List):
                # A batch built by ``append``: a key in each entry.
                entries = [e.value for e in value.elements] + self._appended[name]
                return all(
                    self._mapping_has_key(entry, scope, effect, depth + 1, none_is_a_key) for entry in entries
                )
            containers = self._key_containers(effect)
            for key, entry in self._added.get(name, ()):
                if self._entry_is_key(key, entry, scope, effect, none_is_a_key):
                    return True
                text = self._entry_key_text(key, scope)
                if text in containers and self._mapping_has_key(entry, scope, effect, depth + 1, none_is_a_key):
                    return True
            # A parameter's argument is read where the caller wrote it.
            return self._mapping_has_key(
                value, self._argument_scopes.get(name, scope), effect, depth + 1, none_is_a_key,
                self._held_entries.get(name),
            )
        if isinstance(node, cst.Call) and (self._is_dict_call(node, scope) or self._is_payload(node, scope, effect)):
            # ``dict(other)`` may copy a key; a request object's fields go by keyword.
            copied = self._is_dict_call(node, scope) and any(a.keyword is None and a.star == "" for a in node.args)
            return copied or any(
                a.star == "**"
                or (
                    a.keyword is not None
                    and self._is_key_name(a.keyword.value, effect)
                    and (none_is_a_key or not self._none_on_a_path(a.value, scope, (held or {}).get(a.keyword.value)))
                )
                for a in node.args
            )
        if isinstance(node, cst.List) and node.elements:
            # A batch of entries (``Entries=[{...}, ...]``) holds a key when each entry does.
            return all(
                not isinstance(element, cst.StarredElement)
                and self._mapping_has_key(element.value, scope, effect, depth + 1, none_is_a_key)
                for element in node.elements
            )
        if isinstance(node, (cst.ListComp, cst.GeneratorExp)):
            return self._mapping_has_key(node.elt, scope, effect, depth + 1, none_is_a_key)
        if not isinstance(node, cst.Dict):
            return not isinstance(node, (cst.SimpleString, cst.Integer, cst.List))
        for element in node.elements:
            if not isinstance(element, cst.DictElement):
                return True
            if self._entry_is_key(element.key, element.value, scope, effect, none_is_a_key, held):
                return True
            label = self.string_value(element.key, scope)
            readable = isinstance(element.value, (cst.Dict, cst.Name, cst.List, cst.ListComp)) or self._is_payload(
                element.value, scope, effect
            )
            if readable and label in self._key_containers(effect):
                if self._mapping_has_key(element.value, scope, effect, depth + 1, none_is_a_key):
                    return True
        return False

    @staticmethod
    def _key_containers(effect: Optional[catalog.KeyableEffect]) -> FrozenSet[str]:
        """The entries a key may sit inside: headers and options, and the entry's own containers."""
        return _CONTAINERS | frozenset(effect.key_containers if effect is not None else ())

    def _entry_is_key(
        self,
        key: _EntryKey,
        value: cst.BaseExpression,
        scope: FunctionScope,
        effect: Optional[catalog.KeyableEffect],
        none_is_a_key: bool = False,
        held: Optional[Mapping[str, Tuple[cst.BaseExpression, ...]]] = None,
    ) -> bool:
        """Whether a dict entry is a key, or might be (a key we cannot read,
        unless it is a configured header: its name and its value read from
        one object, ``headers[endpoint.header_name] = endpoint.header_value``,
        the same on every delivery, so no per-delivery key)."""
        text = self._entry_key_text(key, scope)
        if text is None:
            return not (isinstance(key, cst.BaseExpression) and _configured_pair(key, value))
        return self._is_key_name(text, effect) and (
            none_is_a_key or not self._none_on_a_path(value, scope, (held or {}).get(text))
        )

    def _entry_key_text(self, key: _EntryKey, scope: FunctionScope) -> Optional[str]:
        return key if isinstance(key, str) else self.string_value(key, scope)

    def _is_dict_call(self, call: cst.Call, scope: FunctionScope) -> bool:
        return scope.resolver.resolve(call.func) == "dict"

    def key_sinks(self, event: Event) -> Iterator[KeySink]:
        """Expressions this event uses as idempotency, dedup or lock keys."""
        if event.kind == "assign" and event.value is not None:
            for target in event.targets:
                if isinstance(target, cst.Name) and catalog.KEY_VARIABLE_NAME.match(
                    target.value
                ):
                    yield KeySink(event.value, f"key variable `{target.value}`")
            return
        if event.kind != "call" or not isinstance(event.node, cst.Call):
            return
        call = event.node
        effect = self.keyable_effect(event)
        if effect is None and method_name(call) in catalog.PERSISTENCE_METHODS:
            return
        keys = list(self._call_keys(event, call, effect))
        if keys:  # the label generates the callee's code: a chain `f(a)(b)...` is long
            label = call_label(call)
            for node, what in keys:
                yield KeySink(node, f"{what} of `{label}`")

    def _call_keys(
        self, event: Event, call: cst.Call, effect: Optional[catalog.KeyableEffect]
    ) -> Iterator[Tuple[cst.BaseExpression, str]]:
        """A call's key arguments, each with what it is (``lock key``)."""
        for arg in call.args:
            if arg.keyword is not None:
                normalised = catalog.normalise_key_spelling(arg.keyword.value)
                if normalised in catalog.KEY_KEYWORDS or self._is_key_name(arg.keyword.value, effect):
                    yield arg.value, f"`{arg.keyword.value}`"
            headers = arg.keyword is not None and arg.keyword.value in catalog.HEADER_CONTAINERS
            for key, value, in_headers in self._dict_entries(arg.value, event.scope, headers, effect):
                if self._is_key_name(key, effect):
                    yield value, f"`{key}` header" if in_headers else f"`{key}` entry"
                elif in_headers and catalog.is_delivery_id_header(key):
                    yield value, f"`{key}` header (a delivery id the receiver deduplicates on)"
        if effect is not None and effect.key_position is not None:
            positional_key = argument(call, effect.key_position, None)
            if positional_key is not None:
                yield positional_key, "idempotency key"
        lock = self.lock_api(event)
        if lock is not None:
            name = argument(call, lock.key_position, lock.key_keyword)
            if name is not None:
                yield name, "lock key"

    def _dict_entries(
        self,
        node: cst.BaseExpression,
        scope: FunctionScope,
        headers: bool,
        effect: Optional[catalog.KeyableEffect] = None,
        depth: int = 0,
    ) -> Iterator[Tuple[str, cst.BaseExpression, bool]]:
        """The entries of a dict we can see (or the fields of one of the
        entry's request objects), nested ones too, each with whether it is
        sent as a header.  A named dict's literal is read with what the
        code adds to it afterwards (``headers["k"] = v``), even when it also
        adds what cannot be read."""
        if depth > 3:
            return
        unpacked = self.unpacked_values(node.value, scope) if isinstance(node, cst.Name) else None
        if unpacked is not None:
            for returned, returned_in in unpacked:
                yield from self._dict_entries(returned, returned_in, headers, effect, depth + 1)
            return
        if isinstance(node, cst.Name):
            value = self.assigned_value(node.value, scope)
            for added_key, entry in self._added.get((id(scope), node.value), ()):
                text = self._entry_key_text(added_key, scope)
                if text is not None:
                    yield text, entry, headers
            if isinstance(value, (cst.Dict, cst.Call)):
                yield from self._dict_entries(value, scope, headers, effect, depth + 1)
            return
        if self._is_payload(node, scope, effect):
            assert isinstance(node, cst.Call)
            for arg in node.args:
                if arg.keyword is not None:
                    yield arg.keyword.value, arg.value, False
            return
        if not isinstance(node, cst.Dict):
            return
        for element in node.elements:
            if isinstance(element, cst.DictElement):
                key = self.string_value(element.key, scope)
                if key is not None:
                    yield key, element.value, headers
                nested_headers = key is not None and key in catalog.HEADER_CONTAINERS
                yield from self._dict_entries(element.value, scope, nested_headers, effect, depth + 1)

    # -- locks ------------------------------------------------------------

    def lock_api(self, event: Event) -> Optional[catalog.LockApi]:
        """The distributed-lock API this call takes a lock through, if any."""
        if event.kind != "call":
            return None
        return _once_per_event(self._locks, event, self._lock_api)

    def _lock_api(self, event: Event) -> Optional[catalog.LockApi]:
        if not isinstance(event.node, cst.Call):
            return None
        callee = event.callee
        if not callee or callee.split(".")[0] in catalog.LOCAL_LOCK_MODULES:
            return None
        call = event.node
        positional = [a for a in call.args if a.keyword is None and a.star == ""]
        for api in catalog.all_matches(catalog.LOCK_APIS, callee):
            if api.requires_flag is not None and not _truthy_keyword(call, api.requires_flag, event.scope):
                continue
            has_key = len(positional) > api.key_position or any(
                a.keyword is not None and a.keyword.value == api.key_keyword
                for a in call.args
            )
            if not has_key or len(positional) < api.min_positional:
                continue
            if api.store_receiver and not self._on_a_store(event, call, api):
                continue
            return api
        return None

    def _on_a_store(self, event: Event, call: cst.Call, api: catalog.LockApi) -> bool:
        """``r.lock(name)``/``cache.add(k, v)``, not ``account.lock(reason)``/``tar.add(p, n)``."""
        receiver = call.func.value if isinstance(call.func, cst.Attribute) else None
        if receiver is None:
            return False
        resolved = event.scope.resolver.resolve(receiver) or ""
        if resolved.split(".")[0] in catalog.CACHE_MODULES:
            return True
        spelled = catalog.words(f"{resolved} {source_text(receiver)}")
        if not spelled.isdisjoint(
            catalog.KEY_STORE_WORDS | catalog.CACHE_RECEIVER_WORDS | catalog.STORE_RECEIVER_WORDS
        ):
            return True
        key = argument(call, api.key_position, api.key_keyword)
        if key is None:
            return False
        text = self.string_value(key, event.scope) or ""
        return not catalog.words(f"{text} {source_text(key)}").isdisjoint(catalog.LOCK_NAME_WORDS)

    @staticmethod
    def lock_has_ttl(call: cst.Call, api: catalog.LockApi) -> bool:
        if api.never_expires:
            return False
        if any(a.star == "**" for a in call.args):
            return True
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value in api.ttl_keywords:
                return not is_none(arg.value)
        if api.ttl_position is not None:
            value = argument(call, api.ttl_position, None)
            if value is not None:
                return not is_none(value)
        return api.default_expires


def _literal_parts(node: cst.BaseExpression) -> Optional[str]:
    """A string constant's literal text, each part that is not literal as
    ``{}`` (the names in another module's constant are that module's, not
    the scope's); None when nothing in it is literal."""
    if isinstance(node, cst.SimpleString):
        return literal_text(node)
    if isinstance(node, cst.FormattedString):
        return "".join(part.value if isinstance(part, cst.FormattedStringText) else "{}" for part in node.parts)
    if isinstance(node, (cst.ConcatenatedString, cst.BinaryOperation)):
        if isinstance(node, cst.BinaryOperation) and not isinstance(node.operator, cst.Add):
            return None
        left, right = _literal_parts(node.left), _literal_parts(node.right)
        return None if left is None and right is None else (left or "{}") + (right or "{}")
    return None


_CONTAINERS = frozenset({"headers", "options"})


def _root_name(node: cst.BaseExpression) -> Optional[str]:
    """The name at the bottom of ``a["h"]["k"]`` or ``a.setdefault("h", {})["k"]``."""
    while True:
        if isinstance(node, cst.Name):
            return node.value
        if isinstance(node, cst.Subscript):
            node = node.value
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            node = node.func.value
        else:
            return None


def _subscript_index(target: cst.Subscript) -> Optional[cst.BaseExpression]:
    """``k`` of ``d[k]``; None for a slice or several indices."""
    if len(target.slice) == 1 and isinstance(target.slice[0].slice, cst.Index):
        return target.slice[0].slice.value
    return None


def _added_entries(
    call: cst.Call,
) -> Optional[List[Tuple[_EntryKey, cst.BaseExpression]]]:
    """What ``d.update(...)``, ``d.setdefault(k, v)`` or ``d.__setitem__(k, v)``
    adds to ``d``; None when it adds something we cannot read (``update(other)``)."""
    assert isinstance(call.func, cst.Attribute)
    if call.func.attr.value != "update":
        positional = [a.value for a in call.args if a.keyword is None and a.star == ""]
        if len(positional) != len(call.args):
            return None
        return [(positional[0], positional[1])] if len(positional) == 2 else []
    entries: List[Tuple[_EntryKey, cst.BaseExpression]] = []
    for arg in call.args:
        if arg.keyword is not None:
            entries.append((arg.keyword.value, arg.value))
        elif arg.star == "" and isinstance(arg.value, cst.Dict) and all(
            isinstance(element, cst.DictElement) for element in arg.value.elements
        ):
            entries += [
                (element.key, element.value)
                for element in arg.value.elements
                if isinstance(element, cst.DictElement)
            ]
        else:
            return None
    return entries


def starts_task(event: Event) -> str:
    """How a message says the call starts the task it enqueues:
    ``runs`` for ``t.run()`` (inline), ``enqueues`` otherwise."""
    return "runs" if isinstance(event.node, cst.Call) and method_name(event.node) == "run" else "enqueues"


def _truthy_keyword(call: cst.Call, name: str, scope: FunctionScope) -> bool:
    """Whether the keyword ``name`` may be true: not ``False``/``None``, nor
    a parameter the helper's caller left at such a default (a wrapper's
    ``set(..., nx=nx)``)."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            value = arg.value
            if not isinstance(value, cst.Name):
                return True
            if value.value in ("False", "None"):
                return False
            return scope.known.get(value.value) is not False or value.value in scope.assigned
    return False


def is_none(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def _is_opaque(node: cst.BaseExpression) -> bool:
    return isinstance(node, (cst.Name, cst.Attribute, cst.Call, cst.Subscript))


def stores_lock_token(event: Event, knowledge: Knowledge) -> bool:
    """Whether a set-if-absent lock-API call is a lock, not a cache fill.

    ``cache.add(f"report:{id}", html, 3600)`` and ``r.set(k, payload,
    nx=True)`` store data only if it is absent. A lock stores a marker or a
    token (a literal, an f-string, ``uuid4().hex``, ``self.request.id``, a
    ``token`` variable), or its key says lock or claim. Lock objects
    (``r.lock(...)``) are always locks; calls that are no lock API never.
    """
    api = knowledge.lock_api(event)
    call = event.node
    if api is None or not isinstance(call, cst.Call):
        return False
    if api.pattern in catalog.LOCK_OBJECT_APIS:
        return True
    key = argument(call, api.key_position, api.key_keyword)
    if key is not None and not _lock_words(key, event.scope, knowledge).isdisjoint(catalog.LOCK_KEY_WORDS):
        return True
    value = argument(call, api.key_position + 1, "value")
    if value is None:
        return True
    if isinstance(value, cst.Await):
        value = value.expression
    if (
        isinstance(value, cst.FormattedString)
        and len(value.parts) == 1
        and isinstance(value.parts[0], cst.FormattedStringExpression)
    ):
        value = value.parts[0].expression  # ``f"{payload}"`` stores the payload's text
    if isinstance(value, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString,
                          cst.Integer, cst.Float)):
        return True
    if isinstance(value, cst.Name) and value.value in ("True", "False", "None"):
        return True
    return not _lock_words(value, event.scope, knowledge).isdisjoint(catalog.LOCK_TOKEN_WORDS)


def _lock_words(
    node: cst.BaseExpression, scope: FunctionScope, knowledge: Knowledge
) -> frozenset[str]:
    spelled = cst.Module(body=[]).code_for_node(node)
    text = knowledge.string_value(node, scope) or ""
    return catalog.words(f"{spelled} {text}")


def _configured_pair(key: cst.BaseExpression, value: cst.BaseExpression) -> bool:
    """``obj.header_name`` and ``obj.header_value``: an entry whose name and
    value are two attributes of one object (a stored configuration)."""
    return (
        isinstance(key, cst.Attribute)
        and isinstance(value, cst.Attribute)
        and key.attr.value != value.attr.value
        and source_text(key.value) == source_text(value.value)
    )


def _once_per_event(memo: Dict[int, Tuple[Event, T]], event: Event, work: Callable[[Event], T]) -> T:
    """``work(event)``, worked out once: by the event's id, with the event
    kept, so that the id is never another event's."""
    known = memo.get(id(event))
    if known is None or known[0] is not event:
        known = memo[id(event)] = (event, work(event))
    return known[1]


def key_argument(event: Event, effect: catalog.KeyableEffect) -> Optional[cst.BaseExpression]:
    """The expression a call passes as the entry's key, by its keyword or
    at its position (a key the call does not have is None)."""
    call = event.node
    if not isinstance(call, cst.Call) or (effect.key_keyword is None and effect.key_position is None):
        return None
    return argument(call, effect.key_position, effect.key_keyword)
