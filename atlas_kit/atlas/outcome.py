"""What a ticket must end with, written so a program can check it, and the perfect run that gets there.

An Outcome names Atlas's end state (refunds, order changes, escalations), the facts the
final answer must state, and the error codes and branches the faults should select; `differences` says where
Atlas's end state departs from it. A Script is the tool calls and answer of a perfect agent; only tests read it.
Taught in chapter 10.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from typing import Mapping, Protocol, Sequence, TypeVar, Union

from .claims import Action, claims
from .data import World
from .ledger import IssuedRefund, OpenedEscalation, OrderChange, StockField
from ..types import JSONObject
from ..types.memo import text_memo

__all__ = ["Call", "Change", "Escalation", "Fact", "Lookup", "NotMade", "Outcome", "Refund", "Script", "call",
           "differences", "mentions", "shown"]


@dataclass(frozen=True)
class Refund:
    """A refund that must exist exactly once; `invoice_id` may list acceptable alternatives."""

    invoice_id: str | tuple[str, ...]
    amount_cents: int

    def matches(self, refund: IssuedRefund) -> bool:
        """Whether this recorded refund is the one expected."""
        ids = (self.invoice_id,) if isinstance(self.invoice_id, str) else self.invoice_id
        return refund["invoice_id"] in ids and refund["amount_cents"] == self.amount_cents


@dataclass(frozen=True)
class Change:
    """An order change that must be applied exactly once (quantity checked when given)."""

    order_id: str
    action: str  # cancel | change_quantity | change_address
    quantity: int | None = None

    def matches(self, change: OrderChange) -> bool:
        """Whether this recorded order change is the one expected."""
        action = ("cancel" if change.get("status") == "cancelled" else
                  "change_quantity" if "quantity" in change else "change_address")
        return (change["order_id"] == self.order_id and action == self.action
                and (self.quantity is None or change.get("quantity") == self.quantity))


@dataclass(frozen=True)
class Escalation:
    """An escalation that must be opened exactly once, for this account and queue."""

    account_id: str
    queue: str

    def matches(self, item: OpenedEscalation) -> bool:
        """Whether this recorded escalation is the one expected."""
        return bool(item["account_id"] == self.account_id and item["queue"] == self.queue)


@dataclass(frozen=True)
class Lookup:
    """A warehouse figure that depends on the seed; `key` names it in a Script's answer template."""

    key: str
    sku: str
    date_from: str
    date_to: str
    region: str | None
    field: StockField

    def resolve(self, world: World) -> str:
        found = world.stock(self.sku, date.fromisoformat(self.date_from), date.fromisoformat(self.date_to), self.region)
        return f"{found[self.field]:,}"


@dataclass(frozen=True)
class NotMade:
    """What a `tell` asks to pass on when it is a change that did not happen: the answer must say the change was not
    made, or may not have been (claims.py reads it), not merely use a failure word about something else."""

    action: Action

    def told(self, text: str) -> bool:
        return any(c.action == self.action and c.said in ("not_done", "unknown") for c in claims(text))


# A fact is a phrase the answer must contain, a Lookup, or a tuple of acceptable alternatives of either kind.
Fact = Union[str, Lookup, tuple[Union[str, Lookup], ...]]


def mentions(text: str, fact: Fact | NotMade, world: World) -> bool:
    """True when `text` states `fact`: case-insensitive, and '1,234' equals '1234'; a NotMade when a claim says so."""
    options: tuple[str | Lookup | NotMade, ...] = (fact,) if isinstance(fact, (str, Lookup, NotMade)) else fact
    flat = _plain(text)
    return any(o.told(text) if isinstance(o, NotMade) else
               _plain(o.resolve(world) if isinstance(o, Lookup) else o) in flat for o in options)


@text_memo  # an answer is checked against each of its ticket's facts, and answers repeat over a sweep
def _plain(text: str) -> str:
    return re.sub(r"(?<=\d),(?=\d{3})", "", text).lower()


@dataclass(frozen=True)
class Outcome:
    """The checkable end of a ticket.

    refunds, changes, escalations: must each have happened exactly once, and nothing else may have;
    optional: escalations allowed but not required (an offer to hand over after an outage).
    facts: what the final answer must state.
    tell: what the answer must pass on to the customer because an error on the ticket's path asks for it (its
        `say`: the cap, that the order shipped, to check the number, the offer of a person, that a hand-off was not
        made). Each entry is a phrase, a NotMade, or a tuple of alternatives, and every entry must be stated.
    codes, branches: the error codes and branches the ticket's failures select, in order.
    stops: the right end is to stop and tell the customer, not to complete the request.
    """

    refunds: tuple[Refund, ...] = ()
    changes: tuple[Change, ...] = ()
    escalations: tuple[Escalation, ...] = ()
    optional: tuple[Escalation, ...] = ()
    facts: tuple[Fact, ...] = ()
    tell: tuple[str | NotMade | tuple[str, ...], ...] = ()
    codes: tuple[str, ...] = ()
    branches: tuple[str, ...] = ()
    stops: bool = False


@dataclass(frozen=True)
class Call:
    tool: str
    input: JSONObject = field(default_factory=dict)


def call(tool: str, **input: object) -> Call:
    """One step of a Script: call `tool` with these arguments."""
    return Call(tool, input)


@dataclass(frozen=True)
class Script:
    """A perfect run: assistant turns of tool calls, then the answer (`{key}` filled from Lookups)."""

    turns: tuple[Call | tuple[Call, ...], ...]
    final: str

    def batches(self) -> list[tuple[Call, ...]]:
        return [t if isinstance(t, tuple) else (t,) for t in self.turns]

    def answer(self, world: World, facts: tuple[Fact, ...] = ()) -> str:
        flat = [o for f in facts for o in (f if isinstance(f, tuple) else (f,))]
        values = {f.key: f.resolve(world) for f in flat if isinstance(f, Lookup)}
        return self.final.format(**values) if values else self.final


def differences(world: World, outcome: Outcome) -> list[str]:
    """Differences between Atlas's end state and the outcome: each expected effect once, nothing else."""
    return (_effects("refund", outcome.refunds, world.refunds) + _effects("order change", outcome.changes,
            world.order_changes) + _effects("escalation", outcome.escalations, world.escalations, outcome.optional))


_Done = TypeVar("_Done", bound=Mapping[str, object])
_Seen = TypeVar("_Seen", contravariant=True)


class _Expected(Protocol[_Seen]):
    """An expected effect (outcome.Refund, Change, Escalation): it knows the record that fulfils it."""

    def matches(self, done: _Seen, /) -> bool: ...


def _effects(name: str, expected: Sequence[_Expected[_Done]], actual: Sequence[_Done],
             optional: Sequence[_Expected[_Done]] = ()) -> list[str]:
    counts = [(want, sum(want.matches(a) for a in actual)) for want in expected]
    out = [f"expected one {name} {shown(want)}, found {n}" for want, n in counts if n != 1]
    extra = [a for a in actual if not any(w.matches(a) for w in (*expected, *optional))]
    if extra:
        out.append(f"unexpected {name}: {_brief(extra[0])}")
    return out


def shown(item: object) -> str:
    """An expected fact, phrase or effect as a reason shows it: a phrase quoted, alternatives joined by "or"."""
    if isinstance(item, str):
        return repr(item)
    if isinstance(item, NotMade):
        return {"refund": "that the refund", "order": "that the order change",
                "escalation": "that the hand-off to a person"}[item.action] + " was not made, or may not have been"
    if isinstance(item, tuple):
        joined = " or ".join(repr(x) for x in item[:8])
        return joined if len(item) <= 8 else f"{joined} (or one of {len(item) - 8} more phrases)"
    return repr(item)


def _brief(record: Mapping[str, object]) -> str:
    return ", ".join(f"{k}={v}" for k, v in record.items() if k not in ("key", "reason"))
