"""The rule registry: every rule, in code order."""

from __future__ import annotations

from typing import Dict, Tuple

from idemlint.rules.base import ModuleRule, Rule, TaskRule, Violation
from idemlint.rules.idm001_nondeterministic_key import NondeterministicKey
from idemlint.rules.idm002_missing_idempotency_key import MissingIdempotencyKey
from idemlint.rules.idm003_marker_before_effect import MarkerBeforeEffect
from idemlint.rules.idm004_lock_without_ttl import LockWithoutTtl

RULES: Tuple[Rule, ...] = (
    NondeterministicKey(),
    MissingIdempotencyKey(),
    MarkerBeforeEffect(),
    LockWithoutTtl(),
)

RULES_BY_CODE: Dict[str, Rule] = {rule.code: rule for rule in RULES}

__all__ = ["RULES", "RULES_BY_CODE", "ModuleRule", "Rule", "TaskRule", "Violation"]
