"""Every code a cache entry may hold, known without importing the rule registry.

A run served from the cache checks each stored code against these (the
registry imports libcst, which such a run never loads); a test keeps
:data:`RULE_CODES` equal to the registry's codes.
"""

from __future__ import annotations

RULE_CODES = frozenset(f"IDM{number:03d}" for number in range(1, 14))
INTERNAL_ERROR = "IDM900"
# A file whose analysis the time limit cut (idemlint.deadline).
TIMED_OUT = "IDM902"
# A file that could not be read (E902) or parsed (E999), as flake8 names
# them, or analysed (IDM900, IDM902).
FILE_PROBLEM_CODES = frozenset({"E902", "E999", INTERNAL_ERROR, TIMED_OUT})
