"""Atlas's tool surface: seven tools, described for a new hire, with strict input schemas.

Few tools, unambiguous argument names (`account_id`, never `user`), an example on every
id (the argument checker quotes it), enums for closed sets. Policy numbers live in
handlers.py, not here. Taught in chapters 04 and 08.
"""
from __future__ import annotations

import copy
from functools import lru_cache
from ..dispatch.tool import CallContext, Handler, Tool
from ..types.sets import JSONObject
from .data import QUEUES, REGIONS, TENANTS, World
from .formats import ID_DIGITS
from .handlers import Desk
from ..types.exceptions import AtlasKitValueError

TOOL_NAMES = ("get_account", "list_invoices", "get_order", "update_order", "issue_refund",
              "query_warehouse", "escalate_to_human")
HANDS_OVER = "escalate_to_human"  # the tool that passes a case to a person (Tool.hands_over)


def _id(prefix: str, example: str, text: str) -> JSONObject:
    pattern = f"^{prefix}-[0-9]{{{ID_DIGITS[prefix]}}}$"
    return {"type": "string", "pattern": pattern, "examples": [example], "description": text}


def _schema(required: list[str], **props: JSONObject) -> JSONObject:
    return {"type": "object", "properties": props, "required": required, "additionalProperties": False}


_ACCOUNT = _id("ACC", "ACC-4471", "The customer's account id: ACC- and four digits, as the customer wrote it.")
_ORDER = _id("ORD", "ORD-77120", "The order id: ORD- and five digits.")
_INVOICE = _id("INV", "INV-20410", "The invoice id: INV- and five digits.")
_DATE = {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$", "examples": ["2024-03-01"]}

_SPECS: dict[str, tuple[str, JSONObject, bool]] = {
    "get_account": (
        "Look up one of the customer's accounts: its name, plan, balance due (unpaid and overdue invoices "
        "together) and its orders with their status. Start here when the customer asks about an account.",
        _schema(["account_id"], account_id=_ACCOUNT), False),
    "list_invoices": (
        "List an account's invoices, newest first, with each amount and status and the total of those listed. "
        "status=unpaid includes overdue invoices; overdue lists only those past their due date. An account with "
        "no matching invoices returns count 0 and a note, which is an answer, not an error. Results are paged.",
        _schema(["account_id"], account_id=_ACCOUNT,
                status={"type": "string", "enum": ["all", "paid", "unpaid", "overdue"],
                        "description": "Which invoices to list; defaults to all."},
                page={"type": "integer", "examples": [1], "description": "Page number, from 1; defaults to 1."},
                page_size={"type": "integer", "examples": [10], "description": "Invoices per page, 1 to 50; defaults to 10."},
                response_format={"type": "string", "enum": ["concise", "detailed"],
                                 "description": "concise: id, status, amount. detailed adds dates, payment id and "
                                                "amount refunded so far; ask for it only when you need those."}), False),
    "get_order": (
        "Look up one order: its account, status (open, shipped, deleted or cancelled), product, quantity, "
        "price and delivery address.",
        _schema(["order_id"], order_id=_ORDER), False),
    "update_order": (
        "Change an open order: cancel it, change its quantity (pass quantity) or change its delivery address "
        "(pass address). Orders that have shipped or were deleted cannot be changed; the tool says what to do "
        "instead. Safe to retry: the same call is never applied twice.",
        _schema(["order_id", "action"], order_id=_ORDER,
                action={"type": "string", "enum": ["cancel", "change_quantity", "change_address"],
                        "description": "What to change."},
                quantity={"type": "integer", "examples": [12],
                          "description": "The new total number of units; only with action change_quantity."},
                address={"type": "string", "minLength": 5, "maxLength": 200,
                         "description": "The full new delivery address; only with action change_address."}), True),
    "issue_refund": (
        "Refund money to the customer against one of their paid invoices, in whole cents ($120.00 is 12000). "
        "Refunds have policy limits (amount and age); when one applies, the tool names the route to take. "
        "Call it once per refund: a refund is money leaving Atlas.",
        _schema(["invoice_id", "amount_cents", "reason"], invoice_id=_INVOICE,
                amount_cents={"type": "integer", "examples": [12000],
                              "description": "The refund in cents: $120.00 is 12000."},
                reason={"type": "string", "minLength": 3, "maxLength": 500,
                        "description": "Why the customer is owed the money, in a short sentence."}), True),
    "query_warehouse": (
        "Stock figures for one SKU from the warehouse records (2024-01-01 to 2024-12-31): units shipped "
        "between date_from and date_to, and units on hand at the close of date_to, in total and per region. "
        "Each query reports its cost in rows scanned; a query that would scan too much is refused with what to "
        "narrow. For current stock, use 2024-12-31 as both dates.",
        _schema(["sku", "date_from", "date_to"],
                sku=_id("SKU", "SKU-2041", "The product's SKU: SKU- and four digits."),
                date_from=dict(_DATE, description="First day, YYYY-MM-DD, inclusive."),
                date_to=dict(_DATE, description="Last day, YYYY-MM-DD, inclusive."),
                region={"type": "string", "enum": list(REGIONS),
                        "description": "One warehouse region; leave out for all four."}), False),
    "escalate_to_human": (
        "Hand the case to a person on one of Atlas's teams, who replies to the customer within one business "
        "day. Use it when a tool says a case needs a person, or when the customer asks for one. "
        "Queues: billing_refunds (refunds above the limit), returns (shipped orders), account_security, general.",
        _schema(["account_id", "queue", "reason"], account_id=_ACCOUNT,
                queue={"type": "string", "enum": list(QUEUES), "description": "The team that takes the case."},
                reason={"type": "string", "minLength": 10, "maxLength": 500,
                        "description": "What the person needs to know: ids, amounts and what the customer wants."}), True),
}


def build_tools(world: World, *, tenant: str) -> list[Tool]:
    """The seven tools, acting on `world` for one customer (`tenant`)."""
    if tenant not in TENANTS:
        raise AtlasKitValueError(f"tenant {tenant!r} is not an Atlas customer; pass one of: {', '.join(TENANTS)}.")
    desk = Desk(world, tenant)
    return [_bound(template, getattr(desk, template.name)) for template in _templates()]


@lru_cache(maxsize=1)
def _templates() -> tuple[Tool, ...]:
    # Tool() validates its schema (about a millisecond each); the schemas never change, so
    # validate them once per process and give each session copies with its own handlers.
    return tuple(Tool(name, text, schema, _unbound, side_effect=side, hands_over=name == HANDS_OVER)
                 for name, (text, schema, side) in _SPECS.items())


def _unbound(args: JSONObject, ctx: CallContext) -> JSONObject:
    raise RuntimeError("a tool template's handler ran; build_tools() gives every tool its desk's handler")


def _bound(template: Tool, handler: Handler) -> Tool:
    tool = copy.copy(template)
    tool.handler = handler
    return tool
