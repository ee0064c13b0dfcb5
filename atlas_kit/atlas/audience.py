"""Words in a final answer that were written for the model or the trace, not the customer: a tool's or an argument's
name, an error code, a constant or an exception class. The grader's `internal_names` (chapter 07's three audiences,
graded in chapter 10): the model may read `query_warehouse` and `account_id`; the customer should never.
"""
from __future__ import annotations

import re

AUDIENCE = "the customer"
"""Who an Atlas agent answers: how the dispatcher's own errors name them in `say` (Dispatcher(audience=...))."""

# An identifier with an underscore (query_warehouse, account_id, REFUND_WINDOW_DAYS), not inside a word or an id,
# a URL or an address; an exception class (TimeoutError).
_SNAKE = re.compile(r"(?<![\w@/.-])[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+(?![\w@/-])")
_EXCEPTION = re.compile(r"\b[A-Z][a-z]+(?:[A-Z][a-z]+)*(?:Error|Exception)\b")


def internal_name(answer: str, *, customer: str = "") -> str | None:
    """The first name in `answer` that belongs to the model or the trace; None when there is none. A name the
    customer wrote themselves (`customer`, their message) is theirs to read back."""
    theirs = customer.lower()
    for pattern in (_SNAKE, _EXCEPTION):
        for match in pattern.finditer(answer):
            if match.group(0).lower() not in theirs:
                return match.group(0)
    return None
