"""Atlas's failures in every style, side by side: the catalogue the chapters show.

The styles themselves (raw, generic, plain, contract) and their registry are dispatch/styles.py; this module runs
each Atlas failure case through every one of them (`catalogue()`) and lays the rows out. Chapters 01 and 02.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..dispatch.dispatcher import Dispatcher
from ..dispatch.styles import STYLES, Failure
from ..dispatch.transient import RetryPolicy
from ..types.sets import STYLE_NAMES, JSONObject
from ..types.walk import result_text
from .audience import AUDIENCE
from .data import World
from .faults import Fault, FaultSchedule, always
from .tools import build_tools
from ..types.exceptions import AtlasKitValueError


@dataclass(frozen=True)
class Case:
    """One Atlas failure to show: a customer, a call, and any faults that make it fail."""

    name: str
    customer: str
    tool: str
    input: JSONObject
    faults: tuple[Fault, ...] = field(default=())


CASES: tuple[Case, ...] = (
    Case("malformed account id", "acme", "get_account", {"account_id": "4471"}),
    Case("amount of the wrong type", "acme", "issue_refund", {"invoice_id": "INV-20410", "amount_cents": "120.00", "reason": "cancelled"}),
    Case("unknown account", "umbrella", "get_account", {"account_id": "ACC-6601"}),
    Case("another customer's account", "acme", "get_account", {"account_id": "ACC-4472"}),
    Case("refund above the ceiling", "acme", "issue_refund", {"invoice_id": "INV-20411", "amount_cents": 65000, "reason": "training cancelled"}),
    Case("refund more than was paid", "acme", "issue_refund", {"invoice_id": "INV-20421", "amount_cents": 8500, "reason": "duplicate"}),
    Case("refund outside the window", "globex", "issue_refund", {"invoice_id": "INV-20433", "amount_cents": 24000, "reason": "unused"}),
    Case("invoice id that does not exist", "initech", "issue_refund", {"invoice_id": "INV-20417", "amount_cents": 8900, "reason": "charged twice"}),
    Case("warehouse query too broad", "initech", "query_warehouse", {"sku": "SKU-2041", "date_from": "2024-01-01", "date_to": "2024-06-30"}),
    Case("date that does not exist", "hooli", "query_warehouse", {"sku": "SKU-1107", "date_from": "2024-02-30", "date_to": "2024-03-31", "region": "west"}),
    Case("deleted order", "acme", "update_order", {"order_id": "ORD-77122", "action": "change_address", "address": "12 Harbour Street, Leeds"}),
    Case("shipped order", "acme", "update_order", {"order_id": "ORD-77121", "action": "cancel"}),
    Case("quantity above the cap", "stark", "update_order", {"order_id": "ORD-77170", "action": "change_quantity", "quantity": 80}),
    Case("warehouse timeout", "hooli", "query_warehouse", {"sku": "SKU-3300", "date_from": "2024-12-01", "date_to": "2024-12-31", "region": "east"},
         (always("query_warehouse", "timeout"),)),
    Case("rate limited for too long", "umbrella", "list_invoices", {"account_id": "ACC-6610"},
         (always("list_invoices", "rate_limit", retry_after=30.0),)),
    Case("refund service outage", "umbrella", "issue_refund", {"invoice_id": "INV-20451", "amount_cents": 4500, "reason": "add-on never worked"},
         (always("issue_refund", "outage"),)),
)


@dataclass(frozen=True)
class Row:
    """One failure in every style (the fields follow types.STYLE_NAMES), with the code and branch the contract chose."""

    case: str
    tool: str
    code: str
    branch: str | None
    raw: str
    generic: str
    plain: str
    contract: str


def catalogue(*, seed: int = 0, cases: tuple[Case, ...] = CASES) -> list[Row]:
    """Run each case once on a fresh World and word its failure in every style."""
    rows = []
    for case in cases:
        world = World(seed)
        tools = FaultSchedule(case.faults, seed=seed).wrap(build_tools(world, tenant=case.customer))
        dispatcher = Dispatcher(tools, retry=RetryPolicy(sleep=world.advance), run_id=f"catalogue-{seed}",
                                audience=AUDIENCE)
        out = dispatcher.dispatch([{"type": "tool_use", "id": "toolu_01", "name": case.tool, "input": dict(case.input)}])
        if not out.failures:
            raise AtlasKitValueError(f"catalogue case {case.name!r} did not fail; fix its input or faults.")
        failure = out.failures[0]
        rows.append(Row(case.name, case.tool, failure.error.code.value,
                        failure.error.next.branch.value if failure.error.next else None,
                        *(result_text(STYLES[s](failure)["content"]) for s in STYLE_NAMES)))
    return rows


def as_markdown(rows: list[Row], *, width: int = 90) -> str:
    """A table for a notebook: one row per failure, each text cut to `width` characters."""
    def cell(text: str) -> str:
        flat = " ".join(text.split()).replace("|", "\\|")
        return flat if len(flat) <= width else flat[: width - 1] + "…"
    lines = ["| failure | code / branch | " + " | ".join(STYLE_NAMES) + " |", "|---" * (2 + len(STYLE_NAMES)) + "|"]
    for r in rows:
        texts = " | ".join(cell(getattr(r, s)) for s in STYLE_NAMES)
        lines.append(f"| {r.case} | {r.code} / {r.branch} | {texts} |")
    return "\n".join(lines)
