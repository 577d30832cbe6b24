from __future__ import annotations

import pathlib

FIXTURES = pathlib.Path(__file__).parent / "fixtures"
