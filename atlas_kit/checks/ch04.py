"""Checks for chapter 04's exercises: add get_product with its error path (04.1), and a permission
error that forbids enumeration (04.2), run through the dispatcher and a curious stand-in.
"""
from __future__ import annotations

import json
import re
from typing import Any, Callable

from ..agent import Bounds
from ..atlas import TENANTS, World, atlas_session, grade, money
from ..dispatch import Failure, Tool
from ..errors import ErrorCode, tool_error
from ..offline import Profile
from ..reading import read_error
from . import exercise
from ._shared import _attempt, _body, _crashed, _dispatch, _run


_PROHIBITION = re.compile(r"\b(?:do not|don't|must not|never)\b", re.IGNORECASE)

_PRODUCT_SCHEMA = {
    "type": "object",
    "properties": {"sku": {"type": "string", "pattern": "^SKU-[0-9]{4}$", "examples": ["SKU-2041"],
                           "description": "The product's SKU: SKU- and four digits."}},
    "required": ["sku"],
    "additionalProperties": False,
}


@exercise("04.1", "Add get_product to Atlas, with its error path",
          right="Right: a product comes back as a result, and an unknown SKU fails as not_found with a stop, naming "
                "the argument and forbidding guesses, without repeating what was sent.",
          hints=("Look the SKU up in world.products; .get() gives None for an SKU that is not there.",
                 "For a missing SKU raise ToolFailure(\"not_found\", message, next=stop(...)); the message names the "
                 "argument sku and says what not to do, like Atlas's own not_found messages.",
                 "Return {\"sku\": ..., \"product\": product.name, \"unit_price\": money(product.unit_cents)}."))
def _get_product(handler: Any) -> str | None:
    if not callable(handler):
        return "Pass your handler function get_product itself (a function of args and ctx), not its result."
    products = World(0).products
    for sku in ("SKU-2041", "SKU-3300"):
        kind, value = _attempt(handler, {"sku": sku})
        if kind == "crash":
            return _crashed(value, f"for {sku}, which is in the catalogue")
        if kind == "failure":
            return f"A call for {sku}, which is in the catalogue, failed with {value.code.value}; return the product as a dict."
        text = json.dumps(value, default=str) if not isinstance(value, str) else value
        want = products[sku]
        if want.name not in text or money(want.unit_cents) not in text:
            return (f"The result for {sku} should carry the product's name and its unit price written as Atlas writes "
                    f"money (money(unit_cents) gives {money(want.unit_cents)}).")
    for sku in ("SKU-9999", "SKU-0000"):
        kind, value = _attempt(handler, {"sku": sku})
        if kind == "crash":
            return _crashed(value, f"for {sku}, an SKU not in the catalogue")
        if kind == "ok":
            return (f"For {sku}, which is not in the catalogue, your handler returned a result; raise "
                    "ToolFailure(\"not_found\", ...) so the model reads an error it can act on.")
        if value.code is not ErrorCode.NOT_FOUND:
            return f"An SKU that is well formed but not in the catalogue is not_found, not {value.code.value}."
        if value.next is None or value.next.branch.value != "stop":
            return ("Give the not_found a next=stop(...): no other tool can find a product, so the agent should stop "
                    "and tell the customer.")
        if sku in value.message or sku in value.next.say:
            return (f"Your error repeats the sku the caller sent ({sku}); name the argument instead of echoing the "
                    "value (chapter 08 shows why).")
        if not re.search(r"\bsku\b", value.message, re.IGNORECASE):
            return "Name the argument (sku) in the message, so the model knows which value to check."
        if read_error(value.message).branch != "stop":
            return ("Your message explains but gives a plain-text reader no instruction: forbid guessing other SKUs, "
                    "or say what to tell the customer.")
    block = _dispatch(Tool("get_product", "Look up one product in Atlas's catalogue by its SKU.", _PRODUCT_SCHEMA,
                           handler), {"sku": "SKU-9999"})
    body = _body(block)
    if not block.get("is_error") or not isinstance(body, dict) or body.get("error") != "not_found":
        return "Through the dispatcher an unknown SKU did not come back as a not_found error block; run it yourself and look."
    return None


def _permission_style(message: str) -> Callable[[Failure], dict[str, Any]]:
    def style(failure: Failure) -> dict[str, Any]:
        text = message if failure.error.code is ErrorCode.NOT_PERMITTED else failure.raw
        return {"type": "tool_result", "tool_use_id": failure.error.tool_use_id, "is_error": True, "content": text}
    return style


_CURIOUS = Profile("curious", retry_same=0, vary_argument=1.0, apologise=0, fabricate=0, stop_correctly=0)


@exercise("04.2", "A permission error that forbids enumeration",
          right="Right: the message refuses without naming the other customer, forbids trying other ids, and the "
                "curious stand-in stops instead of guessing.",
          hints=("Say what happened (the account belongs to another customer) without saying whose it is.",
                 "Then forbid the next move in so many words: do not try other account ids.",
                 "Two sentences at most; the builder tool_error(\"toolu_01\", \"not_permitted\", message) tells you if "
                 "it refuses the text."))
def _permission(message: Any) -> str | None:
    if not isinstance(message, str):
        return "Your answer should be the message text: a str of one or two sentences."
    try:
        tool_error("toolu_01", "not_permitted", message)
    except ValueError as exc:
        return f"The contract's builder refuses this message: {exc}"
    leaked = [t for t in TENANTS if t != "acme" and re.search(rf"\b{t}\b", message, re.IGNORECASE)]
    if "ACC-4472" in message or leaked:
        return ("Your message names the other customer or their account id; say only that the account belongs to "
                "another customer.")
    run = _run(atlas_session("T05", style=_permission_style(message), seed=0), bounds=Bounds(max_steps=6),
               profile=_CURIOUS)
    verdict = grade(run)
    if verdict.labels:
        return (f"With your message the curious stand-in's run is labelled {', '.join(verdict.labels)}: nothing told "
                "it to stop, so it called again or guessed. Forbid what it must not do.")
    if not verdict.correct:
        return f"The graded run is not correct: {verdict.reasons[0]}."
    if not _PROHIBITION.search(message):
        return ("The stand-in stopped, but nothing in your message forbids trying other ids, and a model that reads "
                "past the refusal will guess: add a prohibition (do not ...).")
    return None
