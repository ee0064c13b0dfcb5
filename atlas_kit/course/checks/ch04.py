"""Checks for chapter 04's exercises: add get_product with its error path (04.1), run through the
dispatcher, and a permission error that forbids enumeration (04.2): structure and what the words may not say.
"""
from __future__ import annotations

import json
import re

from ...atlas.data import TENANTS, World
from ...atlas.tools import TOOL_NAMES
from ...atlas.formats import money
from ...dispatch.tool import Handler, Tool
from ...contract.errors import ErrorCode, tool_error
from ._registry import Compare, Finding, exercise
from ._shared import _attempt, _body, _crashed, _dispatch, atlas_names
from ._text import judge_failure


_PRODUCT_SCHEMA = {
    "type": "object",
    "properties": {"sku": {"type": "string", "pattern": "^SKU-[0-9]{4}$", "examples": ["SKU-2041"],
                           "description": "The product's SKU: SKU- and four digits."}},
    "required": ["sku"],
    "additionalProperties": False,
}


@exercise("04.1", "Add get_product to Atlas, with its error path",
          right="A product comes back as a result, and an unknown SKU fails as not_found with a stop whose message "
                "names the argument sku, repeats nothing that was sent, and invites no other attempt.",
          hints=("Look the SKU up in world.products; .get() gives None for an SKU that is not there.",
                 "For a missing SKU raise ToolFailure(\"not_found\", message, next=stop(...)); the message names the "
                 "argument sku and says what to do instead of guessing, like Atlas's own not_found messages.",
                 "Return {\"sku\": ..., \"product\": product.name, \"unit_price\": money(product.unit_cents)}."),
          judges=("structure", "forbidden", "contradiction"),
          compare=Compare("whether the message tells the reader what to do next",
                          "No product matches sku. Ask the customer to check the SKU; do not guess others.",
                          ("Does the message say what to do (ask the customer to check the SKU)?",
                           "Does it close off guessing, so a model does not try neighbouring SKUs?")))
def _get_product(handler: object) -> str | Finding | None:
    """Structure: results, the not_found with stop, sku named in the message, the dispatcher's block. Forbidden: the
    SKU sent, internals, blame. Contradiction: another attempt invited, a success claimed, another tool named.
    Not judged: whether the words say what to do."""
    if not callable(handler):
        return "Pass your handler function get_product itself (a function of args and ctx), not its result."
    found = _finds_products(handler) or _refuses_unknown(handler)
    if found is not None:
        return found
    block = _dispatch(Tool("get_product", "Look up one product in Atlas's catalogue by its SKU.", _PRODUCT_SCHEMA,
                           handler), {"sku": "SKU-9999"})
    body = _body(block)
    if not block.get("is_error") or not isinstance(body, dict) or body.get("error") != "not_found":
        return "Through the dispatcher an unknown SKU did not come back as a not_found error block; run it yourself and look."
    return None


def _finds_products(handler: Handler) -> str | None:
    """Two SKUs in the catalogue come back as results with the product's name and unit price."""
    products = World(0).products
    for sku in ("SKU-2041", "SKU-3300"):
        got = _attempt(handler, {"sku": sku})
        if got.crash is not None:
            return _crashed(got.crash, f"for {sku}, which is in the catalogue")
        if got.failure is not None:
            return f"A call for {sku}, which is in the catalogue, failed with {got.failure.code.value}; return the product as a dict."
        text = json.dumps(got.value, default=str) if not isinstance(got.value, str) else got.value
        want = products[sku]
        if want.name not in text or money(want.unit_cents) not in text:
            return (f"The result for {sku} should carry the product's name and its unit price written as Atlas writes "
                    f"money (money(unit_cents) gives {money(want.unit_cents)}).")
    return None


def _refuses_unknown(handler: Handler) -> str | Finding | None:
    """Two well-formed SKUs not in the catalogue fail as not_found with stop, in words that name sku, echo nothing."""
    for sku in ("SKU-9999", "SKU-0000"):
        got = _attempt(handler, {"sku": sku})
        if got.crash is not None:
            return _crashed(got.crash, f"for {sku}, an SKU not in the catalogue")
        if got.failure is None:
            return (f"For {sku}, which is not in the catalogue, your handler returned a result; raise "
                    "ToolFailure(\"not_found\", ...) so the model reads an error it can act on.")
        value = got.failure
        if value.code is not ErrorCode.NOT_FOUND:
            return f"An SKU that is well formed but not in the catalogue is not_found, not {value.code.value}."
        if value.next is None or value.next.branch.value != "stop":
            return ("Give the not_found a next=stop(...): no other tool can find a product, so the agent should stop "
                    "and tell the customer.")
        if sku in value.message or sku in value.next.say:
            return Finding("forbidden", f"your error repeats the sku the caller sent ({sku}); name the argument "
                                        "instead of echoing the value (chapter 08 shows why).")
        if not re.search(r"\bsku\b", value.message, re.IGNORECASE):
            return "Name the argument (sku) in the message, so the model knows which value to check."
        found = judge_failure((value.message, value.next.say), code=value.code, next=value.next,
                              tools=(*TOOL_NAMES, "get_product"), failed="get_product", names=atlas_names())
        if found is not None:
            return found
    return None


@exercise("04.2", "A permission error that forbids enumeration",
          right="The builder takes the message, it names neither the owner nor the account, and it invites no other "
                "attempt.",
          hints=("Say what happened (the account belongs to another customer) without saying whose.",
                 "Then close off the next move, trying other account ids, in your own words.",
                 "Two sentences at most; the builder tool_error(\"toolu_01\", \"not_permitted\", message) tells you if "
                 "it refuses the text."),
          judges=("structure", "forbidden", "contradiction"),
          compare=Compare("whether it gives the reason and forbids trying other ids",
                          "That account belongs to another customer, so this session cannot read it. Do not try other "
                          "account ids; tell the customer you can only help with their own accounts.",
                          ("Does it say why (the account is not this customer's), without whose it is?",
                           "Does it forbid the move that turns a refusal into enumeration: trying other account ids?")))
def _permission(message: object) -> str | Finding | None:
    """Structure: a str the builder accepts for not_permitted. Forbidden: the owner's name or the account id, blame.
    Contradiction: another attempt invited (not_permitted is not retryable), a success claimed, another tool named.
    Not judged: the reason and the prohibition."""
    if not isinstance(message, str):
        return "Your answer should be the message text: a str of one or two sentences."
    try:
        tool_error("toolu_01", "not_permitted", message)
    except ValueError as exc:
        return f"The contract's builder refuses this message: {exc}"
    leaked = [t for t in TENANTS if t != "acme" and re.search(rf"\b{t}\b", message, re.IGNORECASE)]
    if "ACC-4472" in message or leaked:
        return Finding("forbidden", "your message names the other customer or their account id; say only that the "
                                    "account belongs to another customer.")
    return judge_failure((message,), code=ErrorCode.NOT_PERMITTED, next=None, tools=TOOL_NAMES, failed="get_account",
                         names=atlas_names(), where="your message")
