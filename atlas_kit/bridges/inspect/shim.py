"""The one place atlas_kit reaches into inspect_ai's private modules, because inspect_ai has no public name for it.

`PrerequisiteError` (inspect_ai._util.error, 0.3.285): inspect's CLI prints an exception of this class as its
message alone, with no traceback, so a bad `-T` or `-M` value (episode.ArgumentError) reads as one line. If a later
inspect_ai moves it, this module falls back to Exception: ArgumentError is still raised, and still a ValueError,
only printed with a traceback. tests/test_inspect_task.py fails when the private name moves, so it is noticed.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

__all__ = ["PRIVATE_NAMES", "PrerequisiteError"]

PRIVATE_NAMES = {"PrerequisiteError": "inspect_ai._util.error"}
"""Each private name this module takes from inspect_ai, and the module it is taken from."""


def _prerequisite_error() -> type[Exception]:
    try:
        found = getattr(importlib.import_module(PRIVATE_NAMES["PrerequisiteError"]), "PrerequisiteError")
    except (ImportError, AttributeError):
        return Exception
    return found if isinstance(found, type) and issubclass(found, Exception) else Exception


if TYPE_CHECKING:
    from inspect_ai._util.error import PrerequisiteError
else:
    PrerequisiteError = _prerequisite_error()
