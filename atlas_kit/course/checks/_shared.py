"""Helpers several chapters' checks share: run a ticket offline with the learner's error in place of
Atlas's own (chapters 00-03); call a learner's handler, dispatch one tool_use, and
run a session offline (04-12); judge wording by the idea it carries, never by the stand-in's cues.
Each chapter's own data and grading live in its chNN module.
"""
from __future__ import annotations

import json
import re
from typing import Any, Callable

from ...agent import Bounds, Run, run_agent
from ...atlas import atlas_session, fail_first_call, style_named
from ...dispatch.dispatcher import Dispatcher
from ...dispatch.tool import CallContext, Tool
from ...contract.errors import ToolError, ToolFailure
from ...models.standin.model import OFFLINE_MODEL, Profile, offline_client
from ...types import SIMULATED, JSONObject, ToolResultBlock, ToolUseBlock


# --- chapters 00-03: run a ticket with the learner's error in place of Atlas's own -----------


def _offline_run(ticket: str, *, tool: str | None = None, failure: ToolFailure | None = None, seed: int = 0) -> Run:
    """Run `ticket` with the stand-in; with `failure`, the first call to `tool` fails with it instead."""
    session = atlas_session(ticket, seed=seed)
    if tool is not None and failure is not None:
        session.dispatcher.tools[tool] = fail_first_call(session.dispatcher.tools[tool], failure)
    return run_agent(offline_client(seed=seed), session, model=OFFLINE_MODEL, source=SIMULATED)


def _error_shape(answer: Any) -> str | None:
    if not isinstance(answer, ToolError):
        return (f"The answer is a {type(answer).__name__}; build it with tool_error(tool_use_id, code, message, "
                "next=...) from atlas_kit.errors, which returns a ToolError.")
    return None


# --- chapters 04-12: call a learner's handler, dispatch one call, run a session offline -----


def _ctx() -> CallContext:
    return CallContext("toolu_check", 1, None)


def _attempt(handler: Callable[..., Any], args: JSONObject) -> tuple[str, Any]:
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


def _use(use_id: str, name: str, args: JSONObject) -> ToolUseBlock:
    return {"type": "tool_use", "id": use_id, "name": name, "input": dict(args)}


def _dispatch(tool: Tool, args: JSONObject, *, style: str = "contract") -> ToolResultBlock:
    use = _use("toolu_check", tool.name, args)
    return Dispatcher([tool], style=style_named(style), run_id="check").dispatch([use]).results[0]


def _run(session: Any, *, bounds: Bounds | None = None, profile: Profile | None = None) -> Any:
    return run_agent(offline_client(seed=0, profile=profile), session, model=OFFLINE_MODEL, bounds=bounds)


# --- wording: the ideas a careful reader needs, never the stand-in's cue list (reading.CUES) -----
# Each helper accepts the many ways a person says one idea; tests/test_checks_*.py hold the phrasings.

_NOT = (r"(?:do not|don't|does not|doesn't|must not|mustn't|should not|shouldn't|may not|cannot|can't|never|no|not|"
        r"without|avoid|instead of|rather than)")
_NOT_LAST = {"not", "don't", "doesn't", "mustn't", "shouldn't", "cannot", "can't", "never", "no", "without", "avoid"}
# Words that may stand between a negation and the retry it forbids: "do not call it again", "do not wait or retry".
_FILLER = {"it", "this", "that", "the", "tool", "call", "calls", "again", "wait", "or", "and", "retry", "try", "to",
           "any", "more", "a", "same", "request", "once", "further", "be", "please"}
_RETRY_ASK = re.compile(r"\bre-?try\w*|\btry\b(?:\s+\w+){0,2}\s+again\b|\bcall\b(?:\s+\w+){0,3}\s+again\b|\brepeat\w*|"
                        r"\bwait\w*|\bin a (?:moment|minute|few \w+)|\d+(?:\.\d+)?\s*(?:ms|milliseconds?|secs?|seconds?|s)\b",
                        re.IGNORECASE)
_FOR_CUSTOMER = re.compile(r"\b(?:customer|user|they|them)\b", re.IGNORECASE)
_GUESS = r"(?:guess\w*|enumerat\w*|invent\w*|mak\w* up)"
_TRY = (r"(?:try\w*|tries|tried|look\w* up|query\w*|call\w*|search\w*|us(?:e|ing)|access\w*|attempt\w*|prob\w*|"
        r"scan\w*|pick\w*|substitut\w*|cycl\w* through|go through)")
_IDS = r"(?:ids?|identifiers?|accounts?|account numbers?|numbers?|skus?|products?|codes?|values?|invoices?|orders?|ones)\b"
_OTHER = (r"(?:others\b|(?:other|another|different|neighbou?r\w*|nearby|similar|adjacent|random|alternative|more)\s+"
          rf"(?:(?!\w+'s\b)\w+\s+)?{_IDS})")  # "another customer's account" names the refused one, not others
_FORBIDS = re.compile(
    rf"\b{_NOT}\b(?:\s+\w+){{0,3}}?\s+{_GUESS}|"  # do not guess / no guessing
    rf"\b{_NOT}\b(?:\s+\w+){{0,3}}?\s+{_TRY}\b[^.;:!?]{{0,30}}?\b{_OTHER}|"  # do not try other account ids
    rf"\b{_OTHER}[^.;:!?]{{0,30}}?\b(?:must|may|should|can|cannot|can't)\s+(?:not\s+)?(?:never\s+)?be\s+\w+|"  # ... must not be tried
    rf"\b(?:{_TRY}|{_GUESS})\b[^.;:!?]{{0,40}}?\b(?:is|are)\s+(?:not allowed|not permitted|forbidden|prohibited|off limits)|"
    r"\bonly\b[^.;:!?]{0,50}\b(?:the customer|the user|they)\b[^.;:!?]{0,15}\b(?:gave|gives|provided|named|sent|asked about)",
    re.IGNORECASE)
_STOP_ACTION = re.compile(
    r"\bstop\b|\bhalt\b|\bgive up\b|\bend (?:here|the (?:task|request|turn|conversation))\b|"
    r"\b(?:tell|inform|notify|ask|update|warn|advise)\b[^.;:!?]{0,30}\b(?:customer|user|them)\b|"
    r"\blet (?:the )?(?:customer|user|them) know\b|\bexplain\b[^.;:!?]{0,40}\b(?:customer|user)\b|"
    r"\bescalat\w*|\bhand (?:it |this |the request )?(?:over|off|to)\b|\bpass (?:it|this|the request) (?:on|to)\b|"
    r"\b(?:do not|don't|never|must not|should not|no more|no further)\s+(?:(?:it|the|this|that|tool|any|again)\s+)?"
    r"(?:re-?try\w*|retries|call\w*|try\w*|attempt\w*|repeat\w*|wait\w*)",
    re.IGNORECASE)


def _negated(before: str) -> bool:
    """Whether the words just before a match negate it: 'do not [call it] again', 'never [wait or] retry'."""
    words = [w.strip(",").lower() for w in before.split()]
    while words and words[-1] in _FILLER:
        words.pop()
    return bool(words) and (words[-1] in _NOT_LAST or " ".join(words[-2:]) in ("instead of", "rather than"))


def _asks_to_retry(text: str) -> str | None:
    """The first words asking the reader to wait or call again; a negated ask, or one for the customer, is fine."""
    for clause in re.finditer(r"[^.;:!?,]+", text):
        for match in _RETRY_ASK.finditer(clause.group(0)):
            before = clause.group(0)[: match.start()]
            if _negated(before) or _FOR_CUSTOMER.search(before):
                continue
            return match.group(0)
    return None


def _forbids_guessing(text: str) -> bool:
    """The text forbids trying other values: 'do not try other account ids', 'never guess', 'other ids must not be used'."""
    return _FORBIDS.search(text) is not None


def _says_what_to_do(text: str) -> bool:
    """The text gives an action a reader can take instead of another call: stop, tell the customer, do not retry."""
    return _STOP_ACTION.search(text) is not None
