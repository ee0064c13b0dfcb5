"""Grade a class: run every learner's exercise notebook offline, confined, and report per exercise and learner.

`atlas-kit grade SUBMISSION... --out DIR` calls `grade_class`. collect reads and identifies the notebooks,
execute runs each in its own kernel (kernel confines it, probe guards it, take takes the answers out) and checks
the answers in a fresh one (judge), report writes the files.
README's "For teachers" section describes the report. Its names load on first use (classroom.py holds
grade_class): the checking kernel imports judge.py alone.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..._lazy import exports

if TYPE_CHECKING:
    from .classroom import grade_class as grade_class
    from .records import Gradebook as Gradebook
    from .report import summarize as summarize

__getattr__, __dir__, __all__ = exports(__name__, __file__)
