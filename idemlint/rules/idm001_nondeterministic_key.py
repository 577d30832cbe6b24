"""IDM001 nondeterministic-key."""

from __future__ import annotations

from typing import Iterator, Optional

from idemlint.semantic.trace import call_label
from idemlint.facts import TaskFacts
from idemlint.facts.random_keys import RandomKey
from idemlint.fixes import UNSAFE
from idemlint.rules.base import SuggestedFix, TaskRule, Violation, where
from idemlint.rules.edits import random_part_replaced, without_shared_keys
from idemlint.unit_of_work import identifying_arguments, key_placeholders, work_key


class NondeterministicKey(TaskRule):
    code = "IDM001"
    name = "nondeterministic-key"
    summary = "An idempotency, dedup or lock key is derived from a random or time-based value"
    what = (
        "Follows values from `uuid1`/`uuid4`, `time.time`/`time_ns`/`monotonic`, "
        "`datetime.now`/`utcnow`/`today`, `date.today`, `random.*`, `secrets.*`, "
        "`os.urandom` and `hash()` of a string through local assignments, "
        "f-strings, `str()`, `.hex`, `.strftime()`, `.isoformat()`, `%`, "
        "`.format` and `+` into an idempotency-key argument or header, a "
        "positional key parameter, a lock or dedup key, or a variable named as a key. "
        "A delivery or event id sent as a header, so that the receiver can "
        "deduplicate, is a key too: `webhook-id` of the Standard Webhooks spec, and "
        "`X-<Vendor>-Delivery`, `X-<Vendor>-Delivery-Id`, `X-<Vendor>-Event-Id`, "
        "`X-<Vendor>-Message-Id` and `X-<Vendor>-Webhook-Id` in a `headers=` dict; "
        "request, trace and correlation ids (`X-Request-Id`, `traceparent`, "
        "`X-Correlation-Id`) identify one attempt and never are. A headers dict is "
        "read with the entries added to it after its literal "
        "(`headers[\"X-GitHub-Delivery\"] = str(uuid4())`, `headers.update(...)`)."
    )
    why = (
        "A key exists so that a second delivery of the same work is recognised. "
        "Generated inside the task, it is different on every run: the redelivered "
        "task sends a new key, the provider or the lock sees new work, and the "
        "deduplication never matches. `hash()` of a string is salted per process, "
        "so two workers disagree too."
    )
    fix = (
        "Derive the key from the task's arguments (the unit of work), e.g. "
        "`f\"charge-order-{order_id}\"`, or create it once where the task is "
        "enqueued and pass it in. A random value is fine as a lock *token* (the "
        "value stored under a deterministic lock key), never as the key."
    )
    example = '''\
@shared_task
def charge_order(order_id):
    key = str(uuid.uuid4())
    payment_gateway.charge(order_id=order_id, idempotency_key=key)
'''
    use_instead = '''\
@shared_task
def charge_order(order_id):
    key = f"charge-order-{order_id}"
    payment_gateway.charge(order_id=order_id, idempotency_key=key)
'''
    limits = (
        "Values are followed through local variables, helper parameters and "
        "helper return values in the same module, not through attributes, "
        "containers or other modules. Entries added to a headers dict count "
        "wherever they are added in the function, before or after the call. "
        "`hash()` is reported unless its argument "
        "is visibly a number (an `int` annotation, `int()`, or a name such as "
        "`order_id`)."
    )

    fix_availability = (
        "Sometimes, unsafe (`--fix --unsafe-fixes`): a random value (`uuid1`/`uuid4`, "
        "`random`, `secrets`, `os.urandom`) in a key built in the task's own body is "
        "replaced by the task's arguments whose names say they identify the work "
        "(`order_id`, `pk`, `invoice_uuid`, `slug`; a bound task's `self` is not one): "
        "a key that is only the random value (`str(uuid4())`, `uuid4().hex`) becomes "
        "`f\"<task-name>-{order_id}\"`, and the value's place in an f-string, a `+` "
        "with a string or a `.format()` becomes `{order_id}`. Unsafe because the key "
        "now repeats on purpose: check that the arguments name one unit of work, so "
        "that two different jobs never share it. Not offered for a time "
        "(`datetime.now()` may name the period the work belongs to), for a key that "
        "already reads one of the task's parameters (the random part was added on "
        "purpose), in a helper (its callers may do other work), in a loop or a "
        "comprehension (every pass would share the key), for a key variable assigned "
        "more than once or read anywhere else (a lock's token must stay random), for a "
        "random value used other than spelled as text (hashed, sliced, bytes, inside an "
        "f-string's expression), where two fixes in the task would write the same key, "
        "nor when no argument identifies the work (one that defaults to `None` does not)."
    )

    def check(self, facts: TaskFacts) -> Iterator[Violation]:
        violations = [
            Violation(
                key.source,
                f"`{call_label(key.source)}` builds the {key.sink.description} in "
                f"{where(key.event, facts.task.name)}; a redelivered task gets a "
                "new key, so the deduplication never matches",
                event=key.event,
                fix=_key_from_arguments(key, facts),
            )
            for key in facts.random_keys
        ]
        return iter(without_shared_keys(violations))


def _key_from_arguments(key: RandomKey, facts: TaskFacts) -> Optional[SuggestedFix]:
    """The random part of the key replaced by the arguments that identify the work."""
    placeholders, whole = key_placeholders(facts.task), work_key(facts.task)
    if key.rewritable is None or placeholders is None or whole is None:
        return None
    edit = random_part_replaced(key.rewritable, key.source, whole, placeholders)
    if edit is None:
        return None
    names = ", ".join(f"`{name}`" for name in identifying_arguments(facts.task))
    return SuggestedFix(f"Build the key from the task's {names}", UNSAFE, (edit,))
