"""HOOK: reading each real error text by the contract's rubric (does it state retryable, name a branch, name the
argument or the fix, echo input, carry internals). The rubric itself is being written elsewhere (issue 25's
rubric helper); this module only says what it is given and how its readings join the error rows.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Generic, Iterable, TypeVar

from ..types import JSONObject
from .analysis import ErrorEvent

__all__ = ["RubricInput", "RubricReading", "read_by_rubric", "rubric_input"]

Reading = TypeVar("Reading")


@dataclass(frozen=True)
class RubricInput:
    """What the rubric reads of one real error: the tool, the call's arguments (to tell an echo of the input
    from the text's own words) and the text the model read."""

    tool: str
    arguments: JSONObject | str
    text: str


@dataclass(frozen=True)
class RubricReading(Generic[Reading]):
    """One error event and the rubric's reading of it (whatever type the rubric returns). A reading of someone
    else's text is a heuristic, and the chapter must say so."""

    event: ErrorEvent
    reading: Reading


def rubric_input(event: ErrorEvent) -> RubricInput:
    """The rubric's view of one event."""
    return RubricInput(event.tool, event.arguments, event.text)


def read_by_rubric(events: Iterable[ErrorEvent],
                   rubric: Callable[[RubricInput], Reading]) -> list[RubricReading[Reading]]:
    """HOOK: apply the contract's rubric (a function of RubricInput, to be supplied by the rubric's module) to
    every event, keeping each reading beside its event. No rubric ships here: pass it in."""
    return [RubricReading(ev, rubric(rubric_input(ev))) for ev in events]
