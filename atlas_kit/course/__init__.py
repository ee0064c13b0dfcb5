"""The course's machinery: setting up a chapter and running the course (runner), the exercise checks (checks/),
grading a class (grading/) and the build-it-yourself harness of chapter 13 (byo/).

Chapters call `setup()` first; `atlas-kit course` and `atlas-kit grade` drive the rest.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import exports

if TYPE_CHECKING:
    from .runner import listed as listed, setup as setup

__getattr__, __dir__, __all__ = exports(__name__, __file__)
