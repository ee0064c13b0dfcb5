"""The offline stand-in: a documented, rule-based program served through the real SDK, not a language model.

It plans Atlas tickets from their words (planner), reads only the cues in reading.CUES in an error's text
(reading), follows a contract error's `retryable` and `next`, and otherwise draws an unguided behaviour from a
seeded Profile (model). It shows the mechanics; a live or local model gives the evidence. Chapter 00.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..._lazy import exports

if TYPE_CHECKING:
    from .model import OfflineModel as OfflineModel, PROFILES as PROFILES, Profile as Profile, UNGUIDED as UNGUIDED
    from .reading import read_error as read_error

__getattr__, __dir__, __all__ = exports(__name__, __file__)
