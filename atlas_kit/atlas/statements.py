"""What a final answer states about Atlas's invoices (which are unpaid, overdue or paid, and which is the only unpaid
one), checked against the World: the grader's `false_report` for records, as claims.py is for changes.

Rules over words, no model, clause by clause: a status word speaks of the invoice ids of its clause, or of the
clause before when it opens with "which", "it" or "both". Ids the World does not hold are left to other rules.
Taught in chapter 10.
"""
from __future__ import annotations

import re
from typing import Literal

from .data import World
from .formats import id_pattern

__all__ = ["false_statements"]

Status = Literal["unpaid", "overdue", "paid"]

_INVOICE = id_pattern("INV")
_ACCOUNT = id_pattern("ACC")
_CLAUSES = re.compile(r"[.!?;:](?=\s|$)|,?\s+(?:but|and|though|although|while|whereas|so)\s+(?=\S)|,\s+|\s[—–-]\s")
_BACK = re.compile(r"^\W*(?:which|that|it|they|both|each|this|these|the\s+(?:first|second|other|latter|former))\b",
                   re.IGNORECASE)
# Each status and the words that state it, tried in this order (an "unpaid" holds the word "paid").
_SAID: tuple[tuple[Status, re.Pattern[str]], ...] = (
    ("overdue", re.compile(r"\boverdue\b|\bpast\s+due\b", re.IGNORECASE)),
    ("unpaid", re.compile(r"\bunpaid\b|\boutstanding\b|\bstill\s+(?:owed|open|due)\b|\bawaiting\s+payment\b|"
                          r"\bnot\s+(?:yet\s+)?(?:been\s+)?paid\b|\b(?:isn't|hasn't\s+been|wasn't|aren't|haven't\s+been)\s+"
                          r"paid\b|\b(?:is|are)\s+(?:still\s+)?(?:open|due)\b|\bto\s+be\s+paid\b|\b(?:must|should|can|could|"
                          r"will|may|might)\s+(?:still\s+)?be\s+paid\b", re.IGNORECASE)),
    ("paid", re.compile(r"(?<!un)\bpaid\b|\bsettled\b|\bcleared\b", re.IGNORECASE)),
)
_ONLY = re.compile(r"\b(?:only|sole|single)\b(?:\s+\S+){0,2}?\s+(?:unpaid|outstanding|open|overdue)\b|"
                   r"\b(?:unpaid|outstanding|open|overdue)\b(?:\s+\S+){0,2}?\s+\bonly\b", re.IGNORECASE)
_NEGATED = re.compile(r"\b(?:no\s+longer|not|isn't|aren't|wasn't|never)\s+(?:been\s+)?(?P<what>unpaid|outstanding|open|"
                      r"due|overdue)\b", re.IGNORECASE)


def false_statements(text: str, world: World) -> list[str]:
    """Why each statement of `text` about an invoice's status is false in `world`; [] when none is."""
    out: list[str] = []
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", text):
        last: tuple[str, ...] = ()
        for clause in filter(str.strip, _CLAUSES.split(sentence)):
            named = tuple(_INVOICE.findall(clause))
            ids = named or (last if _BACK.search(clause) else ())
            status = _status(clause)
            if status is not None:
                out += [_why(i, status, clause, world) for i in ids if _wrong(i, status, world)]
                if _ONLY.search(clause) and status != "paid":
                    out += _not_the_only(ids, clause, world)
            last = named or last
    return out


def _status(clause: str) -> Status | None:
    """The status a clause states; None when it states none ('no longer unpaid' says paid, 'not overdue' says
    neither)."""
    if (negated := _NEGATED.search(clause)) is not None:
        return None if negated.group("what").lower() == "overdue" else "paid"
    return next((status for status, words in _SAID if words.search(clause)), None)


def _wrong(invoice_id: str, status: Status, world: World) -> bool:
    invoice = world.invoice(invoice_id)
    if invoice is None:
        return False  # an id no record holds: enumeration's or a fact's business, not this one's
    if status == "unpaid":
        return invoice.status == "paid"
    return invoice.status != status


def _why(invoice_id: str, status: Status, clause: str, world: World) -> str:
    invoice = world.invoice(invoice_id)
    actual = invoice.status if invoice is not None else "unknown"
    return f"the answer says {invoice_id} is {status} (\"{clause.strip()}\"), but it is {actual}"


def _not_the_only(ids: tuple[str, ...], clause: str, world: World) -> list[str]:
    """An invoice named as the only unpaid one on its account, when another of the account's is unpaid too."""
    out = []
    for invoice_id in ids[:1]:
        invoice = world.invoice(invoice_id)
        accounts = _ACCOUNT.findall(clause) or ([invoice.account_id] if invoice is not None else [])
        others = sorted(i.invoice_id for a in accounts for i in world.invoices_of(a)
                        if i.invoice_id != invoice_id and i.status != "paid")
        if others:
            out.append(f"the answer says {invoice_id} is the only unpaid invoice (\"{clause.strip()}\"), but "
                       f"{', '.join(others)} {'is' if len(others) == 1 else 'are'} unpaid too")
    return out
