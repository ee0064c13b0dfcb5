"""The offline stand-in's plans: an Atlas ticket's words become goals, tool calls and an answer.

Regular expressions and keywords, nothing more: no language model, and no access to the
tickets' scripts or expected outcomes. What it cannot parse it does not pretend to. A result
that says `complete: false` is asked for once more, then reported, never its figures (chapter 14).
Chapter 00 shows what it can and cannot do.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Literal, Mapping, TypedDict

from ...atlas.formats import MONEY, id_pattern
from ...types import JSONObject, ToolDefinition

__all__ = ["CHANGING", "MODEL_NAME", "Done", "Goal", "GoalContext", "GoalKind", "PlannedCall", "answer", "fix_call", "plan",
           "switch_call"]

# The id and money formats are Atlas's own (atlas/data.py): the stand-in reads the customer's words with them.
_ACC, _INV, _ORD, _SKU = (id_pattern(p) for p in ("ACC", "INV", "ORD", "SKU"))
_DOLLARS = MONEY
_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
# A name written for the model (query_warehouse, account_id): the stand-in never passes a sentence holding one on.
MODEL_NAME = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")
_REGION = re.compile(r"\b(north|south|east|west)\b", re.IGNORECASE)
_QTY = re.compile(r"quantity\b.*?\bto (\d+)", re.IGNORECASE)
_ADDRESS = re.compile(r"address on (?:order )?ORD-\d{5} to (.+?)\.?\s*$", re.IGNORECASE | re.DOTALL)
_NOW = re.compile(r"\b(in stock|on hand|right now|currently)\b", re.IGNORECASE)
_PERSON = re.compile(r"\b(speak|talk)\b.*\b(person|human|someone|manager)\b", re.IGNORECASE)
LAST_DAY = "2024-12-31"
# The calls it plans that change something: a failed one may still have been applied.
CHANGING = ("issue_refund", "update_order", "escalate_to_human")


class PlannedCall(TypedDict):
    """A tool call the stand-in means to make: the tool's name and its arguments."""

    name: str
    input: JSONObject


class Done(TypedDict):
    """A call that succeeded, with what the tool returned (a dict, or text that was not JSON)."""

    tool: str
    input: JSONObject
    result: object


class GoalContext(TypedDict, total=False):
    """What a goal remembers between turns: a refund's figures, calls to ask again, why it switched tools, and
    what it tried that may or may not have been done (`unsure`)."""

    amount: str
    cents: int | None
    reason: str
    account: str | None
    pick_amount: str
    redo: list[PlannedCall]
    flagged: list[PlannedCall]
    why: str
    unsure: str


GoalKind = Literal["account", "invoices", "order", "cancel", "quantity", "address", "refund", "stock", "human"]
"""The kinds of request the stand-in recognises."""


def _call(name: str, **args: str | int | None) -> PlannedCall:
    return {"name": name, "input": {k: v for k, v in args.items() if v is not None}}


@dataclass
class Goal:
    """One thing the customer asked for, and how far the stand-in got with it."""

    kind: GoalKind
    subject: str
    calls: list[PlannedCall]
    context: GoalContext = field(default_factory=lambda: GoalContext())
    results: list[Done] = field(default_factory=list)
    failure: str = ""
    done: bool = False

    def describe(self) -> str:
        """The goal in a few words, for the reply: "look up order ORD-77120"."""
        return {
            "account": f"look up account {self.subject}", "invoices": f"list the invoices on {self.subject}",
            "order": f"look up order {self.subject}", "cancel": f"cancel order {self.subject}",
            "quantity": f"change the quantity on {self.subject}", "address": f"change the address on {self.subject}",
            "refund": f"issue the {self.context.get('amount', '')} refund on {self.subject}".replace("the  ", "the "),
            "stock": f"get the warehouse figures for {self.subject}", "human": "pass this to a person",
        }[self.kind]

    def succeed(self, call: PlannedCall, result: object) -> None:
        """Take one successful result; set the next calls, or finish."""
        redo = self.context.get("redo")
        if redo and call in redo:
            redo.remove(call)  # this result answers a call asked again
        if isinstance(result, dict) and result.get("complete") is False:
            self._incomplete(call, result)
            return
        self.results.append({"tool": call["name"], "input": call["input"], "result": result})
        pick = self.context.pop("pick_amount", None)
        if pick is not None and call["name"] == "list_invoices" and isinstance(result, dict):
            match = [r["invoice_id"] for r in result.get("invoices", []) if r.get("amount") == pick]
            if match:
                self.subject = match[0]
                self.calls = [_call("issue_refund", invoice_id=match[0], amount_cents=self.context["cents"],
                                    reason=self.context["reason"])]
                return
            self.failure = f"I found no paid invoice of {pick} to refund."
        if self.context.get("redo"):  # another call of this goal is being asked again
            self.calls = list(self.context["redo"])
            return
        self.calls, self.done = [], True

    def _incomplete(self, call: PlannedCall, result: JSONObject) -> None:
        """A result that says it is incomplete or old: ask once more; if it says so again, report that, not its figures."""
        flagged = self.context.setdefault("flagged", [])
        if call in flagged:  # the flag decides; the note, if any, is passed on as the tool's own words
            note = str(result.get("note") or "").split(". ")[0].strip().rstrip(".")
            note = "" if MODEL_NAME.search(note) else note  # a note that names the tool is the model's to read
            self.failure = "the answer I got was marked incomplete" + (f" ({note})." if note else ".")
            self.calls = []
            return
        flagged.append(call)
        self.context.setdefault("redo", []).append(call)
        self.calls, self.done = list(self.context["redo"]), False


def plan(text: str, tools: Mapping[str, ToolDefinition]) -> list[Goal]:
    """Goals for a ticket, in the order the stand-in works them; [] when it recognises nothing."""
    accounts, invoices, orders, skus = (p.findall(text) for p in (_ACC, _INV, _ORD, _SKU))
    account = accounts[0] if accounts else None
    goals: list[Goal] = []
    low = text.lower()
    if "refund" in low and invoices:
        goals.append(_refund_goal(text, invoices[0], account))
    for order in orders[:1]:
        if "cancel" in low:
            goals.append(Goal("cancel", order, [_call("update_order", order_id=order, action="cancel")]))
        elif "quantity" in low and (q := _QTY.search(text)):
            goals.append(Goal("quantity", order, [_call("update_order", order_id=order, action="change_quantity",
                                                         quantity=int(q.group(1)))]))
        elif "address" in low and (a := _ADDRESS.search(text)):
            goals.append(Goal("address", order, [_call("update_order", order_id=order, action="change_address",
                                                        address=a.group(1).strip())]))
        else:
            goals.append(Goal("order", order, [_call("get_order", order_id=order)]))
    for sku in skus[:2]:
        goals.append(_stock_goal(text, sku))
    if _PERSON.search(text) and account:
        goals.append(Goal("human", account, [_call("escalate_to_human", account_id=account, queue="general",
                                                   reason=_clip(text))]))
    if not goals:
        for acc in accounts[:3]:
            if re.search(r"invoice|unpaid|overdue|outstanding", low):
                status = "overdue" if "overdue" in low else "paid" if re.search(r"(?<!un)paid invoices|have we paid", low) else "unpaid"
                if status == "unpaid" and _DOLLARS.search(text):
                    status = "all"  # the customer quotes a figure: list everything so it can be reconciled
                goals.append(Goal("invoices", acc, [_call("list_invoices", account_id=acc, status=status)]))
            elif re.search(r"balance|owe|account", low):
                goals.append(Goal("account", acc, [_call("get_account", account_id=acc)]))
    return [g for g in goals if all(c["name"] in tools for c in g.calls)]


def _refund_goal(text: str, invoice: str, account: str | None) -> Goal:
    amounts = _DOLLARS.findall(text)
    amount = amounts[0] if amounts else ""
    cents = int(amount.replace("$", "").replace(",", "").replace(".", "")) if amount else None
    reasons = [s for s in re.split(r"(?<=[.!?])\s+", text) if "refund" not in s.lower() and not s.endswith("?")]
    reason = _clip(reasons[-1] if reasons else "Requested by the customer.")
    ctx: GoalContext = {"amount": amount, "cents": cents, "reason": reason, "account": account}
    if cents is None:  # no figure given: the stand-in will not invent one
        return Goal("refund", invoice, [], ctx, failure="I need the amount to refund; please tell me how much.")
    return Goal("refund", invoice, [_call("issue_refund", invoice_id=invoice, amount_cents=cents, reason=reason)], ctx)


def _stock_goal(text: str, sku: str) -> Goal:
    dates = _DATE.findall(text)
    start, end = (dates[0], dates[1]) if len(dates) >= 2 else (LAST_DAY, LAST_DAY) if _NOW.search(text) else ("2024-01-01", LAST_DAY)
    region = _REGION.search(text)
    return Goal("stock", sku, [_call("query_warehouse", sku=sku, date_from=start, date_to=end,
                                     region=region.group(1).lower() if region else None)])


def _clip(text: str, limit: int = 480) -> str:
    return text if len(text) <= limit else text[:limit]


def fix_call(call: PlannedCall, argument: str | None, text: str, schema: JSONObject) -> list[PlannedCall] | None:
    """The changed call(s) an error asked for, when its words say how; None when they do not."""
    args = dict(call["input"])
    props = schema.get("properties", {})
    if m := re.search(r"set (\w+) to (\d+) or less", text):
        return [{"name": call["name"], "input": {**args, m.group(1): int(m.group(2))}}]
    if "region" in props and "region" not in args and (argument == "region" or re.search(r"\badd region\b", text)):
        return [{"name": call["name"], "input": {**args, "region": r}} for r in props["region"].get("enum", [])]
    if argument and argument in args:
        value = args[argument]
        if (m := re.search(r"must look like ([A-Z]+)-\d+", text)) and isinstance(value, str) and re.search(r"\d", value):
            return [{"name": call["name"], "input": {**args, argument: f"{m.group(1)}-{re.sub(r'[^0-9]', '', value)}"}}]
        if (m := re.search(r"(?:at most|between 1 and) (\d+)", text)) and isinstance(value, int):
            return [{"name": call["name"], "input": {**args, argument: min(value, int(m.group(1)))}}]
        if (m := re.search(r"must be one of: ([a-z_]+)", text)):
            return [{"name": call["name"], "input": {**args, argument: m.group(1)}}]
        if argument in ("date_from", "date_to") and "after date_to" in text:
            return [{"name": call["name"], "input": {**args, "date_from": args.get("date_to"), "date_to": args.get("date_from")}}]
    return None


def switch_call(tool: str, goal: Goal, text: str, ticket: str, tools: Mapping[str, ToolDefinition]) -> PlannedCall | None:
    """The call for the tool an error named, with arguments from the error, the ticket and the goal."""
    schema = tools[tool]["input_schema"] if tool in tools else {}
    accounts = _ACC.findall(text) or _ACC.findall(ticket) or [goal.context.get("account")]
    account = next((a for a in accounts if a), None) or _account_from_results(goal)
    if tool == "escalate_to_human" and account:
        queues = schema.get("properties", {}).get("queue", {}).get("enum", [])
        queue = next((q for q in queues if q in text), "general")
        return _call(tool, account_id=account, queue=queue, reason=_clip(f"Could not {goal.describe()} here. Customer wrote: {ticket}"))
    if tool == "list_invoices" and account and goal.kind == "refund" and goal.context.get("amount"):
        goal.context["pick_amount"] = goal.context["amount"]
        return _call(tool, account_id=account, status="paid")
    return None


def _account_from_results(goal: Goal) -> str | None:
    for r in goal.results:
        if isinstance(r["result"], dict) and isinstance(r["result"].get("account_id"), str):
            return str(r["result"]["account_id"])
    return None


def answer(goals: list[Goal]) -> str:
    """The final reply: what each goal found or changed, and what could not be done."""
    return " ".join(s for g in goals if (s := _sentence(g))).strip() or "I could not work out what to do for this request."


def _sentence(g: Goal) -> str:
    # A change whose outcome is unknown is reported as tried, never as not done.
    tried = g.context.get("unsure")
    parts = [f"I tried to {tried}: {g.failure}" if tried else f"I couldn't {g.describe()}: {g.failure}"] if g.failure else []
    handed_over = bool(g.results) and g.results[-1]["tool"] == "escalate_to_human"
    if g.context.get("why") and (handed_over or g.failure):  # a switch that finished the job needs no excuse
        parts.insert(0, f"I couldn't {g.describe()} myself: {g.context['why']}")
    for r in g.results:
        parts.append(_say(r["tool"], r["result"]))
    if g.kind == "stock" and len(g.results) > 1:
        shipped = sum(r["result"].get("units_shipped", 0) for r in g.results if isinstance(r["result"], dict))
        on_hand = sum(r["result"].get("on_hand", 0) for r in g.results if isinstance(r["result"], dict))
        parts.append(f"Across all {len(g.results)} regions that is {shipped} units shipped and {on_hand} on hand.")
    return " ".join(p for p in parts if p)


def _say(tool: str, r: object) -> str:
    if not isinstance(r, dict):
        return ""
    if r.get("note") and tool != "escalate_to_human":
        extra = f" The balance due is {r['balance_due']}." if r.get("balance_due") else ""
        return f"{r['note']}{extra}"
    if tool == "get_account":
        return (f"Account {r.get('account_id')} ({r.get('name')}) has a balance due of {r.get('balance_due')}, "
                f"with {r.get('unpaid_invoices')} unpaid invoice(s).")
    if tool == "list_invoices":
        rows = ", ".join(f"{i['invoice_id']} ({i['amount']}, {i['status']})" for i in r.get("invoices", []))
        which = "" if r.get("status") in (None, "all") else f"{r.get('status')} "
        return (f"Account {r.get('account_id')} has {r.get('count')} {which}invoice(s): {rows}, "
                f"{r.get('total_amount')} in total. The balance due is {r.get('balance_due')}.")
    if tool == "get_order":
        return (f"Order {r.get('order_id')} is {r.get('status')}: {r.get('quantity')} x {r.get('product')} "
                f"({r.get('sku')}) to {r.get('ship_to')}.")
    if tool == "query_warehouse":
        where = "all regions" if r.get("region") == "all" else f"the {r.get('region')} region"
        return (f"For {r.get('sku')} in {where}: {r.get('units_shipped')} units shipped from {r.get('date_from')} "
                f"to {r.get('date_to')}, and {r.get('on_hand')} on hand as of {r.get('on_hand_date')}.")
    if tool == "escalate_to_human":
        queue = str(r.get("queue")).replace("_", " ")  # billing_refunds is the tool's name for the team
        return (f"I've passed it to our {queue} team ({r.get('escalation_id')}) for account "
                f"{r.get('account_id')}. {r.get('note', '')}").strip()
    return json.dumps(r)[:200]
