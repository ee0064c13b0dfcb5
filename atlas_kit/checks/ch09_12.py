"""Checks for the exercises of chapters 09 to 12: retries and idempotency, tests of the error path,
recovery with its interval and a paired sweep, and the tool surface (formats, paging, names).

Each check runs the learner's answer through the real Dispatcher, faults, grader or metrics.
"""
from __future__ import annotations

import copy
import json
import math
from typing import Any

import jsonschema

from ..atlas import TICKETS, Fault, FaultSchedule, World, atlas_session, catalogue, money, play
from ..atlas.data import Account, Order
from ..dispatch import CallContext, Dispatcher, RetryPolicy, Tool, Transient
from ..errors import tool_error
from ..metrics import Z95, paired_recovery, recovery, success
from ..transport import estimate_tokens
from . import BLANK, exercise, is_blank

__all__ = ["BROKEN_10", "FAULT_TICKETS"]



# --- 09.1 ----------------------------------------------------------------------------------

_CREDIT_SCHEMA = {
    "type": "object",
    "properties": {"account_id": {"type": "string", "pattern": "^ACC-[0-9]{4}$", "examples": ["ACC-4471"]},
                   "amount_cents": {"type": "integer", "minimum": 1, "examples": [2500]}},
    "required": ["account_id", "amount_cents"],
    "additionalProperties": False,
}
_CREDIT_ARGS = {"account_id": "ACC-4471", "amount_cents": 2500}


def _credit_dispatcher(handler: Any, ledger: dict[str, Any], faults: list[Fault]) -> Dispatcher:
    tool = Tool("apply_credit", "Put a store credit on one of the customer's accounts, in whole cents.", _CREDIT_SCHEMA,
                lambda args, ctx: handler(ledger, args, ctx), side_effect=True)
    return Dispatcher(FaultSchedule(faults).wrap([tool]), retry=RetryPolicy(sleep=lambda s: None), run_id="check")


def _use(use_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": use_id, "name": name, "input": dict(args)}


@exercise("09.1", "An idempotent side effect",
          right="One tool_use, one credit, however many harness attempts; a new tool_use is a new credit.",
          hints=("Look the key up before you change anything: ledger['replies'].get(ctx.idempotency_key).",
                 "After appending the credit, store the result under the key and return it; on a hit, return the "
                 "stored result as it is.",
                 "Do not compare arguments: the key comes from the tool_use id, so a harness retry shares it and a "
                 "model's new call does not."))
def _check_idempotent(handler: Any) -> str | None:
    if not callable(handler):
        return "Pass the function apply_credit itself (no parentheses), so the check can call it as its handler."
    ledger: dict[str, Any] = {"credits": [], "replies": {}}
    d = _credit_dispatcher(handler, ledger, [Fault("apply_credit", "timeout", after_effect=True)])
    first = d.dispatch([_use("toolu_a", "apply_credit", _CREDIT_ARGS)]).results[0]
    if first.get("is_error"):
        return ("The call ended in an error: your handler raised on the check's call. Call it by hand with "
                "CallContext('toolu_x', 1, 'run:toolu_x') and a fresh ledger, and fix what it raises.")
    credits = ledger["credits"]
    if first["content"] == "null" and not credits:
        return BLANK
    if not isinstance(credits, list) or not credits:
        return ("Nothing was recorded in ledger['credits']: append each credit to the ledger the handler is given, "
                "not to one of your own.")
    if len(credits) > 1:
        return (f"The harness retried a lost reply and your handler applied the credit {len(credits)} times for one "
                "tool_use. Look up ctx.idempotency_key before changing anything, and return what the first attempt "
                "returned.")
    credit_id = credits[0].get("credit_id") if isinstance(credits[0], dict) else None
    if not credit_id:
        return "Each credit in ledger['credits'] needs its credit_id (CR-0001, CR-0002, ...), so a reply can name it."
    if str(credit_id) not in first["content"]:
        return (f"The retry's reply does not name {credit_id}: on a repeated key, return the stored result of the first "
                "attempt, so the model reads the same answer it would have got.")
    second = d.dispatch([_use("toolu_b", "apply_credit", _CREDIT_ARGS)]).results[0]
    if second.get("is_error") or len(credits) != 2:
        return ("A second tool_use with the same arguments applied no new credit: that is a new request with a new "
                "key. Key the lookup on ctx.idempotency_key, not on the arguments.")
    return None


# --- 09.2 ----------------------------------------------------------------------------------

def _probe(policy: RetryPolicy, raises: Any, *, fail_first: int) -> tuple[bool, list[float], int]:
    """Run one call whose first `fail_first` attempts raise `raises()`; (succeeded, waits, attempts made)."""
    waits: list[float] = []
    calls = [0]
    mine = copy.copy(policy)
    mine.sleep = waits.append

    def handler(args: dict[str, Any], ctx: CallContext) -> dict[str, Any]:
        calls[0] += 1
        if calls[0] <= fail_first:
            raise raises()
        return {"ok": True}

    tool = Tool("query_stock", "Stock figures for one SKU from the warehouse API.", {"type": "object"}, handler)
    out = Dispatcher([tool], retry=mine).dispatch([_use("toolu_p", "query_stock", {})])
    return not out.failures, waits, calls[0]


@exercise("09.2", "A retry policy for a slow quota",
          right="The harness waits out a short Retry-After, gives up at once on a long one, and stays inside its budget.",
          hints=("max_delay does two jobs: it is the longest Retry-After the policy honours, and the cap on each wait.",
                 "The worst case is every attempt but the last followed by a wait of max_delay: (attempts - 1) * max_delay.",
                 "Requirements (1) and (4) together fix max_delay; (3) and (4) then fix attempts."))
def _check_policy(policy: Any) -> str | None:
    if not isinstance(policy, RetryPolicy):
        return f"Your answer is a {type(policy).__name__}; build a RetryPolicy(attempts=..., max_delay=...) instead."
    if isinstance(policy.attempts, int) and policy.attempts > 20:  # say it without running a million attempts
        return (f"(4) fails: {policy.attempts} attempts can wait up to {(policy.attempts - 1) * policy.max_delay:g} s on "
                "one call. Keep the worst case within 12 s.")
    ok, waits, _ = _probe(policy, lambda: Transient("429", retry_after=5.0, kind="rate_limit"), fail_first=1)
    if not ok:
        return "(1) fails: a 429 with Retry-After: 5 made your policy give up. A quota that is back in 5 s is worth waiting for."
    ok, waits, _ = _probe(policy, lambda: Transient("429", retry_after=6.0, kind="rate_limit"), fail_first=1)
    if not ok or waits != [6.0]:
        return "(1) fails: a Retry-After of 6 s should be waited out exactly (one wait of 6 s), then the call retried."
    for after in (6.5, 30.0):
        ok, waits, _ = _probe(policy, lambda: Transient("429", retry_after=after, kind="rate_limit"), fail_first=99)
        if waits:
            return (f"(2) fails: your policy waited {sum(waits):g} s for a Retry-After of {after:g} s. Longer than 6 s "
                    "means give up at once, inside a customer's conversation.")
    _, _, attempts = _probe(policy, lambda: TimeoutError("upstream timed out"), fail_first=99)
    if attempts < 3:
        return f"(3) fails: a call that keeps timing out was tried {attempts} time(s); the exercise asks for at least 3."
    worst = policy.max_delay if isinstance(policy.max_delay, (int, float)) else 6.0
    for name, raises in (("timeouts", lambda: TimeoutError("upstream timed out")),
                         (f"Retry-After: {worst:g}", lambda: Transient("429", retry_after=float(worst), kind="rate_limit"))):
        _, waits, attempts = _probe(policy, raises, fail_first=10_000)
        if sum(waits) > 12 + 1e-9:
            return (f"(4) fails: on {name} every attempt, your policy waits {sum(waits):g} s in all over {attempts} "
                    "attempts. Keep the worst case within 12 s.")
    return None


# --- 10.1 ----------------------------------------------------------------------------------

_SCENARIOS = ("lost_reply", "down", "quota")


def _observe(faults: list[Fault]) -> tuple[tuple[str, str | None] | None, int, list[dict[str, Any]]]:
    session = atlas_session("T17", faults=faults, seed=0)
    play(session)
    errors = [e for e in session.trace.of_kind("error") if e["tool"] == "update_order"]
    read = (errors[0]["code"], errors[0]["branch"]) if errors else None
    return read, len(session.world.order_changes), session.trace.events


@exercise("10.1", "An induced-failure test for T17",
          right="Each scenario induces the failure it names, and your predictions match what the run shows.",
          hints=("A lost reply is a transient fault that runs the handler first: look at Fault's after_effect.",
                 "A transient fault that fires once is absorbed by the harness; one that fires on every attempt (always) "
                 "outlasts it and reaches the model as upstream_unavailable.",
                 "A refusal (not_permitted, not_found, invalid_argument, limit_exceeded) reaches the model however "
                 "often it fires, and nothing is applied."))
def _check_induced(answer: Any) -> str | None:
    if not isinstance(answer, dict):
        return "Your answer should be the dict scenarios: name -> (faults, what the model reads, changes applied)."
    if all(is_blank(v) for v in answer.values()):
        return BLANK
    missing = [name for name in _SCENARIOS if name not in answer]
    if missing:
        return f"The dict needs the three scenarios {', '.join(_SCENARIOS)}; {', '.join(missing)} is missing."
    for name in _SCENARIOS:
        value = answer[name]
        if is_blank(value):
            return f"Scenario {name!r} is not answered yet: replace its ... with (faults, reads, changes)."
        if not isinstance(value, tuple) or len(value) != 3:
            return f"Scenario {name!r} should be a tuple of three: (list of Fault, (code, branch) or None, changes applied)."
        faults, reads, changes = value
        if not isinstance(faults, (list, tuple)) or not faults or not all(isinstance(f, Fault) for f in faults):
            return f"Scenario {name!r}: the first item should be a non-empty list of Fault objects (Fault(...), always(...))."
        if any(f.tool != "update_order" for f in faults):
            return f"Scenario {name!r}: T17's only call is update_order, so fault that tool; a fault on another never fires."
        if reads is not None and (not isinstance(reads, (tuple, list)) or len(reads) != 2):
            return f"Scenario {name!r}: what the model reads is a (code, branch) tuple of strings, or None for no error."
        reads = None if reads is None else tuple(reads)
        observed, applied, events = _observe(list(faults))
        transients = [e for e in events if e["kind"] == "transient"]
        answered = [e for e in events if e["kind"] == "result" and e["tool"] == "update_order"]
        if name == "lost_reply" and not (transients and answered and any(f.after_effect for f in faults)):
            return ("Scenario 'lost_reply' should apply the change, lose the reply, and then let the harness's retry "
                    "through: use a transient fault that runs the handler first and fires once.")
        if name == "down" and (not transients or answered or any(f.after_effect for f in faults)):
            return ("Scenario 'down' should fail on every harness attempt, before anything is applied; yours let an "
                    "attempt through or applied the change.")
        if name == "quota" and (transients or not any(f.kind == "limit_exceeded" for f in faults)):
            return "Scenario 'quota' is a policy refusal (a daily limit), not a transient: pick the fault kind for a limit."
        if reads != observed:
            said = "no error" if reads is None else "/".join(map(str, reads))
            return (f"Scenario {name!r}: you predicted the model reads {said}, and the run disagrees. Play T17 with your "
                    "faults and read the trace's transient and error events.")
        if changes != applied:
            return (f"Scenario {name!r}: you predicted {changes!r} order change(s) applied, and the run disagrees; "
                    "count session.world.order_changes after play().")
    return None


# --- 10.2 ----------------------------------------------------------------------------------

def _block(content: Any, **extra: Any) -> dict[str, Any]:
    text = content if isinstance(content, str) else json.dumps(content)
    return {"type": "tool_result", "tool_use_id": "toolu_c", "is_error": True, "content": text, **extra}


def _good_blocks() -> list[tuple[str, dict[str, Any]]]:
    good = [(f"the catalogue's {row.case!r} error", _block(row.contract)) for row in catalogue(seed=0)]
    good.append(("an error with no next", tool_error("toolu_c", "not_found", "No order matches order_id.").block()))
    good.append(("a reworded not_permitted", _block({"error": "not_permitted", "retryable": False,
                                                    "message": "This account is not one of yours, so it cannot be shown.",
                                                    "next": {"branch": "stop", "say": "Tell the customer."}})))
    return good


_BASE = {"error": "not_found", "message": "No order matches order_id. Ask the customer to check it.", "retryable": False,
         "next": {"branch": "stop", "say": "Tell the customer the order was not found."}}
BROKEN_10 = (
    ("an error sent without is_error", {"type": "tool_result", "tool_use_id": "toolu_c", "content": json.dumps(_BASE)}),
    ("content that is a raw traceback, not JSON",
     _block('Traceback (most recent call last):\n  File "orders.py", line 88\nKeyError: \'ORD-77122\'')),
    ("not_found marked retryable", _block({**_BASE, "retryable": True})),
    ("a renamed code (permission_denied)", _block({**_BASE, "error": "permission_denied"})),
    ("an extra field (suggested_fix)", _block({**_BASE, "suggested_fix": "Try again."})),
    ("the trace's detail leaked into the body", _block({**_BASE, "detail": "KeyError: 'ORD-77122'"})),
    ("a message over 280 characters", _block({**_BASE, "message": "No order matches order_id. " * 12})),
    ("not_permitted whose next says retry_changed",
     _block({"error": "not_permitted", "message": "That account belongs to another customer.", "retryable": False,
             "next": {"branch": "retry_changed", "say": "Try the next account id.", "argument": "account_id"}})),
    ("upstream_unavailable whose next says retry_unchanged (the harness's branch)",
     _block({"error": "upstream_unavailable", "message": "The refund service is not responding.", "retryable": False,
             "next": {"branch": "retry_unchanged", "say": "Call it again."}})),
    ("switch_tool that names no tool",
     _block({"error": "limit_exceeded", "message": "Refunds above $500.00 need a person's approval.", "retryable": False,
             "next": {"branch": "switch_tool", "say": "Escalate it."}})),
    ("retry_changed that names no argument",
     _block({"error": "invalid_argument", "message": "The date is not valid.", "retryable": True,
             "next": {"branch": "retry_changed", "say": "Fix it and call again."}})),
)
_CAUGHT = (AssertionError, jsonschema.ValidationError)


@exercise("10.2", "A contract test for error blocks",
          right="Your test passes every block the builder makes and fails each broken one with an assertion.",
          hints=("Three layers: the block (is_error, JSON content), the schema (error_schema()), and what the schema "
                 "cannot see (errors.ALLOWED_BRANCHES, and the tool or argument next must name).",
                 "Parse the content inside try/except json.JSONDecodeError and turn the failure into an assert, so a "
                 "broken block fails the test instead of crashing it.",
                 "jsonschema.Draft202012Validator(error_schema()).validate(body) raises ValidationError on the shape; "
                 "then assert next['branch'] in {b.value for b in ALLOWED_BRANCHES[ErrorCode(body['error'])]}."))
def _check_contract_test(test: Any) -> str | None:
    if not callable(test):
        return "Pass your test function itself (no parentheses), so the check can call it on each block."
    if is_blank(test):
        return BLANK
    for what, block in _good_blocks():
        try:
            test(copy.deepcopy(block))
        except Exception as exc:
            return (f"Your test fails a good block ({what}) with {type(exc).__name__}; a contract test must pass every "
                    "body the builder makes. Check which of your rules is stricter than the contract.")
    missed, crashed = [], []
    for what, block in BROKEN_10:
        try:
            test(copy.deepcopy(block))
            missed.append(what)
        except _CAUGHT:
            pass
        except Exception as exc:
            crashed.append((what, type(exc).__name__))
    if missed:
        return (f"Your test passes {len(missed)} of {len(BROKEN_10)} broken blocks, for example {missed[0]}. "
                "Add the rule that catches it.")
    if crashed:
        what, name = crashed[0]
        return (f"Your test crashed with {name} on {what}, instead of failing an assertion; check that before you "
                "index or parse, so the report says what broke.")
    return None


# --- 11.1 ----------------------------------------------------------------------------------

def _episodes(counts: tuple[int, int, int, int]) -> list[dict[str, Any]]:
    """Episode records from counts: (hit & correct, hit & wrong, clean & correct, clean & wrong)."""
    out: list[dict[str, Any]] = []
    for n, (hit, correct) in zip(counts, ((True, True), (True, False), (False, True), (False, False))):
        out += [{"ticket": f"T{len(out) + 1:02d}", "style": "raw", "hit_error": hit, "correct": correct,
                 "stop_reason": "finished"} for _ in range(n)]
    return out


_SETS_11 = ((6, 3, 4, 1), (7, 3, 0, 0), (0, 5, 3, 0), (5, 0, 2, 2), (70, 30, 12, 3))


@exercise("11.1", "Recovery and its Wilson interval, by hand",
          right="Your recovery and Wilson 95% interval match metrics.recovery on every set of episodes.",
          hints=("Recovery counts only episodes whose hit_error is true: k = correct among them, n = how many there are.",
                 "Wilson: centre = (p + z²/2n) / (1 + z²/n), half = z·sqrt(p(1-p)/n + z²/4n²) / (1 + z²/n), z = Z95.",
                 "Return the three numbers as fractions between 0 and 1: (k / n, centre - half, centre + half)."))
def _check_recovery(fn: Any) -> str | None:
    if not callable(fn):
        return "Pass the function recovery_by_hand itself (no parentheses), so the check can try it on other episodes."
    for counts in _SETS_11:
        episodes = _episodes(counts)
        got = fn(copy.deepcopy(episodes))
        if is_blank(got):
            return BLANK
        if not isinstance(got, (tuple, list)) or len(got) != 3 or not all(isinstance(x, (int, float)) for x in got):
            return "Return a tuple of three numbers: (rate, low, high)."
        rate, low, high = map(float, got)
        want = recovery(episodes)
        k, n = want.successes, want.n
        if not math.isclose(rate, want.rate, abs_tol=1e-6):
            if math.isclose(rate, 100 * want.rate, abs_tol=1e-4):
                return "Give the rate as a fraction between 0 and 1, not a percentage."
            if math.isclose(rate, success(episodes).rate, abs_tol=1e-6):
                return ("Your rate is the success rate over every episode; recovery counts only episodes where an "
                        "error reached the model (hit_error).")
            return f"For {sum(counts)} episodes your rate is {rate:.4f}; recovery is correct among those with hit_error."
        w_low, w_high = want.interval
        if math.isclose(low, w_low, abs_tol=1e-6) and math.isclose(high, w_high, abs_tol=1e-6):
            continue
        half = Z95 * math.sqrt(want.rate * (1 - want.rate) / n)
        if math.isclose(low, max(0.0, want.rate - half), abs_tol=1e-6) or math.isclose(low, want.rate - half, abs_tol=1e-6):
            return ("That is the Wald interval p ± z·sqrt(p(1-p)/n); it collapses at 0/n and n/n. Use the Wilson "
                    "score interval from the chapter.")
        return (f"At {k}/{n} your interval [{low:.4f}, {high:.4f}] is not the Wilson 95% interval; check the centre "
                "(p + z²/2n) and the shared denominator (1 + z²/n).")
    return None


# --- 11.2 ----------------------------------------------------------------------------------

FAULT_TICKETS = tuple(t for t, tk in TICKETS.items() if tk.faults)


def _spot_check(records: list[dict[str, Any]]) -> bool:
    """Re-run a few offline episodes and compare: the records must be the sweep's own."""
    from ..experiments import Episode, profile_named, run_episode
    from ..offline import OFFLINE_MODEL, offline_client
    from ..results import Condition

    picked = [r for r in records if r.get("model") == OFFLINE_MODEL and r["hit_error"]][:3]
    for r in picked:
        c = Condition(r["style"], r["faults"], r["break_loops"], r["profile"], r["model"])
        fresh = run_episode(offline_client(seed=r["seed"], profile=profile_named(r["profile"])),
                            Episode(c, r["ticket"], r["trial"]), source=r["source"])
        if (fresh["correct"], fresh["labels"]) != (r["correct"], r["labels"]):
            return False
    return True


def _tickets(value: Any) -> set[str] | None:
    if isinstance(value, str) or not isinstance(value, (list, tuple, set, frozenset)):
        return None
    return {str(v) for v in value}


@exercise("11.2", "A paired sweep, read",
          right="Your sweep is paired and your two readings match its records.",
          hints=("run_experiment(name=..., styles=['raw'], faults=(True, False), tickets=FAULT_TICKETS, trials=3, "
                 "progress=False) keeps everything in memory.",
                 "paired_recovery([r for r in records if r['style'] == 'raw']) gives, per ticket, .with_faults and "
                 ".without, each with .successes and .n.",
                 "hurt: with_faults.rate < without.rate. fails_without_faults: without.successes < without.n."))
def _check_sweep(answer: Any) -> str | None:
    if not isinstance(answer, dict):
        return "Return a dict with the keys records, hurt and fails_without_faults."
    missing = [k for k in ("records", "hurt", "fails_without_faults") if k not in answer]
    if missing:
        return f"Your dict lacks {', '.join(missing)}; return records, hurt and fails_without_faults."
    records = answer["records"]
    if not isinstance(records, list) or not records or not all(isinstance(r, dict) and "key" in r for r in records):
        return "answer['records'] should be the list of records run_experiment returned."
    raw = [r for r in records if r.get("style") == "raw"]
    if not raw:
        return "Your sweep has no raw-style episodes; the question is about the raw style."
    arms = {(r["ticket"], bool(r["faults"])) for r in raw}
    lacking = [t for t in FAULT_TICKETS if (t, True) not in arms or (t, False) not in arms]
    if lacking:
        return (f"Not run both with faults on and with them off in the raw style: {', '.join(lacking)}. The paired "
                "design needs every ticket that has faults in both arms.")
    cells: dict[tuple[str, bool], int] = {}
    for r in raw:
        cells[(r["ticket"], bool(r["faults"]))] = cells.get((r["ticket"], bool(r["faults"])), 0) + 1
    if min(cells.values()) < 3:
        return f"Some ticket and arm has only {min(cells.values())} trial(s); run at least 3 trials of each."
    if not _spot_check(raw):
        return "Your records do not match a fresh run of the same episodes; pass the records run_experiment returned, unedited."
    paired = paired_recovery(raw)
    want_hurt = {t for t, p in paired.items() if p.with_faults.rate < p.without.rate}
    want_fails = {t for t, p in paired.items() if p.without.successes < p.without.n}
    for key, want, meaning in (("hurt", want_hurt, "fewer correct runs with faults on than off"),
                               ("fails_without_faults", want_fails, "at least one failed run with faults off")):
        got = _tickets(answer[key])
        if got is None:
            return f"answer[{key!r}] should be a list of ticket ids such as ['T11']."
        extra, lost = sorted(got - want), sorted(want - got)
        if extra:
            p = paired.get(extra[0])
            shown = f" ({p.with_faults.successes}/{p.with_faults.n} on vs {p.without.successes}/{p.without.n} off)" if p else ""
            return f"{key}: {extra[0]}{shown} does not have {meaning} in your records."
        if lost:
            return f"{key} misses {len(lost)} ticket(s) that have {meaning} in your records."
    return None


# --- 12.1 ----------------------------------------------------------------------------------

def _tokens(rows: Any) -> int:
    return estimate_tokens(json.dumps(rows, separators=(",", ":"), default=str))


@exercise("12.1", "Concise and detailed invoice rows",
          right="Concise rows keep what most questions need at half the tokens or less; detailed rows add the dates.",
          hints=("Concise: invoice_id, status and amount as the dollar text (atlas.money(amount_cents)); nothing else.",
                 "Detailed: everything concise has, plus amount_cents, issued, due, paid_on and payment_id.",
                 "Measure as the check does: estimate_tokens(json.dumps(rows, separators=(',', ':')))."))
def _check_formats(fn: Any) -> str | None:
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


# --- 12.2 ----------------------------------------------------------------------------------

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


def _call(d: Dispatcher, tool: str, args: dict[str, Any]) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """(result body, error body) of one call: exactly one is None."""
    out = d.dispatch([_use(f"toolu_{len(d.trace)}", tool, args)])
    block = out.results[0]
    if out.failures:
        return None, json.loads(out.failures[0].error.block()["content"])
    try:
        return json.loads(block["content"]), None
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
def _check_paging(make: Any) -> str | None:
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
    name = tool.name
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
    seen: list[Any] = []
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
    for args, arg in (({"page_size": 51}, "page_size"), ({"page_size": 0}, "page_size"), ({"page": 0}, "page"),
                      ({"page_size": 50, "page": 3}, "page")):
        body, err = _call(d, name, {"account_id": _BIG, **args})
        if err is None or err["error"] != "invalid_argument" or err.get("next", {}).get("argument") != arg:
            return f"A call with {args} should be refused with invalid_argument and retry_changed naming {arg}; yours was not."
    body, err = _call(d, name, {"account_id": _BIG, "page_size": 50})
    if err is not None or len(body.get("orders", [])) != 50:
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
    if err is not None or body.get("count") != 0 or body.get("orders") != []:
        return "An account with no orders (ACC-4475) is an answer, not an error: count 0 and an empty orders list."
    return None


