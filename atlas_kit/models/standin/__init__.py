"""The offline stand-in: a documented, rule-based program served through the real SDK, not a language model.

It plans Atlas tickets from their words (planner), reads only the cues in reading.CUES in an error's text
(reading), follows a contract error's `retryable` and `next`, and otherwise draws an unguided behaviour from a
seeded Profile (model). It shows the mechanics; a live or local model gives the evidence. Chapter 00.
"""
from __future__ import annotations

import typing as _typing

from ..._lazy import lazy_exports as _lazy_exports

if _typing.TYPE_CHECKING:
    from .model import (DEFAULT_PROFILE, OFFLINE_MODEL, OfflineModel, PROFILES, Profile, STANDIN_SOURCE, UNGUIDED,
        offline_client)
    from .reading import CUES, ERROR_MARKS, Reading, read_error, reads_as_error
    from .planner import CHANGING, Done, Goal, GoalContext, GoalKind, PlannedCall, answer, fix_call, plan, switch_call

_WHERE = {
    "CHANGING": "planner",
    "CUES": "reading",
    "DEFAULT_PROFILE": "model",
    "Done": "planner",
    "ERROR_MARKS": "reading",
    "Goal": "planner",
    "GoalContext": "planner",
    "GoalKind": "planner",
    "OFFLINE_MODEL": "model",
    "OfflineModel": "model",
    "PROFILES": "model",
    "PlannedCall": "planner",
    "Profile": "model",
    "Reading": "reading",
    "STANDIN_SOURCE": "model",
    "UNGUIDED": "model",
    "answer": "planner",
    "fix_call": "planner",
    "offline_client": "model",
    "plan": "planner",
    "read_error": "reading",
    "reads_as_error": "reading",
    "switch_call": "planner",
}
__getattr__, __dir__ = _lazy_exports(__name__, _WHERE)

__all__ = [
    "CHANGING", "CUES", "DEFAULT_PROFILE", "Done", "ERROR_MARKS", "Goal", "GoalContext", "GoalKind", "OFFLINE_MODEL",
    "OfflineModel", "PROFILES", "PlannedCall", "Profile", "Reading", "STANDIN_SOURCE", "UNGUIDED", "answer",
    "fix_call", "offline_client", "plan", "read_error", "reads_as_error", "switch_call",
]
