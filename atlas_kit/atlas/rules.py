"""The rules Atlas's changing tools check before anything changes: which orders may change and how, and which
refunds may be issued. A broken rule raises the ToolFailure the contract words, with what the underlying library
would have said (`raw`) and a one-sentence diagnosis (`plain`). handlers.py runs them; chapters 04 and 08.
"""
from __future__ import annotations

from datetime import date, timedelta

from ..contract.errors import ErrorCode, Next, ToolFailure, retry_changed, stop, switch_tool
from ..contract.values import safe, say
from .data import TODAY, Invoice, Order
from .formats import money

REFUND_CEILING_CENTS = 50_000  # above this a person approves: the error routes to escalate_to_human
REFUND_WINDOW_DAYS = 180
MAX_QUANTITY = 50

_WORDS = {"quantity": "a quantity", "address": "an address"}  # the plain style names an argument in words
_CHECK_VIOLATION = 'psycopg.errors.CheckViolation: new row for relation "{table}" violates check constraint "{rule}"'


def fail(code: ErrorCode, message: str, nxt: Next, raw: str, detail: str | None = None, *, plain: str) -> ToolFailure:
    """A handler's failure. plain: the failure diagnosed in one sentence, with no next step (the plain style,
    chapter 11's control arm)."""
    return ToolFailure(code, message, next=nxt, raw=raw, detail=detail, plain=plain)


def check_change(action: str, quantity: int | None, address: object) -> None:
    """update_order's arguments fit its action: a quantity for change_quantity, an address for change_address,
    and neither where the action takes none."""
    wanted = {"change_quantity": "quantity", "change_address": "address"}.get(action)
    for name, value in (("quantity", quantity), ("address", address)):
        if name == wanted and value is None:
            raise fail(ErrorCode.INVALID_ARGUMENT, f"Action {action} needs argument {name}; call again with it.",
                       retry_changed(name, f"Add {name} and call again."), f"KeyError: '{name}'",
                       plain=f"This change needs {_WORDS[name]}, and none was given.")
        if name != wanted and value is not None:
            raise fail(ErrorCode.INVALID_ARGUMENT,
                       f"Argument {name} is only used with action change_{name}; remove it or change action.",
                       retry_changed(name, f"Call again without {name}."),
                       f"TypeError: unexpected keyword argument '{name}'",
                       plain=f"{_WORDS[name].capitalize()} was given, but this change does not use one.")


def check_changeable(order: Order) -> None:
    """Only an open order may change: a deleted one is gone, a shipped one is a return (a person's work)."""
    o = safe(order.order_id)
    if order.status == "deleted":
        raise fail(ErrorCode.NOT_FOUND, say("Order {o} was deleted and cannot be changed. Tell the customer; they can "
                                            "place a new order if they still need the items.", o=o),
                   stop("Tell the customer the order no longer exists."),
                   'HTTP 410 Gone\n{"detail": "order is soft-deleted"}', plain="That order was deleted, so it cannot be changed.")
    if order.status == "shipped":
        raise fail(ErrorCode.NOT_PERMITTED, say("Order {o} has already shipped, so it can no longer be changed here. A "
                                                "return goes to a person: call escalate_to_human with account_id {a} "
                                                "and queue returns.", o=o, a=safe(order.account_id)),
                   switch_tool("escalate_to_human", "Escalate to the returns queue, then tell the customer."),
                   _CHECK_VIOLATION.format(table="orders", rule="orders_status_transition"),
                   plain="That order has already shipped, so it can no longer be changed.")
    if order.status != "open":
        raise fail(ErrorCode.NOT_PERMITTED, say("Order {o} is {s} and can no longer be changed. Tell the customer; they "
                                                "can place a new order.", o=o, s=safe(order.status)),
                   stop("Tell the customer the order cannot be changed."),
                   _CHECK_VIOLATION.format(table="orders", rule="orders_status_transition"),
                   plain=say("That order is {s}, so it can no longer be changed.", s=safe(order.status)))


def check_quantity(quantity: int) -> None:
    """A new quantity is at least 1 (less is a cancel) and at most MAX_QUANTITY."""
    if quantity < 1:
        raise fail(ErrorCode.INVALID_ARGUMENT,
                   "Argument quantity must be at least 1; to drop the whole order use action cancel.",
                   retry_changed("quantity", "Call again with 1 or more, or cancel."),
                   "ORA-02290: check constraint violated", plain="The quantity is below one unit.")
    if quantity > MAX_QUANTITY:
        raise fail(ErrorCode.LIMIT_EXCEEDED, say("Orders are capped at {m} units each, so this order cannot go above "
                                                 "{m}. Tell the customer they can place a second order for the rest.",
                                                 m=MAX_QUANTITY),
                   stop("Tell the customer about the cap and leave the order as it is."),
                   _CHECK_VIOLATION.format(table="order_lines", rule="order_lines_quantity_max"),
                   plain=say("Orders are capped at {m} units each, and this change would go above that.",
                             m=MAX_QUANTITY))


def check_refund(inv: Invoice, cents: int) -> None:
    """A refund is a positive number of cents, on a paid invoice, inside the refund window."""
    i = safe(inv.invoice_id)
    if cents < 1:
        raise fail(ErrorCode.INVALID_ARGUMENT,
                   "Argument amount_cents must be a positive whole number of cents; $120.00 is 12000.",
                   retry_changed("amount_cents", "Call again with the amount in cents."), "ORA-01722: invalid number",
                   plain="The amount is not a positive whole number of cents.")
    if inv.status != "paid":
        raise fail(ErrorCode.INVALID_ARGUMENT, say("Invoice {i} is not paid, so there is nothing to refund. Choose a paid "
                                                   "invoice_id, or tell the customer nothing was charged.", i=i),
                   retry_changed("invoice_id", "Use a paid invoice, or stop and explain."),
                   f"ValueError: invoice {inv.invoice_id} has status '{inv.status}'",
                   plain="That invoice is not paid, so there is nothing to refund.")
    if date.fromisoformat(inv.paid_on or "") < TODAY - timedelta(days=REFUND_WINDOW_DAYS):
        raise fail(ErrorCode.LIMIT_EXCEEDED, say("Invoice {i} was paid on {d}, more than {n} days ago, so it is outside "
                                                 "the refund window. Tell the customer it cannot be refunded.",
                                                 i=i, d=safe(inv.paid_on), n=REFUND_WINDOW_DAYS),
                   stop("Tell the customer the refund window has passed."),
                   f"ValueError: charge for {inv.invoice_id} is older than the {REFUND_WINDOW_DAYS}-day refund window",
                   plain=say("That invoice was paid more than {n} days ago, outside the refund window.",
                             n=REFUND_WINDOW_DAYS))


def check_refund_left(inv: Invoice, cents: int, left: int) -> None:
    """A refund fits in what is `left` unrefunded on the invoice, and a person approves one above the ceiling."""
    i = safe(inv.invoice_id)
    if left == 0:
        raise fail(ErrorCode.LIMIT_EXCEEDED, say("Invoice {i} has already been refunded in full, so nothing is left to refund. "
                                                 "Tell the customer no further refund is possible.", i=i),
                   stop("Tell the customer the invoice was already refunded in full."),
                   f"InvalidRequestError: Charge for {inv.invoice_id} has already been refunded.",
                   plain="That invoice has already been refunded in full.")
    if cents > left:
        raise fail(ErrorCode.INVALID_ARGUMENT, say("At most {m} is left to refund on invoice {i}; set amount_cents to {c} "
                                                   "or less.", m=safe(money(left)), i=i, c=left),
                   retry_changed("amount_cents", "Call again with an amount within what is left, and tell the customer."),
                   f"InvalidRequestError: Refund amount ({cents}) is greater than unrefunded amount on charge ({left})",
                   plain="The amount is more than is left to refund on that invoice.")
    if cents > REFUND_CEILING_CENTS:  # a routing instruction, not a dead end
        raise fail(ErrorCode.LIMIT_EXCEEDED, say("Refunds above {m} need a person's approval, so this one was not issued. "
                                                 "Call escalate_to_human with account_id {a} and queue billing_refunds.",
                                                 m=safe(money(REFUND_CEILING_CENTS)), a=safe(inv.account_id)),
                   switch_tool("escalate_to_human",
                               "Escalate to billing_refunds with the invoice and amount in reason, then tell the customer."),
                   f"ValueError: amount {cents} exceeds REFUND_CEILING_CENTS={REFUND_CEILING_CENTS}",
                   plain=say("This refund is above the {m} limit, so it was not issued.",
                             m=safe(money(REFUND_CEILING_CENTS))))
