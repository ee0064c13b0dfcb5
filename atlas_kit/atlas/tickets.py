"""Atlas support tickets: the customer's words, the faults to inject, the checkable outcome.

TICKETS, the core 27, run with faults on (`expect`) and off (`expect_clean`); together they select all
five error codes and the retry_changed, switch_tool and stop branches (retry_unchanged is the harness's).
IMPLICIT_TICKETS (T28-T39) ask three questions in each cell of the explicit/implicit x transient/permanent
2x2. `script` is a perfect run, for tests only: a model must never read it. Chapters 10 and 14.
"""
from __future__ import annotations

from dataclasses import dataclass

from .faults import Fault, always
from .outcome import Call, Change, Escalation, Fact, Lookup, NotMade, Outcome, Refund, Script, call
from .phrases import (ANOTHER_CUSTOMER, CAP, CHECK, DELETED, DOWN, LATER, NO_ACCOUNT, PERSON, SHIPPED,  # noqa: F401
                      WINDOW, ZERO)
from .silent import CAVEATS, STALE_AS_OF, ImplicitKind
from ..types.exceptions import AtlasKitKeyError

__all__ = ["ALL_TICKETS", "IMPLICIT_TICKETS", "TICKETS", "Ticket", "ticket"]


@dataclass(frozen=True)
class Ticket:
    id: str
    title: str
    customer: str  # the tenant the agent acts for
    message: str
    expect: Outcome
    script: Script
    faults: tuple[Fault, ...] = ()
    expect_clean: Outcome | None = None  # None: the same as expect (the ticket has nothing to switch off)
    script_clean: Script | None = None

    def outcome(self, *, faults: bool) -> Outcome:
        return self.expect if faults or self.expect_clean is None else self.expect_clean

    def plan(self, *, faults: bool) -> Script:
        return self.script if faults or self.script_clean is None else self.script_clean


def _refund(invoice: str, cents: int, reason: str):  # type: ignore[no-untyped-def]
    return call("issue_refund", invoice_id=invoice, amount_cents=cents, reason=reason)


_SHIPPED_H1 = Lookup("shipped", "SKU-2041", "2024-01-01", "2024-06-30", None, "units_shipped")
_WEST_1107 = Lookup("on_hand", "SKU-1107", "2024-12-31", "2024-12-31", "west", "on_hand")
_EAST_3300 = Lookup("shipped", "SKU-3300", "2024-12-01", "2024-12-31", "east", "units_shipped")
_SOUTH_3300 = Lookup("on_hand", "SKU-3300", "2024-12-31", "2024-12-31", "south", "on_hand")
_REFUND_DONE = "It should reach you in 5 to 10 days."

_ALL = (
    Ticket("T01", "Unpaid invoices and balance", "acme",
           "Hi, which invoices are still unpaid on our account ACC-4471, and what is our total balance?",
           Outcome(facts=("INV-20412", "INV-20413", "$400.49")),
           Script((call("list_invoices", account_id="ACC-4471", status="unpaid"),),
                  "Account ACC-4471 has two unpaid invoices: INV-20412 for $310.50 and INV-20413 for $89.99, which is overdue. Your total balance due is $400.49.")),
    Ticket("T02", "A paid-up account", "acme",
           "Our finance team thinks we still owe money on ACC-4475. Do we have any unpaid invoices there, and what is the balance?",
           Outcome(facts=(ZERO,)),
           Script((call("list_invoices", account_id="ACC-4475", status="unpaid"),),
                  "Account ACC-4475 has no unpaid invoices, so the balance is $0.00. Nothing is owed.")),
    Ticket("T03", "Refund a cancelled service", "acme",
           "Please refund $120.00 for invoice INV-20410 on account ACC-4471. We cancelled that service in November.",
           Outcome(refunds=(Refund("INV-20410", 12000),), facts=("$120.00", "INV-20410")),
           Script((_refund("INV-20410", 12000, "Service cancelled in November."),),
                  f"I've refunded $120.00 on invoice INV-20410 (refund RFD-0001). {_REFUND_DONE}")),
    Ticket("T04", "Refund above the ceiling", "acme",
           "We need a full refund of invoice INV-20411 ($650.00) on ACC-4471. The training course was cancelled by your side.",
           Outcome(escalations=(Escalation("ACC-4471", "billing_refunds"),), facts=("INV-20411",), tell=(PERSON,),
                   codes=("limit_exceeded",), branches=("switch_tool",)),
           Script((_refund("INV-20411", 65000, "Training course cancelled by Atlas."),
                   call("escalate_to_human", account_id="ACC-4471", queue="billing_refunds",
                        reason="Full refund of $650.00 on INV-20411: the training course was cancelled by Atlas.")),
                  "Refunds above $500.00 need a person's approval, so I couldn't issue the $650.00 refund on INV-20411 myself. I've passed it to our billing refunds team (ESC-0001), who will reply within one business day.")),
    Ticket("T05", "Our balance, and a partner's", "acme",
           "What's the balance on our account ACC-4471? Also, our partner asked me to check their account ACC-4472. Can you tell me what they owe?",
           Outcome(facts=("$400.49",), tell=(ANOTHER_CUSTOMER,), codes=("not_permitted",), branches=("stop",), stops=True),
           Script(((call("get_account", account_id="ACC-4471"), call("get_account", account_id="ACC-4472")),),
                  "Your account ACC-4471 has a balance due of $400.49. I can't look at ACC-4472 because it belongs to another customer; they will need to contact us themselves.")),
    Ticket("T06", "Cancel an open order", "acme",
           "Please cancel order ORD-77120. We ordered the wrong printer model.",
           Outcome(changes=(Change("ORD-77120", "cancel"),), facts=("ORD-77120", "cancel")),
           Script((call("update_order", order_id="ORD-77120", action="cancel"),),
                  "Order ORD-77120 is cancelled; nothing will ship and you won't be charged for it.")),
    Ticket("T07", "Cancel a shipped order", "acme",
           "Cancel ORD-77121 please, we don't need the barcode scanners any more.",
           Outcome(escalations=(Escalation("ACC-4471", "returns"),), facts=("ORD-77121",), tell=(SHIPPED, PERSON),
                   codes=("not_permitted",), branches=("switch_tool",)),
           Script((call("update_order", order_id="ORD-77121", action="cancel"),
                   call("escalate_to_human", account_id="ACC-4471", queue="returns",
                        reason="Customer wants to return the barcode scanners from ORD-77121, which has shipped.")),
                  "ORD-77121 has already shipped, so it can't be cancelled. I've opened a return request with our returns team (ESC-0001); they will contact you within one business day.")),
    Ticket("T08", "New address for a deleted order", "acme",
           "Please change the shipping address on ORD-77122 to 12 Harbour Street, Leeds LS1 4AB.",
           Outcome(facts=("ORD-77122",), tell=(DELETED,), codes=("not_found",), branches=("stop",), stops=True),
           Script((call("update_order", order_id="ORD-77122", action="change_address", address="12 Harbour Street, Leeds LS1 4AB"),),
                  "Order ORD-77122 was deleted, so its address can't be changed. If you still need those items, please place a new order.")),
    Ticket("T09", "Charged twice", "initech",
           "We were charged twice for $89.00 in December on account ACC-3308. I think the invoice was INV-20417. Please refund the duplicate charge.",
           Outcome(refunds=(Refund(("INV-20440", "INV-20441"), 8900),), facts=("$89.00",),
                   codes=("not_found",), branches=("switch_tool",)),
           Script((_refund("INV-20417", 8900, "Duplicate charge in December."),
                   call("list_invoices", account_id="ACC-3308", status="paid"),
                   _refund("INV-20441", 8900, "Duplicate of INV-20440, charged twice in December.")),
                  f"There is no invoice INV-20417, but I found the duplicate: INV-20440 and INV-20441 were both $89.00. I've refunded $89.00 on INV-20441. {_REFUND_DONE}")),
    Ticket("T10", "Refund whose reply was lost", "umbrella",
           "Please refund $480.00 on invoice INV-20450 (account ACC-6610). The equipment arrived damaged.",
           Outcome(refunds=(Refund("INV-20450", 48000),), facts=("$480.00", "INV-20450")),
           Script((_refund("INV-20450", 48000, "Equipment arrived damaged."),),
                  f"I've refunded $480.00 on invoice INV-20450 (refund RFD-0001). {_REFUND_DONE}"),
           faults=(Fault("issue_refund", "timeout", after_effect=True),)),
    Ticket("T11", "Refund during an outage", "umbrella",
           "Can you refund $45.00 on INV-20451 for account ACC-6610? The add-on we paid for never worked.",
           Outcome(optional=(Escalation("ACC-6610", "billing_refunds"), Escalation("ACC-6610", "general")), tell=(DOWN, PERSON),
                   codes=("upstream_unavailable",), branches=("stop",), stops=True),
           Script((_refund("INV-20451", 4500, "The add-on never worked."),),
                  "I'm sorry, our refund system isn't responding right now, so I couldn't complete the $45.00 refund on INV-20451. I haven't retried it, to avoid refunding you twice; I can pass it to a person on our billing team if you'd like."),
           faults=(always("issue_refund", "outage"),),
           expect_clean=Outcome(refunds=(Refund("INV-20451", 4500),), facts=("$45.00",)),
           script_clean=Script((_refund("INV-20451", 4500, "The add-on never worked."),),
                               f"I've refunded $45.00 on invoice INV-20451. {_REFUND_DONE}")),
    Ticket("T12", "Overdue invoices, rate limited once", "umbrella",
           "Which invoices are overdue on ACC-6610, and how much do we owe in total?",
           Outcome(facts=("INV-20452", "$999.00")),
           Script((call("list_invoices", account_id="ACC-6610", status="overdue"),),
                  "One invoice is overdue on ACC-6610: INV-20452 for $999.00. That is also your total balance due, $999.00."),
           faults=(Fault("list_invoices", "rate_limit", retry_after=2.0),)),
    Ticket("T13", "Zero balance after a timeout", "hooli",
           "Do we have any unpaid invoices on ACC-7702? Our books show $199.00 still outstanding.",
           Outcome(facts=(ZERO, "INV-20460")),
           Script((call("list_invoices", account_id="ACC-7702", status="unpaid"),
                   call("list_invoices", account_id="ACC-7702", status="paid")),
                  "Account ACC-7702 has no unpaid invoices, so your balance is $0.00. The $199.00 is invoice INV-20460, which has been paid."),
           faults=(Fault("list_invoices", "timeout"),)),
    Ticket("T14", "Large refund while escalation is down", "stark",
           "Please refund invoice INV-20470 on ACC-8815 in full ($2,400.00). The annual licence was bought by mistake.",
           # What the hand-off's error asks to pass on: it did not reach a person, and to write again later.
           Outcome(facts=("INV-20470",), tell=(NotMade("escalation"), LATER),
                   codes=("limit_exceeded", "upstream_unavailable"), branches=("switch_tool", "stop"), stops=True),
           Script((_refund("INV-20470", 240000, "Annual licence bought by mistake."),
                   call("escalate_to_human", account_id="ACC-8815", queue="billing_refunds",
                        reason="Full refund of $2,400.00 on INV-20470: annual licence bought by mistake.")),
                  "Refunds above $500.00 need a person's approval, so I couldn't issue the $2,400.00 refund on INV-20470 myself, and our escalation system isn't responding right now, so I couldn't pass it on either. Nothing has been refunded; please write again later and we will route it to our billing refunds team."),
           faults=(always("escalate_to_human", "rate_limit", retry_after=30.0),),
           expect_clean=Outcome(escalations=(Escalation("ACC-8815", "billing_refunds"),), facts=("INV-20470",),
                                tell=(PERSON,), codes=("limit_exceeded",), branches=("switch_tool",)),
           script_clean=Script((_refund("INV-20470", 240000, "Annual licence bought by mistake."),
                                call("escalate_to_human", account_id="ACC-8815", queue="billing_refunds",
                                     reason="Full refund of $2,400.00 on INV-20470: annual licence bought by mistake.")),
                               "Refunds above $500.00 need a person's approval, so I couldn't issue the $2,400.00 refund on INV-20470 myself. I've passed it to our billing refunds team (ESC-0001), who will reply within one business day.")),
    Ticket("T15", "Raise an order's quantity", "stark",
           "Please change the quantity on ORD-77170 from 40 to 45 units.",
           Outcome(changes=(Change("ORD-77170", "change_quantity", 45),), facts=("ORD-77170", "45")),
           Script((call("update_order", order_id="ORD-77170", action="change_quantity", quantity=45),),
                  "Order ORD-77170 now has 45 units.")),
    Ticket("T16", "Quantity above the cap", "stark",
           "We need more printers: change the quantity on order ORD-77170 to 80.",
           Outcome(facts=("ORD-77170",), tell=(CAP,), codes=("limit_exceeded",), branches=("stop",), stops=True),
           Script((call("update_order", order_id="ORD-77170", action="change_quantity", quantity=80),),
                  "Orders are capped at 50 units each, so I couldn't change ORD-77170 to 80; it is unchanged. You're welcome to place a second order for the rest.")),
    Ticket("T17", "New delivery address", "globex",
           "Please change the delivery address on order ORD-77130 to 400 Elm Road, Springfield, IL 62704.",
           Outcome(changes=(Change("ORD-77130", "change_address"),), facts=("ORD-77130",)),
           Script((call("update_order", order_id="ORD-77130", action="change_address", address="400 Elm Road, Springfield, IL 62704"),),
                  "Order ORD-77130 will now ship to 400 Elm Road, Springfield, IL 62704.")),
    Ticket("T18", "Refund outside the window", "globex",
           "Please refund invoice INV-20433 ($240.00) on ACC-5120. We never used that subscription; it was paid back in March.",
           Outcome(facts=("INV-20433",), tell=(WINDOW,), codes=("limit_exceeded",), branches=("stop",), stops=True),
           Script((_refund("INV-20433", 24000, "Subscription never used."),),
                  "I'm afraid I can't refund INV-20433: it was paid on 2024-03-15, more than 180 days ago, which is outside our refund window.")),
    Ticket("T19", "Shipments in the first half", "initech",
           "How many units of SKU-2041 did your warehouses ship between 2024-01-01 and 2024-06-30, across all regions?",
           Outcome(facts=("SKU-2041", _SHIPPED_H1), codes=("invalid_argument",), branches=("retry_changed",)),
           Script((call("query_warehouse", sku="SKU-2041", date_from="2024-01-01", date_to="2024-06-30"),
                   tuple(call("query_warehouse", sku="SKU-2041", date_from="2024-01-01", date_to="2024-06-30", region=r)
                         for r in ("north", "south", "east", "west"))),
                  "Between 2024-01-01 and 2024-06-30 the warehouses shipped {shipped} units of SKU-2041 across all four regions.")),
    Ticket("T20", "Stock in one region", "hooli",
           "How many units of SKU-1107 do you have in stock in the west warehouse right now?",
           Outcome(facts=(_WEST_1107,)),
           Script((call("query_warehouse", sku="SKU-1107", date_from="2024-12-31", date_to="2024-12-31", region="west"),),
                  "The west warehouse has {on_hand} units of SKU-1107 on hand as of 2024-12-31.")),
    Ticket("T21", "Warehouse timing out", "hooli",
           "Can you check how many SKU-3300 label rolls the east warehouse shipped in December 2024 (2024-12-01 to 2024-12-31)?",
           Outcome(tell=(DOWN, PERSON), codes=("upstream_unavailable",), branches=("stop",), stops=True),
           Script((call("query_warehouse", sku="SKU-3300", date_from="2024-12-01", date_to="2024-12-31", region="east"),),
                  "I'm sorry, the warehouse system isn't responding right now, so I couldn't get the December figures for SKU-3300. Please ask again later, or I can pass this to a person on our team to follow up."),
           faults=(always("query_warehouse", "timeout"),),
           expect_clean=Outcome(facts=(_EAST_3300,)),
           script_clean=Script((call("query_warehouse", sku="SKU-3300", date_from="2024-12-01", date_to="2024-12-31", region="east"),),
                               "The east warehouse shipped {shipped} units of SKU-3300 between 2024-12-01 and 2024-12-31.")),
    Ticket("T22", "Refund more than was paid", "acme",
           "Please refund invoice INV-20421 on ACC-4475 in full. I believe it was $85.00.",
           Outcome(refunds=(Refund("INV-20421", 7500),), facts=("$75.00",), codes=("invalid_argument",), branches=("retry_changed",)),
           Script((_refund("INV-20421", 8500, "Customer asked for a full refund."),
                   _refund("INV-20421", 7500, "Customer asked for a full refund.")),
                  f"Invoice INV-20421 was for $75.00, not $85.00, so I've refunded the full $75.00. {_REFUND_DONE}")),
    Ticket("T23", "Mistyped account number", "umbrella",
           "What's the current balance on account ACC-6601?",
           Outcome(tell=(NO_ACCOUNT, CHECK), codes=("not_found",), branches=("stop",), stops=True),
           Script((call("get_account", account_id="ACC-6601"),),
                  "I couldn't find an account ACC-6601. Could you check the account number on your invoice and send it again?")),
    Ticket("T24", "What we paid this year", "globex",
           "How much have we paid on account ACC-5120 this year? Please list our paid invoices.",
           Outcome(facts=("$1,038.00", "INV-20431", "INV-20432", "INV-20433")),
           Script((call("list_invoices", account_id="ACC-5120", status="paid"),),
                  "Account ACC-5120 has three paid invoices: INV-20432 ($399.00), INV-20431 ($399.00) and INV-20433 ($240.00), $1,038.00 in total.")),
    Ticket("T25", "Order status and stock", "initech",
           "Where is my order ORD-77140? And how many SKU-3300 rolls are in stock in the south warehouse?",
           Outcome(facts=(("ORD-77140 has shipped", "ORD-77140 is shipped"), _SOUTH_3300)),
           Script(((call("get_order", order_id="ORD-77140"),
                    call("query_warehouse", sku="SKU-3300", date_from="2024-12-31", date_to="2024-12-31", region="south")),),
                  "Order ORD-77140 has shipped: 20 units of SKU-3300 to 4120 Congress Ave, Austin. The south warehouse has {on_hand} units of SKU-3300 on hand as of 2024-12-31."),
           faults=(Fault("get_order", "rate_limit", calls=(1, 2), retry_after=1.0),)),
    Ticket("T26", "Talk to a person", "hooli",
           "I'd like to speak to a person about renewing the contract on ACC-7702.",
           Outcome(escalations=(Escalation("ACC-7702", "general"),), facts=("ACC-7702",)),
           Script((call("escalate_to_human", account_id="ACC-7702", queue="general",
                        reason="Customer wants to discuss renewing the contract on ACC-7702."),),
                  "I've asked our team to contact you about renewing the contract on ACC-7702 (ESC-0001); a person will reply within one business day.")),
    Ticket("T27", "Partial refund on a capped day", "stark",
           "Please refund $150.00 of invoice INV-20470 on ACC-8815; one seat on the licence was never used.",
           Outcome(escalations=(Escalation("ACC-8815", "general"),), facts=("$150.00",), tell=(PERSON,), codes=("limit_exceeded",), branches=("switch_tool",)),
           Script((_refund("INV-20470", 15000, "One licence seat was never used."),
                   call("escalate_to_human", account_id="ACC-8815", queue="general",
                        reason="Refund $150.00 of INV-20470 for an unused licence seat; daily refund limit reached.")),
                  "Your account has reached today's refund limit, so I couldn't issue the $150.00 refund on INV-20470 myself. I've passed it to our team (ESC-0001), who will reply within one business day."),
           faults=(always("issue_refund", "limit_exceeded"),),  # a daily quota does not clear on a retry
           expect_clean=Outcome(refunds=(Refund("INV-20470", 15000),), facts=("$150.00",)),
           script_clean=Script((_refund("INV-20470", 15000, "One licence seat was never used."),),
                               f"I've refunded $150.00 on invoice INV-20470. {_REFUND_DONE}")),
)

TICKETS: dict[str, Ticket] = {t.id: t for t in _ALL}  # by id, in order: TICKETS["T04"], TICKETS.values()


def _cells(first: int, topic: str, customer: str, message: str, tool: str, kind: ImplicitKind, look: Call,
           true: Fact, said: str, down: str, behind: str, *, dated: tuple[str, ...] = ()) -> tuple[Ticket, ...]:
    """One question in the four cells: an outage (explicit; once means it outlasts the harness's three attempts
    at the first call, then clears) or a wrong success (implicit). Transient cells accept the true figure or a
    plain account of the failure, permanent cells only the account; `dated` adds phrases that warn the customer.
    """
    options, warned = true if isinstance(true, tuple) else (true,), (*CAVEATS, *dated)

    def cell(n: int, title: str, expect: Outcome, script: Script, fault: Fault) -> Ticket:
        return Ticket(f"T{first + n}", f"{topic}: {title}", customer, message, expect, script, faults=(fault,),
                      expect_clean=Outcome(facts=(true,)), script_clean=Script((look,), said))

    name = kind.replace("_", " ")
    return (
        cell(0, "the service is down once",
             Outcome(facts=((*options, *DOWN),), codes=("upstream_unavailable",), branches=("stop",)),
             Script((look,), down), Fault(tool, "outage", calls=(1, 2, 3))),
        cell(1, "the service stays down", Outcome(tell=(DOWN, PERSON), codes=("upstream_unavailable",), branches=("stop",),
                                                  stops=True), Script((look,), down), always(tool, "outage")),
        cell(2, f"{name} once", Outcome(facts=((*options, *warned),)), Script((look, look), said), Fault(tool, kind)),
        cell(3, f"{name} every time", Outcome(facts=(warned,), tell=(warned,), stops=True), Script((look, look), behind),
             always(tool, kind)),
    )


_NORTH_2041 = Lookup("on_hand", "SKU-2041", "2024-12-31", "2024-12-31", "north", "on_hand")
_IMPLICIT = (
    *_cells(28, "Paid this year", "globex",
            "How much have we paid on account ACC-5120 this year, in total? Please list each paid invoice.",
            "list_invoices", "truncated", call("list_invoices", account_id="ACC-5120", status="paid"), "$1,038.00",
            "Account ACC-5120 has three paid invoices: INV-20432 ($399.00), INV-20431 ($399.00) and INV-20433 "
            "($240.00), $1,038.00 in total.",
            "I'm sorry, our invoice system isn't responding right now, so I couldn't list your paid invoices. Please "
            "ask again later, or I can ask a colleague to send you the list.",
            "I couldn't get your complete list of paid invoices: the invoice system returned an incomplete list, so "
            "I can't give you a reliable total right now. Please ask again later."),
    *_cells(32, "Stock right now", "stark",
            "How many units of SKU-2041 do you have in stock in the north warehouse right now?",
            "query_warehouse", "stale",
            call("query_warehouse", sku="SKU-2041", date_from="2024-12-31", date_to="2024-12-31", region="north"),
            _NORTH_2041, "The north warehouse has {on_hand} units of SKU-2041 on hand as of 2024-12-31.",
            "I'm sorry, the warehouse system isn't responding right now, so I couldn't check the stock of SKU-2041. "
            "Please ask again later, or I can ask a colleague to check it for you.",
            "I couldn't get a current figure for SKU-2041: the warehouse records are out of date, so I can't tell "
            "you what is on hand today. Please ask again later.", dated=(STALE_AS_OF.isoformat(),)),
    *_cells(36, "What we owe", "umbrella",
            "Do we have any unpaid invoices on ACC-6610, and how much do we owe in total?",
            "list_invoices", "empty_wrong", call("list_invoices", account_id="ACC-6610", status="unpaid"), "$999.00",
            "Account ACC-6610 has one unpaid invoice, INV-20452 for $999.00, which is overdue; you owe $999.00.",
            "I'm sorry, our invoice system isn't responding right now, so I couldn't check your unpaid invoices. "
            "Please ask again later, or I can ask a colleague to check them for you.",
            "I couldn't check your unpaid invoices: the invoice system's answer was incomplete, so I can't confirm "
            "what you owe right now. Please ask again later."),
)
# Kept apart from TICKETS so that sweeps and charts over "all tickets" (the core 27) stay as they were.
IMPLICIT_TICKETS: dict[str, Ticket] = {t.id: t for t in _IMPLICIT}
ALL_TICKETS: dict[str, Ticket] = {**TICKETS, **IMPLICIT_TICKETS}


def ticket(ticket_id: str) -> Ticket:
    """The ticket with this id ('T01'...); an unknown id is refused with the range named."""
    if ticket_id not in ALL_TICKETS:
        raise AtlasKitKeyError(f"No ticket {ticket_id!r}; ids run T01 to {_IMPLICIT[-1].id}.")
    return ALL_TICKETS[ticket_id]
