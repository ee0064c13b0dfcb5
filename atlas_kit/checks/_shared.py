"""Helpers several chapters' checks share: run a ticket offline with the learner's error in place of
Atlas's own and say what followed (chapters 00-03); call a learner's handler, dispatch one tool_use, and
run a session offline (04-12). Each chapter's own data and grading live in its chNN module.
"""
from __future__ import annotations

import copy
import json
from typing import Any, Callable

from ..agent import Bounds, Run, run_agent
from ..atlas import atlas_session, grade, style_named
from ..dispatch import CallContext, Dispatcher, Tool
from ..errors import ToolError, ToolFailure
from ..models import SIMULATED
from ..offline import OFFLINE_MODEL, Profile, offline_client


# --- chapters 00-03: run a ticket with the learner's error in place of Atlas's own -----------


def _offline_run(ticket: str, *, tool: str | None = None, failure: ToolFailure | None = None, seed: int = 0) -> Run:
    """Run `ticket` with the stand-in; with `failure`, the first call to `tool` fails with it instead."""
    session = atlas_session(ticket, seed=seed)
    if tool is not None and failure is not None:
        real, calls = session.dispatcher.tools[tool], [0]

        def handler(args: dict[str, Any], ctx: Any) -> Any:
            calls[0] += 1
            if calls[0] == 1:
                raise failure
            return real.handler(args, ctx)

        wrapped = copy.copy(real)
        wrapped.handler = handler
        session.dispatcher.tools[tool] = wrapped
    return run_agent(offline_client(seed=seed), session, model=OFFLINE_MODEL, source=SIMULATED)


def _as_failure(error: ToolError) -> ToolFailure:
    return ToolFailure(error.code, error.message, next=error.next, detail=error.detail)


def _move(run: Run) -> str:
    """What the model did right after the first tool error, in a few words."""
    for i, msg in enumerate(run.messages[:-1]):
        content = msg["content"]
        if isinstance(content, list) and any(b.get("is_error") for b in content):
            after = run.messages[i + 1]["content"]
            calls = [b["name"] for b in after if b["type"] == "tool_use"]
            return f"called {', '.join(calls)}" if calls else "answered the customer"
    return "never saw the error"


def _outcome(run: Run) -> str:
    """The end of a run for a message: what the model did, how it stopped, and why the grader said no."""
    move = _move(run)
    if move == "answered the customer":
        move += f" ({_clip(run.final_text)!r})"
    reasons = [r for r in grade(run).reasons if "Lookup(" not in r]  # a Lookup's repr says nothing to a learner
    why = f": {_clip(reasons[0])}" if reasons else ""
    return f"After your error the stand-in {move}, and {run.ticket.id} ended {run.stop_reason} but not correct{why}"


def _clip(text: str, limit: int = 90) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _error_shape(answer: Any) -> str | None:
    if not isinstance(answer, ToolError):
        return (f"The answer is a {type(answer).__name__}; build it with tool_error(tool_use_id, code, message, "
                "next=...) from atlas_kit.errors, which returns a ToolError.")
    return None


# --- chapters 04-12: call a learner's handler, dispatch one call, run a session offline -----


def _ctx() -> CallContext:
    return CallContext("toolu_check", 1, None)


def _attempt(handler: Callable[..., Any], args: dict[str, Any]) -> tuple[str, Any]:
    """Call a handler directly: ("ok", value), ("failure", ToolFailure) or ("crash", exception)."""
    try:
        return "ok", handler(dict(args), _ctx())
    except ToolFailure as failure:
        return "failure", failure
    except Exception as exc:  # the learner's handler is allowed to be wrong; say how
        return "crash", exc


def _crashed(exc: Exception, what: str) -> str:
    said = str(exc).split("\n")[0][:220]
    return f"Your handler raised {type(exc).__name__} {what} ({said}); fix it so that it fails only by raising ToolFailure."


def _body(block: Any) -> Any:
    try:
        return json.loads(block["content"])
    except (TypeError, ValueError, KeyError):
        return None


def _use(use_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": use_id, "name": name, "input": dict(args)}


def _dispatch(tool: Tool, args: dict[str, Any], *, style: str = "contract") -> dict[str, Any]:
    use = _use("toolu_check", tool.name, args)
    return Dispatcher([tool], style=style_named(style), run_id="check").dispatch([use]).results[0]


def _run(session: Any, *, bounds: Bounds | None = None, profile: Profile | None = None) -> Any:
    return run_agent(offline_client(seed=0, profile=profile), session, model=OFFLINE_MODEL, bounds=bounds)
