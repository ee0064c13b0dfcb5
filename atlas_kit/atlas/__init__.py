"""Atlas, a fictional billing and catalogue company: the world the course's agents work in.

data and records (what exists), tools, handlers and rules (what an agent may do), faults (what goes
wrong), styles (a failure in every wording), tickets and outcome (the work and how it is
checked), session (one ticket ready to run) and grade (was it right). Chapters 04 and 10.
"""
from __future__ import annotations

from .data import World
from .faults import Fault, FaultSchedule, KINDS, always, sometimes
from .formats import money
from .grade import Grade, LABELS, grade
from .outcome import call
from .session import Session, atlas_session, play
from .styles import catalogue
from .tickets import ALL_TICKETS, TICKETS, Ticket, ticket
from .tools import TOOL_NAMES

__all__ = ["ALL_TICKETS", "Fault", "FaultSchedule", "Grade", "KINDS", "LABELS", "Session", "TICKETS", "TOOL_NAMES",
    "Ticket", "World", "always", "atlas_session", "call", "catalogue", "grade", "money", "play", "sometimes",
    "ticket"]
