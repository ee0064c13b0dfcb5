"""The checks of exercises 09.1 to 12.2 pass the stored solutions and fail plausible wrong answers.

WRONG lists each (exercise, wrong answer, fragment of the message it must get); the solutions are
taken from the solution notebooks themselves, by running their code cells.
"""
from __future__ import annotations

import copy
import json
import math
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

import jsonschema
import nbformat
import pytest

from atlas_kit import ErrorCode, RetryPolicy, Tool, ToolFailure, empty_result, error_schema, retry_changed, stop
from atlas_kit.atlas import Fault, always, money
from atlas_kit.atlas.handlers import MAX_PAGE_SIZE
from atlas_kit.course.checks._registry import BLANK
from atlas_kit.course.checks import check
from atlas_kit.course.checks.ch10 import BROKEN_10
from atlas_kit.course.checks.ch11 import FAULT_TICKETS
from atlas_kit.contract.errors import ALLOWED_BRANCHES
from atlas_kit.experiments.sweep import run_experiment
from atlas_kit.stats import Z95
from atlas_kit.experiments.metrics import paired_recovery

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ("09_retries_and_side_effects", "10_testing_the_error_path", "11_measuring_recovery", "12_tool_surface")


@lru_cache(maxsize=None)
def solutions() -> dict[str, Any]:
    """Every name the four solution notebooks define, from running their code cells in order."""
    names: dict[str, Any] = {}
    for stem in NOTEBOOKS:
        nb = nbformat.read(ROOT / "solutions" / f"{stem}.ipynb", as_version=4)
        for cell in nb.cells:
            if cell.cell_type == "code":
                exec(compile(cell.source, f"{stem}.ipynb", "exec"), names)  # noqa: S102 - our own notebooks
    return names


ANSWERS = {"09.1": "apply_credit", "09.2": "policy", "10.1": "scenarios", "10.2": "test_error_block",
           "11.1": "recovery_by_hand", "11.2": "answer", "12.1": "invoice_rows", "12.2": "make_list_orders"}


class Later:
    """A wrong answer built on first use (it needs a sweep)."""

    def __init__(self, build: Callable[[], Any]) -> None:
        self.build = build


# --- 09.1: handlers -------------------------------------------------------------------------

def _credit(ledger: dict[str, Any], args: dict[str, Any], key: Any) -> dict[str, Any]:
    credit = {"credit_id": f"CR-{len(ledger['credits']) + 1:04d}", **args, "key": key}
    ledger["credits"].append(credit)
    return {"credit_id": credit["credit_id"], "status": "applied"}


def credit_every_time(ledger, args, ctx):
    return _credit(ledger, args, ctx.idempotency_key)


def credit_once_per_arguments(ledger, args, ctx):
    seen = json.dumps(args, sort_keys=True)
    if seen in ledger["replies"]:
        return ledger["replies"][seen]
    ledger["replies"][seen] = result = _credit(ledger, args, ctx.idempotency_key)
    return result


def credit_with_a_stub_on_retry(ledger, args, ctx):
    if any(c["key"] == ctx.idempotency_key for c in ledger["credits"]):
        return {"status": "already applied"}
    return _credit(ledger, args, ctx.idempotency_key)


OWN_LEDGER: dict[str, Any] = {"credits": [], "replies": {}}


def credit_to_my_own_ledger(ledger, args, ctx):
    return {"status": "applied", "n": len(OWN_LEDGER["credits"])}


def credit_that_raises(ledger, args, ctx):
    return _credit(ledger, {"account": args["account"]}, ctx.idempotency_key)


# --- 10.2: contract tests -------------------------------------------------------------------

VALIDATOR = jsonschema.Draft202012Validator(error_schema())


def schema_only(block):
    VALIDATOR.validate(json.loads(block["content"]))


def no_branch_rules(block):
    assert block.get("is_error") is True
    try:
        body = json.loads(block["content"])
    except ValueError:
        raise AssertionError("not JSON") from None
    VALIDATOR.validate(body)


def pins_next(block):
    body = json.loads(block["content"])
    assert block.get("is_error") is True and "next" in body


def parses_without_guard(block):
    assert block.get("is_error") is True
    body = json.loads(block["content"])
    VALIDATOR.validate(body)
    nxt = body.get("next")
    if nxt is not None:
        assert nxt["branch"] in {b.value for b in ALLOWED_BRANCHES[ErrorCode(body["error"])]}
        assert nxt["branch"] != "switch_tool" or nxt.get("tool")
        assert nxt["branch"] != "retry_changed" or nxt.get("argument")


# --- 11.1: recovery by hand -----------------------------------------------------------------

def _counts(episodes):
    hit = [e for e in episodes if e["hit_error"]]
    return sum(e["correct"] for e in hit), len(hit)


def _wilson(k, n):
    p, z = k / n, Z95
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def success_not_recovery(episodes):
    k, n = sum(e["correct"] for e in episodes), len(episodes)
    return (k / n, *_wilson(k, n))


def wald_interval(episodes):
    k, n = _counts(episodes)
    p = k / n
    h = Z95 * math.sqrt(p * (1 - p) / n)
    return p, max(0.0, p - h), min(1.0, p + h)


def in_percent(episodes):
    k, n = _counts(episodes)
    low, high = _wilson(k, n)
    return 100 * k / n, 100 * low, 100 * high


def centre_not_moved(episodes):
    k, n = _counts(episodes)
    p, z = k / n, Z95
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return p, p - half, p + half


def as_a_dict(episodes):
    k, n = _counts(episodes)
    return {"rate": k / n}


# --- 11.2: sweeps ---------------------------------------------------------------------------

@lru_cache(maxsize=None)
def _sweep() -> tuple[dict[str, Any], ...]:
    return tuple(run_experiment(name="t", styles=["raw"], faults=(True, False), tickets=list(FAULT_TICKETS), trials=3,
                                progress=False))


def _readings(records, *, hurt=None, fails=None):
    paired = paired_recovery(records)
    return {"records": records,
            "hurt": hurt if hurt is not None else [t for t, p in paired.items() if p.with_faults.rate < p.without.rate],
            "fails_without_faults": fails if fails is not None else
            [t for t, p in paired.items() if p.without.successes < p.without.n]}


def _ratio_below_one():
    records = list(_sweep())
    paired = paired_recovery(records)
    return _readings(records, hurt=[t for t, p in paired.items() if p.ratio is None or p.ratio < 1])


def _flipped():
    records = [dict(r) for r in _sweep()]
    first = next(r for r in records if r["hit_error"])
    first["correct"] = not first["correct"]
    return _readings(records)


# --- 12.1: formatters -----------------------------------------------------------------------

def _row(inv, fields):
    full = {"invoice_id": inv.invoice_id, "status": inv.status, "amount": money(inv.amount_cents),
            "amount_cents": inv.amount_cents, "issued": inv.issued, "due": inv.due, "paid_on": inv.paid_on,
            "payment_id": inv.payment_id}
    return {k: full[k] for k in fields}


CONCISE = ("invoice_id", "status", "amount")
DETAILED = (*CONCISE, "amount_cents", "issued", "due", "paid_on", "payment_id")


def same_both_ways(invoices, response_format="concise"):
    return [_row(i, DETAILED) for i in invoices]


def amount_in_cents(invoices, response_format="concise"):
    rows = [_row(i, DETAILED if response_format == "detailed" else CONCISE) for i in invoices]
    return [{**r, "amount": r.get("amount_cents", 0) or int(r["amount"][1:].replace(",", "").replace(".", ""))}
            for r in rows]


def detailed_without_dates(invoices, response_format="concise"):
    return [_row(i, (*CONCISE, "amount_cents") if response_format == "detailed" else CONCISE) for i in invoices]


def detailed_by_default(invoices, response_format="detailed"):
    return [_row(i, DETAILED if response_format == "detailed" else CONCISE) for i in invoices]


def unpaid_only(invoices, response_format="concise"):
    return [_row(i, DETAILED if response_format == "detailed" else CONCISE) for i in invoices if i.status != "paid"]


# --- 12.2: list_orders tools ----------------------------------------------------------------

def orders_tool(*, names=("account_id", "page", "page_size"), maximum=True, strict=True, pattern=True,
                refuse_past_end=True, paged=True, product=True, empty_is_error=False, required_size=False):
    """A list_orders factory with one design choice switched at a time."""
    acc, pg, size = names

    def make(world):
        def handler(args, ctx):
            if world.account(args[acc]) is None:
                raise ToolFailure("not_found", "No account matches that id.", next=stop("Tell the customer."))
            orders, page, n = world.orders_of(args[acc]), args.get(pg, 1), args.get(size, 10)
            if not orders:
                if empty_is_error:
                    raise ToolFailure("not_found", "No orders on this account.", next=stop("Tell the customer."))
                return empty_result("orders", "This account has no orders.", page=1, pages=0)
            n = n if paged else len(orders)
            pages = (len(orders) + n - 1) // n
            if page > pages and refuse_past_end:
                raise ToolFailure("invalid_argument", "Argument page is past the last page.",
                                  next=retry_changed(pg, "Call again with a page that exists."))
            rows = [{"order_id": o.order_id, "status": o.status,
                     ("product" if product else "sku"): world.products[o.sku].name if product else o.sku}
                    for o in orders[(page - 1) * n: page * n]]
            return {"count": len(orders), "page": page, "pages": pages, "orders": rows}

        account = {"type": "string", **({"pattern": "^ACC-[0-9]{4}$", "examples": ["ACC-4471"]} if pattern else {})}
        page_size = {"type": "integer", "minimum": 1, **({"maximum": MAX_PAGE_SIZE} if maximum else {})}
        schema = {"type": "object", "required": [acc, *([size] if required_size else [])],
                  "properties": {acc: account, pg: {"type": "integer", "minimum": 1}, size: page_size}}
        if strict:
            schema["additionalProperties"] = False
        return Tool("list_orders", "List one account's orders with status and product, ten a page.", schema, handler)
    return make


# --- the list -------------------------------------------------------------------------------

SCENARIOS = {"lost_reply": ([Fault("update_order", "timeout", after_effect=True)], None, 1),
             "down": ([always("update_order", "outage")], ("upstream_unavailable", "stop"), 0),
             "quota": ([always("update_order", "limit_exceeded")], ("limit_exceeded", "switch_tool"), 0)}

WRONG: list[tuple[str, Any, str]] = [
    ("09.1", credit_every_time, "applied the credit 2 times"),
    ("09.1", credit_once_per_arguments, "same arguments applied no new credit"),
    ("09.1", credit_with_a_stub_on_retry, "does not name CR-0001"),
    ("09.1", credit_to_my_own_ledger, "Nothing was recorded"),
    ("09.1", credit_that_raises, "ended in an error"),
    ("09.1", {"credits": []}, "Pass the function"),
    ("09.2", RetryPolicy(), "(1) fails: a 429 with Retry-After: 5"),
    ("09.2", RetryPolicy(attempts=3, max_delay=5.5), "Retry-After of 6 s should be waited out"),
    ("09.2", RetryPolicy(attempts=3, max_delay=30.0), "(2) fails"),
    ("09.2", RetryPolicy(attempts=2, max_delay=6.0), "(3) fails"),
    ("09.2", RetryPolicy(attempts=5, max_delay=6.0), "(4) fails"),
    ("09.2", RetryPolicy(attempts=1000, max_delay=6.0), "(4) fails: 1000 attempts"),
    ("09.2", (3, 6.0), "build a RetryPolicy"),
    ("10.1", {**SCENARIOS, "lost_reply": (SCENARIOS["lost_reply"][0], ("upstream_unavailable", "stop"), 1)},
     "you predicted the model reads upstream_unavailable/stop"),
    ("10.1", {**SCENARIOS, "lost_reply": ([Fault("update_order", "timeout")], None, 1)}, "lose the reply"),
    ("10.1", {**SCENARIOS, "down": ([Fault("update_order", "outage")], ("upstream_unavailable", "stop"), 0)},
     "fail on every harness attempt"),
    ("10.1", {**SCENARIOS, "quota": ([always("update_order", "outage")], ("upstream_unavailable", "stop"), 0)},
     "policy refusal"),
    ("10.1", {**SCENARIOS, "down": (SCENARIOS["down"][0], ("upstream_unavailable", "stop"), 1)}, "order change(s)"),
    ("10.1", {**SCENARIOS, "down": ([always("get_order", "outage")], ("upstream_unavailable", "stop"), 0)},
     "fault that tool"),
    ("10.1", {"lost_reply": SCENARIOS["lost_reply"], "down": SCENARIOS["down"]}, "quota is missing"),
    ("10.1", {**SCENARIOS, "quota": ...}, "'quota' is not answered yet"),
    ("10.2", schema_only, "passes 5 of 11 broken blocks, for example an error sent without is_error"),
    ("10.2", no_branch_rules, "not_permitted whose next says retry_changed"),
    ("10.2", pins_next, "fails a good block"),
    ("10.2", parses_without_guard, "crashed with JSONDecodeError"),
    ("11.1", success_not_recovery, "success rate over every episode"),
    ("11.1", wald_interval, "Wald interval"),
    ("11.1", in_percent, "fraction between 0 and 1"),
    ("11.1", centre_not_moved, "is not the Wilson 95% interval"),
    ("11.1", as_a_dict, "tuple of three numbers"),
    ("11.2", Later(_ratio_below_one), "hurt: T14"),
    ("11.2", Later(lambda: _readings([r for r in _sweep() if r["faults"]])), "both with faults on and with them off"),
    ("11.2", Later(lambda: _readings([r for r in _sweep() if r["trial"] == 0])), "only 1 trial(s)"),
    ("11.2", Later(lambda: _readings(list(_sweep()), fails=[])), "fails_without_faults misses 1 ticket(s)"),
    ("11.2", Later(_flipped), "do not match a fresh run"),
    ("11.2", Later(lambda: list(_sweep())), "Return a dict"),
    ("12.1", same_both_ways, "Concise costs"),
    ("12.1", amount_in_cents, "dollar text"),
    ("12.1", detailed_without_dates, "detailed rows should add"),
    ("12.1", detailed_by_default, "Make concise the default"),
    ("12.1", unpaid_only, "one dict per invoice"),
    ("12.2", orders_tool(names=("user", "p", "n")), "Rename the arguments"),
    ("12.2", orders_tool(maximum=False), "{'page_size': 51} should be refused"),
    ("12.2", orders_tool(refuse_past_end=False), "page past the last should be refused"),
    ("12.2", orders_tool(required_size=True), "only account_id failed"),
    ("12.2", orders_tool(paged=False), "page 1 of 8 with 10 orders"),
    ("12.2", orders_tool(product=False), "product's name"),
    ("12.2", orders_tool(strict=False), "accepted in silence"),
    ("12.2", orders_tool(pattern=False), "should have a pattern"),
    ("12.2", orders_tool(empty_is_error=True), "is an answer, not an error"),
]


@pytest.mark.parametrize("key,answer,fragment", WRONG, ids=[f"{k}-{i}" for i, (k, _, _) in enumerate(WRONG)])
def test_a_wrong_answer_fails_with_a_message_that_says_what_to_change(key, answer, fragment):
    fb = check(key, answer.build() if isinstance(answer, Later) else answer)
    assert not fb.ok
    assert fb.message != BLANK
    assert fragment in fb.message, fb.message


@pytest.mark.parametrize("key", sorted(ANSWERS))
def test_the_solution_passes(key):
    fb = check(key, solutions()[ANSWERS[key]])
    assert fb.ok, fb.message


def test_every_exercise_of_these_chapters_has_at_least_two_wrong_answers():
    counts = {key: sum(k == key for k, _, _ in WRONG) for key in ANSWERS}
    assert min(counts.values()) >= 2, counts


def test_broken_blocks_are_each_caught_by_the_solution_test_and_each_missed_by_a_weaker_one():
    # Each broken block breaks exactly the rule it names: the full test catches it, and no good
    # block trips the full test (checked in test_the_solution_passes through the check itself).
    full = solutions()["test_error_block"]
    for what, block in BROKEN_10:
        with pytest.raises((AssertionError, jsonschema.ValidationError)):
            full(copy.deepcopy(block))
    missed = []
    for what, block in BROKEN_10:
        try:
            no_branch_rules(copy.deepcopy(block))
            missed.append(what)
        except (AssertionError, jsonschema.ValidationError):
            pass
    assert len(missed) == 4, missed  # the four the schema cannot see


def test_a_blank_function_is_not_answered_yet():
    def blank(*args):
        """A docstring, then the exercise's gap."""
        ...

    for key in ("09.1", "10.2", "11.1", "12.1", "12.2"):
        assert check(key, blank).message == BLANK, key
    assert check("10.1", {"lost_reply": ..., "down": ..., "quota": ...}).message == BLANK


# --- right answers the checks must accept, written differently from the solutions --------------------------------
# A check grades the idea (one credit per tool_use, the waits, what the run shows, the rows and pages), not the
# solution's wording or structure: each of these differs from the stored solution and must pass.

def credit_found_by_key_in_the_ledger(ledger, args, ctx):
    for credit in ledger["credits"]:  # no replies cache: the ledger itself remembers the key
        if credit["key"] == ctx.idempotency_key:
            return {"credit_id": credit["credit_id"], "status": "applied"}
    return _credit(ledger, args, ctx.idempotency_key)


def credit_with_a_sentence_for_the_model(ledger, args, ctx):
    if ctx.idempotency_key in ledger["replies"]:
        return ledger["replies"][ctx.idempotency_key]
    credit = _credit(ledger, args, ctx.idempotency_key)
    ledger["replies"][ctx.idempotency_key] = reply = {
        "note": f"Store credit {credit['credit_id']} of {money(args['amount_cents'])} is on {args['account_id']}."}
    return reply


def contract_test_with_jsonschema_validate(block):
    assert block.get("is_error"), "not flagged as an error"
    try:
        body = json.loads(block["content"])
    except json.JSONDecodeError as err:
        raise AssertionError(f"not JSON: {err}") from None
    jsonschema.validate(body, error_schema())
    if "next" in body:
        nxt = body["next"]
        assert ErrorCode(body["error"]) in {c for c, allowed in ALLOWED_BRANCHES.items() if any(b.value == nxt["branch"] for b in allowed)}
        if nxt["branch"] == "switch_tool":
            assert nxt.get("tool")
        if nxt["branch"] == "retry_changed":
            assert nxt.get("argument")


def wilson_other_form(episodes):
    k, n = _counts(episodes)
    z2 = Z95 * Z95
    centre = (k + z2 / 2) / (n + z2)
    half = Z95 * math.sqrt(n) / (n + z2) * math.sqrt(k / n * (1 - k / n) + z2 / (4 * n))
    return [k / n, centre - half, centre + half]


def rows_with_other_detail_names(invoices, response_format="concise"):
    rows = []
    for inv in invoices:
        row = {"invoice_id": inv.invoice_id, "status": inv.status, "amount": money(inv.amount_cents)}
        if response_format != "concise":
            row |= {"cents": inv.amount_cents, "issued_on": inv.issued, "due_on": inv.due, "paid": inv.paid_on,
                    "payment": inv.payment_id, "refunded": money(inv.refunded_cents) if hasattr(inv, "refunded_cents") else None}
        rows.append(row)
    return rows


def orders_tool_worded_differently(world):
    schema = {"type": "object", "additionalProperties": False, "required": ["account_id"], "properties": {
        "account_id": {"type": "string", "pattern": r"^ACC-\d{4}$", "examples": ["ACC-0001"]},
        "page_size": {"type": "integer", "minimum": 1, "maximum": MAX_PAGE_SIZE, "default": 10},
        "page": {"type": "integer", "minimum": 1, "default": 1}}}

    def handler(args, ctx):
        account = args["account_id"]
        if world.account(account) is None:
            raise ToolFailure("not_found", "There is no account with that account_id; check it with the customer.",
                              next=stop("Say the account could not be found."))
        orders = world.orders_of(account)
        size, page = args.get("page_size", 10), args.get("page", 1)
        if not orders:
            return {"count": 0, "page": 1, "pages": 0, "orders": [], "note": "No orders on this account."}
        last = -(-len(orders) // size)
        if page > last:
            raise ToolFailure("invalid_argument", f"page must be {last} or less for this account.",
                              next=retry_changed("page", f"Ask for a page from 1 to {last}."))
        chunk = orders[(page - 1) * size: page * size]
        return {"count": len(orders), "page": page, "pages": last,
                "orders": [{"order_id": o.order_id, "product": world.products[o.sku].name, "status": o.status} for o in chunk]}

    return Tool("list_orders", "One account's orders, a page at a time, with each order's product and status.", schema, handler)


RIGHT: list[tuple[str, Any]] = [
    ("09.1", credit_found_by_key_in_the_ledger),
    ("09.1", credit_with_a_sentence_for_the_model),
    ("09.2", RetryPolicy(attempts=3, max_delay=6.0, base_delay=1.0)),
    ("09.2", RetryPolicy(attempts=3, max_delay=6)),
    ("10.1", {"lost_reply": ([Fault("update_order", "timeout", after_effect=True, calls=(1,))], None, 1),
              "down": ([always("update_order", "timeout")], ["upstream_unavailable", "stop"], 0),
              "quota": ([Fault("update_order", "limit_exceeded")], ("limit_exceeded", "switch_tool"), 0)}),
    ("10.1", {"lost_reply": ([Fault("update_order", "timeout", after_effect=True)], None, 1),
              "down": ([always("update_order", "rate_limit")], ("upstream_unavailable", "stop"), 0),
              "quota": ([always("update_order", "limit_exceeded")], ("limit_exceeded", "switch_tool"), 0)}),
    ("10.2", contract_test_with_jsonschema_validate),
    ("11.1", wilson_other_form),
    ("11.2", Later(lambda: {**_readings(list(_sweep())), "hurt": set(_readings(list(_sweep()))["hurt"]),
                            "fails_without_faults": tuple(_readings(list(_sweep()))["fails_without_faults"])})),
    ("12.1", rows_with_other_detail_names),
    ("12.2", orders_tool_worded_differently),
]


@pytest.mark.parametrize("key,answer", RIGHT, ids=[f"{k}-{i}" for i, (k, _) in enumerate(RIGHT)])
def test_a_right_answer_written_differently_passes(key, answer):
    fb = check(key, answer.build() if isinstance(answer, Later) else answer)
    assert fb.ok, fb.message


def test_every_exercise_of_these_chapters_has_a_second_right_answer():
    assert {k for k, _ in RIGHT} == set(ANSWERS)
