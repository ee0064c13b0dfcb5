"""The checks of exercises 04.1-08.2: each solution passes, and each plausible wrong answer fails with words
that say what to change. WRONG lists the (exercise, wrong answer, expected fragment) pairs."""
from __future__ import annotations

import json
import re

import pytest

from atlas_kit import Bounds, ErrorCode, Tool, ToolFailure, empty_result, retry_changed, safe, say, stop, switch_tool
from atlas_kit.atlas import World, money
from atlas_kit.dispatch.styles import raw_style
from atlas_kit.course.checks._registry import BLANK
from atlas_kit.course.checks import check

world = World(0)
ADDRESS = re.compile(r"[0-9]{1,5} [A-Za-z][A-Za-z .'-]{1,60}(, [A-Za-z][A-Za-z .'-]{1,40})?")


def deliverable(address):
    return isinstance(address, str) and ADDRESS.fullmatch(address) is not None


def find_account(account_id):
    account = world.account(account_id)
    if account is not None and account.tenant != "acme":
        raise ToolFailure("not_permitted", "That account belongs to another customer. Do not try other account ids.",
                          next=stop("Tell the customer you cannot access that account."))
    return account


def find_order(order_id):
    order = world.order(order_id)
    if order is not None and world.tenant_of(order_id) != "acme":
        raise ToolFailure("not_permitted", "That order belongs to another customer. Do not try other order ids.",
                          next=stop("Tell the customer you cannot access that order."))
    return order


# --- the solutions, as the solution notebooks write them ---------------------------------------

def get_product(args, ctx):
    product = world.products.get(args["sku"])
    if product is None:
        raise ToolFailure("not_found", "No product matches sku. Ask the customer to check the SKU; do not guess others.",
                          next=stop("Tell the customer that SKU is not in the catalogue."))
    return {"sku": product.sku, "product": product.name, "unit_price": money(product.unit_cents)}


PERMISSION = ("That account belongs to another customer, so this session cannot read it. "
              "Do not try other account ids; tell the customer you can only help with their own accounts.")


def list_orders(args, ctx):
    account = find_account(args["account_id"])
    if account is None:
        raise ToolFailure("not_found", "No account matches account_id. Ask the customer to check the number; "
                          "do not guess other ids.", next=stop("Tell the customer the account was not found."))
    status = args.get("status", "all")
    orders = [{"order_id": o.order_id, "status": o.status} for o in world.orders_of(account.account_id)
              if status in ("all", o.status)]
    if not orders:
        note = say("Account {a} has no orders with status {s}.", a=safe(account.account_id), s=safe(status))
        return empty_result("orders", note, account_id=account.account_id, status=status)
    return {"account_id": account.account_id, "status": status, "count": len(orders), "orders": orders}


def repaired(tool, world):
    def handler(args, ctx):
        try:
            return tool.handler(args, ctx)
        except ToolFailure as failure:
            account = world.account(args["account_id"])
            if failure.code is not ErrorCode.NOT_FOUND or account is None:
                raise
            status = args.get("status", "all")
            note = say("Account {a} has no invoices with status {s}.", a=safe(account.account_id), s=safe(status))
            return empty_result("invoices", note, account_id=account.account_id, status=status,
                                balance_due=money(world.balance_cents(account.account_id)))
    return Tool(tool.name, tool.description, tool.input_schema, handler)


def first_repeat(failures):
    seen = set()
    for i, (tool, args, code) in enumerate(failures):
        triple = (tool, json.dumps(args, sort_keys=True), code)
        if triple in seen:
            return i
        seen.add(triple)
    return None


def lean_style(failure):
    body = failure.error.body()
    nxt = body.get("next")
    if nxt and nxt["branch"] != "stop":  # on a stop, say is what to tell the customer
        body["next"] = {k: v for k, v in nxt.items() if k != "say"}
    return {"type": "tool_result", "tool_use_id": failure.error.tool_use_id, "is_error": True,
            "content": json.dumps(body, separators=(",", ":"), ensure_ascii=False)}


def lean_without_any_say(failure):  # drops the stop's say too: T21's offer of a person no longer reaches anyone
    body = failure.error.body()
    if "next" in body:
        body["next"] = {k: v for k, v in body["next"].items() if k != "say"}
    return {**lean_style(failure), "content": json.dumps(body, separators=(",", ":"), ensure_ascii=False)}


CUSTOMER = {
    "invalid_argument": "I need to check one detail of your request before I can do that.",
    "not_found": "I could not find that record; could you check the number you gave me?",
    "not_permitted": "That belongs to another customer or can no longer be changed, so I cannot do it here.",
    "limit_exceeded": "That goes beyond a limit I can approve myself, so it needs a colleague or cannot be done.",
    "upstream_unavailable": "One of our systems is not responding right now, so I could not finish this; "
                            "a colleague can follow up.",
}


def audiences(failure):
    trace = "\n".join(text for text in (failure.raw, failure.error.detail) if text)
    return {"trace": trace, "model": failure.error.block()["content"], "customer": CUSTOMER[failure.error.code.value]}


def _refuse_address():
    return ToolFailure("invalid_argument", "Argument address is not an address Atlas can deliver to; it must look like "
                       "12 Harbour Street, Leeds.",
                       next=retry_changed("address", "Ask the customer for the full delivery address, then call again."))


def address_check(tool):
    def handler(args, ctx):
        if args.get("action") == "change_address" and not deliverable(args.get("address")):
            raise _refuse_address()
        return tool.handler(args, ctx)
    return Tool(tool.name, tool.description, tool.input_schema, handler, side_effect=tool.side_effect)


def get_shipment(args, ctx):
    if not re.fullmatch(r"ORD-[0-9]{5}", args["order_ref"]):
        raise ToolFailure("invalid_argument", "Argument order_ref must look like ORD-77120; ask the customer for the "
                          "order number.", next=retry_changed("order_ref", "Call again with the number the customer gives."))
    order = find_order(args["order_ref"])
    if order is None:
        raise ToolFailure("not_found", "No order of this customer matches order_ref. Ask the customer to check the "
                          "number; do not guess other ids.", next=stop("Tell the customer the order was not found."))
    if order.status != "shipped":
        raise ToolFailure("not_found", say("Order {o} is {s} and has not shipped, so there is no shipment to track.",
                                           o=safe(order.order_id), s=safe(order.status)),
                          next=stop("Tell the customer the order has not shipped."))
    return {"order_id": order.order_id, "status": order.status, "ship_to": order.ship_to}


SOLUTIONS = {"04.1": get_product, "04.2": PERMISSION, "05.1": list_orders, "05.2": repaired, "06.1": first_repeat,
             "06.2": Bounds(max_cost_usd=0.009), "07.1": lean_style, "07.2": audiences, "08.1": address_check,
             "08.2": get_shipment}


# --- wrong answers ------------------------------------------------------------------------------

def _product_row(product):
    return {"sku": product.sku, "product": product.name, "unit_price": money(product.unit_cents)}


def product_keyerror(args, ctx):  # indexes the dict: an unknown SKU crashes
    return _product_row(world.products[args["sku"]])


def product_error_dict(args, ctx):  # reports the failure as a successful result
    product = world.products.get(args["sku"])
    return _product_row(product) if product else {"error": "product not found"}


def product_echo(args, ctx):
    product = world.products.get(args["sku"])
    if product is None:
        raise ToolFailure("not_found", f"No product matches {args['sku']}. Do not guess others.", next=stop("Tell the customer."))
    return _product_row(product)


def product_no_instruction(args, ctx):
    product = world.products.get(args["sku"])
    if product is None:
        raise ToolFailure("not_found", "No product matches sku.", next=stop("Say it was not found."))
    return _product_row(product)


def product_only_explains(args, ctx):  # says what happened twice over, and nothing about what to do
    product = world.products.get(args["sku"])
    if product is None:
        raise ToolFailure("not_found", "No product matches sku; it is not in the catalogue.", next=stop("Say so."))
    return _product_row(product)


def product_wrong_code(args, ctx):
    product = world.products.get(args["sku"])
    if product is None:
        raise ToolFailure("invalid_argument", "Argument sku must be a catalogue SKU; do not guess.",
                          next=retry_changed("sku", "Ask for another SKU."))
    return _product_row(product)


def product_no_next(args, ctx):
    product = world.products.get(args["sku"])
    if product is None:
        raise ToolFailure("not_found", "No product matches sku; do not guess others.")
    return _product_row(product)


def product_cents(args, ctx):  # the price as raw cents, not as Atlas writes money
    product = world.products.get(args["sku"])
    if product is None:
        raise ToolFailure("not_found", "No product matches sku; do not guess others.", next=stop("Tell the customer."))
    return {"sku": product.sku, "product": product.name, "unit_cents": product.unit_cents}


def orders_empty_is_error(args, ctx):  # chapter 05's anti-pattern
    result = list_orders(args, ctx)
    if result["count"] == 0:
        raise ToolFailure("not_found", "No orders were found for this account.")
    return result


def orders_swallow_missing(args, ctx):  # a mistyped account reads as an account with no orders
    try:
        return list_orders(args, ctx)
    except ToolFailure:
        return empty_result("orders", "This account has no orders.", account_id=args["account_id"])


def orders_no_filter(args, ctx):
    return list_orders({"account_id": args["account_id"]}, ctx)


def orders_bare_list(args, ctx):
    result = list_orders(args, ctx)
    return [] if result["count"] == 0 else result


def orders_echo(args, ctx):
    if world.account(args["account_id"]) is None:
        raise ToolFailure("not_found", f"No account {args['account_id']}; do not guess.", next=stop("Tell the customer."))
    return list_orders(args, ctx)


def repaired_unchanged(tool, world):
    return tool


def repaired_catch_all(tool, world):
    def handler(args, ctx):
        try:
            return tool.handler(args, ctx)
        except ToolFailure:
            return empty_result("invoices", "No invoices with that status.", account_id=args["account_id"],
                                balance_due=money(world.balance_cents(args["account_id"])))
    return Tool(tool.name, tool.description, tool.input_schema, handler)


def repaired_no_balance(tool, world):
    def handler(args, ctx):
        try:
            return tool.handler(args, ctx)
        except ToolFailure as failure:
            if failure.code is not ErrorCode.NOT_FOUND or world.account(args["account_id"]) is None:
                raise
            return empty_result("invoices", "This account has no unpaid invoices.", account_id=args["account_id"])
    return Tool(tool.name, tool.description, tool.input_schema, handler)


def repaired_zero_balance(tool, world):
    def handler(args, ctx):
        try:
            return tool.handler(args, ctx)
        except ToolFailure as failure:
            if failure.code is not ErrorCode.NOT_FOUND or world.account(args["account_id"]) is None:
                raise
            return empty_result("invoices", "None with that status.", account_id=args["account_id"], balance_due="$0.00")
    return Tool(tool.name, tool.description, tool.input_schema, handler)


def repaired_handler_only(tool, world):
    return repaired(tool, world).handler


def repeat_unsorted(failures):
    seen = set()
    for i, (tool, args, code) in enumerate(failures):
        if (tool, json.dumps(args), code) in seen:
            return i
        seen.add((tool, json.dumps(args), code))
    return None


def repeat_ignores_code(failures):
    seen = set()
    for i, (tool, args, _code) in enumerate(failures):
        if (tool, json.dumps(args, sort_keys=True)) in seen:
            return i
        seen.add((tool, json.dumps(args, sort_keys=True)))
    return None


def repeat_consecutive_only(failures):
    for i in range(1, len(failures)):
        if failures[i] == failures[i - 1]:
            return i
    return None


def repeat_python_equality(failures):
    for i, triple in enumerate(failures):
        if triple in failures[:i]:  # 1 == True, so different JSON counts as the same call
            return i
    return None


def repeat_earlier_index(failures):
    seen = {}
    for i, (tool, args, code) in enumerate(failures):
        key = (tool, json.dumps(args, sort_keys=True), code)
        if key in seen:
            return seen[key]
        seen[key] = i
    return None


def repeat_frozenset(failures):
    seen = set()
    for i, (tool, args, code) in enumerate(failures):
        key = (tool, frozenset(args.items()), code)
        if key in seen:
            return i
        seen.add(key)
    return None


def style_drops_next(failure):
    body = {k: v for k, v in failure.error.body().items() if k != "next"}
    return {"type": "tool_result", "tool_use_id": failure.error.tool_use_id, "is_error": True, "content": json.dumps(body)}


def style_message_only(failure):
    return {"type": "tool_result", "tool_use_id": failure.error.tool_use_id, "is_error": True,
            "content": failure.error.message}


def style_new_id(failure):
    block = lean_style(failure)
    block["tool_use_id"] = "toolu_lean"
    return block


def style_drops_message(failure):
    body = json.loads(lean_style(failure)["content"])
    body["message"] = "Failed."
    return {**lean_style(failure), "content": json.dumps(body, separators=(",", ":"))}


def audiences_model_text_to_customer(failure):
    return {**audiences(failure), "customer": failure.error.message}


def audiences_trace_raw_only(failure):
    return {**audiences(failure), "trace": failure.raw}


def audiences_model_reads_raw(failure):
    return {**audiences(failure), "model": failure.raw}


def audiences_one_apology(failure):
    return {**audiences(failure), "customer": "Sorry, something went wrong; please contact support."}


def audiences_exception_name(failure):
    return {**audiences(failure), "customer": f"A {failure.error.code.value.title().replace('_', '')}Error occurred."}


def audiences_tuple(failure):
    return tuple(audiences(failure).values())


def address_echoing(tool):  # the chapter's echoing tool, for change_address only
    def handler(args, ctx):
        if args.get("action") == "change_address" and not deliverable(args.get("address")):
            raise ToolFailure("invalid_argument", "Argument address is not an address Atlas can deliver to.",
                              next=retry_changed("address", "Ask for the full address."),
                              raw=f"GeocodeError: no match for address '{args.get('address')}'")
        return tool.handler(args, ctx)
    return Tool(tool.name, tool.description, tool.input_schema, handler, side_effect=tool.side_effect)


def address_safe_echo(tool):  # safe() checks a value's shape, not where it came from
    def handler(args, ctx):
        if args.get("action") == "change_address" and not deliverable(args.get("address")):
            raise ToolFailure("invalid_argument", say("Argument address {a} is not deliverable.", a=safe(args["address"])),
                              next=retry_changed("address", "Ask for the full address."))
        return tool.handler(args, ctx)
    return Tool(tool.name, tool.description, tool.input_schema, handler, side_effect=tool.side_effect)


def address_refuse_all(tool):
    def handler(args, ctx):
        if args.get("action") == "change_address":
            raise _refuse_address()
        return tool.handler(args, ctx)
    return Tool(tool.name, tool.description, tool.input_schema, handler, side_effect=tool.side_effect)


def address_blocks_cancel(tool):
    def handler(args, ctx):
        if not deliverable(args.get("address")):
            raise _refuse_address()
        return tool.handler(args, ctx)
    return Tool(tool.name, tool.description, tool.input_schema, handler, side_effect=tool.side_effect)


def address_unnamed(tool):
    def handler(args, ctx):
        if args.get("action") == "change_address" and not deliverable(args.get("address")):
            raise ToolFailure("invalid_argument", "That is not deliverable; it must look like 12 Harbour Street, Leeds.",
                              next=retry_changed("address", "Ask for the full address."))
        return tool.handler(args, ctx)
    return Tool(tool.name, tool.description, tool.input_schema, handler, side_effect=tool.side_effect)


def address_no_next(tool):
    def handler(args, ctx):
        if args.get("action") == "change_address" and not deliverable(args.get("address")):
            raise ToolFailure("invalid_argument", "Argument address must look like 12 Harbour Street, Leeds.")
        return tool.handler(args, ctx)
    return Tool(tool.name, tool.description, tool.input_schema, handler, side_effect=tool.side_effect)


def shipment_echo_shape(args, ctx):
    if not re.fullmatch(r"ORD-[0-9]{5}", args["order_ref"]):
        raise ToolFailure("invalid_argument", f"{args['order_ref']} is not an order number like ORD-77120.",
                          next=retry_changed("order_ref", "Ask for the number."))
    return get_shipment(args, ctx)


def shipment_echo_missing(args, ctx):
    if re.fullmatch(r"ORD-[0-9]{5}", args["order_ref"]) and find_order(args["order_ref"]) is None:
        raise ToolFailure("not_found", say("No order {o}; do not guess.", o=safe(args["order_ref"])),
                          next=stop("Tell the customer."))
    return get_shipment(args, ctx)


def shipment_vague(args, ctx):
    try:
        return get_shipment(args, ctx)
    except ToolFailure as failure:
        if failure.message.startswith("Order "):
            raise ToolFailure("not_found", "This order has not shipped.", next=stop("Tell the customer.")) from None
        raise


def shipment_status_as_result(args, ctx):
    order = find_order(args["order_ref"]) if re.fullmatch(r"ORD-[0-9]{5}", args["order_ref"]) else None
    if order is not None and order.status != "shipped":
        return {"order_id": order.order_id, "status": order.status}
    return get_shipment(args, ctx)


def shipment_safe_everything(args, ctx):
    ref = safe(args["order_ref"])  # raises on the injected text: safe() is not a validator of ids
    return get_shipment({"order_ref": str(ref)}, ctx)


def shipment_wrong_branch(args, ctx):
    if not re.fullmatch(r"ORD-[0-9]{5}", args["order_ref"]):
        raise ToolFailure("not_found", "No order matches order_ref; do not guess.",
                          next=switch_tool("escalate_to_human", "Escalate it."))
    return get_shipment(args, ctx)


def _product_saying(message):
    def get_product(args, ctx):
        product = world.products.get(args["sku"])
        if product is None:
            raise ToolFailure("not_found", message, next=stop("Tell the customer that SKU is not in the catalogue."))
        return _product_row(product)
    return get_product


def _orders_saying(note="Account {a} has no orders with status {s}.", message=None):
    def handler(args, ctx):
        if world.account(args["account_id"]) is None and message is not None:
            raise ToolFailure("not_found", message, next=stop("Tell the customer the account was not found."))
        result = list_orders(args, ctx)
        if result["count"] == 0:
            result["note"] = note.format(a=args["account_id"], s=args.get("status", "all"))
        return result
    return handler


def _customer_saying(**texts):
    def split(failure):
        return {**audiences(failure), "customer": texts.get(failure.error.code.value, CUSTOMER[failure.error.code.value])}
    return split


def _address_saying(message):
    def address_check(tool):
        def handler(args, ctx):
            if args.get("action") == "change_address" and not deliverable(args.get("address")):
                raise ToolFailure("invalid_argument", message, next=retry_changed("address", "Ask for the full address."))
            return tool.handler(args, ctx)
        return Tool(tool.name, tool.description, tool.input_schema, handler, side_effect=tool.side_effect)
    return address_check


def shipment_try_nearby(args, ctx):
    if re.fullmatch(r"ORD-[0-9]{5}", args["order_ref"]) and find_order(args["order_ref"]) is None:
        raise ToolFailure("not_found", "No order matches order_ref; try nearby order numbers.", next=stop("Tell the customer."))
    return get_shipment(args, ctx)


def shipment_claims_shipped(args, ctx):
    order = find_order(args["order_ref"]) if re.fullmatch(r"ORD-[0-9]{5}", args["order_ref"]) else None
    if order is not None and order.status != "shipped":
        raise ToolFailure("not_found", say("Order {o} ({s}) is on its way.", o=safe(order.order_id), s=safe(order.status)),
                          next=stop("Tell the customer."))
    return get_shipment(args, ctx)


WRONG = [
    ("04.1", product_keyerror, "raised KeyError"),
    ("04.1", product_error_dict, "returned a result"),
    ("04.1", product_echo, "Forbidden: your error repeats the sku"),
    ("04.1", _product_saying("No product matches sku; try a nearby SKU such as the next number."),
     "Contradiction: the text invites another attempt ('try a nearby SKU')"),
    ("04.1", _product_saying("No product matches sku; call query_warehouse to see whether it exists."),
     "names query_warehouse, but next names no tool"),
    ("04.1", _product_saying("No product matches sku: the customer typed it wrong. Tell them."),
     "Forbidden: the text blames the customer"),
    ("04.1", product_wrong_code, "not invalid_argument"),
    ("04.1", product_no_next, "next=stop"),
    ("04.1", product_cents, "unit price"),
    ("04.2", "Account ACC-4472 belongs to globex. Do not try other ids.", "Forbidden: your message names the other customer"),
    ("04.2", "That account belongs to globex; do not try other account ids.", "names the other customer"),
    ("04.2", "You are not permitted to view this account. Please try again.",
     "Contradiction: your message invites another attempt ('try again'), but not_permitted is not retryable"),
    ("04.2", "That account belongs to another customer. Try other account ids until one works.",
     "invites another attempt ('Try other account ids')"),
    ("04.2", "Not this customer's account. Call get_account again with a different id.", "invites another attempt"),
    ("04.2", "The customer asked for an account that is not theirs, which is their mistake. Do not try other ids.",
     "Forbidden: your message blames the customer"),
    ("04.2", "No. You may not. Do not try other ids.", "builder refuses"),
    ("04.2", 403, "message text"),
    ("05.1", orders_empty_is_error, "finding nothing is an answer"),
    ("05.1", orders_swallow_missing, "hides a typo"),
    ("05.1", _orders_saying(note="Error: no orders for this account."),
     "Contradiction: your note for an empty list says 'Error'"),
    ("05.1", _orders_saying(note="The lookup failed to find any orders for this account."), "says 'failed'"),
    ("05.1", _orders_saying(message="No account matches account_id. Try the neighbouring account numbers."),
     "Contradiction: the text invites another attempt"),
    ("05.1", _orders_saying(message="No account matches account_id: the customer gave a wrong number."),
     "Forbidden: the text blames the customer"),
    ("05.1", orders_no_filter, "exactly the orders with that status"),
    ("05.1", orders_bare_list, "empty_result"),
    ("05.1", orders_echo, "Forbidden: your not_found repeats the id"),
    ("05.2", repaired_unchanged, "T02 still ends wrong"),
    ("05.2", repaired_catch_all, "changed that refusal"),
    ("05.2", repaired_no_balance, "balance_due"),
    ("05.2", repaired_zero_balance, "balance_due"),
    ("05.2", repaired_handler_only, "should return a Tool"),
    ("06.1", repeat_unsorted, "another key order"),
    ("06.1", repeat_ignores_code, "two different codes"),
    ("06.1", repeat_consecutive_only, "one failure in between"),
    ("06.1", repeat_python_equality, "true where 1 was sent"),
    ("06.1", repeat_earlier_index, "returned 0"),
    ("06.1", repeat_frozenset, "raised TypeError"),
    ("06.2", Bounds(max_steps=3), "step_limit"),
    ("06.2", Bounds(max_cost_usd=0.005), "T04 under the contract"),
    ("06.2", Bounds(max_cost_usd=0.02), "before the cost cap stopped it"),
    ("06.2", Bounds(max_cost_usd=0.009, max_steps=2), "step_limit"),
    ("06.2", 0.009, "should be a Bounds"),
    ("07.1", lambda failure: failure.error.block(), "at least a tenth"),
    ("07.1", lean_without_any_say, "T21 ends wrong"),
    ("07.1", raw_style, "raw text"),
    ("07.1", style_drops_next, "where the contract selects retry_changed"),
    ("07.1", style_message_only, "does not parse as a contract body"),
    ("07.1", style_new_id, "tool_use_id"),
    ("07.1", style_drops_message, "keep the code and the message"),
    ("07.2", audiences_model_text_to_customer, "Forbidden: the customer's text for"),
    ("07.2", _customer_saying(limit_exceeded="Your refund has been processed and will arrive in 5 to 10 days."),
     "Contradiction: the customer's text for 'refund above the ceiling' says"),
    ("07.2", _customer_saying(not_found="You gave us the wrong number; that is your mistake."), "blames them"),
    ("07.2", _customer_saying(upstream_unavailable="The request failed with status code 503."), "'status code'"),
    ("07.2", audiences_trace_raw_only, "drops what an engineer needs"),
    ("07.2", audiences_model_reads_raw, "should be the contract body"),
    ("07.2", audiences_one_apology, "the same for different kinds"),
    ("07.2", audiences_exception_name, "the system talking"),
    ("07.2", audiences_tuple, "Return a dict"),
    ("08.1", address_echoing, "Forbidden: in the raw style the tool result repeats the address"),
    ("08.1", address_safe_echo, "repeats the address"),
    ("08.1", _address_saying("The address was updated, but it must look like 12 Harbour Street, Leeds."),
     "Contradiction: the text says 'was updated'"),
    ("08.1", _address_saying("Argument address is not deliverable; call escalate_to_human to change it by hand."),
     "names escalate_to_human"),
    ("08.1", address_refuse_all, "deliverable address"),
    ("08.1", address_blocks_cancel, "A cancel"),
    ("08.1", address_unnamed, "never names the argument"),
    ("08.1", address_no_next, "retry_changed"),
    ("08.2", shipment_echo_shape, "Forbidden: your error repeats the order_ref"),
    ("08.2", shipment_try_nearby, "Contradiction: the text invites another attempt ('try nearby order numbers')"),
    ("08.2", shipment_claims_shipped, "Contradiction: the text says 'is on its way'"),
    ("08.2", shipment_echo_missing, "nothing vouches for it"),
    ("08.2", shipment_vague, "vouches for both"),
    ("08.2", shipment_status_as_result, "fail with an error"),
    ("08.2", shipment_safe_everything, "raised ValueError"),
    ("08.2", shipment_wrong_branch, "invalid_argument"),
]


def lean_reordered(failure):  # another lean body: the same fields in another order, say dropped
    body = json.loads(lean_style(failure)["content"])
    ordered = {k: body[k] for k in ("retryable", "error", "message", "next") if k in body}
    return {**lean_style(failure), "content": json.dumps(ordered, separators=(",", ":"))}


# Correct answers in other words: the checks judge structure and what the words may not say, never a cue word.
CORRECT = [
    ("04.1", _product_saying("No product matches sku. Tell the customer that SKU is not in the catalogue.")),
    ("04.1", _product_saying("No product in the catalogue matches sku; never guess other SKUs.")),
    ("04.1", _product_saying("The sku given matches no product. Ask the customer to confirm the SKU.")),
    ("04.2", "That account is not one of this customer's, so it cannot be read here. Never guess other account ids."),
    ("04.2", "The account belongs to another customer. Other account ids must not be tried; tell the customer you can "
             "only help with their own."),
    ("04.2", "This session has no access to that account. Trying other account numbers is not allowed."),
    ("04.2", "That account belongs to someone else. Use only the account ids the customer gave."),
    ("04.2", "This account is outside what this customer may see. Do not try others; ask the customer for their own "
             "account number."),  # the old check wanted its words for why
    ("04.2", "Access refused: the account is held by a different customer. Stick to the accounts this customer owns."),
    ("04.1", _product_saying("That sku is not in Atlas's catalogue, so there is no product to show; the customer should "
                             "double-check the code.")),  # the old check wanted an instruction word
    ("04.1", _product_saying("Nothing in the catalogue has that sku. Check it with the customer rather than trying others.")),
    ("05.1", _orders_saying(note="There are no orders on {a} with that status; nothing is missing.")),  # 'missing' was refused
    ("05.1", _orders_saying(message="There is no account with that account_id. The customer may have mistyped it; ask "
                                    "them to check.")),
    ("07.2", _customer_saying(limit_exceeded="I can't make an exception to that limit myself; a colleague will need to "
                                             "look at it.")),  # 'exception' was refused
    ("07.2", _customer_saying(upstream_unavailable="Sorry, our records system is down, so nothing was changed. Please "
                                                   "try again later.")),
    ("08.1", _address_saying("That address cannot be delivered to: an address needs a house number and a street name.")),
    ("08.1", _address_saying("We cannot ship to the given address; write it as number, street and town, such as 7 Quay "
                             "Road, Hull.")),
    ("07.1", lean_reordered),
]


# Wrong in an idea no rule can decide: the check passes on structure, says it did not judge, and shows the reference.
NOT_JUDGED = [
    ("04.1", product_no_instruction),
    ("04.1", product_only_explains),
    ("04.2", "Access denied."),
    ("04.2", "Do not try other account ids."),
    ("04.2", "That account belongs to another customer, so this session cannot use it."),
    ("04.2", "Access to this account is not permitted. Do not guess why; just tell the customer."),  # issue 27
    ("05.1", _orders_saying(note="No orders found.")),
    ("07.2", _customer_saying(not_found="Something went wrong.", not_permitted="Something went wrong here.",
                              limit_exceeded="Something did not work.", upstream_unavailable="Something failed.")),
    ("08.1", _address_saying("Argument address is not valid.")),
]


@pytest.mark.parametrize("key, answer", CORRECT, ids=[f"{k}-{i}" for i, (k, _) in enumerate(CORRECT)])
def test_a_correct_answer_in_other_words_passes(key, answer):
    fb = check(key, answer)
    assert fb.ok, fb.message


@pytest.mark.parametrize("key, answer", NOT_JUDGED, ids=[f"{k}-{i}" for i, (k, _) in enumerate(NOT_JUDGED)])
def test_an_idea_no_rule_decides_passes_with_the_reference_and_a_rubric(key, answer):
    fb = check(key, answer)
    assert fb.ok and "Not judged: " in fb.message, fb.message
    assert fb.reference and len(fb.rubric) == 2 and fb.reference in repr(fb)


@pytest.mark.parametrize("key, answer, fragment", WRONG,
                         ids=[f"{k}-{getattr(a, '__name__', repr(a))[:40]}" for k, a, _ in WRONG])
def test_a_plausible_wrong_answer_fails_and_says_what_to_change(key, answer, fragment):
    fb = check(key, answer)
    assert not fb.ok
    assert fb.message != BLANK
    assert fragment in fb.message, fb.message
    assert fb.message.startswith(("Structure: ", "Contradiction: ", "Forbidden: ")), fb.message


@pytest.mark.parametrize("key", sorted(SOLUTIONS))
def test_the_solution_passes(key):
    fb = check(key, SOLUTIONS[key])
    assert fb.ok, fb.message


def test_every_exercise_of_04_to_08_has_wrong_answers_and_a_solution():
    keys = {f"0{c}.{k}" for c in range(4, 9) for k in (1, 2)}
    assert set(SOLUTIONS) == keys
    assert {k for k, _, _ in WRONG} == keys
    assert all(sum(k == key for k, _, _ in WRONG) >= 3 for key in keys)


def _unwritten_handler(args, ctx):
    ...  # your answer here


def _unwritten_wrapper(tool):
    def handler(args, ctx):
        ...  # your answer here
    return Tool(tool.name, tool.description, tool.input_schema, handler, side_effect=tool.side_effect)


def _unwritten_repair(tool, world):
    def handler(args, ctx):
        ...  # your answer here
    return Tool(tool.name, tool.description, tool.input_schema, handler)


@pytest.mark.parametrize("key, answer", [("04.1", _unwritten_handler), ("05.1", _unwritten_handler),
                                         ("05.2", _unwritten_repair), ("06.1", _unwritten_handler),
                                         ("07.1", _unwritten_handler), ("07.2", _unwritten_handler),
                                         ("08.1", _unwritten_wrapper), ("08.2", _unwritten_handler)])
def test_a_function_whose_body_is_still_the_gap_reads_as_not_answered(key, answer):
    assert check(key, answer).message == BLANK


def test_a_handler_that_returns_none_after_doing_work_is_not_taken_for_blank():
    def forgot_return(args, ctx):
        world.products.get(args["sku"])

    fb = check("04.1", forgot_return)
    assert not fb.ok and fb.message != BLANK
