"""Atlas's tool handlers: the policy behind each tool, and how each one fails.

Handlers enforce what a schema cannot (the tenant boundary, the refund ceiling, date
ranges, a query's cost) and fail through the contract; `raw=` keeps what the underlying
library would have said. The schemas the model reads are in tools.py. Chapters 04 and 08.
"""
from __future__ import annotations

from datetime import date, timedelta

from ..dispatch.tool import CallContext
from ..types import JSONObject
from ..contract.errors import ErrorCode, Next, ToolFailure, empty_result, retry_changed, stop, switch_tool
from ..contract.values import Safe, safe, say
from .data import FIRST_DAY, LAST_DAY, TODAY, Account, Invoice, Order, World, money

__all__ = ["MAX_PAGE_SIZE", "MAX_QUANTITY", "REFUND_CEILING_CENTS", "REFUND_WINDOW_DAYS", "ROW_LIMIT", "Desk"]

REFUND_CEILING_CENTS = 50_000  # above this a person approves: the error routes to escalate_to_human
REFUND_WINDOW_DAYS = 180
MAX_QUANTITY = 50
ROW_LIMIT = 10_000  # rows one warehouse query may scan
MAX_PAGE_SIZE = 50

_WORDS = {"quantity": "a quantity", "address": "an address"}  # the plain style names an argument in words
_DATES = {"date_from": "start date", "date_to": "end date"}
_CHECK_VIOLATION = 'psycopg.errors.CheckViolation: new row for relation "{table}" violates check constraint "{rule}"'


def _money(cents: int) -> Safe:
    return safe(money(cents))


def _fail(code: ErrorCode, message: str, nxt: Next, raw: str, detail: str | None = None, *, plain: str) -> ToolFailure:
    # plain: the failure diagnosed in one sentence, with no next step (the plain style, chapter 11's control arm).
    return ToolFailure(code, message, next=nxt, raw=raw, detail=detail, plain=plain)


def _not_yours(what: str, raw: str) -> ToolFailure:
    # Never repeats the id: it is another tenant's, and the prohibition is what stops enumeration.
    return _fail(ErrorCode.NOT_PERMITTED,
                 f"That {what}_id belongs to another customer, so this session cannot use it. "
                 f"Do not try other {what} ids; tell the customer you can only help with their own {what}s.",
                 stop(f"Tell the customer you cannot access that {what}."), raw,
                 plain=f"That {what} belongs to another customer, so this session cannot use it.")


def _missing(what: str, raw: str) -> ToolFailure:
    return _fail(ErrorCode.NOT_FOUND,
                 f"No {what} matches {what}_id. Ask the customer to check the number; do not guess other ids.",
                 stop(f"Tell the customer the {what} was not found and ask them to confirm it."), raw,
                 plain=f"No {what} has that number.")


class Desk:
    """The handlers for one customer (tenant). Every check runs before anything changes."""

    def __init__(self, world: World, tenant: str) -> None:
        self.world, self.tenant = world, tenant

    # --- shared checks --------------------------------------------------------------
    def _account(self, account_id: str) -> Account:
        acc = self.world.account(account_id)
        if acc is None:
            raise _missing("account", f"KeyError: '{account_id}'")
        if acc.tenant != self.tenant:
            raise _not_yours("account", f"HTTP 403 Forbidden: tenant '{self.tenant}' may not read account "
                                        f"'{account_id}' (owner '{acc.tenant}')")
        return acc

    def _order(self, order_id: str) -> Order:
        order = self.world.order(order_id)
        if order is None:
            raise _missing("order", _html404(order_id))
        if self.world.tenant_of(order_id) != self.tenant:
            raise _not_yours("order", f"HTTP 403 Forbidden: order '{order_id}' is not visible to tenant '{self.tenant}'")
        return order

    # --- reading ----------------------------------------------------------------------
    def get_account(self, args: JSONObject, ctx: CallContext) -> JSONObject:
        acc = self._account(args["account_id"])
        owed = [i for i in self.world.invoices_of(acc.account_id) if i.status != "paid"]
        return {"account_id": acc.account_id, "customer": acc.tenant, "name": acc.name, "plan": acc.plan,
                "balance_due": money(self.world.balance_cents(acc.account_id)), "unpaid_invoices": len(owed),
                "orders": [{"order_id": o.order_id, "status": o.status} for o in self.world.orders_of(acc.account_id)]}

    def list_invoices(self, args: JSONObject, ctx: CallContext) -> JSONObject:
        acc = self._account(args["account_id"])
        status, fmt = args.get("status", "all"), args.get("response_format", "concise")
        page, size = int(args.get("page", 1)), int(args.get("page_size", 10))
        for name, value, top in (("page", page, None), ("page_size", size, MAX_PAGE_SIZE)):
            if value < 1 or (top and value > top):
                limit = f"between 1 and {top}" if top else "1 or more"
                raise _fail(ErrorCode.INVALID_ARGUMENT, f"Argument {name} must be {limit}; change it and call again.",
                            retry_changed(name, "Call again with a value in range."), "ORA-01722: invalid number",
                            plain=f"The {name.replace('_', ' ')} is out of range.")
        rows = [i for i in self.world.invoices_of(acc.account_id)
                if status in ("all", i.status) or (status == "unpaid" and i.status == "overdue")]
        rows.sort(key=lambda i: i.issued, reverse=True)
        due = money(self.world.balance_cents(acc.account_id))
        if not rows:  # an answer, not an error: this account exists and has none
            word = Safe("" if status == "all" else f"{status} ")
            return empty_result("invoices", say("Account {a} has no {w}invoices.", a=safe(acc.account_id), w=word),
                                account_id=acc.account_id, status=status, total_amount="$0.00", balance_due=due)
        pages = (len(rows) + size - 1) // size
        if page > pages:
            raise _fail(ErrorCode.INVALID_ARGUMENT,
                        say("Argument page is past the last page, {n}; call again with page between 1 and {n}.", n=pages),
                        retry_changed("page", "Call again with a page that exists."), "IndexError: list index out of range",
                        plain="That page is past the last page of invoices.")
        shown = rows[(page - 1) * size: page * size]
        return {"account_id": acc.account_id, "status": status, "count": len(rows), "page": page, "pages": pages,
                "total_amount": money(sum(i.amount_cents for i in rows)), "balance_due": due,
                "invoices": [self._invoice_row(i, fmt) for i in shown]}

    def _invoice_row(self, inv: Invoice, fmt: str) -> JSONObject:
        row: JSONObject = {"invoice_id": inv.invoice_id, "status": inv.status, "amount": money(inv.amount_cents)}
        if fmt == "detailed":
            row.update(amount_cents=inv.amount_cents, issued=inv.issued, due=inv.due, paid_on=inv.paid_on,
                       payment_id=inv.payment_id, refunded=money(self.world.refunded_cents(inv.invoice_id)))
        return row

    def get_order(self, args: JSONObject, ctx: CallContext) -> JSONObject:
        order = self._order(args["order_id"])
        product = self.world.products[order.sku]
        return {"order_id": order.order_id, "account_id": order.account_id, "status": order.status,
                "sku": order.sku, "product": product.name, "quantity": order.quantity,
                "unit_price": money(product.unit_cents), "total": money(product.unit_cents * order.quantity),
                "ship_to": order.ship_to, "placed_on": order.placed_on}

    def query_warehouse(self, args: JSONObject, ctx: CallContext) -> JSONObject:
        sku, region = args["sku"], args.get("region")
        product = self.world.products.get(sku)
        if product is None:
            raise _fail(ErrorCode.NOT_FOUND, "No product matches sku. Ask the customer to check the SKU; do not guess others.",
                        stop("Tell the customer that SKU is not in the catalogue."), f"KeyError: '{sku}'",
                        plain="No product has that SKU.")
        start, end = _day(args, "date_from"), _day(args, "date_to")
        if start > end:
            raise _fail(ErrorCode.INVALID_ARGUMENT, "Argument date_from is after date_to; swap them or fix one and call again.",
                        retry_changed("date_from", "Call again with date_from on or before date_to."),
                        "ValueError: empty range", plain="The start date is after the end date.")
        rows = self.world.rows_scanned(start, end, region)
        if rows > ROW_LIMIT:  # say what to narrow, not just "too expensive"
            fix = "narrow date_from and date_to" if region else \
                "add region (north, south, east or west) or narrow date_from and date_to"
            raise _fail(ErrorCode.INVALID_ARGUMENT, f"This query would scan {rows} rows, over the {ROW_LIMIT}-row limit; {fix}.",
                        retry_changed("date_from" if region else "region",
                                      "Call again with a shorter range, or once per region and add the results."),
                        "psycopg.errors.QueryCanceled: canceling statement due to statement timeout",
                        detail=f"rows_scanned={rows} limit={ROW_LIMIT}",
                        plain="This query would read more warehouse records than one query is allowed to.")
        found = self.world.stock(sku, start, end, region)
        return {"sku": sku, "product": product.name, "date_from": start.isoformat(), "date_to": end.isoformat(),
                "region": region or "all", "units_shipped": found["units_shipped"], "on_hand": found["on_hand"],
                "on_hand_date": end.isoformat(), "by_region": found["by_region"],
                "cost_estimate": {"rows_scanned": rows, "row_limit": ROW_LIMIT}}

    # --- changing: each checks everything first, then records once per idempotency key -----
    def update_order(self, args: JSONObject, ctx: CallContext) -> JSONObject:
        order, action = self._order(args["order_id"]), args["action"]
        quantity = None if args.get("quantity") is None else int(args["quantity"])  # JSON Schema counts 12.0 as an integer
        address = args.get("address")
        wanted = {"change_quantity": "quantity", "change_address": "address"}.get(action)
        for name, value in (("quantity", quantity), ("address", address)):
            if name == wanted and value is None:
                raise _fail(ErrorCode.INVALID_ARGUMENT, f"Action {action} needs argument {name}; call again with it.",
                            retry_changed(name, f"Add {name} and call again."), f"KeyError: '{name}'",
                            plain=f"This change needs {_WORDS[name]}, and none was given.")
            if name != wanted and value is not None:
                raise _fail(ErrorCode.INVALID_ARGUMENT,
                            f"Argument {name} is only used with action change_{name}; remove it or change action.",
                            retry_changed(name, f"Call again without {name}."),
                            f"TypeError: unexpected keyword argument '{name}'",
                            plain=f"{_WORDS[name].capitalize()} was given, but this change does not use one.")
        if (earlier := self.world.recall(ctx.idempotency_key)) is not None:
            return earlier  # a harness retry of a change already made
        o = safe(order.order_id)
        if order.status == "deleted":
            raise _fail(ErrorCode.NOT_FOUND, say("Order {o} was deleted and cannot be changed. Tell the customer; they can "
                                         "place a new order if they still need the items.", o=o),
                        stop("Tell the customer the order no longer exists."),
                        'HTTP 410 Gone\n{"detail": "order is soft-deleted"}', plain="That order was deleted, so it cannot be changed.")
        if order.status == "shipped":
            raise _fail(ErrorCode.NOT_PERMITTED, say("Order {o} has already shipped, so it can no longer be changed here. A "
                                             "return goes to a person: call escalate_to_human with account_id {a} "
                                             "and queue returns.", o=o, a=safe(order.account_id)),
                        switch_tool("escalate_to_human", "Escalate to the returns queue, then tell the customer."),
                        _CHECK_VIOLATION.format(table="orders", rule="orders_status_transition"),
                        plain="That order has already shipped, so it can no longer be changed.")
        if order.status != "open":
            raise _fail(ErrorCode.NOT_PERMITTED, say("Order {o} is {s} and can no longer be changed. Tell the customer; they "
                                             "can place a new order.", o=o, s=safe(order.status)),
                        stop("Tell the customer the order cannot be changed."),
                        _CHECK_VIOLATION.format(table="orders", rule="orders_status_transition"),
                        plain=say("That order is {s}, so it can no longer be changed.", s=safe(order.status)))
        if action == "change_quantity":
            if quantity < 1:  # type: ignore[operator]
                raise _fail(ErrorCode.INVALID_ARGUMENT,
                            "Argument quantity must be at least 1; to drop the whole order use action cancel.",
                            retry_changed("quantity", "Call again with 1 or more, or cancel."),
                            "ORA-02290: check constraint violated", plain="The quantity is below one unit.")
            if quantity > MAX_QUANTITY:  # type: ignore[operator]
                raise _fail(ErrorCode.LIMIT_EXCEEDED, say("Orders are capped at {m} units each, so this order cannot go above "
                                                  "{m}. Tell the customer they can place a second order for the rest.",
                                                  m=MAX_QUANTITY),
                            stop("Tell the customer about the cap and leave the order as it is."),
                            _CHECK_VIOLATION.format(table="order_lines", rule="order_lines_quantity_max"),
                            plain=say("Orders are capped at {m} units each, and this change would go above that.",
                                      m=MAX_QUANTITY))
            changed = self.world.change_order(order.order_id, quantity=quantity, key=ctx.idempotency_key)
            note = say("Order {o} now has {q} units.", o=o, q=changed.quantity)
        elif action == "change_address":
            changed = self.world.change_order(order.order_id, ship_to=address, key=ctx.idempotency_key)
            note = say("Order {o} will ship to the new address.", o=o)
        else:
            changed = self.world.change_order(order.order_id, status="cancelled", key=ctx.idempotency_key)
            note = say("Order {o} is cancelled; nothing will ship and nothing will be charged.", o=o)
        result = {"order_id": changed.order_id, "status": changed.status, "quantity": changed.quantity,
                  "ship_to": changed.ship_to, "note": note}
        return self.world.remember(ctx.idempotency_key, result)

    def issue_refund(self, args: JSONObject, ctx: CallContext) -> JSONObject:
        invoice_id, cents = args["invoice_id"], int(args["amount_cents"])
        inv = self.world.invoice(invoice_id)
        if inv is None:
            raise _fail(ErrorCode.NOT_FOUND, "No invoice matches invoice_id. Find the right one with list_invoices; do not "
                                     "guess ids.",
                        switch_tool("list_invoices",
                                    "Call list_invoices with the customer's account_id and pick the matching invoice."),
                        "sqlalchemy.exc.NoResultFound: No row was found when one was required",
                        plain="No invoice has that number.")
        if self.world.tenant_of(invoice_id) != self.tenant:
            raise _not_yours("invoice", f"HTTP 403 Forbidden: invoice '{invoice_id}' is not visible to tenant "
                                        f"'{self.tenant}'")
        if (earlier := self.world.recall(ctx.idempotency_key)) is not None:
            return earlier  # a harness retry of a refund already issued
        i = safe(invoice_id)
        if cents < 1:
            raise _fail(ErrorCode.INVALID_ARGUMENT,
                        "Argument amount_cents must be a positive whole number of cents; $120.00 is 12000.",
                        retry_changed("amount_cents", "Call again with the amount in cents."), "ORA-01722: invalid number",
                        plain="The amount is not a positive whole number of cents.")
        if inv.status != "paid":
            raise _fail(ErrorCode.INVALID_ARGUMENT, say("Invoice {i} is not paid, so there is nothing to refund. Choose a paid "
                                                "invoice_id, or tell the customer nothing was charged.", i=i),
                        retry_changed("invoice_id", "Use a paid invoice, or stop and explain."),
                        f"ValueError: invoice {invoice_id} has status '{inv.status}'",
                        plain="That invoice is not paid, so there is nothing to refund.")
        if date.fromisoformat(inv.paid_on or "") < TODAY - timedelta(days=REFUND_WINDOW_DAYS):
            raise _fail(ErrorCode.LIMIT_EXCEEDED, say("Invoice {i} was paid on {d}, more than {n} days ago, so it is outside "
                                              "the refund window. Tell the customer it cannot be refunded.",
                                              i=i, d=safe(inv.paid_on), n=REFUND_WINDOW_DAYS),
                        stop("Tell the customer the refund window has passed."),
                        f"ValueError: charge for {invoice_id} is older than the {REFUND_WINDOW_DAYS}-day refund window",
                        plain=say("That invoice was paid more than {n} days ago, outside the refund window.",
                                  n=REFUND_WINDOW_DAYS))
        left = inv.amount_cents - self.world.refunded_cents(invoice_id)
        if left == 0:
            raise _fail(ErrorCode.LIMIT_EXCEEDED, say("Invoice {i} has already been refunded in full, so nothing is left to refund. "
                                              "Tell the customer no further refund is possible.", i=i),
                        stop("Tell the customer the invoice was already refunded in full."),
                        f"InvalidRequestError: Charge for {invoice_id} has already been refunded.",
                        plain="That invoice has already been refunded in full.")
        if cents > left:
            raise _fail(ErrorCode.INVALID_ARGUMENT, say("At most {m} is left to refund on invoice {i}; set amount_cents to {c} "
                                                "or less.", m=_money(left), i=i, c=left),
                        retry_changed("amount_cents", "Call again with an amount within what is left, and tell the customer."),
                        f"InvalidRequestError: Refund amount ({cents}) is greater than unrefunded amount on charge ({left})",
                        plain="The amount is more than is left to refund on that invoice.")
        if cents > REFUND_CEILING_CENTS:  # a routing instruction, not a dead end
            raise _fail(ErrorCode.LIMIT_EXCEEDED, say("Refunds above {m} need a person's approval, so this one was not issued. "
                                              "Call escalate_to_human with account_id {a} and queue billing_refunds.",
                                              m=_money(REFUND_CEILING_CENTS), a=safe(inv.account_id)),
                        switch_tool("escalate_to_human",
                                    "Escalate to billing_refunds with the invoice and amount in reason, then tell the customer."),
                        f"ValueError: amount {cents} exceeds REFUND_CEILING_CENTS={REFUND_CEILING_CENTS}",
                        plain=say("This refund is above the {m} limit, so it was not issued.",
                                  m=_money(REFUND_CEILING_CENTS)))
        refund = self.world.refund(invoice_id, cents, args["reason"], key=ctx.idempotency_key)
        result = {"refund_id": refund["refund_id"], "invoice_id": invoice_id, "amount": money(cents),
                  "amount_cents": cents, "status": "issued",
                  "note": say("Refund of {m} on invoice {i} issued; it reaches the customer in 5 to 10 days.",
                              m=_money(cents), i=i)}
        return self.world.remember(ctx.idempotency_key, result)

    def escalate_to_human(self, args: JSONObject, ctx: CallContext) -> JSONObject:
        acc = self._account(args["account_id"])
        if (earlier := self.world.recall(ctx.idempotency_key)) is not None:
            return earlier
        item = self.world.escalate(acc.account_id, args["queue"], args["reason"], key=ctx.idempotency_key)
        result = {"escalation_id": item["escalation_id"], "account_id": acc.account_id, "queue": item["queue"],
                  "status": "open", "note": "A person from that team will reply to the customer within one business day."}
        return self.world.remember(ctx.idempotency_key, result)


def _day(args: JSONObject, name: str) -> date:
    try:
        day = date.fromisoformat(args[name])
    except ValueError:
        raise _fail(ErrorCode.INVALID_ARGUMENT, f"Argument {name} is not a real calendar date; use YYYY-MM-DD and call again.",
                    retry_changed(name, "Call again with a valid date."),
                    "ORA-01839: date not valid for month specified",
                    plain=f"The {_DATES[name]} is not a real calendar date.") from None
    if not FIRST_DAY <= day <= LAST_DAY:
        raise _fail(ErrorCode.INVALID_ARGUMENT, f"Warehouse records run from {FIRST_DAY} to {LAST_DAY}; move {name} inside "
                                        "that range and call again.",
                    retry_changed(name, "Call again with a date inside the records."), "IndexError: list index out of range",
                    plain=f"The {_DATES[name]} is outside the warehouse records.")
    return day


def _html404(ident: str) -> str:
    return ("HTTP/1.1 404 Not Found\nContent-Type: text/html\n\n<html><head><title>404 Not Found</title></head><body>"
            f"<h1>Not Found</h1><p>The requested URL /v2/orders/{ident} was not found on this server.</p></body></html>")
