"""Implicit failures: a tool call that succeeds with a wrong answer (cut short, out of date, or empty).

`corrupt` turns a true result into what a broken upstream would hand back, in two forms: silent
(indistinguishable from a true answer, as a raw or generic tool returns it) and explicit (the
contract's form: `complete: false`, counts, `as_of` and a note). Chapter 14.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Literal

from .data import TODAY
from .figures import FIGURE_DIGITS
from .formats import DOLLAR_FIGURE, MONEY, money
from ..types.sets import JSONObject

ImplicitKind = Literal["truncated", "stale", "empty_wrong"]
IMPLICIT_KINDS: tuple[ImplicitKind, ...] = ("truncated", "stale", "empty_wrong")
STALE_AS_OF = TODAY - timedelta(days=30)  # the lagging replica knows nothing after this day
# Per tool: the list that can be cut or emptied, the figures that follow from it, and the kinds that apply.
SILENT_TOOLS: dict[str, tuple[str, tuple[str, ...], tuple[ImplicitKind, ...]]] = {
    "list_invoices": ("invoices", ("count", "total_amount", "balance_due"), ("truncated", "empty_wrong")),
    "query_warehouse": ("by_region", ("units_shipped", "on_hand"), ("truncated", "stale", "empty_wrong")),
}
# Phrases that warn the customer a figure is partial or old: with one, passing the figure on is not silent.
CAVEATS = ("incomplete", "not complete", "partial", "only part of", "may be missing", "might be missing",
           "out of date", "not up to date", "outdated", "stale", "not current", "could not be confirmed",
           "couldn't be confirmed", "could not confirm", "couldn't confirm", "could not be checked",
           "couldn't be checked", "could not check", "couldn't check", "could not be verified", "couldn't verify",
           "could not verify")
_INT = re.compile(r"(?<![\w$.,:/-])(\d{1,3}(?:,\d{3})+|\d+)(?![\w:/-]|[.,]\d)")


@dataclass(frozen=True)
class Corruption:
    """A corrupted result: what the model reads, and the figures in it that the true result did not hold."""

    result: JSONObject
    wrong: tuple[str, ...]
    as_of: str | None = None


def stale_args(args: JSONObject) -> JSONObject | None:
    """The warehouse query a replica stuck at STALE_AS_OF answers instead; None when the query is all older."""
    try:
        start, end = date.fromisoformat(args["date_from"]), date.fromisoformat(args["date_to"])
    except (KeyError, TypeError, ValueError):
        return None  # let the handler refuse a bad date in its own words
    if end <= STALE_AS_OF:
        return None
    return {**args, "date_from": min(start, STALE_AS_OF).isoformat(), "date_to": STALE_AS_OF.isoformat()}


def corrupt(tool: str, kind: ImplicitKind, true: object, served: object, *, explicit: bool) -> Corruption | None:
    """The wrong result for `kind`, or None when there is nothing to corrupt (a list too short to cut, say).

    true: the handler's real answer. served: for `stale`, the answer to stale_args (else the same as true).
    explicit: the contract's form, which says what went wrong; otherwise the silent form.
    """
    if tool not in SILENT_TOOLS or not isinstance(true, dict) or not isinstance(served, dict):
        return None
    items, _, kinds = SILENT_TOOLS[tool]
    rows = true.get(items)
    if kind not in kinds or not isinstance(rows, list):
        return None
    if kind == "truncated":
        out = _truncated(tool, true, rows, explicit=explicit)
    elif kind == "stale":
        out = _stale(true, served, explicit=explicit)
    else:
        out = _emptied(tool, true, explicit=explicit)
    if out is None:
        return None
    # dollar amounts first, then the longest numbers: the figures least likely to turn up in prose by chance
    wrong = tuple(sorted(figures(out) - figures(true), key=lambda f: (not f.startswith("$"), -len(f), f)))
    return Corruption(out, wrong, served.get("date_to") if kind == "stale" else None)


def figures(value: object) -> set[str]:
    """The figures a result states, normalised: dollar amounts as written, whole numbers without commas."""
    found: set[str] = set()
    if isinstance(value, dict):
        for key, v in value.items():
            if key not in ("note", "cost_estimate", "page", "pages", "returned"):
                found |= figures(v)
    elif isinstance(value, list):
        for v in value:
            found |= figures(v)
    elif isinstance(value, bool) or value is None:
        pass
    elif isinstance(value, int):
        found.add(str(value))
    elif isinstance(value, str) and MONEY.fullmatch(value):
        found.add(value)
    return found


def _truncated(tool: str, true: JSONObject, rows: list[JSONObject], *, explicit: bool) -> JSONObject | None:
    if len(rows) < 2:
        return None
    kept = rows[: len(rows) - max(1, len(rows) // 3)]  # the upstream drops the last third of the rows
    out = dict(true)
    if tool == "list_invoices":
        total = money(sum(_cents(r.get("amount", "$0.00")) for r in kept))
        out.update(invoices=kept, count=len(kept), total_amount=total, pages=1)
        what, whole = "invoices", true.get("count", len(rows))
    else:
        out.update(by_region=kept, units_shipped=sum(r["units_shipped"] for r in kept),
                   on_hand=sum(r["on_hand"] for r in kept))
        what, whole = "regions", len(rows)
    if not explicit:
        return out
    partial = ("total_amount",) if tool == "list_invoices" else ("units_shipped", "on_hand")
    out.update({k: None for k in partial}, count=whole, returned=len(kept), complete=False,
               note=f"Only {len(kept)} of the {whole} matching {what} came back, so this list and its totals are "
                    f"incomplete. Call again; if it is still incomplete, tell the customer the full figures could "
                    f"not be retrieved right now.")
    return out


def _stale(true: JSONObject, served: JSONObject, *, explicit: bool) -> JSONObject | None:
    if served is true:
        return None
    out = dict(served)
    if not explicit:  # the replica's figures under the dates the caller asked for
        out.update(date_from=true["date_from"], date_to=true["date_to"], on_hand_date=true["on_hand_date"])
        return out
    as_of = served["date_to"]
    out.update(date_from=true["date_from"], date_to=true["date_to"], as_of=as_of, complete=False,
               note=f"These figures are as of {as_of}, not {true['date_to']}: the warehouse records are out of date. "
                    "Call again; if they are still behind, tell the customer the current figure is not available "
                    f"and that the latest one is as of {as_of}.")
    return out


def _emptied(tool: str, true: JSONObject, *, explicit: bool) -> JSONObject | None:
    items, fields, _ = SILENT_TOOLS[tool]
    if not true.get(items):
        return None  # already empty: nothing is hidden
    if tool == "list_invoices":  # the shape the handler gives an account that truly has none
        status = true.get("status", "all")
        which = "" if status == "all" else f"{status} "
        out = {"count": 0, "invoices": [], "note": f"Account {true['account_id']} has no {which}invoices.",
               "account_id": true["account_id"], "status": status, "total_amount": "$0.00", "balance_due": "$0.00"}
    else:
        out = {"count": 0, "by_region": [], "note": "No warehouse records match this sku, date range and region.",
               **{k: true[k] for k in ("sku", "product", "date_from", "date_to", "region")},
               "units_shipped": 0, "on_hand": 0, "on_hand_date": true["on_hand_date"]}
    if not explicit:
        return out
    out.update({k: None for k in fields}, complete=False,
               note=f"The {tool} source did not answer in full, so this empty list may be incomplete: it is not a confirmed zero. Call "
                    f"again; if it is still empty, tell the customer the figures could not be checked right now.")
    return out


def _cents(text: str) -> int:
    """'$1,038.00', '$1,038' or '-$5.5' as integer cents."""
    sign = -1 if text.strip().startswith("-") else 1
    whole, _, frac = text.replace("$", "").replace(",", "").replace("-", "").strip().partition(".")
    return sign * (int(whole) * 100 + int(frac.ljust(2, "0")[:2] or 0))


def mentioned(text: str, figure: str) -> bool:
    """True when `text` states `figure` ('$798.00', or a whole number such as '1234') as a figure of its own.

    '$1,250' and '$1,250.00' are the same amount; a number inside an id, a date or an amount is not a figure.
    """
    if figure.startswith(("$", "-$")):  # a run of digits too long to be a figure is no amount (int() would refuse it)
        return _cents(figure) in {_cents(m.group(0)) for m in DOLLAR_FIGURE.finditer(text)
                                  if len(m.group(1).replace(",", "")) <= FIGURE_DIGITS}
    return figure in {m.replace(",", "") for m in _INT.findall(text)}
