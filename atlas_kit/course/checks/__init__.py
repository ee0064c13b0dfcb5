"""The exercises' checks: `check("03.1", answer)` and `hint("03.1")` (run.py), one module of checks per chapter
(ch00.py ... ch16.py), what they share (_registry.py, _shared.py, _text.py, _claims.py)."""
from __future__ import annotations

from ._registry import EXERCISES
from .run import check, hint

__all__ = ["EXERCISES", "check", "hint"]
