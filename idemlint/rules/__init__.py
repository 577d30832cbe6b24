"""The rule registry: every rule, in code order."""

from __future__ import annotations

from typing import Dict, Tuple

from idemlint.rules.base import ModuleRule, Rule, TaskRule, Violation
from idemlint.rules.idm001_nondeterministic_key import NondeterministicKey
from idemlint.rules.idm002_missing_idempotency_key import MissingIdempotencyKey
from idemlint.rules.idm003_marker_before_effect import MarkerBeforeEffect
from idemlint.rules.idm004_lock_without_ttl import LockWithoutTtl
from idemlint.rules.idm005_unsafe_lock_release import UnsafeLockRelease
from idemlint.rules.idm006_lock_ttl_below_time_limit import LockTtlBelowTimeLimit
from idemlint.rules.idm007_check_then_act_race import CheckThenActRace
from idemlint.rules.idm008_retry_changes_arguments import RetryChangesArguments
from idemlint.rules.idm009_acks_late_without_reject_on_worker_lost import (
    AcksLateWithoutRejectOnWorkerLost,
)
from idemlint.rules.idm010_side_effect_in_transaction import SideEffectInTransaction
from idemlint.rules.idm011_unique_constraint_only import UniqueConstraintOnly
from idemlint.rules.idm012_lock_result_ignored import LockResultIgnored
from idemlint.rules.idm013_unguarded_side_effect import UnguardedSideEffect

RULES: Tuple[Rule, ...] = (
    NondeterministicKey(),
    MissingIdempotencyKey(),
    MarkerBeforeEffect(),
    LockWithoutTtl(),
    UnsafeLockRelease(),
    LockTtlBelowTimeLimit(),
    CheckThenActRace(),
    RetryChangesArguments(),
    AcksLateWithoutRejectOnWorkerLost(),
    SideEffectInTransaction(),
    UniqueConstraintOnly(),
    LockResultIgnored(),
    UnguardedSideEffect(),
)

RULES_BY_CODE: Dict[str, Rule] = {rule.code: rule for rule in RULES}

__all__ = ["RULES", "RULES_BY_CODE", "ModuleRule", "Rule", "TaskRule", "Violation"]
