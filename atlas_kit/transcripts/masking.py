"""Masking an error text so errors that differ only in their ids and numbers fall in one group: dates become
<date>, words that mix letters and digits (HAT030, gift_card_5094406, ACC-4471) become <id>, and numbers <n>.
Nothing else changes: quoted names and wording stay, so two groups differ where the words differ.
"""
from __future__ import annotations

import re

__all__ = ["mask"]

_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b")
_ID = re.compile(r"(?<![\w<-])(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[\w-]*[A-Za-z0-9](?![\w>])")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def mask(text: str) -> str:
    """The text with dates, ids and numbers replaced by <date>, <id> and <n>, and runs of spaces made one.

    'Error: flight HAT030 not available on date 2024-05-13' -> 'Error: flight <id> not available on date <date>';
    'total price is 375, but paid 299' -> 'total price is <n>, but paid <n>'. A masked text holds no digit.
    """
    text = _DATE.sub("<date>", text)
    text = _ID.sub("<id>", text)
    text = _NUMBER.sub("<n>", text)
    return " ".join(text.split())
