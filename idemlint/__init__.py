"""idemlint: find idempotency bugs in Python background tasks."""

from idemlint.engine import LintResult, lint_paths, lint_source
from idemlint.findings import FileProblem, Finding
from idemlint.settings import Settings

__version__ = "0.1.0"

__all__ = [
    "FileProblem",
    "Finding",
    "LintResult",
    "Settings",
    "__version__",
    "lint_paths",
    "lint_source",
]
