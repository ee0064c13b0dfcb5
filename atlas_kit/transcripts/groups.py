"""Errors grouped by their masked text (mask.py): how many errors, in how many episodes, from which tools, and
recovery among the episodes each group reached. A group's recovery is observational like recovery.py's: a
group's errors come with its tasks. Chapter "Errors in the wild".
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from ..stats import Rate
from .analysis import ErrorEvent
from .masking import shown


@dataclass(frozen=True)
class ErrorGroup:
    """One masked error text: `errors` the errors with it, `episodes` the episodes (file, id) it reached, `tools`
    the tools that returned it (sorted), `recovery` correct among those episodes whose outcome is known (an
    episode counts once however often the group reached it; `unknown` is left out), and one real `example`
    (redacted: masking.shown)."""

    masked: str
    errors: int
    episodes: tuple[tuple[str, str], ...]
    tools: tuple[str, ...]
    recovery: Rate
    unknown: int
    example: str


def error_groups(events: Iterable[ErrorEvent]) -> list[ErrorGroup]:
    """Every group, most errors first (ties by masked text)."""
    by: dict[str, list[ErrorEvent]] = {}
    for ev in events:
        by.setdefault(ev.masked, []).append(ev)
    groups = []
    for masked, evs in by.items():
        outcome = {(ev.file, ev.episode): ev.correct for ev in evs}
        known = [c for c in outcome.values() if c is not None]
        groups.append(ErrorGroup(masked, len(evs), tuple(outcome), tuple(sorted({ev.tool for ev in evs})),
                                 Rate(sum(known), len(known)), len(outcome) - len(known), shown(evs[0].text)))
    return sorted(groups, key=lambda g: (-g.errors, g.masked))
