"""Checks for chapter 09's exercises: an idempotent side effect (09.1), and a retry policy for a slow
quota (09.2), both run through the real Dispatcher and its RetryPolicy.
"""
from __future__ import annotations

import copy
from typing import Callable

from ...atlas.faults import Fault, FaultSchedule
from ...dispatch.dispatcher import Dispatcher
from ...dispatch.transient import RetryPolicy, Transient
from ...dispatch.tool import CallContext, Tool
from ...types.sets import JSONObject
from ._registry import BLANK, exercise
from ._shared import _use


_CREDIT_SCHEMA = {
    "type": "object",
    "properties": {"account_id": {"type": "string", "pattern": "^ACC-[0-9]{4}$", "examples": ["ACC-4471"]},
                   "amount_cents": {"type": "integer", "minimum": 1, "examples": [2500]}},
    "required": ["account_id", "amount_cents"],
    "additionalProperties": False,
}
_CREDIT_ARGS = {"account_id": "ACC-4471", "amount_cents": 2500}


Ledger = dict[str, object]
"""What apply_credit keeps: ledger["credits"] (a list) and ledger["replies"] (idempotency key -> reply)."""
CreditHandler = Callable[[Ledger, JSONObject, CallContext], object]
"""The learner's apply_credit(ledger, args, ctx)."""


def _credit_dispatcher(handler: CreditHandler, ledger: Ledger, faults: list[Fault]) -> Dispatcher:
    tool = Tool("apply_credit", "Put a store credit on one of the customer's accounts, in whole cents.", _CREDIT_SCHEMA,
                lambda args, ctx: handler(ledger, args, ctx), side_effect=True)
    return Dispatcher(FaultSchedule(faults).wrap([tool]), retry=RetryPolicy(sleep=lambda s: None), run_id="check")


@exercise("09.1", "An idempotent side effect",
          right="One tool_use, one credit, however many harness attempts; a new tool_use is a new credit.",
          hints=("Look the key up before you change anything: ledger['replies'].get(ctx.idempotency_key).",
                 "After appending the credit, store the result under the key and return it; on a hit, return the "
                 "stored result as it is.",
                 "Do not compare arguments: the key comes from the tool_use id, so a harness retry shares it and a "
                 "model's new call does not."))
def _check_idempotent(handler: object) -> str | None:
    """Structure: one credit per tool_use however many attempts, the first reply returned again. No free text is read."""
    if not callable(handler):
        return "Pass the function apply_credit itself (no parentheses), so the check can call it as its handler."
    ledger: Ledger = {"credits": [], "replies": {}}
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


def _probe(policy: RetryPolicy, raises: Callable[[], Exception], *, fail_first: int) -> tuple[bool, list[float], int]:
    """Run one call whose first `fail_first` attempts raise `raises()`; (succeeded, waits, attempts made)."""
    waits: list[float] = []
    calls = [0]
    mine = copy.copy(policy)
    mine.sleep = waits.append

    def handler(args: JSONObject, ctx: CallContext) -> JSONObject:
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
def _check_policy(policy: object) -> str | None:
    """Structure: the waits and attempts of the policy on five upstream behaviours. No free text is read."""
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
