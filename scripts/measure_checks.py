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
    claim: str  # what a wrong answer's words do: retry_stop, retry_same, retry_pointless, silent_tell, silent_stop, false_success
    episode: str  # 16.2: which rewrite the answer replaces
    texts: dict[str, str]  # 13.1: the dispatcher's own words (down, down_say, crash, crash_say, unknown)
    say_stop: str  # 07.1: the say of every stop
    say_all: str  # 07.1: the say of every failure


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


def _07_1(a: Answer) -> object:
    def lean_style(failure: Any) -> JSONObject:
        body = failure.error.body()
        nxt = body.get("next")
        if nxt:
            stops = nxt["branch"] == "stop"
            said = a["say_all"] if "say_all" in a else a["say_stop"] if stops and "say_stop" in a else None
            kept = {k: v for k, v in nxt.items() if k != "say" or (stops and said is None)}
            body["next"] = {**kept, "say": said} if said else kept  # "": the say dropped
        return {"type": "tool_result", "tool_use_id": failure.error.tool_use_id, "is_error": True,
                "content": json.dumps(body, separators=(",", ":"), ensure_ascii=False)}
    return lean_style


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


_13_1_TEXT = {
    "unknown": "No tool has that name; the tools are: {tools}.",
    "down": "The {name} service is not responding right now, so the request may or may not have been applied.",
    "down_say": "Tell the customer you could not confirm whether it went through, and offer to escalate to a person.",
    "crash": "The tool failed unexpectedly, so the request may or may not have been applied.",
    "crash_say": "Do not call it again. Tell the customer you could not confirm whether it went through, and offer to "
                 "escalate to a person.",
}


def _13_1(a: Answer) -> object:
    """The solution's dispatcher, in the answer's own words for an unknown tool, an outage and a crash."""
    from atlas_kit.dispatch.transient import Transient

    texts = {**_13_1_TEXT, **a.get("texts", {})}

    def dispatch(content: list[JSONObject], tools: dict[str, Any], seen: set[tuple[str, str, str]]) -> object:
        def attempt(tool: Any, args: object, key: str) -> object:
            for n in range(1, 4):
                try:
                    return tool(args, key=key)
                except (Transient, TimeoutError):
                    if n == 3:
                        raise
            return None

        def answer(block: JSONObject) -> tuple[JSONObject, str | None]:
            use_id, name = str(block["id"]), str(block["name"])
            error: ToolError
            try:
                if name not in tools:
                    raise ToolFailure("invalid_argument", texts["unknown"].format(tools=", ".join(tools)),
                                      next=retry_changed("name", "Call one of the listed tools instead."))
                value = attempt(tools[name], block["input"], use_id)
                return {"type": "tool_result", "tool_use_id": use_id, "content": json.dumps(value)}, None
            except ToolFailure as failure:
                error = tool_error(use_id, failure.code, failure.message, next=failure.next)
            except (Transient, TimeoutError):
                error = tool_error(use_id, "upstream_unavailable", texts["down"].format(name=name),
                                   next=stop(texts["down_say"]))
            except Exception:
                error = tool_error(use_id, "upstream_unavailable", texts["crash"], next=stop(texts["crash_say"]))
            return dict(error.block()), error.code.value

        results, repeated, answered = [], None, set()
        for block in content:
            if block["type"] != "tool_use" or block["id"] in answered:
                continue
            answered.add(block["id"])
            result, code = answer(block)
            results.append(result)
            if code is not None:
                triple = (str(block["name"]), json.dumps(block["input"], sort_keys=True), code)
                if triple in seen and repeated is None:
                    repeated = triple
                seen.add(triple)
        return results, repeated
    return dispatch


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


_16_2_REWRITES: dict[str, tuple[str, str, JSONObject]] = {  # the solution's three rewrites
    "task-26/trial-0": ("not_found", "No payment method on the customer's profile has that payment_id.",
                        {"branch": "switch_tool", "tool": "get_user_details",
                         "say": "Read the customer's profile, then use one of the payment methods it lists."}),
    "task-15/trial-2": ("limit_exceeded", "Flight HAT290 has no economy seat left on that date.",
                        {"branch": "stop", "say": "Tell the customer the flight is full and ask whether to keep the "
                                                  "reservation or choose another flight."}),
    "task-9/trial-2": ("invalid_argument", "The payment amounts add up to less than the total price of 1203.",
                       {"branch": "retry_changed", "argument": "payment_methods",
                        "say": "Make the amounts add up to the total, and tell the customer the new total before booking."}),
}


def _16_2(a: Answer) -> object:
    rewrites = {episode: tool_error("toolu_1", code, message, next=_next(nxt))
                for episode, (code, message, nxt) in _16_2_REWRITES.items()}
    if "episode" in a:
        code, message, nxt = _16_2_REWRITES[a["episode"]]
        rewrites[a["episode"]] = _error(a, code, message, nxt)
    return rewrites


def _mcp_result(out: DispatchResult) -> JSONObject:
    block = out.results[0]
    result: JSONObject = {"content": [{"type": "text", "text": block["content"]}], "isError": bool(out.failures)}
    if out.failures:
        result["structuredContent"] = dict(out.failures[0].error.body())
    return result


BUILD: dict[str, Callable[[Answer], object]] = {
    "01.1": _01_1, "02.2": _02_2, "03.1": _03_1, "03.2": _03_2, "04.1": _04_1, "04.2": _04_2, "05.1": _05_1,
    "07.1": _07_1, "07.2": _07_2, "08.1": _08_1, "08.2": _08_2, "13.1": _13_1, "14.1": _14_1, "15.2": _15_2, "16.2": _16_2,
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
