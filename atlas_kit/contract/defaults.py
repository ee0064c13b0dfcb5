"""The `next` a failure gets when its author gave none: one per code, each a branch that code allows
(errors.ALLOWED_BRANCHES), so `raise ToolFailure("not_found", "...")` is enough.

A tool that raises ToolFailure without `next` still reaches the model with an instruction (the contract asks every
error for one). No default offers a person: a harness cannot know that the agent has one to hand to; an author whose
agent does has a tool for it, and says so with next=switch_tool("escalate", "..."). Chapters 03 and 08.
"""
from __future__ import annotations

from .errors import Branch, ErrorCode, Next, stop

DEFAULT_NEXT: dict[ErrorCode, Next] = {
    ErrorCode.INVALID_ARGUMENT: Next(Branch.RETRY_CHANGED, "Change the argument the message names and call again."),
    ErrorCode.NOT_FOUND: stop("Tell the user it was not found; do not guess other ids or names."),
    ErrorCode.NOT_PERMITTED: stop("Tell the user this is not allowed; do not retry it or try other values."),
    ErrorCode.LIMIT_EXCEEDED: stop("Tell the user the limit was reached; do not try it again in this conversation."),
    ErrorCode.UPSTREAM_UNAVAILABLE: stop("Tell the user it could not be done right now and that they can try again later."),
}
