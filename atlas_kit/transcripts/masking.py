"""Masking an error text so errors that differ only in their ids and numbers fall in one group: dates become
<date>, words that mix letters and digits (HAT030, gift_card_5094406, ACC-4471) become <id>, and numbers <n>.
Nothing else changes: quoted names and wording stay, so two groups differ where the words differ.

`shown` is what any output of someone's data goes through first: keys and passwords redacted, and characters no
file or terminal can hold (a lone surrogate a JSON escape made) written as escapes.
"""
from __future__ import annotations

import re

from ..contract.redaction import redact

MASKED_CHARS = 2_000
"""A masked text keeps the first MASKED_CHARS characters of the error (then an ellipsis and how many more there
were): errors that agree that far fall in one group, and no output repeats a megabyte error."""

_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b")
_ID = re.compile(r"(?<![\w<-])(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[\w-]*[A-Za-z0-9](?![\w>])")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def mask(text: str) -> str:
    """The text with dates, ids and numbers replaced by <date>, <id> and <n>, and runs of spaces made one.

    'Error: flight HAT030 not available on date 2024-05-13' -> 'Error: flight <id> not available on date <date>';
    'total price is 375, but paid 299' -> 'total price is <n>, but paid <n>'. A masked text holds no digit.
    `masked` is what groups and outputs use: redacted first, and cut at MASKED_CHARS.
    """
    text = _DATE.sub("<date>", text)
    text = _ID.sub("<id>", text)
    text = _NUMBER.sub("<n>", text)
    return " ".join(text.split())


def shown(text: str) -> str:
    """`text` as an output may show it: every key-shaped string redacted (contract.redaction.redact), and any
    character UTF-8 cannot encode (a lone surrogate, from a JSON escape such as \\ud800) written as its escape."""
    return redact(text).encode("utf-8", "backslashreplace").decode("utf-8")


_MARGIN = 400  # a key that starts before the cut is redacted whole, not cut into a piece redact cannot recognise


def masked(text: str) -> str:
    """An error text as groups and outputs show it: redacted (shown), then masked. Only the part a mask keeps is
    read, with a margin, so a megabyte error is not scanned for keys it will not show."""
    if len(text) <= MASKED_CHARS:
        return mask(shown(text))
    head = shown(text[:MASKED_CHARS + _MARGIN])[:MASKED_CHARS]
    return f"{mask(head)} ... ({len(text) - MASKED_CHARS:,} more characters)"
