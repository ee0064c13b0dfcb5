"""The token estimate every layer shares: about four characters per token, with no tokenizer and no SDK.

An approximation for comparing texts (an error against another, an answer against the rubric's 80-token mark),
never for a bill: real counts differ by language and content. Chapter 07 shows both uses.
"""
from __future__ import annotations

import math

__all__ = ["CHARS_PER_TOKEN", "estimate_tokens"]

CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """About 4 characters per token, rounded up: ceil(len(text) / 4). An approximation, not a tokenizer.

    Monotone: a longer text never estimates fewer tokens. Real counts differ by language and content.
    """
    return math.ceil(len(text) / CHARS_PER_TOKEN)
