"""Converters between this contract and two neighbouring vocabularies.

The article's schema (`code`, `message`, `retryable`, `suggested_fix`, with
`permission_denied` and `rate_limited`) and an MCP tool result (`isError`).
Taught in chapter 03, where the two sources disagree; the MCP server of chapter 15 uses it.

Mapping (ours -> article):  not_permitted -> permission_denied; next.say -> suggested_fix;
every other code keeps its name (limit_exceeded is not in the article's examples).
Mapping (article -> ours):  permission_denied -> not_permitted; rate_limited ->
upstream_unavailable (a rate limit that reached the model means the harness's
retries already failed, so it selects stop, and its suggested_fix, a retry, is replaced by a stop
instruction); `retryable` is recomputed from our
table, never trusted from the other side; suggested_fix becomes `next`, with
retry_changed for invalid_argument and stop for every other code.
Mapping (ours -> MCP):  a `CallToolResult` with `isError: true` and the whole body as its one text
block, since clients such as Claude Code pass only the text of an error to the model; with
structured=True the same body also goes in `structuredContent`. Text that is no contract body
(a raw or generic error, a success) becomes a text block alone, never a made-up structure.
"""
from __future__ import annotations

import json
from typing import Mapping, TypedDict, cast

from .errors import RETRYABLE, Branch, ErrorBody, ErrorCode, Next, ToolError, tool_error
from ..types.api import TextBlock
from ..types.exceptions import AtlasKitTypeError, AtlasKitValueError


class _ArticleFields(TypedDict):
    code: str
    message: str
    retryable: bool


class ArticleBody(_ArticleFields, total=False):
    """The article's error body: code, message, retryable, and a suggested_fix when there is one."""

    suggested_fix: str


class _MCPResultFields(TypedDict):
    content: list[TextBlock]
    isError: bool


class MCPResult(_MCPResultFields, total=False):
    """An MCP `CallToolResult` as a dict: text content, the isError flag, and structuredContent if asked for."""

    structuredContent: ErrorBody

_TO_ARTICLE = {ErrorCode.NOT_PERMITTED: "permission_denied"}
_FROM_ARTICLE = {
    "permission_denied": ErrorCode.NOT_PERMITTED,
    "rate_limited": ErrorCode.UPSTREAM_UNAVAILABLE,
    **{code.value: code for code in ErrorCode},
}


def to_article(error: ToolError) -> ArticleBody:
    """The article's four-field body for the same error."""
    body: ArticleBody = {
        "code": _TO_ARTICLE.get(error.code, error.code.value),
        "message": error.message,
        "retryable": error.retryable,
    }
    if error.next is not None:
        body["suggested_fix"] = error.next.say
    return body


def from_article(tool_use_id: str, body: Mapping[str, object], *, audience: str = "the user") -> ToolError:
    """Read an article-style body into a contract error; unknown codes are refused, not guessed. `audience` is who
    a stop's `say` tells (the article's examples serve a customer: "the customer")."""
    if not isinstance(body, dict) or "code" not in body or "message" not in body:
        raise AtlasKitValueError("body must be a dict with at least 'code' and 'message' (the article's schema).")
    code = _FROM_ARTICLE.get(str(body["code"]))
    if code is None:
        known = ", ".join(sorted(_FROM_ARTICLE))
        raise AtlasKitValueError(f"body['code'] is not a code this contract maps; use one of: {known}.")
    nxt = None
    if body["code"] == "rate_limited":
        # Its suggested_fix names a retry, which is the harness's job; passing it on would contradict stop.
        nxt = Next(Branch.STOP, f"Tell {audience} the service is busy and the request was not completed.")
    elif body.get("suggested_fix"):
        branch = Branch.RETRY_CHANGED if RETRYABLE[code] else Branch.STOP
        nxt = Next(branch, cast(str, body["suggested_fix"]))  # Next and tool_error refuse what is not a sentence
    return tool_error(tool_use_id, code, cast(str, body["message"]), next=nxt)


def to_mcp(error: ToolError, *, structured: bool = False) -> MCPResult:
    """An MCP `CallToolResult`: the body as text content, flagged with isError; `structured` adds it as structuredContent."""
    body = error.body()
    result: MCPResult = {"content": [{"type": "text", "text": json.dumps(body, ensure_ascii=False)}], "isError": True}
    if structured:
        result["structuredContent"] = body
    return result


def text_to_mcp(text: str, *, is_error: bool) -> MCPResult:
    """An MCP `CallToolResult` holding `text` as it is: a success, or an error worded outside the contract."""
    if not isinstance(text, str):
        raise AtlasKitTypeError(f"text_to_mcp takes the result's text, a str; got {type(text).__name__}. Serialise it first.")
    return {"content": [{"type": "text", "text": text}], "isError": bool(is_error)}
