"""Where idemlint lives: its repository, and the pages read away from it.

``REPOSITORY`` is the one setting, and ``BRANCH`` the branch whose files the
documentation links show.  Every link that is read somewhere else is built
from them: SARIF's ``informationUri`` and ``helpUri``, rdjson's source and
code URLs, and the README's links, which PyPI shows as the project's
description without the repository's files beside it.  ``pyproject.toml``
cannot read a constant, so its ``[project.urls]`` table spells out
``PROJECT_URLS``; ``tests/test_urls.py`` fails when that table, the README or
a report names any other location, or a file a link points to is missing.
"""

from __future__ import annotations

from typing import Dict

REPOSITORY = "https://github.com/idemlint/idemlint"
BRANCH = "main"


def file_url(path: str) -> str:
    """The page of ``path`` (relative to the repository root) on ``BRANCH``."""
    return f"{REPOSITORY}/blob/{BRANCH}/{path}"


def rule_url(code: str) -> str:
    """The documentation page of one rule."""
    return file_url(f"docs/rules/{code}.md")


# [project.urls] in pyproject.toml, label by label.
PROJECT_URLS: Dict[str, str] = {
    "Homepage": REPOSITORY,
    "Documentation": file_url("README.md"),
    "Repository": REPOSITORY,
    "Issues": f"{REPOSITORY}/issues",
    "Changelog": file_url("CHANGELOG.md"),
}
