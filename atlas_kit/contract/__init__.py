"""The error contract: five stable codes with a fixed `retryable`, `next` naming one of four branches, one builder.

What a failed tool call tells the model (errors), the only values it may quote (values), what it must never carry
(redaction, and the builder's internals check), arguments checked against a schema (arguments), and converters to
the article's vocabulary and MCP (vocab). The layer above types/. Chapters 02, 03, 05 and 08.
"""
from __future__ import annotations

import typing as _typing

from .._lazy import lazy_exports as _lazy_exports

if _typing.TYPE_CHECKING:
    from .errors import (ALLOWED_BRANCHES, Branch, CONTRACT_VERSION, ErrorBody, ErrorCode, MAX_MESSAGE_CHARS, Next,
        NextBody, RETRYABLE, ToolError, ToolFailure, empty_result, error_schema, retry_changed, retry_unchanged,
        stop, switch_tool, tool_error)
    from .values import Safe, safe, say
    from .redaction import looks_secret, redact, redact_known
    from .internals import INTERNALS, Internal, InternalKind, SCAN_CHARS, find_internals, has_internals
    from .rubric import (ECHO_MIN_CHARS, Judgement, MAX_TOKENS, RULES, Rule, Status, Structure, Verdict, judge,
        server_score, tool_score)
    from .arguments import ArgumentProblem, check_arguments, check_schema
    from .vocab import ArticleBody, MCPResult, from_article, text_to_mcp, to_article, to_mcp

_WHERE = {
    "ALLOWED_BRANCHES": "errors",
    "ArgumentProblem": "arguments",
    "ArticleBody": "vocab",
    "Branch": "errors",
    "CONTRACT_VERSION": "errors",
    "ECHO_MIN_CHARS": "rubric",
    "ErrorBody": "errors",
    "ErrorCode": "errors",
    "INTERNALS": "internals",
    "Internal": "internals",
    "InternalKind": "internals",
    "Judgement": "rubric",
    "MAX_MESSAGE_CHARS": "errors",
    "MAX_TOKENS": "rubric",
    "MCPResult": "vocab",
    "Next": "errors",
    "NextBody": "errors",
    "RETRYABLE": "errors",
    "RULES": "rubric",
    "Rule": "rubric",
    "SCAN_CHARS": "internals",
    "Safe": "values",
    "Status": "rubric",
    "Structure": "rubric",
    "ToolError": "errors",
    "ToolFailure": "errors",
    "Verdict": "rubric",
    "check_arguments": "arguments",
    "check_schema": "arguments",
    "empty_result": "errors",
    "error_schema": "errors",
    "find_internals": "internals",
    "from_article": "vocab",
    "has_internals": "internals",
    "judge": "rubric",
    "looks_secret": "redaction",
    "redact": "redaction",
    "redact_known": "redaction",
    "retry_changed": "errors",
    "retry_unchanged": "errors",
    "safe": "values",
    "say": "values",
    "server_score": "rubric",
    "stop": "errors",
    "switch_tool": "errors",
    "text_to_mcp": "vocab",
    "to_article": "vocab",
    "to_mcp": "vocab",
    "tool_error": "errors",
    "tool_score": "rubric",
}
__getattr__, __dir__ = _lazy_exports(__name__, _WHERE)

__all__ = [
    "ALLOWED_BRANCHES", "ArgumentProblem", "ArticleBody", "Branch", "CONTRACT_VERSION", "ECHO_MIN_CHARS", "ErrorBody",
    "ErrorCode", "INTERNALS", "Internal", "InternalKind", "Judgement", "MAX_MESSAGE_CHARS", "MAX_TOKENS", "MCPResult",
    "Next", "NextBody", "RETRYABLE", "RULES", "Rule", "SCAN_CHARS", "Safe", "Status", "Structure", "ToolError",
    "ToolFailure", "Verdict", "check_arguments", "check_schema", "empty_result", "error_schema", "find_internals",
    "from_article", "has_internals", "judge", "looks_secret", "redact", "redact_known", "retry_changed",
    "retry_unchanged", "safe", "say", "server_score", "stop", "switch_tool", "text_to_mcp", "to_article", "to_mcp",
    "tool_error", "tool_score",
]
