"""Checks for chapter 05's exercises: list_orders with found, empty and not found (05.1), graded on its outcomes
and on what its note and error may not say, and repair the wrapper that reports an empty list as an error (05.2),
graded on T02 in every style.
"""
from __future__ import annotations


from ...atlas.tools import TOOL_NAMES
from ...atlas.session import atlas_session
from ...atlas.grade import grade
from ...atlas.formats import money
from ...dispatch.styles import STYLES
from ...dispatch.tool import CallContext, Handler, Tool
from ...contract.errors import ErrorCode, ToolFailure
from ...types.sets import JSONObject
from ._registry import BLANK, Compare, Finding, exercise, is_blank
from ._shared import _attempt, _body, _crashed, _dispatch, _run, atlas_names
from ._claims import claims_failure
from ._text import judge_failure


_ORDERS_SCHEMA = {
    "type": "object",
    "properties": {
        "account_id": {"type": "string", "pattern": "^ACC-[0-9]{4}$", "examples": ["ACC-4471"],
                       "description": "One of the customer's accounts: ACC- and four digits."},
        "status": {"type": "string", "enum": ["all", "open", "shipped", "deleted", "cancelled"],
                   "description": "Which orders to list; defaults to all."},
    },
    "required": ["account_id"],
    "additionalProperties": False,
}


@exercise("05.1", "list_orders: found, empty, not found",
          right="Orders come back as a list, an account with none comes back as a successful empty result "
                "whose note does not call it a failure, and only an account that does not exist is an error, whose "
                "words repeat nothing sent and invite no other attempt.",
          hints=("Three outcomes: find_account gives None (no such account: not_found), the filtered list is empty "
                 "(an answer: empty_result), or there are orders.",
                 "empty_result(\"orders\", note, account_id=..., status=...) builds the empty answer; the note says "
                 "in words what is true, for example that the account has no open orders.",
                 "Filter with: status == \"all\" or order.status == status; world.orders_of(account_id) lists them."),
          judges=("structure", "forbidden", "contradiction"),
          compare=Compare("whether the note says what is true",
                          "Account ACC-4475 has no orders with status all.",
                          ("Does the note say what was found (no orders with that status, on an account that exists)?",
                           "Would a model reading it tell the customer the account is fine, not missing?")))
def _list_orders(handler: object) -> str | Finding | None:
    """Structure: the three outcomes, counts, the empty result's shape, not_found with stop, the dispatcher's default.
    Contradiction: a note that calls the empty answer a failure; a retry invited, a success claimed, another tool
    named in the not_found. Forbidden: the id sent, internals, blame. Not judged: whether the note says what is true."""
    if not callable(handler):
        return "Pass your handler function list_orders itself (a function of args and ctx), not its result."
    wrong = _lists(handler) or _answers_empty(handler) or _refuses_missing(handler)
    if wrong is not None:
        return wrong
    block = _dispatch(Tool("list_orders", "List the orders on one of the customer's accounts.", _ORDERS_SCHEMA, handler),
                      {"account_id": "ACC-4475"})
    if block.get("is_error") or not isinstance(_body(block), dict):
        return "Through the dispatcher, ACC-4475 with no status given did not come back as a result; default status to all."
    return None


def _lists(handler: Handler) -> str | None:
    """An account's orders, all of them or those with one status, come back with their count."""
    found = {("ACC-4471", "all"): 3, ("ACC-4471", "open"): 1}
    for (account, status), n in found.items():
        got = _attempt(handler, {"account_id": account, "status": status})
        if got.crash is not None:
            return _crashed(got.crash, f"for {account} with status {status}")
        if got.failure is not None:
            return f"{account} has {status} orders, yet your handler failed with {got.failure.code.value}; return them."
        value = got.value
        if not isinstance(value, dict) or value.get("count") != n or len(value.get("orders") or []) != n:
            return (f"For {account} with status {status} the result should have count and an orders list holding "
                    "exactly the orders with that status.")
    return None


def _answers_empty(handler: Handler) -> str | Finding | None:
    """An account with nothing to list gets a successful empty result whose note does not call it a failure."""
    for account, status in (("ACC-4475", "all"), ("ACC-2333", "open")):
        got = _attempt(handler, {"account_id": account, "status": status})
        if got.crash is not None:
            return _crashed(got.crash, f"for {account}, an account with nothing to list")
        if got.failure is not None:
            what = "orders" if status == "all" else f"{status} orders"
            return (f"{account} exists and has no {what}, yet your handler failed with {got.failure.code.value}: "
                    "finding nothing is an answer, so return empty_result(\"orders\", note, ...).")
        value = got.value
        if not isinstance(value, dict) or value.get("count") != 0 or value.get("orders") != []:
            return (f"The result for {account} should be built with empty_result(\"orders\", note, ...): count 0, an "
                    "empty orders list and a note.")
        note = value.get("note")
        if not isinstance(note, str) or not note.strip():
            return "Give the empty result a note that says in words what was found: nothing, for this account."
        if (failed := claims_failure(note)) is not None:
            return Finding("contradiction", f"your note for an empty list says {failed!r}, but the call succeeded: say "
                                            "what is true instead, e.g. that the account has no orders with that status.")
    return None


def _refuses_missing(handler: Handler) -> str | Finding | None:
    """An account id that matches no account is not_found with stop, in words that echo nothing."""
    got = _attempt(handler, {"account_id": "ACC-4417", "status": "all"})
    if got.crash is not None:
        return _crashed(got.crash, "for ACC-4417, which is no account at all")
    if got.failure is None:
        return ("ACC-4417 is no account at all, but your handler answered as if it had no orders, which hides a typo "
                "the customer could fix: raise ToolFailure(\"not_found\", ...).")
    value = got.failure
    if value.code is not ErrorCode.NOT_FOUND:
        return f"An account id that matches no account is not_found, not {value.code.value}."
    if value.next is None or value.next.branch.value != "stop":
        return "Give the not_found a next=stop(...), so the agent asks the customer to check the number."
    if "ACC-4417" in value.message or "ACC-4417" in value.next.say:
        return Finding("forbidden", "your not_found repeats the id the caller sent; name the argument (account_id) "
                                    "instead.")
    return judge_failure((value.message, value.next.say), code=value.code, next=value.next,
                         tools=(*TOOL_NAMES, "list_orders"), failed="list_orders", names=atlas_names())


@exercise("05.2", "Repair the wrapper that reports empty as an error",
          right="The empty list is an answer again, with its note and balance, T02 ends correct in every "
                "style, and a missing account or another customer's is still refused.",
          hints=("Call tool.handler(args, ctx) inside try/except ToolFailure; most calls pass straight through.",
                 "Turn only a not_found into an empty result, and only when world.account(args[\"account_id\"]) "
                 "exists; re-raise everything else.",
                 "Build it with empty_result(\"invoices\", note, account_id=..., status=..., balance_due=...); "
                 "money(world.balance_cents(account_id)) is the balance."))
def _repaired(repaired: object) -> str | None:
    """Structure: a Tool; T02 correct in every style; ACC-1981's empty result and balance; refusals kept. No free text is read."""
    if not callable(repaired):
        return "Pass your function repaired itself: it takes (tool, world) and returns a Tool."
    for style in STYLES:  # every registered wording
        session = atlas_session("T02", style=style, seed=0)
        try:
            fixed = repaired(_empty_is_error(session.dispatcher.tools["list_invoices"]), session.world)
        except Exception as exc:
            return f"repaired(tool, world) raised {type(exc).__name__}; it should build and return a Tool."
        if not isinstance(fixed, Tool):
            return "repaired(tool, world) should return a Tool, built like empty_is_error builds one."
        if is_blank(fixed.handler):
            return BLANK
        session.dispatcher.tools["list_invoices"] = fixed
        verdict = grade(_run(session))
        if not verdict.correct:
            return f"In the {style} style T02 still ends wrong: {verdict.reasons[0]}."
    session = atlas_session("T02", seed=0)
    fixed = repaired(_empty_is_error(session.dispatcher.tools["list_invoices"]), session.world)
    got = _attempt(fixed.handler, {"account_id": "ACC-1981", "status": "overdue"})
    if got.crash is not None:
        return _crashed(got.crash, "for ACC-1981's overdue invoices (it has none)")
    value = got.value
    if got.failure is not None or not isinstance(value, dict) or value.get("count") != 0:
        return "ACC-1981 has no overdue invoices: that should come back as an empty result, not an error."
    balance = money(session.world.balance_cents("ACC-1981"))
    if value.get("balance_due") != balance or not isinstance(value.get("note"), str):
        return ("An empty list still has figures that hold: give the empty result a note and the account's "
                "balance_due (ACC-1981 owes money even with no overdue invoices).")
    for account, code, why in (("ACC-4417", ErrorCode.NOT_FOUND, "is no account at all"),
                               ("ACC-4472", ErrorCode.NOT_PERMITTED, "belongs to another customer")):
        got = _attempt(fixed.handler, {"account_id": account, "status": "unpaid"})
        if got.crash is not None:
            return _crashed(got.crash, f"for {account}")
        if got.failure is None or got.failure.code is not code:
            return (f"{account} {why}, but your wrapper changed that refusal; convert only the wrapper's not_found, "
                    "and only for an account that exists.")
    return None


def _empty_is_error(tool: Tool) -> Tool:
    # The anti-pattern of chapter 05, section 3, exactly as the chapter and the exercise define it.
    def handler(args: JSONObject, ctx: CallContext) -> object:
        result = tool.handler(args, ctx)
        if isinstance(result, dict) and result.get("count") == 0:
            raise ToolFailure("not_found", "No invoices were found for this account.", raw="LookupError: no invoices found")
        return result
    return Tool(tool.name, tool.description, tool.input_schema, handler)
