"""Documentation generated from rule metadata: rule pages, README table.

``python -m idemlint.docs`` rewrites ``docs/rules/`` and the rule table
between the markers in ``README.md``; a test fails when the committed copies
differ from what this module renders.
"""

from __future__ import annotations

import pathlib
import re
import sys
from typing import Dict

from idemlint.rules import RULES, Rule

TABLE_START = "<!-- rules-table-start -->"
TABLE_END = "<!-- rules-table-end -->"
BANNER = "<!-- Generated from the rule's metadata by `python -m idemlint.docs`; do not edit. -->"


def rule_page(rule: Rule) -> str:
    """The Markdown page of one rule (also what ``idemlint explain`` prints)."""
    sections = [
        BANNER,
        f"# {rule.code} {rule.name}",
        rule.summary + ".",
        "## What it finds",
        rule.what,
        "## Why is this bad?",
        rule.why,
        "## Example",
        f"```python\n{rule.example.rstrip()}\n```",
        "## Use instead",
        rule.fix,
        f"```python\n{rule.use_instead.rstrip()}\n```",
    ]
    if rule.limits:
        sections += ["## Known limits", rule.limits]
    sections += [
        "## Suppression",
        f"`# noqa: {rule.code}` on the reported line, in flake8 and in the CLI alike.",
    ]
    return "\n\n".join(sections) + "\n"


def rules_table() -> str:
    rows = [
        "| code | name | finds |",
        "| --- | --- | --- |",
        *(
            f"| [{r.code}](docs/rules/{r.code}.md) | `{r.name}` | {r.summary} |"
            for r in RULES
        ),
    ]
    return "\n".join(rows)


def rendered_pages() -> Dict[str, str]:
    return {f"{rule.code}.md": rule_page(rule) for rule in RULES}


def readme_with_table(readme: str) -> str:
    pattern = re.compile(re.escape(TABLE_START) + ".*?" + re.escape(TABLE_END), re.S)
    replacement = f"{TABLE_START}\n{rules_table()}\n{TABLE_END}"
    return pattern.sub(lambda _: replacement, readme)


def write(root: pathlib.Path) -> None:
    pages = root / "docs" / "rules"
    pages.mkdir(parents=True, exist_ok=True)
    for name, text in rendered_pages().items():
        (pages / name).write_text(text, encoding="utf-8")
    readme = root / "README.md"
    readme.write_text(readme_with_table(readme.read_text(encoding="utf-8")), encoding="utf-8")


if __name__ == "__main__":
    write(pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else pathlib.Path.cwd())
