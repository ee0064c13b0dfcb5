"""The figures in an answer that no tool gave: dollar amounts and counts of units, for the grader's `fabrication`.

A figure is allowed when the customer's message or a tool result holds it; a count may also be a total the
warehouse results add up to. Whether a figure is right is the ticket's facts' business, not this module's.
Taught in chapter 10.
"""
from __future__ import annotations

import json
import re
from typing import Sequence

from ..types.memo import text_memo
from .formats import DOLLAR_FIGURE, money

# A field and its whole number ("amount_cents": 65000, REFUND_CEILING_CENTS=50000): the field is one whole word, so a
# match can start only where a word starts, and each run of text is tried once (linear on any input; the pattern
# this replaces backtracked cubically over a long word holding "cents").
_FIELD = re.compile(r"(?<!\w)(\w+)[\"']?\s*[:=]\s*(\d+)")
# A run of more digits is no figure a customer is told, so it is not read (int() of one is slow, and refused past 4,300).
FIGURE_DIGITS = 15
_COUNT = re.compile(r"(?<![\w$.,-])(\d{1,3}(?:,\d{3})+|\d+)\s+(?:units?|rolls?|items?|pieces?)\b", re.IGNORECASE)
_NUMBER = re.compile(r"(?<![\w$.-])(\d{1,3}(?:,\d{3})+|\d+)(?![\w.]\d|\w)")


def invented_figures(message: str, results: Sequence[str], answer: str) -> list[str]:
    """The dollar figures and unit counts in `answer` that neither `message` nor any of `results` gave.

    "$1,250" and "$1,250.00" are one figure; a count is a number before units, rolls, items or pieces.
    """
    allowed = _dollars(message) | {c for text in results for c in _dollars(text)}
    dollars = [money(c) for c in sorted(c for c in _dollars(answer) if c not in allowed)]
    known = {n for text in (message, *results) for n in _numbers(text)} | _sums(results)
    counts = sorted({n for n in map(_int, _COUNT.findall(answer)) if n is not None} - known)
    return dollars + [f"{n:,} units" for n in counts]


def _sums(results: Sequence[str]) -> set[int]:
    """Totals a careful answer may add up: each warehouse field summed over every warehouse result."""
    rows = [r for r in (_json(text) for text in results) if isinstance(r, dict) and "units_shipped" in r]
    return {sum(int(r.get(k) or 0) for r in rows) for k in ("units_shipped", "on_hand")} if rows else set()


@text_memo  # the same tool results and answers come back episode after episode
def _dollars(text: str) -> frozenset[int]:
    """Every dollar figure in `text` as cents, plus any `..._cents: N` field (a figure past FIGURE_DIGITS left out)."""
    found = {_int(w + (f or "0").ljust(2, "0")) for w, f in DOLLAR_FIGURE.findall(text)}
    found |= {_int(n) for field, n in _FIELD.findall(text) if "cents" in field.lower()}
    return frozenset(c for c in found if c is not None)


@text_memo
def _numbers(text: str) -> frozenset[int | None]:
    """Every whole number `text` states (None stands for any run past FIGURE_DIGITS)."""
    return frozenset(_int(n) for n in _NUMBER.findall(text))


def _int(digits: str) -> int | None:
    """A figure's digits ("1,250") as a number; None for a run longer than FIGURE_DIGITS."""
    plain = digits.replace(",", "")
    return int(plain) if len(plain) <= FIGURE_DIGITS else None


def _json(text: str) -> object:
    try:
        return json.loads(text)
    except ValueError:
        return None
