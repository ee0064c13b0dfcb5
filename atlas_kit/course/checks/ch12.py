"""Checks for chapter 12's exercises: concise and detailed invoice rows (12.1), and a paged list_orders
with unambiguous arguments (12.2), run on a World with one 73-order account.
"""
from __future__ import annotations

import json

from ...atlas.data import World
from ...atlas.formats import money
from ...atlas.data import Account, Order
from ...dispatch.dispatcher import Dispatcher
from ...dispatch.transient import RetryPolicy
from ...dispatch.tool import Tool
from ...types.tokens import estimate_tokens
from ...types.sets import JSONObject
from ...types.walk import result_text
from ._registry import BLANK, exercise, is_blank
from ._shared import _use


def _tokens(rows: object) -> int:
    return estimate_tokens(json.dumps(rows, separators=(",", ":"), default=str))


@exercise("12.1", "Concise and detailed invoice rows",
          right="Concise rows keep what most questions need at half the tokens or less; detailed rows add the dates.",
          hints=("Concise: invoice_id, status and amount as the dollar text (atlas.money(amount_cents)); nothing else.",
                 "Detailed: everything concise has, plus amount_cents, issued, due, paid_on and payment_id.",
                 "Measure as the check does: estimate_tokens(json.dumps(rows, separators=(',', ':')))."))
def _check_formats(fn: object) -> str | None:
    """Structure: the rows' fields and the tokens each format costs. No free text is read."""
    if not callable(fn):
        return "Pass the function invoice_rows itself (no parentheses), so the check can call it on other accounts."
    world = World(0)
    concise_tokens = detailed_tokens = 0
    for account in ("ACC-2304", "ACC-4471", "ACC-1629"):
        invoices = world.invoices_of(account)
        concise, detailed, default = fn(list(invoices), "concise"), fn(list(invoices), "detailed"), fn(list(invoices))
        if is_blank(concise):
            return BLANK
        for name, rows in (("concise", concise), ("detailed", detailed)):
            if not isinstance(rows, list) or len(rows) != len(invoices) or not all(isinstance(r, dict) for r in rows):
                return f"{name}: return a list with one dict per invoice given ({len(invoices)} for {account}), in order."
        for inv, c, d in zip(invoices, concise, detailed):
            for name, row in (("concise", c), ("detailed", d)):
                if row.get("invoice_id") != inv.invoice_id or row.get("status") != inv.status:
                    return f"{name} rows need invoice_id and status, as the invoice has them ({inv.invoice_id})."
                if row.get("amount") != money(inv.amount_cents):
                    return (f"{name} rows need amount as the dollar text the customer reads (like "
                            f"{money(31050)}), not cents or a float.")
            wanted = [inv.issued, inv.due] + [v for v in (inv.paid_on, inv.payment_id) if v]
            if not all(v in d.values() for v in wanted):
                return ("detailed rows should add what a refund check needs: the issued and due dates, and the paid_on "
                        "date and payment_id of a paid invoice.")
        if default != concise:
            return "Make concise the default: invoice_rows(invoices) should return the concise rows."
        concise_tokens += _tokens(concise)
        detailed_tokens += _tokens(detailed)
    if concise_tokens > 0.5 * detailed_tokens:
        return (f"Concise costs {concise_tokens} estimated tokens against {detailed_tokens} for detailed "
                f"({concise_tokens / detailed_tokens:.0%}); keep concise at half or less by leaving the extras out.")
    return None

_BIG = "ACC-9001"


class _BigWorld(World):
    """A World with one extra account holding 73 orders, enough to need paging."""

    def __init__(self) -> None:
        super().__init__(0)
        skus = sorted(self.products)
        self._big = {f"ORD-9{n:04d}": Order(f"ORD-9{n:04d}", _BIG, ("open", "shipped", "shipped")[n % 3],
                                            skus[n % len(skus)], 1 + n % 9, f"{n} Harbour Road", "2024-06-01")
                     for n in range(73)}

    def account(self, account_id: str) -> Account | None:
        return Account(_BIG, "acme", "Acme Wholesale", "business") if account_id == _BIG else super().account(account_id)

    def order(self, order_id: str) -> Order | None:
        return self._big.get(order_id) or super().order(order_id)

    def orders_of(self, account_id: str) -> list[Order]:
        return list(self._big.values()) if account_id == _BIG else super().orders_of(account_id)


def _call(d: Dispatcher, tool: str, args: JSONObject) -> tuple[object, JSONObject | None]:
    """(result body, error body) of one call: exactly one is None. The result body is whatever JSON the tool wrote."""
    out = d.dispatch([_use(f"toolu_{len(d.trace)}", tool, args)])
    block = out.results[0]
    if out.failures:
        return None, dict(out.failures[0].error.body())
    try:
        return json.loads(result_text(block["content"])), None
    except ValueError:
        return {}, None


@exercise("12.2", "A paged list_orders with unambiguous arguments",
          right="Clear argument names, a strict schema, bounded pages with totals, and refusals that name the argument.",
          hints=("Schema: account_id with a pattern and an example, page (minimum 1), page_size (minimum 1, maximum "
                 "MAX_PAGE_SIZE), and additionalProperties false.",
                 "In the handler: look the account up (ToolFailure not_found with stop), slice the orders by page, and "
                 "refuse a page past the last with invalid_argument and retry_changed('page', ...).",
                 "Return count, page, pages and orders; each order row carries order_id, status and the product's name "
                 "(world.products[order.sku].name)."))
def _check_paging(make: object) -> str | None:
    """Structure: argument names, the schema, pages and totals, refusals naming the argument. No free text is read."""
    if not callable(make):
        return "Pass the function make_list_orders itself (no parentheses); the check calls it with its own World."
    world = _BigWorld()
    tool = make(world)
    if is_blank(tool):
        return BLANK
    if not isinstance(tool, Tool):
        return f"make_list_orders returned a {type(tool).__name__}; return a Tool(name, description, input_schema, handler)."
    props = tool.input_schema.get("properties", {})
    vague = sorted(set(props) & {"user", "p", "n", "id", "account", "size", "limit"})
    if vague or "account_id" not in props:
        return (f"Rename the arguments: {', '.join(vague) or 'the account'} should be account_id, page and page_size, "
                "names a model cannot misread.")
    d = Dispatcher([tool], retry=RetryPolicy(sleep=lambda s: None))
    return _first_page(d, tool.name, world) or _every_page(d, tool.name, world) or _refusals(d, tool.name)


def _first_page(d: Dispatcher, name: str, world: World) -> str | None:
    """The defaults give page 1 of 8, ten rows, with the totals; a row names the order, its status and its product."""
    body, err = _call(d, name, {"account_id": _BIG})
    if err is not None:
        return f"A call with only account_id failed ({err['error']}: {err['message'][:80]}); the other arguments need defaults."
    if not isinstance(body, dict) or not all(k in body for k in ("count", "page", "pages", "orders")):
        return "Each page should say count, page and pages, and hold its rows under orders."
    if body["count"] != 73 or len(body["orders"]) != 10 or body["page"] != 1 or body["pages"] != 8:
        return ("On an account with 73 orders, the defaults should give page 1 of 8 with 10 orders and count 73; yours "
                f"gave {len(body['orders'])} orders, page {body['page']} of {body['pages']}, count {body['count']}.")
    row, order = body["orders"][0], world.orders_of(_BIG)[0]
    if not isinstance(row, dict) or row.get("order_id") != order.order_id or row.get("status") != order.status \
            or world.products[order.sku].name not in row.values():
        return "Each order row needs order_id, status and the product's name (not only its SKU), in the account's order."
    return None


def _every_page(d: Dispatcher, name: str, world: World) -> str | None:
    """Walking every page lists each order once, in order; a page past the last is refused, naming page."""
    seen: list[object] = []
    for page in range(1, 12):  # 73 orders, 7 a page: pages 1 to 11
        body, err = _call(d, name, {"account_id": _BIG, "page": page, "page_size": 7})
        if err is not None or not isinstance(body, dict) or body.get("pages") != 11:
            return (f"With page_size 7, page {page} of 73 orders should be answered and say pages 11; "
                    + (f"yours failed with {err['error']}." if err else "yours did not."))
        seen += [r.get("order_id") for r in body.get("orders", []) if isinstance(r, dict)]
    if seen != [o.order_id for o in world.orders_of(_BIG)]:
        return "Walking every page with page_size 7 should list each of the 73 orders exactly once, in order."
    body, err = _call(d, name, {"account_id": _BIG, "page": 12, "page_size": 7})
    if err is None or err["error"] != "invalid_argument" or err.get("next", {}).get("argument") != "page":
        return ("A page past the last should be refused with invalid_argument naming page, not answered with an "
                "empty page the model may read as the end.")
    return None


def _refusals(d: Dispatcher, name: str) -> str | None:
    """Page bounds, the account's pattern and a strict schema refuse what they should; an empty account is an answer."""
    for args, arg in (({"page_size": 51}, "page_size"), ({"page_size": 0}, "page_size"), ({"page": 0}, "page"),
                      ({"page_size": 50, "page": 3}, "page")):
        body, err = _call(d, name, {"account_id": _BIG, **args})
        if err is None or err["error"] != "invalid_argument" or err.get("next", {}).get("argument") != arg:
            return f"A call with {args} should be refused with invalid_argument and retry_changed naming {arg}; yours was not."
    body, err = _call(d, name, {"account_id": _BIG, "page_size": 50})
    rows = body.get("orders", []) if isinstance(body, dict) else []
    if err is not None or len(rows) != 50:
        return "page_size 50 (MAX_PAGE_SIZE) is allowed and should return 50 orders."
    for bad in ("4471", "acme"):
        body, err = _call(d, name, {"account_id": bad})
        if err is None or err["error"] != "invalid_argument":
            return "account_id should have a pattern (ACC- and four digits) so the schema refuses '4471' before the handler."
    body, err = _call(d, name, {"account_id": "ACC-4471", "user": "jane@acme.example"})
    if err is None:
        return "An argument the tool does not take (user) was accepted in silence; make the schema strict."
    body, err = _call(d, name, {"account_id": "ACC-0000"})
    if err is None or err["error"] != "not_found":
        return "An account that does not exist (ACC-0000) should fail with not_found, and stop."
    body, err = _call(d, name, {"account_id": "ACC-4475"})
    if err is not None or _field(body, "count") != 0 or _field(body, "orders") != []:
        return "An account with no orders (ACC-4475) is an answer, not an error: count 0 and an empty orders list."
    return None


def _field(body: object, key: str) -> object:
    """A result body's field, or None when the body holds none (or is no JSON object)."""
    return body.get(key) if isinstance(body, dict) else None
