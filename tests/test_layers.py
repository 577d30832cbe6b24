"""The layers keep their shape: rule pages read facts and no syntax, the
layers below the rules never import them, and every module imports on its
own (an import cycle shows up only in the order that starts inside it)."""

from __future__ import annotations

import ast
import pathlib
import subprocess
import sys
from typing import Iterator, List

import idemlint

PACKAGE = pathlib.Path(idemlint.__file__).parent
RULE_PAGES = sorted((PACKAGE / "rules").glob("idm*.py"))
# The layers below the rules: what they know is asked by the rules, never the reverse.
BELOW_THE_RULES = ("facts", "frameworks", "semantic")
# A page, as ruff's rules are: past this, analysis belongs in the layers below.
PAGE_LINES = 200


def imported(path: pathlib.Path) -> Iterator[str]:
    """Every module ``path`` imports, at any depth of its code."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield node.module


def modules() -> List[str]:
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def test_there_are_rule_pages_to_check() -> None:
    assert len(RULE_PAGES) == 13


def test_no_rule_page_imports_libcst() -> None:
    offenders = [path.name for path in RULE_PAGES if any(m.split(".")[0] == "libcst" for m in imported(path))]
    assert offenders == []


def test_every_rule_is_a_page() -> None:
    long = {path.name: n for path in RULE_PAGES if (n := len(path.read_text(encoding="utf-8").splitlines())) > PAGE_LINES}
    assert long == {}


def test_the_layers_below_the_rules_do_not_import_them() -> None:
    offenders = [
        str(path.relative_to(PACKAGE))
        for layer in BELOW_THE_RULES
        for path in sorted((PACKAGE / layer).glob("*.py"))
        if any(m == "idemlint.rules" or m.startswith("idemlint.rules.") for m in imported(path))
    ]
    assert offenders == []


def test_every_module_imports_on_its_own() -> None:
    # One interpreter, the package's modules forgotten before each import:
    # a cycle breaks only when the import starts inside it.
    script = (
        "import importlib, sys\n"
        "failed = []\n"
        "for name in sys.argv[1:]:\n"
        "    for loaded in [m for m in sys.modules if m == 'idemlint' or m.startswith('idemlint.')]:\n"
        "        del sys.modules[loaded]\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except Exception as error:\n"
        "        failed.append(f'{name}: {error!r}')\n"
        "print('\\n'.join(failed))\n"
    )
    names = [name for name in modules() if not name.endswith("__main__")]
    done = subprocess.run(
        [sys.executable, "-c", script, *names], capture_output=True, text=True, timeout=300, check=True
    )
    assert done.stdout.strip() == ""
