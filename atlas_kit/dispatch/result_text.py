"""What a tool's return value becomes for the model: text, as JSON when it is not already a string.

The value is the tool's own, so anything may arrive: a set, bytes, a datetime, NaN, an object whose repr holds a
memory address or raises. Each is written as JSON can hold it (a list, text, null for a number that is none), an
object as its type's name alone; a key in the text is redacted, as in every text the model reads; and a result
longer than MAX_RESULT_CHARS is cut, saying so, since the whole of it would fill the model's context. Chapter 03.
"""
from __future__ import annotations

import datetime as dt
import json
import math

from ..contract.redaction import redact

MAX_RESULT_CHARS = 100_000


def result_text(value: object) -> str:
    """`value` as the text of a successful tool_result (see the module)."""
    text = value if isinstance(value, str) else _json(value)
    cut = len(text) - MAX_RESULT_CHARS
    if cut > 0:
        text = (f"{text[:MAX_RESULT_CHARS]} ... (cut: the tool returned {len(text):,} characters; these are the first "
                f"{MAX_RESULT_CHARS:,})")
    return redact(text)


def _json(value: object) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=_writable, allow_nan=False)
    except ValueError:  # NaN or an infinity, which JSON has no word for (a value that holds itself fails again)
        return json.dumps(_finite(value), ensure_ascii=False, separators=(",", ":"), default=_writable,
                          allow_nan=False)


def _writable(value: object) -> object:
    """What json.dumps cannot write, as what it can: never a repr, which may hold an address or raise."""
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", "replace")
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    return f"<{type(value).__name__}>"


def _finite(value: object) -> object:
    """`value` with every NaN or infinite float as None (JSON has no such number)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_finite(v) for v in value]
    return value
