"""What a World records as tools change it (refunds, order changes, escalations), the warehouse figures it
answers with, and its snapshot: the shapes data.py keeps and outcome.py and grade.py check. The records
themselves, and the rules that allow a change, are in data.py and handlers.py. Chapter 04; grading, chapter 10.
"""
from __future__ import annotations

from typing import Literal, TypedDict


class IssuedRefund(TypedDict):
    """A refund World.refund recorded."""

    refund_id: str
    invoice_id: str
    amount_cents: int
    reason: str
    key: str | None


class OrderEdit(TypedDict, total=False):
    """What World.change_order may change on an order (the handler changes one at a time)."""

    status: str
    quantity: int
    ship_to: str


class _ChangeFields(TypedDict):
    order_id: str
    key: str | None


class OrderChange(_ChangeFields, OrderEdit):
    """An order change World.change_order recorded: the order, what changed, and the idempotency key."""


class OpenedEscalation(TypedDict):
    """An escalation World.escalate recorded."""

    escalation_id: str
    account_id: str
    queue: str
    reason: str
    key: str | None


StockField = Literal["units_shipped", "on_hand"]
"""The two warehouse figures."""


class RegionStock(TypedDict):
    """One region's warehouse figures for a date range."""

    region: str
    units_shipped: int
    on_hand: int


class Stock(TypedDict):
    """World.stock's answer: the figures in total and per region."""

    units_shipped: int
    on_hand: int
    by_region: list[RegionStock]


class Snapshot(TypedDict):
    """Everything tools have changed in a World (World.snapshot)."""

    refunds: list[IssuedRefund]
    order_changes: list[OrderChange]
    escalations: list[OpenedEscalation]
    idempotency_keys: list[str]
