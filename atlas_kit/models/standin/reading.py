"""How the offline stand-in reads a failed tool result: the contract, or a cue in plain text.

A contract body is followed as written (`next`, else `retryable`). Raw or generic text
is searched for the explicit cues listed in CUES, and nothing else. Taught in chapters
01 and 02, where the same failure reads differently in each style.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Iterable

# The only things the stand-in can read in text that is not a contract body, strongest first.
CUES: tuple[tuple[str, str, str], ...] = (
    ("tell the customer", r"\btell the (?:customer|user)\b", "stop"),
    ("do not", r"\b(?:do not|don't|must not)\b", "stop"),
    ("named tool", r"", "switch_tool"),  # a tool from the request's tool list, named in the text
    ("must be", r"\bmust (?:be|look like|match)\b", "retry_changed"),
    ("retry-after", r"\bretry[- ]after\b[^0-9]{0,12}(\d+(?:\.\d+)?)", "retry_unchanged"),
    ("try again", r"\b(?:please )?try again\b", "retry_unchanged"),
)


# When a tool result carries no is_error flag (Ollama and llama-server drop it on the way to the model), the
# stand-in takes it for an error only when its text is a contract or article body, or starts as one of these.
ERROR_MARKS = re.compile(
    r"^\s*(?:Traceback \(most recent call last\)|HTTP(?:/\d\.\d)? [45]\d\d\b|[A-Z]{2,5}-\d{3,5}:|"
    r"(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|NotFound|NoResultFound|Canceled|Violation)\b|"
    r"(?:[a-z_]\w*\.)+[A-Z]\w*:|Error\b|An error occurred\b|<(?:!DOCTYPE|html)\b)", re.IGNORECASE)


def reads_as_error(text: str) -> bool:
    """Whether a result that says nothing about being an error reads as one: the stand-in's rule for a server that
    drops `is_error` (chapter 03: the three styles must be told apart by their text alone)."""
    try:
        body = json.loads(text)
    except ValueError:
        return bool(ERROR_MARKS.match(text))
    return isinstance(body, dict) and isinstance(body.get("error") or body.get("code"), (str, dict)) \
        and any(k in body for k in ("message", "retryable", "suggested_fix"))


@dataclass(frozen=True)
class Reading:
    """What the text told the model to do. `branch` is None when it gave no usable cue."""

    branch: str | None
    cue: str
    tool: str | None = None
    argument: str | None = None
    message: str = ""
    retry_after: float | None = None


def read_error(text: str, *, tools: Iterable[str] = (), arguments: Iterable[str] = ()) -> Reading:
    """Read one error result's text. `tools` and `arguments` are the names the request declared."""
    contract = _contract(text)
    if contract is not None:
        return contract
    for cue, pattern, branch in CUES:
        if cue == "named tool":
            named = [t for t in tools if re.search(rf"\b{re.escape(t)}\b", text)]
            if named:
                return Reading("switch_tool", cue, tool=named[0])
            continue
        match = re.search(pattern, text, re.IGNORECASE)
        if match is None:
            continue
        if cue == "retry-after":
            return Reading(branch, cue, retry_after=float(match.group(1)))
        if cue == "must be":
            named_args = [a for a in arguments if re.search(rf"\b{re.escape(a)}\b", text)]
            return Reading(branch, cue, argument=named_args[0] if named_args else None)
        return Reading(branch, cue)
    return Reading(None, "none")


def _contract(text: str) -> Reading | None:
    try:
        body = json.loads(text)
    except (ValueError, TypeError):
        return None
    if not isinstance(body, dict) or "error" not in body or not isinstance(body.get("retryable"), bool):
        return None
    nxt = body.get("next") if isinstance(body.get("next"), dict) else None
    message = " ".join(str(x) for x in (body.get("message"), (nxt or {}).get("say")) if x)
    if nxt and nxt.get("branch") in ("retry_unchanged", "retry_changed", "switch_tool", "stop"):
        return Reading(nxt["branch"], "contract", tool=nxt.get("tool"), argument=nxt.get("argument"), message=message)
    # No branch named: `retryable` is still an explicit signal, but says nothing about what to change.
    if body["retryable"]:
        return Reading("retry_changed", "contract (retryable, no next)", message=message)
    return Reading("stop", "contract (not retryable, no next)", message=message)
