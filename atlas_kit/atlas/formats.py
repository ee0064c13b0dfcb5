"""How Atlas writes its ids and its money, in one place: the tools' schemas, the grader, silent.py and the
offline stand-in's planner all read them here (data.py re-exports them). What a record holds is data.py's.
Chapter 04.
"""
from __future__ import annotations

import re


def money(cents: int) -> str:
    """Integer cents as the text every tool and answer uses: 125000 -> '$1,250.00'."""
    sign = "-" if cents < 0 else ""
    return f"{sign}${abs(cents) // 100:,}.{abs(cents) % 100:02d}"


# An id is its prefix, a hyphen and this many digits.
ID_DIGITS: dict[str, int] = {"ACC": 4, "ORD": 5, "INV": 5, "SKU": 4}


def id_pattern(prefix: str) -> re.Pattern[str]:
    """One kind of id as a whole word: id_pattern("ACC") finds ACC-4471."""
    return re.compile(rf"\b{prefix}-\d{{{ID_DIGITS[prefix]}}}\b")


# An account, order or invoice id: the records a customer owns (a SKU is a product, everyone's).
RECORD_ID = re.compile(r"\b(?:" + "|".join(rf"{p}-\d{{{ID_DIGITS[p]}}}" for p in ("ACC", "ORD", "INV")) + r")\b")
# An amount exactly as money() writes it.
MONEY = re.compile(r"-?\$\d{1,3}(?:,\d{3})*\.\d{2}")
# Any dollar figure a person might write ($1,250, $1250.5, $ 12): groups are the whole dollars and the cents.
DOLLAR_FIGURE = re.compile(r"-?\$\s?(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{1,2}))?")
