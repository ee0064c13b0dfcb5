"""Checks for chapter 04's exercises: add get_product with its error path (04.1), run through the
dispatcher, and a permission error that forbids enumeration (04.2), graded on what its words say.
"""
from __future__ import annotations

import json
import re
from typing import Any

from ...atlas import TENANTS, World, money
from ...dispatch.tool import Tool
from ...contract.errors import ErrorCode, tool_error
from ._registry import exercise
from ._shared import _asks_to_retry, _attempt, _body, _crashed, _dispatch, _forbids_guessing, _says_what_to_do


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
        if not (_forbids_guessing(value.message) or _says_what_to_do(value.message)):
            return ("Your message explains but gives the reader no instruction: forbid guessing other SKUs, "
                    "or say what to ask or tell the customer.")
    block = _dispatch(Tool("get_product", "Look up one product in Atlas's catalogue by its SKU.", _PRODUCT_SCHEMA,
                           handler), {"sku": "SKU-9999"})
    body = _body(block)
    if not block.get("is_error") or not isinstance(body, dict) or body.get("error") != "not_found":
        return "Through the dispatcher an unknown SKU did not come back as a not_found error block; run it yourself and look."
    return None


_REFUSED = re.compile(r"another (?:customer|company|client|tenant|organi[sz]ation|business)|someone else|somebody else|"
                      r"not (?:yours|theirs|your own|their own|this customer's)|\bnot (?:permitted|allowed|authori[sz]ed)|"
                      r"no (?:access|permission)|(?:cannot|can't|may not|must not)(?: be)? (?:access\w*|read|used?|see|seen|view\w*|open\w*|look\w*)|"
                      r"not one of (?:this|the|your|their|its) (?:customer|own)|"
                      r"belongs to|outside (?:this|the) customer|only (?:for|to) (?:its|the) owner", re.IGNORECASE)


@exercise("04.2", "A permission error that forbids enumeration",
          right="Right: the message says the account is not this customer's without naming whose it is, and forbids "
                "trying other ids, the move that turns a refusal into enumeration.",
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
    found = _asks_to_retry(message)
    if found:
        return (f"Your message asks for another attempt ({found!r}); on a refusal that is the invitation to try "
                "again, or to try other ids. Forbid it instead.")
    if not _REFUSED.search(message):
        return ("Your message does not say why the call was refused; say that the account belongs to another "
                "customer (without saying whose), so the model can tell the customer.")
    if not _forbids_guessing(message):
        return ("Your message explains the refusal, but nothing in it forbids trying other ids, and a model that reads "
                "past the refusal may guess: add the prohibition (do not try other account ids).")
    return None
