"""``idemlint rules``: the rules, as text or JSON.

Text: one line per rule, ``code  name  summary``.  JSON: an array of
objects, in code order, with the keys ``code``, ``name``, ``summary``,
``url`` (the rule's page) and ``fix_availability`` (what ``--fix`` can do
for it, as its page says; ``null`` when no fix is offered).
"""

from __future__ import annotations

import json
from typing import Dict, List, Optional, Sequence

from idemlint.urls import rule_url
from idemlint.rules import Rule


def render_rules_text(rules: Sequence[Rule]) -> str:
    width = max((len(rule.name) for rule in rules), default=0)
    return "".join(f"{rule.code}  {rule.name:<{width}}  {rule.summary}\n" for rule in rules)


def render_rules_json(rules: Sequence[Rule]) -> str:
    rows: List[Dict[str, Optional[str]]] = [
        {
            "code": rule.code,
            "name": rule.name,
            "summary": rule.summary,
            "url": rule_url(rule.code),
            "fix_availability": rule.fix_availability or None,
        }
        for rule in rules
    ]
    return json.dumps(rows, indent=2) + "\n"
