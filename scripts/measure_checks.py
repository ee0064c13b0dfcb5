"""How often the exercise checks that read free text reject a right answer or accept a wrong one.

Builds every answer in tests/data/check_wording.json (correct paraphrases, and wrong answers that use the usual
words), checks it with atlas_kit.course.checks, and prints per exercise: false rejects, false accepts, and how many of
the accepted wrong answers the check said it did not judge ("Not judged: ..."). tests/test_measure_checks.py runs it.

Usage: python scripts/measure_checks.py [--data PATH] [--list]   (--list prints every disagreement)
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypedDict

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from atlas_kit.atlas import World, money  # noqa: E402
from atlas_kit.course.checks import Feedback, check  # noqa: E402
from atlas_kit.dispatch.tool import CallContext, Tool
from atlas_kit.dispatch.dispatcher import Dispatcher, DispatchResult  # noqa: E402
from atlas_kit.contract.errors import (Branch, ErrorCode, Next, ToolError, ToolFailure, empty_result, retry_changed,
    stop, tool_error)
from atlas_kit.contract.values import safe, say  # noqa: E402
from atlas_kit.types import JSONObject  # noqa: E402
from atlas_kit.contract.vocab import from_article  # noqa: E402

DATA = ROOT / "tests" / "data" / "check_wording.json"
Kind = Literal["structure", "forbidden", "contradiction", "idea"]
DECIDED: tuple[Kind, ...] = ("structure", "forbidden", "contradiction")  # what a check can decide exactly


class Answer(TypedDict, total=False):
    """One entry of the data set: the exercise, right or wrong, why, and the text fields the answer is built from."""

    exercise: str
    expect: Literal["right", "wrong"]
    kind: Kind
    why: str
    known: str  # a wrong answer the checks are known to accept, and why
    code: str
    message: str
    say: str
    next: JSONObject | None
    detail: str
    note: str
    customer: dict[str, str]
    invalid: str
    missing: str
    unshipped: str


@dataclass(frozen=True)
class Outcome:
    """One answer checked: what was expected, and what the check said."""

    answer: Answer
    feedback: Feedback

    @property
    def false_reject(self) -> bool:
        return self.answer["expect"] == "right" and not self.feedback.ok

    @property
    def false_accept(self) -> bool:
        return self.answer["expect"] == "wrong" and self.feedback.ok

    @property
    def not_judged(self) -> bool:
        """Accepted with the check's own word that it did not judge the idea."""
        return self.feedback.ok and "Not judged:" in self.feedback.message


# --- building an answer from its text ----------------------------------------------------------------------------

def _next(spec: JSONObject | None) -> Next | None:
    if spec is None:
        return None
    tool, argument = spec.get("tool"), spec.get("argument")
    return Next(Branch(str(spec["branch"])), str(spec["say"]), None if tool is None else str(tool),
                None if argument is None else str(argument))


def _error(a: Answer, code: str, message: str, next: JSONObject | None, detail: str | None = None) -> ToolError:
    args = ("toolu_01", a.get("code", code), a.get("message", message))
    nxt, why = _next(a["next"] if "next" in a else next), a.get("detail", detail)
    try:
        return tool_error(*args, next=nxt, detail=why)
    except ValueError:  # a text the builder refuses (a class name before its message): built by hand, as a
        return ToolError(args[0], ErrorCode(args[1]), args[2], nxt, why)  # learner could, for the check to judge


def _01_1(a: Answer) -> object:
    return _error(a, "invalid_argument", "", None, "psycopg.errors.QueryCanceled: canceling statement due to statement timeout")


def _02_2(a: Answer) -> object:
    return _next(a["next"])


def _03_1(a: Answer) -> object:
    return _error(a, "limit_exceeded", "", None)


def _03_2(a: Answer) -> object:
    adopted = from_article("toolu_07", {"code": "rate_limited", "message": "Rate limited, retry after 4000 ms.",
                                        "retryable": True, "suggested_fix": "Wait 4 seconds, then call again."})
    spec: JSONObject | None = dict(adopted.next.to_json()) if adopted.next else None
    return tool_error(adopted.tool_use_id, a.get("code", adopted.code), a.get("message", adopted.message),
                      next=_next(a["next"] if "next" in a else spec))


_WORLD = World(0)


def _04_1(a: Answer) -> object:
    spec: JSONObject = {"branch": "stop", "say": a.get("say", "Tell the customer that SKU is not in the catalogue.")}

    def get_product(args: dict[str, Any], ctx: CallContext) -> JSONObject:
        product = _WORLD.products.get(args["sku"])
        if product is None:
            nxt = _next(a["next"] if "next" in a else spec)
            raise ToolFailure(a.get("code", "not_found"), a["message"].replace("{sku}", args["sku"]), next=nxt)
        return {"sku": product.sku, "product": product.name, "unit_price": money(product.unit_cents)}
    return get_product


def _04_2(a: Answer) -> object:
    return a["message"]


def _find(kind: str, ref: str) -> Any:
    """acme's account or order, None when there is none, a refusal for another customer's (as the solutions do)."""
    found: object
    if kind == "account":
        account = _WORLD.account(ref)
        found, tenant = account, account.tenant if account else None
    else:
        found = _WORLD.order(ref)
        tenant = _WORLD.tenant_of(ref) if found else None
    if tenant not in (None, "acme"):
        raise ToolFailure("not_permitted", f"That {kind} belongs to another customer. Do not try other {kind} ids.",
                          next=stop(f"Tell the customer you cannot access that {kind}."))
    return found


def _05_1(a: Answer) -> object:
    note = a.get("note", "Account {a} has no orders with status {s}.")
    message = a.get("message", "No account matches account_id. Ask the customer to check the number; do not guess other ids.")

    def list_orders(args: dict[str, Any], ctx: CallContext) -> JSONObject:
        account = _find("account", args["account_id"])
        if account is None:
            raise ToolFailure("not_found", message.replace("{id}", args["account_id"]),
                              next=stop(a.get("say", "Tell the customer the account was not found.")))
        status = args.get("status", "all")
        orders: list[JSONObject] = [{"order_id": o.order_id, "status": o.status}
                                    for o in _WORLD.orders_of(account.account_id) if status in ("all", o.status)]
        if not orders:
            values = {"a": safe(account.account_id), "s": safe(status)}
            text = say(note, **{k: v for k, v in values.items() if f"{{{k}}}" in note})
            return empty_result("orders", text, account_id=account.account_id, status=status)
        return {"account_id": account.account_id, "status": status, "count": len(orders), "orders": orders}
    return list_orders


_CUSTOMER = {
    "invalid_argument": "I need to check one detail of your request before I can do that.",
    "not_found": "I could not find that record; could you check the number you gave me?",
    "not_permitted": "That belongs to another customer or can no longer be changed, so I cannot do it here.",
    "limit_exceeded": "That goes beyond a limit I can approve myself, so it needs a colleague or cannot be done.",
    "upstream_unavailable": "One of our systems is not responding right now, so I could not finish this; a colleague can follow up.",
}


def _07_2(a: Answer) -> object:
    customer = {**_CUSTOMER, **a.get("customer", {})}

    def audiences(failure: Any) -> dict[str, str]:
        trace = "\n".join(text for text in (failure.raw, failure.error.detail) if text)
        return {"trace": trace, "model": failure.error.block()["content"], "customer": customer[failure.error.code.value]}
    return audiences


_ADDRESS = re.compile(r"[0-9]{1,5} [A-Za-z][A-Za-z .'-]{1,60}(, [A-Za-z][A-Za-z .'-]{1,40})?")


def _08_1(a: Answer) -> object:
    def address_check(tool: Tool) -> Tool:
        def handler(args: dict[str, Any], ctx: CallContext) -> Any:
            address = args.get("address")
            if args.get("action") == "change_address" and not (isinstance(address, str) and _ADDRESS.fullmatch(address)):
                raise ToolFailure("invalid_argument", a["message"].replace("{address}", str(address)),
                                  next=retry_changed("address", a.get("say", "Ask the customer for the full address.")))
            return tool.handler(args, ctx)
        return Tool(tool.name, tool.description, tool.input_schema, handler, side_effect=tool.side_effect)
    return address_check


_08_2_TEXT = {"invalid": "Argument order_ref must look like ORD-77120; ask the customer for the order number.",
              "missing": "No order of this customer matches order_ref. Ask the customer to check the number; do not guess other ids.",
              "unshipped": "Order {o} is {s} and has not shipped, so there is no shipment to track."}


def _08_2(a: Answer) -> object:
    texts = {k: str(a.get(k, v)) for k, v in _08_2_TEXT.items()}

    def get_shipment(args: dict[str, Any], ctx: CallContext) -> JSONObject:
        ref = args["order_ref"]
        if not re.fullmatch(r"ORD-[0-9]{5}", ref):
            raise ToolFailure("invalid_argument", texts["invalid"].replace("{ref}", ref),
                              next=retry_changed("order_ref", "Call again with the number the customer gives."))
        order = _find("order", ref)
        if order is None:
            raise ToolFailure("not_found", texts["missing"].replace("{ref}", ref),
                              next=stop("Tell the customer the order was not found."))
        if order.status != "shipped":
            raise ToolFailure("not_found", say(texts["unshipped"], o=safe(order.order_id), s=safe(order.status)),
                              next=stop("Tell the customer the order has not shipped."))
        return {"order_id": order.order_id, "status": order.status, "ship_to": order.ship_to}
    return get_shipment


_14_1_NOTE = ("Only {returned} of the {matched} matching invoices came back, so this list has no total. Call again; "
              "if it is still short, tell the customer the full list could not be retrieved.")


def _14_1(a: Answer) -> object:
    note = a.get("note", _14_1_NOTE)

    def paid_result(account_id: str, rows: list[dict[str, str]], matched: int) -> JSONObject:
        cents = sum(int(r["amount"].replace("$", "").replace(",", "").replace(".", "")) for r in rows)
        result: JSONObject = {"account_id": account_id, "status": "paid", "count": matched, "invoices": rows}
        if len(rows) == matched:
            return {**result, "total_amount": money(cents)}
        text = note.format(returned=len(rows), matched=matched, missing=matched - len(rows), partial=money(cents))
        return {**result, "returned": len(rows), "complete": False, "total_amount": None, "note": text}
    return paid_result


def _15_2(a: Answer) -> object:
    from mcp import MCPError

    from atlas_kit.bridges.mcp.server import INVALID_PARAMS

    def stock_level(args: dict[str, Any], ctx: CallContext) -> JSONObject:
        stock = {"SKU-2041": 140, "SKU-1107": 0}
        if args["sku"] not in stock:
            raise ToolFailure("not_found", "No product matches sku. Ask the customer to check the SKU; do not guess others.",
                              next=stop("Tell the customer that SKU is not in the catalogue."))
        return {"sku": args["sku"], "on_hand": stock[args["sku"]]}

    schema: JSONObject = {"type": "object", "required": ["sku"], "additionalProperties": False,
                          "properties": {"sku": {"type": "string", "pattern": "^SKU-[0-9]{4}$"}}}
    shop = Dispatcher([Tool("stock_level", "Units on hand for one SKU.", schema, stock_level)])

    def call_tool(name: str, arguments: JSONObject | None) -> JSONObject:
        if name not in shop.tools:
            raise MCPError(INVALID_PARAMS, a["message"].format(tools=", ".join(sorted(shop.tools)), name=name))
        return _mcp_result(shop.dispatch([{"type": "tool_use", "id": "call_1", "name": name, "input": arguments or {}}]))
    return call_tool


def _mcp_result(out: DispatchResult) -> JSONObject:
    block = out.results[0]
    result: JSONObject = {"content": [{"type": "text", "text": block["content"]}], "isError": bool(out.failures)}
    if out.failures:
        result["structuredContent"] = dict(out.failures[0].error.body())
    return result


BUILD: dict[str, Callable[[Answer], object]] = {
    "01.1": _01_1, "02.2": _02_2, "03.1": _03_1, "03.2": _03_2, "04.1": _04_1, "04.2": _04_2, "05.1": _05_1,
    "07.2": _07_2, "08.1": _08_1, "08.2": _08_2, "14.1": _14_1, "15.2": _15_2,
}


# --- measuring ---------------------------------------------------------------------------------------------------

def load(path: Path = DATA) -> list[Answer]:
    """The data set's answers, each checked for the fields every entry needs."""
    answers: list[Answer] = json.loads(path.read_text(encoding="utf-8"))["answers"]
    for i, a in enumerate(answers):
        if a.get("exercise") not in BUILD or a.get("expect") not in ("right", "wrong"):
            raise ValueError(f"answer {i} of {path.name}: exercise must be one of {', '.join(BUILD)} and expect right "
                             "or wrong; fix that entry.")
        if a["expect"] == "wrong" and a.get("kind") not in (*DECIDED, "idea"):
            raise ValueError(f"answer {i} of {path.name} is wrong but its kind is {a.get('kind')!r}; say which: "
                             "structure, forbidden, contradiction or idea.")
    return answers


def measure(answers: list[Answer]) -> list[Outcome]:
    """Every answer built and checked."""
    return [Outcome(a, check(a["exercise"], BUILD[a["exercise"]](a))) for a in answers]


Row = tuple[str, int, int, int, int, int, int]  # exercise, right, false rejects, wrong, decided false accepts, ideas accepted, of which not judged


def table(outcomes: list[Outcome]) -> list[Row]:
    """Per exercise: right answers and false rejects; wrong answers, false accepts among the decidable ones, and the
    wrong ideas accepted (with how many of those the check said it did not judge)."""
    rows: list[Row] = []
    for key in sorted({o.answer["exercise"] for o in outcomes}):
        mine = [o for o in outcomes if o.answer["exercise"] == key]
        right = [o for o in mine if o.answer["expect"] == "right"]
        wrong = [o for o in mine if o.answer["expect"] == "wrong"]
        decided = [o for o in wrong if o.answer["kind"] in DECIDED]
        ideas = [o for o in wrong if o.answer["kind"] == "idea" and o.false_accept]
        rows.append((key, len(right), sum(o.false_reject for o in right), len(wrong), sum(o.false_accept for o in decided),
                     len(ideas), sum(o.not_judged for o in ideas)))
    return rows


def render(rows: list[Row]) -> str:
    head = ("exercise", "right", "false rejects", "wrong", "false accepts (decidable)", "wrong ideas accepted", "of which 'Not judged'")
    sums = [sum(int(r[i]) for r in rows) for i in range(1, 7)]
    total: Row = ("all", sums[0], sums[1], sums[2], sums[3], sums[4], sums[5])
    lines = [" | ".join(head), " | ".join("---" for _ in head)]
    lines += [" | ".join(str(c) for c in r) for r in [*rows, total]]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--data", type=Path, default=DATA, help="the data set (default: tests/data/check_wording.json)")
    parser.add_argument("--list", action="store_true", help="also print every false reject and false accept")
    args = parser.parse_args(argv)
    outcomes = measure(load(args.data))
    print(render(table(outcomes)))
    if args.list:
        for o in outcomes:
            if o.false_reject or o.false_accept:
                what = "false reject" if o.false_reject else f"false accept ({o.answer.get('kind')})"
                said = {k: v for k, v in o.answer.items() if k not in ("exercise", "expect", "kind")}
                print(f"\n{o.answer['exercise']} {what}: {json.dumps(said)[:240]}\n  -> {o.feedback.message[:240]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
