"""What became of one planned call in an audit: judged (with the reply and the rubric's judgement), accepted, skipped,
or no usable answer (timed out, crashed the server, an invalid reply), and whose words the reply was.

Types only; run.py makes them, fixed.py and report.py read them. Chapter 10.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ...contract.rubric import Judgement
from .cases import Case
from .replies import Origin
from .targets import Reply

__all__ = ["NO_ANSWER", "Outcome", "OutcomeKind"]

OutcomeKind = Literal["judged", "accepted", "skipped", "timeout", "invalid", "crashed", "not_run"]
"""judged: an answer the rubric scored; accepted: a call its schema allows that succeeded (no error to judge);
skipped: not made (side effects, the per-tool cap); timeout, invalid: no usable answer; crashed: the server closed
the connection on this call; not_run: the audit stopped before it."""

NO_ANSWER: frozenset[OutcomeKind] = frozenset({"timeout", "invalid", "crashed"})
"""Calls the model would get nothing usable from: each counts as an answer that scores 0."""


@dataclass(frozen=True)
class Outcome:
    """One case and what became of it: judged (with its reply), or why it was skipped or got no answer. `origin`:
    whose words the reply was (None where there was no reply to read)."""

    case: Case
    kind: OutcomeKind
    reason: str = ""
    reply: Reply | None = None
    judgement: Judgement | None = None
    origin: Origin | None = None
