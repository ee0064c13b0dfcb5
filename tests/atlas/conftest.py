"""Shared fixture for the Atlas tests: single tool calls through a session's real Dispatcher."""
from __future__ import annotations

from typing import Any

import pytest

from atlas_kit.atlas import atlas_session
from atlas_kit.atlas.session import Session


class Caller:
    """Dispatches one tool call at a time; returns (tool_result block, Failure or None)."""

    def __init__(self, session: Session) -> None:
        self.session, self.n = session, 0

    def __call__(self, tool: str, **input: Any) -> tuple[dict[str, Any], Any]:
        self.n += 1
        block = {"type": "tool_use", "id": f"toolu_t{self.n:03d}", "name": tool, "input": input}
        out = self.session.dispatcher.dispatch([block])
        assert len(out.results) == 1 and out.results[0]["tool_use_id"] == block["id"]
        return out.results[0], (out.failures[0] if out.failures else None)


@pytest.fixture
def caller():
    """caller("T05", style=..., faults=...) -> a Caller on a fresh session of that ticket."""
    def make(ticket: str = "T01", **options: Any) -> Caller:
        return Caller(atlas_session(ticket, **options))
    return make
