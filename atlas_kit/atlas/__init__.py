"""Atlas, a fictional billing and catalogue company: the world the course's agents work in.

data and records (what exists), tools, handlers and rules (what an agent may do), faults (what goes
wrong), styles (a failure in every wording), tickets and outcome (the work and how it is
checked), session (one ticket ready to run) and grade (was it right). Chapters 04 and 10.
"""
from __future__ import annotations

from .data import QUEUES, REGIONS, TENANTS, World, money
from .faults import CELLS, IMPLICIT_KINDS, KINDS, Fault, FaultSchedule, always, cell_of, fail_first_call, sometimes
from .grade import LABELS, Grade, SimpleRun, grade
from .outcome import Call, Change, Escalation, Lookup, Outcome, Refund, Script, call
from .session import Session, atlas_session, play
from .styles import catalogue
from ..dispatch.styles import contract_style
from ..dispatch.styles import STYLES, generic_style, plain_style, raw_style, style_named
from .tickets import ALL_TICKETS, IMPLICIT_TICKETS, TICKETS, Ticket, ticket
from .tools import TOOL_NAMES, build_tools

__all__ = [
    "ALL_TICKETS",
    "CELLS",
    "IMPLICIT_KINDS",
    "IMPLICIT_TICKETS",
    "KINDS",
    "LABELS",
    "QUEUES",
    "REGIONS",
    "STYLES",
    "TENANTS",
    "TICKETS",
    "TOOL_NAMES",
    "Call",
    "Change",
    "Escalation",
    "Fault",
    "FaultSchedule",
    "Grade",
    "Lookup",
    "Outcome",
    "Refund",
    "Script",
    "Session",
    "SimpleRun",
    "Ticket",
    "World",
    "always",
    "atlas_session",
    "build_tools",
    "call",
    "catalogue",
    "cell_of",
    "contract_style",
    "fail_first_call",
    "generic_style",
    "grade",
    "money",
    "plain_style",
    "play",
    "raw_style",
    "sometimes",
    "style_named",
    "ticket",
]
