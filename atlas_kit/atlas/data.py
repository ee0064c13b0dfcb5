"""Atlas's data: customers, accounts, invoices, orders, a catalogue and a warehouse, from one seed.

The records the tickets name are fixed (records.py); the rest (more accounts, invoices, orders, and
every warehouse figure) comes from `random.Random(seed)`. The static part is built once per
seed and shared; a World holds only what tools change. Introduced in chapter 04.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, replace
from datetime import date, timedelta
from functools import lru_cache

from ..types.sets import JSONObject
from .formats import DOLLAR_FIGURE, ID_DIGITS, MONEY, RECORD_ID, id_pattern, money  # their old home: still here
from .ledger import IssuedRefund, OpenedEscalation, OrderChange, OrderEdit, RegionStock, Snapshot, Stock
from .records import ACCOUNTS, INVOICES, ORDERS, PRODUCTS
from ..types.exceptions import AtlasKitKeyError, AtlasKitTypeError

TENANTS = ("acme", "globex", "initech", "umbrella", "hooli", "stark")
REGIONS = ("north", "south", "east", "west")
QUEUES = ("billing_refunds", "returns", "account_security", "general")
TODAY = date(2024, 12, 31)  # Atlas's "now": every date rule (refund window, overdue) counts from here
FIRST_DAY, LAST_DAY = date(2024, 1, 1), date(2024, 12, 31)  # the warehouse's records
_DAYS = (LAST_DAY - FIRST_DAY).days + 1


@dataclass(frozen=True)
class Account:
    account_id: str
    tenant: str
    name: str
    plan: str


@dataclass(frozen=True)
class Invoice:
    invoice_id: str
    account_id: str
    status: str  # paid | unpaid | overdue
    amount_cents: int
    issued: str
    due: str
    paid_on: str | None = None
    payment_id: str | None = None


@dataclass(frozen=True)
class Order:
    order_id: str
    account_id: str
    status: str  # open | shipped | deleted | cancelled (the last only after update_order)
    sku: str
    quantity: int
    ship_to: str
    placed_on: str


@dataclass(frozen=True)
class Product:
    sku: str
    name: str
    unit_cents: int


_SUFFIXES = ("Europe", "Logistics", "Online", "Field Ops", "Research", "Retail", "West", "Holdings")


def _products() -> dict[str, Product]:
    out = {}
    for item in PRODUCTS.split("; "):
        sku, rest = item.split(" ", 1)
        name, cents = rest.rsplit(" ", 1)
        out[sku] = Product(sku, name, int(cents))
    return out


class _Static:
    """Everything a seed fixes and no tool changes; shared by every World with that seed."""

    def __init__(self, seed: int) -> None:
        rng = random.Random(f"atlas:{seed}")
        self.seed = seed
        self.products = _products()
        self.accounts = {a[0]: Account(*a) for a in ACCOUNTS}
        self.invoices = {i: Invoice(i, acc, status, cents, issued, due, paid, payment_id=_pay(i) if paid else None)
                         for i, acc, status, cents, issued, due, paid in INVOICES}
        self.orders = {o[0]: Order(*o) for o in ORDERS}
        used = set(self.accounts) | {"ACC-6601", "ACC-4473", "ACC-4470"}  # ids the tickets mistype
        for tenant in TENANTS:
            for suffix in rng.sample(_SUFFIXES, 3):
                acc = _fresh(rng, "ACC", 1000, 2999, used)
                plan = rng.choice(("starter", "business"))
                self.accounts[acc] = Account(acc, tenant, f"{tenant.title()} {suffix}", plan)
                self._fill(rng, acc, used)
        self.invoices_of: dict[str, list[str]] = {a: [] for a in self.accounts}
        for inv in self.invoices.values():
            self.invoices_of[inv.account_id].append(inv.invoice_id)
        self.orders_of: dict[str, list[str]] = {a: [] for a in self.accounts}
        for order in self.orders.values():
            self.orders_of[order.account_id].append(order.order_id)
        self._series: dict[tuple[str, str], tuple[list[int], list[int]]] = {}

    def _fill(self, rng: random.Random, acc: str, used: set[str]) -> None:
        for _ in range(rng.randint(2, 9)):
            inv = _fresh(rng, "INV", 30000, 69999, used)
            issued = FIRST_DAY + timedelta(days=rng.randrange(330))
            due = issued + timedelta(days=30)
            status = rng.choice(("paid", "paid", "paid", "unpaid", "overdue")) if due < TODAY else "unpaid"
            paid = issued + timedelta(days=rng.randint(1, 29)) if status == "paid" else None
            self.invoices[inv] = Invoice(inv, acc, status, rng.randint(15, 2500) * 100 + rng.choice((0, 50, 99)),
                                         issued.isoformat(), due.isoformat(), paid.isoformat() if paid else None,
                                         _pay(inv) if paid else None)
        for _ in range(rng.randint(1, 3)):
            order = _fresh(rng, "ORD", 80000, 99999, used)
            placed = FIRST_DAY + timedelta(days=rng.randrange(_DAYS))
            self.orders[order] = Order(order, acc, rng.choice(("open", "shipped", "shipped", "deleted")),
                                       rng.choice(sorted(self.products)), rng.randint(1, 40),
                                       f"{rng.randint(1, 999)} {rng.choice(_SUFFIXES)} Road", placed.isoformat())

    def series(self, sku: str, region: str) -> tuple[list[int], list[int]]:
        """Units shipped per day and units on hand at each day's close, built on first use."""
        key = (sku, region)
        if key not in self._series:
            rng = random.Random(f"atlas:{self.seed}:{sku}:{region}")
            rate = rng.randint(2, 40)
            on_hand, shipped, stock = [], [], rng.randint(rate * 20, rate * 60)
            for _ in range(_DAYS):
                out = min(stock, rng.randint(0, rate))
                stock -= out
                if stock < rate * 5 and rng.random() < 0.3:
                    stock += rate * rng.randint(15, 40)  # a delivery arrives
                shipped.append(out)
                on_hand.append(stock)
            self._series[key] = (shipped, on_hand)
        return self._series[key]


def _pay(invoice_id: str) -> str:
    return "PAY-" + invoice_id[4:]


def _fresh(rng: random.Random, prefix: str, lo: int, hi: int, used: set[str]) -> str:
    while True:
        ident = f"{prefix}-{rng.randint(lo, hi)}"
        if ident not in used:
            used.add(ident)
            return ident


@lru_cache(maxsize=32)
def _static(seed: int) -> _Static:
    return _Static(seed)


class World:
    """One run's Atlas: shared static records plus this run's changes and virtual clock."""

    def __init__(self, seed: int = 0) -> None:
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise AtlasKitTypeError(f"World(seed=...) takes an int; got {type(seed).__name__}. Pass the experiment's seed.")
        self.seed = seed
        self._s = _static(seed)
        self.clock = 0.0  # virtual seconds; the dispatcher's retry sleep advances it, nothing sleeps for real
        self.refunds: list[IssuedRefund] = []
        self.order_changes: list[OrderChange] = []
        self.escalations: list[OpenedEscalation] = []
        self._orders: dict[str, Order] = {}
        self._replies: dict[str, JSONObject] = {}  # idempotency key -> the result first returned

    # --- reading ---------------------------------------------------------------------
    @property
    def products(self) -> dict[str, Product]:
        return self._s.products

    def account(self, account_id: str) -> Account | None:
        return self._s.accounts.get(account_id)

    def accounts_of(self, tenant: str) -> list[Account]:
        return [a for a in self._s.accounts.values() if a.tenant == tenant]

    def invoice(self, invoice_id: str) -> Invoice | None:
        return self._s.invoices.get(invoice_id)

    def invoices_of(self, account_id: str) -> list[Invoice]:
        return [self._s.invoices[i] for i in self._s.invoices_of.get(account_id, ())]

    def order(self, order_id: str) -> Order | None:
        return self._orders.get(order_id) or self._s.orders.get(order_id)

    def orders_of(self, account_id: str) -> list[Order]:
        return [self.order(o) for o in self._s.orders_of.get(account_id, ())]  # type: ignore[misc]

    def tenant_of(self, ident: str) -> str | None:
        """The tenant owning an ACC-, INV- or ORD- id, or None when no such record exists."""
        record = self.account(ident) or self.invoice(ident) or self.order(ident)
        if record is None:
            return None
        account = self.account(record.account_id) if not isinstance(record, Account) else record
        return account.tenant if account else None

    def balance_cents(self, account_id: str) -> int:
        return sum(i.amount_cents for i in self.invoices_of(account_id) if i.status != "paid")

    def refunded_cents(self, invoice_id: str) -> int:
        return sum(r["amount_cents"] for r in self.refunds if r["invoice_id"] == invoice_id)

    def rows_scanned(self, date_from: date, date_to: date, region: str | None) -> int:
        """The cost estimate: the store is partitioned by day and region, so a query reads every SKU in them."""
        days = (date_to - date_from).days + 1
        return days * (1 if region else len(REGIONS)) * len(self._s.products)

    def stock(self, sku: str, date_from: date, date_to: date, region: str | None = None) -> Stock:
        """Units shipped in the range and on hand at the close of date_to, per region and in total."""
        i0, i1 = (date_from - FIRST_DAY).days, (date_to - FIRST_DAY).days
        rows: list[RegionStock] = []
        for r in (region,) if region else REGIONS:
            shipped, on_hand = self._s.series(sku, r)
            rows.append({"region": r, "units_shipped": sum(shipped[i0:i1 + 1]), "on_hand": on_hand[i1]})
        return {"units_shipped": sum(r["units_shipped"] for r in rows),
                "on_hand": sum(r["on_hand"] for r in rows), "by_region": rows}

    # --- changing (tools check policy first; these only record) -----------------------
    def recall(self, key: str | None) -> JSONObject | None:
        """The result a side effect with this idempotency key already returned, or None."""
        return self._replies.get(key) if key else None

    def refund(self, invoice_id: str, amount_cents: int, reason: str, *, key: str | None) -> IssuedRefund:
        """Record a refund (the handler checked policy first)."""
        refund: IssuedRefund = {"refund_id": f"RFD-{len(self.refunds) + 1:04d}", "invoice_id": invoice_id,
                  "amount_cents": amount_cents, "reason": reason, "key": key}
        self.refunds.append(refund)
        return refund

    def change_order(self, order_id: str, *, key: str | None, status: str | None = None, quantity: int | None = None,
                     ship_to: str | None = None) -> Order:
        """Record an order change: each field given (not None) takes its new value."""
        current = self.order(order_id)
        if current is None:  # the handler found the order first; reaching here is a bug in a handler
            raise AtlasKitKeyError(f"change_order: no order {order_id!r}")
        edit: OrderEdit = {}
        if status is not None:
            edit["status"] = status
        if quantity is not None:
            edit["quantity"] = quantity
        if ship_to is not None:
            edit["ship_to"] = ship_to
        order = replace(current, **edit)
        change: OrderChange = {"order_id": order_id, **edit, "key": key}
        self._orders[order_id] = order
        self.order_changes.append(change)
        return order

    def escalate(self, account_id: str, queue: str, reason: str, *, key: str | None) -> OpenedEscalation:
        """Record an escalation to a queue."""
        item: OpenedEscalation = {"escalation_id": f"ESC-{len(self.escalations) + 1:04d}", "account_id": account_id,
                "queue": queue, "reason": reason, "key": key}
        self.escalations.append(item)
        return item

    def remember(self, key: str | None, result: JSONObject) -> JSONObject:
        """Keep the result a side effect returned under its idempotency key (a harness retry gets it back)."""
        if key:
            self._replies[key] = result
        return result

    def advance(self, seconds: float) -> None:
        """The dispatcher's retry sleep: time passes for Atlas, not for the test run."""
        self.clock += float(seconds)

    def snapshot(self) -> Snapshot:
        """Everything tools have changed, as JSON; the clock is left out (a retry is not a change)."""
        return {
            "refunds": [r.copy() for r in self.refunds],
            "order_changes": [c.copy() for c in self.order_changes],
            "escalations": [e.copy() for e in self.escalations],
            "idempotency_keys": sorted(self._replies),
        }
