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
    from .redaction import looks_secret, redact
    from .arguments import ArgumentProblem, check_arguments, check_schema
    from .vocab import ArticleBody, MCPResult, from_article, text_to_mcp, to_article, to_mcp

_WHERE = {
    "ALLOWED_BRANCHES": "errors",
    "ArgumentProblem": "arguments",
    "ArticleBody": "vocab",
    "Branch": "errors",
    "CONTRACT_VERSION": "errors",
    "ErrorBody": "errors",
    "ErrorCode": "errors",
    "MAX_MESSAGE_CHARS": "errors",
    "MCPResult": "vocab",
    "Next": "errors",
    "NextBody": "errors",
    "RETRYABLE": "errors",
    "Safe": "values",
    "ToolError": "errors",
    "ToolFailure": "errors",
    "check_arguments": "arguments",
    "check_schema": "arguments",
    "empty_result": "errors",
    "error_schema": "errors",
    "from_article": "vocab",
    "looks_secret": "redaction",
    "redact": "redaction",
    "retry_changed": "errors",
    "retry_unchanged": "errors",
    "safe": "values",
    "say": "values",
    "stop": "errors",
    "switch_tool": "errors",
    "text_to_mcp": "vocab",
    "to_article": "vocab",
    "to_mcp": "vocab",
    "tool_error": "errors",
}
__getattr__, __dir__ = _lazy_exports(__name__, _WHERE)

__all__ = [
    "ALLOWED_BRANCHES", "ArgumentProblem", "ArticleBody", "Branch", "CONTRACT_VERSION", "ErrorBody", "ErrorCode",
    "MAX_MESSAGE_CHARS", "MCPResult", "Next", "NextBody", "RETRYABLE", "Safe", "ToolError", "ToolFailure",
    "check_arguments", "check_schema", "empty_result", "error_schema", "from_article", "looks_secret", "redact",
    "retry_changed", "retry_unchanged", "safe", "say", "stop", "switch_tool", "text_to_mcp", "to_article", "to_mcp",
    "tool_error",
]
