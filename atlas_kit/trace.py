"""The trace: the audience that gets the details the model never sees.

Structured, JSON-serialisable events (calls, retries, error details, loop breaks).
Anything that looks like an API key is redacted on the way in. Taught in chapter 07.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Iterator

__all__ = ["Trace", "redact"]

# Anthropic keys, bearer tokens and generic "api_key=..." pairs.
_SECRET = re.compile(r"sk-ant-[A-Za-z0-9_\-]{4,}|(?i:bearer\s+)[A-Za-z0-9._\-]{12,}|(?i:api[_-]?key[\"']?\s*[:=]\s*[\"']?)[^\s\"',}]{8,}")


def redact(value: Any) -> Any:
    """Return `value` with every key-like string replaced by a marker, recursively."""
    if isinstance(value, str):
        return _SECRET.sub("[redacted]", value)
    if isinstance(value, dict):
        return {str(k): redact(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact(v) for v in value]
    if value is None or isinstance(value, (bool, int, float)):
        return value
    return redact(str(value))


@dataclass
class Trace:
    """An append-only list of events; `kind` names the event, the rest are its fields."""

    events: list[dict[str, Any]] = field(default_factory=list)

    def add(self, kind: str, **fields: Any) -> dict[str, Any]:
        event = {"seq": len(self.events), "kind": kind, **redact(fields)}
        self.events.append(event)
        return event

    def of_kind(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["kind"] == kind]

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.events)

    def __len__(self) -> int:
        return len(self.events)

    def to_json(self) -> str:
        return json.dumps(self.events, ensure_ascii=False)
