"""What the Messages API hands back: a well-formed reply, or an API failure with its reason.

The SDK builds its response objects without validating them, so a 200 whose JSON is not a
message still arrives as a `Message`. Everything is checked here, before the agent loop reads
it, and every exception is sorted into a reason. Taught in chapters 09 and 11.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal, Protocol, TypeGuard, cast

from ..contract.redaction import redact
from ..types.sets import API_STOP_REASONS, DEFAULT_MODEL, APIStopReason, JSONObject
from ..types.api import Block, ToolUseBlock

FailureReason = Literal["authentication", "permission", "not_found", "rate_limit", "overloaded", "server_error",
                        "timeout", "connection", "bad_request", "too_large", "bad_body", "replay_miss", "other"]
# Failures that every later call would repeat: a sweep stops at the first one.
FATAL: frozenset[str] = frozenset({"authentication", "permission", "not_found"})
# The most tokens one call can read and write together: the largest context window a served model is published
# with (10 million tokens, Llama 4 Scout; Claude's is at most 1 million). A call holds no more than its model's
# window, so a usage figure above this is a broken count, never a bill: the body is refused as bad_body.
MAX_CALL_TOKENS = 10_000_000

_FIX: dict[str, str] = {
    "authentication": "the API refused the key: check ANTHROPIC_API_KEY (a valid key for this organisation)",
    "permission": "the key may not use this model or endpoint: check the key's workspace and model access",
    "not_found": f"the API does not know this model or endpoint: check the model name (e.g. {DEFAULT_MODEL})",
    "rate_limit": "the API is rate-limiting this key: lower --concurrency or wait, then run again",
    "overloaded": "the API is overloaded: wait a few minutes, then run again",
    "server_error": "the API had an internal error: run again later",
    "timeout": "the call took longer than the timeout: run again, or raise APIRetry.timeout",
    "connection": "the API could not be reached: check the network and ANTHROPIC_BASE_URL",
    "bad_request": "the API refused the request as invalid: see the message",
    "too_large": "the request is larger than the API accepts: shorten the transcript or the tools",
    "bad_body": "the API answered with something that is not a message",
    "replay_miss": "the cassette holds no answer for this request: record the sweep again with these options",
    "other": "an unexpected error: see the message",
}

# What to do when the other side is a local server (Ollama, llama-server, another): it holds no key of ours, has no
# rate plan, and its address is --base-url, so the API's advice would send a learner to the wrong place.
_LOCAL_FIX: dict[str, str] = {
    "authentication": "the local server asks for a key, and atlas_kit sends a local server none: restart it without "
                      "one (llama-server: without --api-key)",
    "permission": "the local server refused the request: check its own access settings",
    "not_found": "the local server does not know this model or endpoint: check the model's name (ollama list) and "
                 "that the server serves the Anthropic Messages API at /v1/messages (a recent version does)",
    "rate_limit": "the local server is busy (429): lower --concurrency, or let its other work finish, then run again",
    "overloaded": "the local server is overloaded: wait, then run again",
    "server_error": "the local server had an internal error: see its log, then run again",
    "connection": "the local server could not be reached or dropped the connection: check that it runs at "
                  "--base-url (or ATLAS_BASE_URL)",
}


@dataclass(frozen=True)
class APIFailure:
    """A call that ended without a usable message: why (`reason`), the exception's name, and its text."""

    reason: FailureReason
    error: str
    message: str
    status: int | None = None

    @property
    def fix(self) -> str:
        return _FIX[self.reason]

    def line(self, *, local: bool = False) -> str:
        """One line for a person: the reason, what to do (for a local server when `local`), and the API's own
        words."""
        status = f"{self.status} " if self.status else ""
        fix = _LOCAL_FIX.get(self.reason, self.fix) if local else self.fix
        return f"{self.reason} ({status}{self.error}): {fix}. {self.message}"[:400]


@dataclass(frozen=True)
class Reply:
    """A checked reply: its blocks, the API's stop reason ("" when the server gave none), and its usage
    (`input_tokens`: the whole prompt, cached parts included; see prompt_tokens).

    Blocks the loop does not act on (thinking, server tools, newer kinds) are kept as they came, to be sent
    back; they are typed as `Block` though they are none of its three kinds, which nothing here reads.
    """

    content: list[Block]
    stop_reason: str
    input_tokens: int
    output_tokens: int

    @property
    def tool_uses(self) -> list[ToolUseBlock]:
        return [b for b in self.content if b["type"] == "tool_use"]

    @property
    def text(self) -> str:
        return "\n".join(b["text"] for b in self.content if b["type"] == "text").strip()


def failure_from(exc: BaseException) -> APIFailure:
    """Sort an exception raised by `messages.create` into a reason."""
    import anthropic  # here, not at the top: the agent loop imports this module and need not load the SDK

    from .api_retry import gave_up
    from .transport import ReplayMiss

    status = getattr(exc, "status_code", None)
    message = redact(str(exc))[:500]
    stopped = gave_up(exc)
    if stopped is not None:
        message = f"Gave up: {stopped.why}. {message}"[:500]
    reason: FailureReason
    if isinstance(exc, ReplayMiss):
        reason = "replay_miss"
    elif isinstance(exc, anthropic.AuthenticationError):
        reason = "authentication"
    elif isinstance(exc, anthropic.PermissionDeniedError):
        reason = "permission"
    elif isinstance(exc, anthropic.NotFoundError):
        reason = "not_found"
    elif isinstance(exc, anthropic.RateLimitError):
        reason = "rate_limit"
    elif isinstance(exc, anthropic.APIStatusError) and status == 529:
        reason = "overloaded"
    elif isinstance(exc, anthropic.APIStatusError) and status == 413:
        reason = "too_large"
    elif isinstance(exc, anthropic.BadRequestError):
        reason = "bad_request"
    elif isinstance(exc, anthropic.APIStatusError) and (status or 0) >= 500:
        reason = "server_error"
    elif isinstance(exc, anthropic.APITimeoutError):
        reason = "timeout"
    elif isinstance(exc, anthropic.APIConnectionError):
        reason = "connection"
    elif isinstance(exc, (ValueError, TypeError, KeyError, AttributeError)):  # the SDK could not parse the body
        reason = "bad_body"
    else:
        reason = "other"
    return APIFailure(reason, type(exc).__name__, message, status if isinstance(status, int) else None)


class _Dumpable(Protocol):
    """A pydantic model, as the SDK's `Message` is: it dumps itself to a dict."""

    def model_dump(self, *, mode: str, warnings: bool, exclude_none: bool) -> object: ...


def _dumpable(answer: object) -> TypeGuard[_Dumpable]:
    # What isinstance with a runtime-checkable protocol would test, at a fraction of its cost on every reply.
    return callable(getattr(answer, "model_dump", None))


def _bad(answer: object, why: str) -> APIFailure:
    return APIFailure("bad_body", type(answer).__name__, f"the API answered 200 with a body that is not a message: {why}.")


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def read_reply(answer: object, *, seen_ids: set[str] | frozenset[str] = frozenset()) -> Reply | APIFailure:
    """Check one answer of `messages.create`: an exception, a `Message`, a dict or anything else.

    `seen_ids` are the tool_use ids of earlier turns; reusing one, like repeating one within a
    reply, is a malformed body, because each id must get exactly one tool_result.
    """
    if isinstance(answer, BaseException):
        return failure_from(answer)
    body = _body(answer)
    if isinstance(body, str):
        return _bad(answer, body)
    why = _envelope(body)
    if why is not None:
        return _bad(answer, why)
    content = body.get("content")
    if content is None:  # Ollama sends null for a reply with no blocks: an empty answer, not a broken body
        content = []
    if not isinstance(content, list):
        return _bad(answer, f"content is {type(content).__name__}, not a list of blocks")
    blocks = _blocks(content, seen_ids)
    if isinstance(blocks, str):
        return _bad(answer, blocks)
    ids = {b["id"] for b in blocks if b["type"] == "tool_use"}
    stop = body.get("stop_reason") or ""  # a local server leaves it out when its model ended for no reason it names
    if stop == "tool_use" and not ids:
        return _bad(answer, "stop_reason tool_use with no tool_use block")
    if ids and stop in ("end_turn", "stop_sequence", "pause_turn"):  # finished or paused turns call no tool
        return _bad(answer, f"tool_use blocks in a reply that stopped on {stop}")
    return Reply(blocks, stop, prompt_tokens(body["usage"]), body["usage"]["output_tokens"])


# Where a server reports part of the prompt apart from `input_tokens`: Anthropic's prompt cache, and llama-server
# with its prompt cache warm ("input_tokens": 5, "cache_read_input_tokens": 225 for a 230-token prompt).
CACHE_FIELDS = ("cache_read_input_tokens", "cache_creation_input_tokens")


def prompt_tokens(usage: JSONObject) -> int:
    """The whole prompt a call read, in tokens: `input_tokens` plus what the server read from or wrote to its
    prompt cache. Anything that takes a prompt's size (the context-window watch, the token tables) wants this."""
    return int(usage["input_tokens"]) + sum(int(usage.get(name) or 0) for name in CACHE_FIELDS)


def _body(answer: object) -> JSONObject | str:
    """The answer as the JSON object it holds, or what it is instead."""
    try:
        # Python mode keeps the values the body held (JSON mode would turn a `true` token count into 1).
        if isinstance(answer, dict):
            body: object = answer
        elif _dumpable(answer):
            body = answer.model_dump(mode="python", warnings=False, exclude_none=True)
        else:  # a str (a non-JSON body), a list, or another object
            return f"a {type(answer).__name__}"
        json.dumps(body)
    except Exception:  # an object pydantic cannot dump, or a value JSON cannot hold
        return f"a {type(answer).__name__}"
    if not isinstance(body, dict):
        return f"a {type(body).__name__}"
    return body


def _envelope(body: JSONObject) -> str | None:
    """What is wrong around the blocks (type, role, usage, stop_reason), or None."""
    if body.get("type", "message") != "message" or body.get("role", "assistant") != "assistant":
        return f"type {body.get('type')!r}, role {body.get('role')!r}"
    usage = body.get("usage")
    if not isinstance(usage, dict) or not _count(usage.get("input_tokens")) or not _count(usage.get("output_tokens")):
        return "usage is missing, or its token counts are not whole numbers of 0 or more"
    if any(usage.get(name) is not None and not _count(usage.get(name)) for name in CACHE_FIELDS):
        return "usage's cache token counts are not whole numbers of 0 or more"
    if prompt_tokens(usage) + usage["output_tokens"] > MAX_CALL_TOKENS:
        return (f"usage claims {prompt_tokens(usage):,} input and {usage['output_tokens']:,} output tokens, "
                f"more than any model's context window holds ({MAX_CALL_TOKENS:,}: replies.MAX_CALL_TOKENS)")
    stop = body.get("stop_reason")
    if stop is not None and not isinstance(stop, str):
        return f"stop_reason is a {type(stop).__name__}"
    return None


def _blocks(content: list[object], seen_ids: set[str] | frozenset[str]) -> list[Block] | str:
    """The blocks as the loop reads them, or what is wrong with the first bad one."""
    blocks: list[Block] = []
    ids: set[str] = set()
    for i, block in enumerate(content):
        kind = block.get("type") if isinstance(block, dict) else None
        if not isinstance(block, dict) or not isinstance(kind, str) or not kind:
            return f"content[{i}] has no type"
        if kind == "text":
            if not isinstance(block.get("text"), str):
                return f"content[{i}] is a text block without text"
            blocks.append({"type": "text", "text": block["text"]})
        elif kind == "tool_use":
            use_id, name = block.get("id"), block.get("name")
            if not isinstance(use_id, str) or not use_id or not isinstance(name, str) or "input" not in block:
                return f"content[{i}] is a tool_use without a string id, a name and an input"
            if use_id in ids or use_id in seen_ids:
                return f"tool_use id {use_id[:40]!r} is used twice"
            ids.add(use_id)
            # An input that is not an object (a string, as some local servers send) is the model's mistake:
            # the dispatcher answers it with invalid_argument, and the model gets to fix it.
            blocks.append({"type": "tool_use", "id": use_id, "name": name, "input": block["input"]})
        else:  # thinking, server tools and blocks newer than this code: kept and sent back, never run
            blocks.append(cast(Block, dict(block)))
    return blocks
