"""Helpers several chapters' checks share: run a ticket offline with the learner's error in place of
Atlas's own (chapters 00-03); call a learner's handler, dispatch one tool_use, and run a session offline
(04-12); the names a message may use. What may be decided in words is in _text.py; each chapter's own data
and grading live in its chNN module.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Mapping

from ...agent import Bounds, Run, run_agent
from ...atlas.data import World
from ...atlas.session import atlas_session
from ...atlas.tools import build_tools
from ...atlas.faults import fail_first_call
from ...dispatch.styles import style_named
from ...atlas.session import Session
from ...contract.redaction import redact
from ...dispatch.tool import CallContext, Handler, Tool
from ...dispatch.dispatcher import Dispatcher
from ...contract.errors import ToolError, ToolFailure
from ...models.standin.model import OFFLINE_MODEL, STANDIN_SOURCE, Profile, offline_client
from ...types.sets import JSONObject
from ...types.api import ToolResultBlock, ToolUseBlock


# --- chapters 00-03: run a ticket with the learner's error in place of Atlas's own -----------


def _offline_run(ticket: str, *, tool: str | None = None, failure: ToolFailure | None = None, seed: int = 0) -> Run:
    """Run `ticket` with the stand-in; with `failure`, the first call to `tool` fails with it instead."""
    session = atlas_session(ticket, seed=seed)
    if tool is not None and failure is not None:
        session.dispatcher.tools[tool] = fail_first_call(session.dispatcher.tools[tool], failure)
    return run_agent(offline_client(seed=seed), session, model=OFFLINE_MODEL, source=STANDIN_SOURCE)


def _not_a_tool_error(answer: object) -> str:
    """What to say of an answer that should be a ToolError and is not."""
    return (f"The answer is a {type(answer).__name__}; build it with tool_error(tool_use_id, code, message, "
            "next=...) from atlas_kit, which returns a ToolError.")


# --- chapters 04-12: call a learner's handler, dispatch one call, run a session offline -----


def _ctx() -> CallContext:
    return CallContext("toolu_check", 1, None)


@dataclass(frozen=True)
class _Attempt:
    """A handler called directly: what it returned, or the ToolFailure it raised (`failure`), or the exception it
    crashed with (`crash`). At most one of failure and crash is set; with neither, `value` is what it returned."""

    value: object = None
    failure: ToolFailure | None = None
    crash: Exception | None = None


def _attempt(handler: Handler, args: JSONObject) -> _Attempt:
    """Call a handler directly, as the dispatcher would, and say how it ended."""
    try:
        return _Attempt(value=handler(dict(args), _ctx()))
    except ToolFailure as failure:
        return _Attempt(failure=failure)
    except Exception as exc:  # the learner's handler is allowed to be wrong; say how
        return _Attempt(crash=exc)


def _crashed(exc: Exception, what: str) -> str:
    said = redact(str(exc).split("\n")[0][:220])  # a handler's message may quote a key from its config
    return f"Your handler raised {type(exc).__name__} {what} ({said}); fix it so that it fails only by raising ToolFailure."


def _body(block: Mapping[str, object]) -> object:
    """A result block's content as JSON, or None when it is not JSON text."""
    content = block.get("content")
    try:
        return json.loads(content) if isinstance(content, (str, bytes, bytearray)) else None
    except ValueError:
        return None


def _use(use_id: str, name: str, args: JSONObject) -> ToolUseBlock:
    return {"type": "tool_use", "id": use_id, "name": name, "input": dict(args)}


def _dispatch(tool: Tool, args: JSONObject, *, style: str = "contract") -> ToolResultBlock:
    use = _use("toolu_check", tool.name, args)
    return Dispatcher([tool], style=style_named(style), run_id="check").dispatch([use]).results[0]


def _run(session: Session, *, bounds: Bounds | None = None, profile: Profile | None = None) -> Run:
    return run_agent(offline_client(seed=0, profile=profile), session, model=OFFLINE_MODEL, bounds=bounds)


# --- the names a message may use: Atlas's tools, their arguments and the values their schemas list ------------


@lru_cache(maxsize=1)
def atlas_names() -> frozenset[str]:
    """Every identifier a model-facing message may name: tool names, argument names, enum values (a queue's name)."""
    names: set[str] = set()
    for tool in build_tools(World(0), tenant="acme"):
        names.add(tool.name)
        for arg, spec in tool.input_schema.get("properties", {}).items():
            names.add(arg)
            names.update(v for v in spec.get("enum", ()) if isinstance(v, str))
    return frozenset(names)
