"""The error contract: five stable codes, four branches, one builder.

Everything a tool returns on failure goes through `tool_error`; the converters to
other vocabularies live in `vocab.py`. Taught in chapters 02, 03 and 05.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from enum import Enum
from importlib import resources
from typing import TypedDict, cast

from .internals import INTERNALS, KIND_WORDS, find_internals, has_internals
from .redaction import looks_secret
from ..types.sets import JSONObject
from ..types.api import ToolResultBlock
from ..types.exceptions import AtlasKitTypeError, AtlasKitValueError

CONTRACT_VERSION = "1.0"
MAX_MESSAGE_CHARS = 280  # two plain sentences; a longer message is a design smell, not a feature


class ErrorCode(str, Enum):
    """The five stable codes a failed call carries; each fixes `retryable` (RETRYABLE) and the branches it allows."""

    INVALID_ARGUMENT = "invalid_argument"
    NOT_FOUND = "not_found"
    NOT_PERMITTED = "not_permitted"
    LIMIT_EXCEEDED = "limit_exceeded"
    UPSTREAM_UNAVAILABLE = "upstream_unavailable"


class Branch(str, Enum):
    """The four things a reader can do next: retry as is, retry changed, switch tool, or stop."""

    RETRY_UNCHANGED = "retry_unchanged"
    RETRY_CHANGED = "retry_changed"
    SWITCH_TOOL = "switch_tool"
    STOP = "stop"


class _NextFields(TypedDict):
    branch: str
    say: str


class NextBody(_NextFields, total=False):
    """`next` as the model reads it: the branch, what to do in words, and the tool or argument it names."""

    tool: str
    argument: str


class _BodyFields(TypedDict):
    error: str
    message: str
    retryable: bool


class ErrorBody(_BodyFields, total=False):
    """The error body the model reads (tool_error.schema.json): code, message, retryable, and `next`."""

    next: NextBody


# `retryable` means: calling this tool again can succeed. One table, so no tool can
# invent its own convention. The branches each code may select follow from it.
RETRYABLE: dict[ErrorCode, bool] = {
    # The call was malformed; the same tool succeeds once the named argument changes.
    ErrorCode.INVALID_ARGUMENT: True,
    # The thing does not exist; asking again (or for a neighbouring id) will not help.
    ErrorCode.NOT_FOUND: False,
    # Forbidden for this caller; any retry is enumeration.
    ErrorCode.NOT_PERMITTED: False,
    # A policy ceiling; the route forward is another tool (or a person), not a retry.
    ErrorCode.LIMIT_EXCEEDED: False,
    # Transient failures are retried by the harness. If one reaches the model, the
    # harness's retries already failed, so the model must not become the retry loop.
    ErrorCode.UPSTREAM_UNAVAILABLE: False,
}

# retry_unchanged is selected by no code: it is the harness's branch (see dispatch.py).
ALLOWED_BRANCHES: dict[ErrorCode, frozenset[Branch]] = {
    ErrorCode.INVALID_ARGUMENT: frozenset({Branch.RETRY_CHANGED}),
    ErrorCode.NOT_FOUND: frozenset({Branch.STOP, Branch.SWITCH_TOOL}),
    ErrorCode.NOT_PERMITTED: frozenset({Branch.STOP, Branch.SWITCH_TOOL}),
    ErrorCode.LIMIT_EXCEEDED: frozenset({Branch.SWITCH_TOOL, Branch.STOP}),
    ErrorCode.UPSTREAM_UNAVAILABLE: frozenset({Branch.STOP, Branch.SWITCH_TOOL}),
}

_IDENT = re.compile(r"^[a-z][a-z0-9_]{0,63}$")


@dataclass(frozen=True)
class Next:
    """The branch to take, for a program (`branch`, `tool`, `argument`) and for the model (`say`)."""

    branch: Branch
    say: str
    tool: str | None = None
    argument: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.branch, Branch):
            raise AtlasKitTypeError(f"Next.branch must be a Branch, got {type(self.branch).__name__}; use Branch.STOP etc.")
        _check_text("Next.say", self.say)
        if self.branch is Branch.SWITCH_TOOL and not self.tool:
            raise AtlasKitValueError("Next.tool is required for switch_tool: name the tool the model should call instead.")
        for name in ("tool", "argument"):
            value = getattr(self, name)
            if value is not None and not _IDENT.match(value):
                raise AtlasKitValueError(f"Next.{name} must be a plain identifier such as 'account_id', got {value!r}.")

    def to_json(self) -> NextBody:
        """The `next` object of the error body."""
        body: NextBody = {"branch": self.branch.value, "say": self.say}
        if self.tool:
            body["tool"] = self.tool
        if self.argument:
            body["argument"] = self.argument
        return body


def retry_unchanged(say: str) -> Next:
    """Call the same tool again as it was: the harness's branch for a transient failure."""
    return Next(Branch.RETRY_UNCHANGED, say)


def retry_changed(argument: str, say: str) -> Next:
    """Call the same tool again with `argument` changed."""
    return Next(Branch.RETRY_CHANGED, say, argument=argument)


def switch_tool(tool: str, say: str) -> Next:
    """Call `tool` instead."""
    return Next(Branch.SWITCH_TOOL, say, tool=tool)


def stop(say: str) -> Next:
    """Do not call again: tell the user what happened (`say` says what)."""
    return Next(Branch.STOP, say)


@dataclass(frozen=True)
class ToolError:
    """One failed call: `code`, `message` and `next` are for the model; `detail` is for the trace."""

    tool_use_id: str
    code: ErrorCode
    message: str
    next: Next | None = None
    detail: str | None = field(default=None, repr=False)

    @property
    def retryable(self) -> bool:
        """Whether calling this tool again can succeed: fixed by the code (RETRYABLE)."""
        return RETRYABLE[self.code]

    def body(self) -> ErrorBody:
        """The JSON the model reads. `detail` is never part of it."""
        body: ErrorBody = {"error": self.code.value, "message": self.message, "retryable": self.retryable}
        if self.next is not None:
            body["next"] = self.next.to_json()
        return body

    def block(self) -> ToolResultBlock:
        """The Anthropic `tool_result` block."""
        return {
            "type": "tool_result",
            "tool_use_id": self.tool_use_id,
            "is_error": True,
            "content": json.dumps(self.body(), ensure_ascii=False),
        }


class ToolFailure(Exception):
    """Raised by a tool handler to fail with the contract; the dispatcher turns it into a block."""

    def __init__(
        self,
        code: ErrorCode | str,
        message: str,
        *,
        next: Next | None = None,
        detail: str | None = None,
        raw: str | None = None,
        plain: str | None = None,
    ):
        self.code = _coerce_code(code)
        _check_message(message)
        _check_branch(self.code, next)
        if plain is not None:
            _check_plain(plain)
        # raw: what the underlying library would have said; shown only in the raw and generic styles.
        # plain: one sentence that diagnoses the failure and suggests no next step; shown only in the plain style.
        self.message, self.next, self.detail, self.raw, self.plain = message, next, detail, raw, plain
        super().__init__(f"{self.code.value}: {message}")


def tool_error(
    tool_use_id: str,
    code: ErrorCode | str,
    message: str,
    *,
    next: Next | None = None,
    detail: str | None = None,
) -> ToolError:
    """Build a contract error. Call `.block()` for the `tool_result`; `detail` goes to the trace."""
    if not isinstance(tool_use_id, str) or not tool_use_id:
        raise AtlasKitValueError("tool_use_id must be the non-empty id of the tool_use block this error answers.")
    code = _coerce_code(code)
    _check_message(message)
    _check_branch(code, next)
    return ToolError(tool_use_id, code, message, next, detail)


def empty_result(items_key: str, note: str, **fields: object) -> JSONObject:
    """A successful result with zero items: not an error, and not `not_found`."""
    _check_text("note", note)
    return {"count": 0, items_key: [], "note": note, **fields}


# --- checks ----------------------------------------------------------------------

_INTERNALS = INTERNALS  # the name byo/properties.py reads; the patterns live in internals.py


# The refusal list: text for the model is refused when it holds anything internals.INTERNALS finds (a traceback,
# SQL, an error code, a host, a path, an exception class or a class name before its message as in "KeyError: 'x'",
# an HTTP status, a tenant's id) or redaction.looks_secret finds (a key, a token, a password after its name).
#
# What patterns cannot know. The guard matches shapes, so it passes whatever has none: a customer's or a tenant's
# name written as a plain word ("tenant acme"), an internal id with no telltale prefix or name, a password that is
# an ordinary word ("password swordfish"), a secret split across `message` and `say`, a paraphrase ("the database
# in Frankfurt refused the write"), and another customer's data that looks like this customer's. A message that
# passes is not thereby safe: build it from constants and checked values (values.safe), name an argument but never
# echo its value, and keep what the tool knows about itself in detail=.
def _check_text(param: str, text: object) -> None:
    if not isinstance(text, str) or not text.strip():
        raise AtlasKitValueError(f"{param} must be a non-empty sentence written for the model.")
    if len(text) > MAX_MESSAGE_CHARS:
        raise AtlasKitValueError(
            f"{param} is {len(text)} characters; the cap is {MAX_MESSAGE_CHARS}. "
            "Say what to do in one or two sentences and move the rest to detail=."
        )
    if has_internals(text) or looks_secret(text):
        found = [KIND_WORDS[f.kind] for f in find_internals(text)] or ["a key or password"]  # never the text itself
        raise AtlasKitValueError(f"{param} contains internals ({', '.join(found)}); say what to do in plain words "
                                 "and put the rest in detail=.")


def _check_message(message: object) -> None:
    _check_text("message", message)
    assert isinstance(message, str)  # _check_text refused anything else
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", message.strip()) if s]
    if len(sentences) > 2:
        raise AtlasKitValueError(f"message has {len(sentences)} sentences; write one or two and put the rest in detail=.")


def _check_plain(plain: object) -> None:
    _check_text("plain", plain)
    assert isinstance(plain, str)
    if len([s for s in re.split(r"(?<=[.!?])\s+", plain.strip()) if s]) != 1:
        raise AtlasKitValueError("plain must be one sentence that says what went wrong; leave what to do to message= and next=.")


def _check_branch(code: ErrorCode, next: Next | None) -> None:
    if next is None:
        return
    if not isinstance(next, Next):
        raise AtlasKitTypeError("next must be a Next; build it with retry_changed(), switch_tool(), stop() or retry_unchanged().")
    if next.branch not in ALLOWED_BRANCHES[code]:
        allowed = ", ".join(sorted(b.value for b in ALLOWED_BRANCHES[code]))
        raise AtlasKitValueError(
            f"next selects {next.branch.value}, which contradicts {code.value} (retryable={RETRYABLE[code]}); "
            f"use one of: {allowed}."
        )


def _coerce_code(code: ErrorCode | str) -> ErrorCode:
    if isinstance(code, ErrorCode):
        return code
    try:
        return ErrorCode(code)
    except ValueError:
        allowed = ", ".join(c.value for c in ErrorCode)
        raise AtlasKitValueError(f"code {code!r} is not one of the five stable codes: {allowed}.") from None


def error_schema() -> JSONObject:
    """The JSON Schema of the error body, as shipped in the package."""
    text = resources.files("atlas_kit").joinpath("tool_error.schema.json").read_text(encoding="utf-8")
    return cast(JSONObject, json.loads(text))
