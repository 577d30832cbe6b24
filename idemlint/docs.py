"""Documentation generated from metadata: rule pages, README table, catalogue.

``python -m idemlint.docs`` rewrites ``docs/rules/``, the rule table between
the markers in ``README.md``, ``docs/catalogue.md`` (the APIs and
conventions :mod:`idemlint.catalog` holds) and :mod:`idemlint.rule_texts`
(the rules' texts for reports of cached runs); a test fails when the
committed copies differ from what this module renders.
"""

from __future__ import annotations

import pathlib
import sys
from typing import Dict, Iterable, List, Sequence

from idemlint import catalog
from idemlint.rules import RULES, Rule
from idemlint.urls import rule_url

TABLE_START = "<!-- rules-table-start -->"
TABLE_END = "<!-- rules-table-end -->"
BANNER = "<!-- Generated from the rule's metadata by `python -m idemlint.docs`; do not edit. -->"
CATALOGUE_BANNER = (
    "<!-- Generated from idemlint/catalog.py by `python -m idemlint.docs`; do not edit. -->"
)
CATALOGUE_POINTER = (
    "The APIs idemlint knows (side effects and their keys, HTTP semantics, "
    "key spellings, nondeterministic sources, locks) are listed in "
    "[docs/catalogue.md](../catalogue.md)."
)


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
    sections += [
        "## Fix availability",
        rule.fix_availability or "No fix is offered yet: the comment says what to change.",
    ]
    if rule.limits:
        sections += ["## Known limits", rule.limits]
    sections += [
        "## Suppression",
        f"`# noqa: {rule.code}` on the reported line, in flake8 and in the CLI alike.",
        "## The catalogue",
        CATALOGUE_POINTER,
    ]
    return "\n\n".join(sections) + "\n"


def rules_table() -> str:
    rows = [
        "| code | name | finds |",
        "| --- | --- | --- |",
        *(
            f"| [{r.code}]({rule_url(r.code)}) | `{r.name}` | {r.summary} |"
            for r in RULES
        ),
    ]
    return "\n".join(rows)


def catalogue_page() -> str:
    """``docs/catalogue.md``: what :mod:`idemlint.catalog` knows, as tables."""
    sections = [
        CATALOGUE_BANNER,
        "# The catalogue",
        "What idemlint knows about the outside world, rendered from "
        "`idemlint/catalog.py`. Calls are matched by their *resolved* name, after "
        "the module's imports and local bindings: `*` matches any characters, "
        "`{a,b}` either alternative, and `()` stands for an instance created by "
        "calling what precedes it (`requests.*().post` is `post` on a "
        "`requests.Session()`). A project adds its own APIs in `[tool.idemlint]` "
        "(`side-effects.keyable`, `side-effects.non-keyable`, `key-arguments`); "
        "see the README.",
        "## Keyable side effects",
        "APIs that accept an idempotency key. Without one, IDM002 reports the call; "
        "a key made inside the task from a random or time-based value is IDM001.",
        _table(
            ("family", "API", "calls", "key", "a redelivery", "library, signature read"),
            [
                (
                    effect.family,
                    effect.label,
                    _code(effect.pattern),
                    _key_places(effect),
                    effect.consequence,
                    _provenance(effect.library, effect.read),
                )
                for effect in catalog.KEYABLE_EFFECTS
            ],
        ),
        "## Non-keyable side effects",
        "APIs with no key: a second call is a second message. IDM013 reports one "
        "with no done-check or claim before it.",
        _table(
            ("family", "kind", "calls", "no repeat when the call passes", "library, signature read"),
            [
                (
                    effect.family,
                    effect.label,
                    _code(effect.pattern),
                    _codes(effect.dedup_names) if effect.dedup_names else "",
                    _provenance(effect.library, effect.read),
                )
                for effect in catalog.NON_KEYABLE_EFFECTS
            ],
        ),
        "## Messaging services over HTTP",
        "A `POST` straight to one of these URLs (a case-insensitive glob over the "
        "URL's literal text, an expression inside it standing for any text) sends "
        "a message no key can dedupe: a non-keyable side effect, for IDM013, not "
        "an unkeyed call.",
        _table(
            ("kind", "URL", "read"),
            [(api.label, _code(api.url), api.read) for api in catalog.HTTP_MESSAGE_APIS],
        ),
        "A `POST` to one of these only reads (Slack's Web API takes its read "
        "methods by `POST` too), and is no effect: "
        + ", ".join(_code(url) for url in catalog.HTTP_READ_URLS)
        + ".",
        "Nor is a `POST` to one of these, which moves a resource to the workflow "
        "state it names (a repeat is refused, or lands in the same state): "
        + ", ".join(_code(url) for url in catalog.HTTP_TRANSITION_URLS)
        + ".",
        "## HTTP semantics",
        "An HTTP call of the catalogue is an effect by its method (RFC 9110, "
        f"section 9.2.2): {_codes(sorted(catalog.KEYABLE_HTTP_METHODS))} are keyable "
        f"effects; {_codes(sorted(catalog.IDEMPOTENT_HTTP_METHODS))} are idempotent "
        "and are effects only for an API listed below as breaking that; the safe "
        "methods are never effects.",
        "APIs whose `PUT` or `DELETE` is not idempotent:",
        _table(
            ("API", "URL", "methods", "a redelivery"),
            [
                (api.label, _code(api.url), _codes(api.methods), api.consequence)
                for api in catalog.NON_IDEMPOTENT_HTTP_APIS
            ],
        )
        if catalog.NON_IDEMPOTENT_HTTP_APIS
        else "None yet.",
        "A `POST` whose URL path ends in one of these segments (compared without "
        "case, `-` or `_`, the query dropped) exchanges credentials for a token or "
        "a session and is not an effect: "
        + ", ".join(f"`/{'/'.join(ending)}`" for ending in catalog.TOKEN_EXCHANGE_PATH_ENDINGS)
        + ".",
        "Nor is a `POST` whose URL path ends in one of these, compared the same way: a "
        "search that takes its query in the body and only reads: "
        + ", ".join(f"`/{'/'.join(ending)}`" for ending in catalog.QUERY_PATH_ENDINGS)
        + ".",
        "## Keys",
        "Idempotency-key spellings, as keyword arguments or header names, compared "
        "without case, `-` or `_` (so `idempotencykey` is `idempotency_key`, "
        f"`Idempotency-Key` and `idempotencyKey`): {_codes(sorted(catalog.KEY_SPELLINGS))}.",
        "Other keyword arguments that are dedup or lock keys (IDM001), compared the same way: "
        f"{_codes(sorted(catalog.KEY_KEYWORDS - catalog.KEY_SPELLINGS))}.",
        "Delivery or event id headers, keys the receiver deduplicates on (IDM001): "
        + ", ".join(
            [f"`{name}`" for name in sorted(catalog.DELIVERY_ID_HEADERS)]
            + [
                "`X-<Vendor>-" + "-".join(word.capitalize() for word in suffix) + "`"
                for suffix in catalog.DELIVERY_ID_HEADER_SUFFIXES
            ]
        )
        + ". A vendor part holding "
        + _codes(sorted(catalog.TRACE_ID_HEADER_WORDS))
        + " makes it a request or trace id, never a key.",
        "## Nondeterministic sources",
        "Calls whose value differs on every run (IDM001): random values "
        f"{_codes(catalog.RANDOM_SOURCES)}, readings of the clock "
        f"{_codes(catalog.CLOCK_SOURCES)}, and `hash()` of a string. IDM001's fix "
        "replaces a random value only: a time in a key may name the period the work belongs to.",
        "## Distributed locks",
        "Calls that take a lock (IDM004, IDM006, IDM012), and where their expiry goes.",
        _table(
            ("lock", "calls", "expiry"),
            [
                (api.label, _code(api.pattern), _lock_expiry(api))
                for api in catalog.LOCK_APIS
            ],
        ),
    ]
    return "\n\n".join(sections) + "\n"


def _table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def _code(text: str) -> str:
    return f"`{text}`"


def _codes(texts: Iterable[str]) -> str:
    return ", ".join(_code(text) for text in texts)


def _provenance(library: str, read: str) -> str:
    return "; ".join(part for part in (_code(library) if library else "", read) if part)


def _key_places(effect: catalog.KeyableEffect) -> str:
    places: List[str] = ["a keyword of an accepted spelling"]
    if effect.key_names:
        places.append(f"its own {_codes(effect.key_names)}")
    if effect.key_containers:
        places.append(f"a key entry in {_codes(effect.key_containers)}")
    if effect.key_position is not None:
        places.append(f"positional argument {effect.key_position + 1}")
    if effect.opaque_positional:
        places.append("a positional options object we cannot see")
    if effect.url_position is not None:
        places.append(f"methods {_codes(sorted(catalog.KEYABLE_HTTP_METHODS))} only")
    if effect.key_keyword:
        places.append(f"IDM002's fix passes `{effect.key_keyword}=`")
    elif effect.url_position is not None:
        places.append(f"IDM002's fix sends an `{catalog.IDEMPOTENCY_HEADER}` header")
    return "; ".join(places)


def _lock_expiry(api: catalog.LockApi) -> str:
    if api.never_expires:
        return "none possible"
    where = [_codes(api.ttl_keywords)] if api.ttl_keywords else []
    if api.ttl_position is not None:
        where.append(f"positional argument {api.ttl_position + 1}")
    default = "; the store's default when omitted" if api.default_expires else ""
    return " or ".join(where) + default


def rendered_pages() -> Dict[str, str]:
    return {f"{rule.code}.md": rule_page(rule) for rule in RULES}


def readme_with_table(readme: str) -> str:
    """``readme`` with the text between each table marker and the end marker after it replaced."""
    replacement = f"{TABLE_START}\n{rules_table()}\n{TABLE_END}"
    parts: List[str] = []
    position = 0
    while True:
        start = readme.find(TABLE_START, position)
        end = readme.find(TABLE_END, start + len(TABLE_START)) if start >= 0 else -1
        if end < 0:
            return "".join(parts) + readme[position:]
        parts += [readme[position:start], replacement]
        position = end + len(TABLE_END)


RULE_TEXTS_MODULE = "idemlint/rule_texts.py"


def rule_texts_module() -> str:
    """The source of :mod:`idemlint.rule_texts`: what reports say of each
    rule, readable without importing the registry (which imports libcst)."""
    lines = [
        '"""What the reports say of each rule, readable without the rule registry.',
        "",
        "Generated from the rules' metadata by ``python -m idemlint.docs``; do not",
        "edit (a test fails when this file differs from what the registry renders).",
        "A run served from the cache never imports the registry, which imports",
        "libcst: its reports describe codes from here (idemlint.report.meta).",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "from typing import Dict, Tuple",
        "",
        "# Each code's name, summary, why, fix and use_instead.",
        "RULE_TEXTS: Dict[str, Tuple[str, str, str, str, str]] = {",
    ]
    for rule in RULES:
        lines.append(f"    {rule.code!r}: (")
        lines += [f"        {text!r}," for text in (rule.name, rule.summary, rule.why, rule.fix, rule.use_instead)]
        lines.append("    ),")
    lines.append("}")
    return "\n".join(lines) + "\n"


def write(root: pathlib.Path) -> None:
    (root / RULE_TEXTS_MODULE).write_text(rule_texts_module(), encoding="utf-8")
    pages = root / "docs" / "rules"
    pages.mkdir(parents=True, exist_ok=True)
    for name, text in rendered_pages().items():
        (pages / name).write_text(text, encoding="utf-8")
    (root / "docs" / "catalogue.md").write_text(catalogue_page(), encoding="utf-8")
    readme = root / "README.md"
    readme.write_text(readme_with_table(readme.read_text(encoding="utf-8")), encoding="utf-8")


if __name__ == "__main__":
    write(pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else pathlib.Path.cwd())
