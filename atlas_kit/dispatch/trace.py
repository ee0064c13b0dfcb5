"""The trace: the audience that gets the details the model never sees.

Structured, JSON-serialisable events (calls, retries, error details, loop breaks).
Anything that looks like a key or a password is redacted on the way in, by the same `redact`
that results files, cassettes, transcripts and printed notes go through. Taught in chapter 07.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Iterator, cast

from ..contract.redaction import redact
from ..types.events import EventKind, TraceEvent, events_of

@dataclass
class Trace:
    """An append-only list of events (types.TraceEvent); `kind` names the event, the rest are its fields."""

    events: list[TraceEvent] = field(default_factory=list)

    def add(self, kind: EventKind, **fields: object) -> TraceEvent:
        """Append one event, its fields redacted, numbered by `seq`; returns it."""
        event = cast(TraceEvent, {"seq": len(self.events), "kind": kind, **redact(fields)})
        self.events.append(event)
        return event

    of_kind = events_of  # trace.of_kind("error") is a list of ErrorEvent, and so on for each kind

    def __iter__(self) -> Iterator[TraceEvent]:
        return iter(self.events)

    def __len__(self) -> int:
        return len(self.events)

    def to_json(self) -> str:
        """Every event as one JSON array."""
        return json.dumps(self.events, ensure_ascii=False)
