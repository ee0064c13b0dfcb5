"""Atlas's tool handlers: the policy behind each tool, and how each one fails.

Handlers enforce what a schema cannot (the tenant boundary, date ranges, a query's cost; the
changing tools' rules, such as the refund ceiling, are in rules.py) and fail through the contract;
`raw=` keeps what the underlying library would have said. The schemas the model reads are in
tools.py. Chapters 04 and 08.
"""
from __future__ import annotations

from datetime import date

from ..dispatch.tool import CallContext
from ..types.sets import JSONObject
from ..contract.errors import ErrorCode, ToolFailure, empty_result, retry_changed, stop, switch_tool
from ..contract.values import Safe, safe, say
from .data import FIRST_DAY, LAST_DAY, Account, Invoice, Order, World
from .formats import money
from .rules import MAX_QUANTITY, REFUND_CEILING_CENTS, REFUND_WINDOW_DAYS, check_change, check_changeable, check_quantity
from .rules import check_refund, check_refund_left
from .rules import fail as _fail

ROW_LIMIT = 10_000  # rows one warehouse query may scan
MAX_PAGE_SIZE = 50

_DATES = {"date_from": "start date", "date_to": "end date"}


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
        check_change(action, quantity, address)
        if (earlier := self.world.recall(ctx.idempotency_key)) is not None:
            return earlier  # a harness retry of a change already made
        o = safe(order.order_id)
        check_changeable(order)
        if action == "change_quantity":
            assert quantity is not None  # check_change requires one for change_quantity
            check_quantity(quantity)
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
        check_refund(inv, cents)
        check_refund_left(inv, cents, inv.amount_cents - self.world.refunded_cents(invoice_id))
        refund = self.world.refund(invoice_id, cents, args["reason"], key=ctx.idempotency_key)
        result = {"refund_id": refund["refund_id"], "invoice_id": invoice_id, "amount": money(cents),
                  "amount_cents": cents, "status": "issued",
                  "note": say("Refund of {m} on invoice {i} issued; it reaches the customer in 5 to 10 days.",
                              m=safe(money(cents)), i=safe(invoice_id))}
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
