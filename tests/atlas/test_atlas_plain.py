"""The plain style (chapter 11's control arm): for every Atlas failure, one sentence that diagnoses it and gives
no code, no retry, no next step, no tool or argument name, and nothing the stand-in could read as a cue."""
from __future__ import annotations

import re

import pytest
from hypothesis import given, strategies as st

from atlas_kit.atlas import ALL_TICKETS, KINDS, TOOL_NAMES, Fault, FaultSchedule, atlas_session, play, World
from atlas_kit.atlas.tools import build_tools
from atlas_kit.atlas.faults import REFUSALS
from atlas_kit.atlas.styles import catalogue
from atlas_kit.contract.errors import ErrorCode, ToolFailure
from atlas_kit.dispatch.dispatcher import Dispatcher
from atlas_kit.dispatch.styles import PLAIN_BY_CODE, Failure, plain_argument, plain_crash, plain_style, plain_unanswered
from atlas_kit.dispatch.tool import Tool
from atlas_kit.models.standin.model import offline_client
from atlas_kit.models.standin.reading import read_error
from atlas_kit.agent import run_agent
from atlas_kit.types.walk import result_text

ARGUMENTS = sorted({a for t in build_tools(World(0), tenant="acme") for a in t.input_schema["properties"]})
# Words that only ever tell the reader what to do; a diagnosis says what went wrong and stops.
INSTRUCTIONS = re.compile(r"\b(call|calling|retry|retrying|try|again|instead|tell|ask|please|should|must|do not|"
                          r"don't|need to|you can|you may|escalate|contact|next step)\b", re.IGNORECASE)
# A sentence that opens with a verb is an order, however politely it goes on.
IMPERATIVES = {"use", "call", "retry", "try", "tell", "ask", "check", "set", "add", "remove", "change", "narrow",
               "swap", "fix", "choose", "pick", "find", "place", "write", "confirm", "escalate", "contact", "wait",
               "send", "give", "move", "drop", "split", "list"}


def problems(text: str) -> list[str]:
    """What makes `text` more than a plain diagnosis, or [] when it is one."""
    found = []
    if len([s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s]) != 1 or not text.endswith("."):
        found.append("not one sentence")
    if (word := INSTRUCTIONS.search(text)) is not None:
        found.append(f"an instruction word: {word.group(0)!r}")
    if text.split()[0].lower() in IMPERATIVES:
        found.append("opens with an order")
    if re.search(r"\b[a-z]+_[a-z_]+\b", text):
        found.append("an identifier (a code, a tool or an argument name)")
    if any(name in text for name in TOOL_NAMES):
        found.append("a tool's name")
    if any(c in text for c in "{}[]\n"):
        found.append("structure, not a sentence")
    reading = read_error(text, tools=TOOL_NAMES, arguments=ARGUMENTS)
    if reading.branch is not None:
        found.append(f"a cue the stand-in follows ({reading.cue})")
    return found


def test_the_rules_catch_what_they_name():
    assert problems("That order was deleted, so it cannot be changed.") == []
    for text in ("Call escalate_to_human instead.", "The refund failed. Please try again.", "Use a shorter range.",
                 "Argument amount_cents must be a whole number.", "Tell the customer it was not found.",
                 '{"error": "not_found"}', "It is broken; do not repeat it."):
        assert problems(text), text


@pytest.fixture(scope="module")
def rows():
    return catalogue()


def test_every_catalogue_failure_has_its_own_plain_diagnosis(rows):
    for r in rows:
        assert problems(r.plain) == [], (r.case, r.plain)
        assert r.plain not in PLAIN_BY_CODE.values(), (r.case, "fell back on the code's sentence")
        assert r.plain != r.contract and r.plain not in r.contract  # not the contract's message cut short


def _recorded(seen: list[Failure]):
    def style(failure: Failure):
        seen.append(failure)
        return plain_style(failure)
    return style


@pytest.mark.parametrize("tid", ALL_TICKETS)
def test_every_failure_a_ticket_meets_is_diagnosed_plainly(tid):
    """The ticket's scripted path and the stand-in's own run, faults on, over two seeds."""
    for seed in (0, 1):
        seen: list[Failure] = []
        play(atlas_session(tid, style=_recorded(seen), faults=True, seed=seed))
        run = run_agent(offline_client(seed=seed), atlas_session(tid, style=_recorded(seen), faults=True, seed=seed),
                        model="atlas-offline-1")
        for failure in seen:
            assert failure.plain is not None, (tid, failure.tool, failure.error.message)
            assert problems(failure.plain) == [], (tid, failure.plain)
        for m in run.messages:
            for b in m["content"] if isinstance(m["content"], list) else []:
                if b.get("type") == "tool_result" and b.get("is_error"):
                    assert problems(result_text(b["content"])) == [], (tid, b["content"])


def _dispatch(customer: str, *calls: tuple[str, object], faults: tuple[Fault, ...] = ()) -> list[Failure]:
    world = World(0)
    tools = FaultSchedule(faults).wrap(build_tools(world, tenant=customer))
    d = Dispatcher(tools, style=plain_style, break_loops=False)
    failures = []
    for i, (name, args) in enumerate(calls):
        failures += d.dispatch([{"type": "tool_use", "id": f"toolu_{i}", "name": name, "input": args}]).failures
    return failures


PATHS = [  # every way a handler fails that the catalogue and the tickets may not reach
    ("acme", ("list_invoices", {"account_id": "ACC-4471", "page_size": 80})),
    ("acme", ("list_invoices", {"account_id": "ACC-4471", "page": 9})),
    ("acme", ("query_warehouse", {"sku": "SKU-9999", "date_from": "2024-01-01", "date_to": "2024-01-02"})),
    ("acme", ("query_warehouse", {"sku": "SKU-2041", "date_from": "2024-03-02", "date_to": "2024-03-01"})),
    ("acme", ("query_warehouse", {"sku": "SKU-2041", "date_from": "2019-01-01", "date_to": "2019-01-02"})),
    ("acme", ("update_order", {"order_id": "ORD-77120", "action": "change_quantity"})),
    ("acme", ("update_order", {"order_id": "ORD-77120", "action": "cancel", "quantity": 3})),
    ("acme", ("update_order", {"order_id": "ORD-77120", "action": "change_quantity", "quantity": 0})),
    ("acme", ("update_order", {"order_id": "ORD-77120", "action": "cancel"}),
             ("update_order", {"order_id": "ORD-77120", "action": "cancel"})),
    ("acme", ("issue_refund", {"invoice_id": "INV-20412", "amount_cents": 100, "reason": "the customer asked"})),
    ("acme", ("issue_refund", {"invoice_id": "INV-20411", "amount_cents": 0, "reason": "the customer asked"})),
    ("acme", ("issue_refund", {"invoice_id": "INV-20430", "amount_cents": 100, "reason": "the customer asked"})),
    ("acme", ("get_account", {})), ("acme", ("get_account", "ACC-4471")), ("acme", ("refund_everything", {})),
    ("acme", ("get_account", {"account_id": "ACC-4471", "verbose": True})),
]


@pytest.mark.parametrize("customer, calls", [(p[0], p[1:]) for p in PATHS])
def test_every_handler_and_dispatcher_failure_is_diagnosed_plainly(customer, calls):
    failures = _dispatch(customer, *calls)
    assert failures, calls
    for failure in failures:
        assert failure.plain is not None and problems(failure.plain) == [], failure.plain
        assert plain_style(failure)["content"] == failure.plain


def test_a_refund_of_what_was_already_refunded_in_full():
    full = {"invoice_id": "INV-20421", "amount_cents": 7500, "reason": "duplicate"}
    failures = _dispatch("acme", ("issue_refund", full), ("issue_refund", full))
    assert [f.plain for f in failures] == ["That invoice has already been refunded in full."]


@pytest.mark.parametrize("kind", [k for k in KINDS if k in REFUSALS or k in ("timeout", "rate_limit", "outage")])
@pytest.mark.parametrize("tool", TOOL_NAMES)
def test_every_induced_fault_on_every_tool_is_diagnosed_plainly(kind, tool):
    args = {"get_account": {"account_id": "ACC-4471"}, "list_invoices": {"account_id": "ACC-4471"},
            "get_order": {"order_id": "ORD-77120"}, "update_order": {"order_id": "ORD-77120", "action": "cancel"},
            "issue_refund": {"invoice_id": "INV-20411", "amount_cents": 100, "reason": "the customer asked"},
            "query_warehouse": {"sku": "SKU-2041", "date_from": "2024-01-01", "date_to": "2024-01-02"},
            "escalate_to_human": {"account_id": "ACC-4471", "queue": "general", "reason": "the customer asked"}}[tool]
    fault = Fault(tool, kind, calls=(), retry_after=30.0 if kind == "rate_limit" else None)
    [failure] = _dispatch("acme", (tool, args), faults=(fault,))
    assert failure.plain is not None and problems(failure.plain) == [], failure.plain
    changes = tool in ("update_order", "issue_refund", "escalate_to_human")
    if kind in ("timeout", "rate_limit", "outage"):  # a lost reply after a change: the outcome is unknown
        assert ("not known whether the change was made" in failure.plain) is changes


def test_a_crash_is_diagnosed_by_what_the_tool_may_have_changed():
    def boom(args, ctx):
        raise RuntimeError("db down")
    for side_effect, words in ((True, "not known whether"), (False, "was not completed")):
        tool = Tool("do_it", "Does it, for the test.", {"type": "object", "properties": {}}, boom, side_effect=side_effect)
        [failure] = Dispatcher([tool]).dispatch([{"type": "tool_use", "id": "t", "name": "do_it", "input": {}}]).failures
        assert words in failure.plain and problems(failure.plain) == []
    assert plain_crash(side_effect=None) == plain_crash(side_effect=True)  # unknown is reported as unknown


def test_a_tool_that_writes_no_diagnosis_gets_its_codes_sentence():
    def refuse(args, ctx):
        raise ToolFailure("not_found", "No widget matches widget_id. Ask the customer to check it.")
    tool = Tool("get_widget", "Gets a widget, for the test.", {"type": "object", "properties": {}}, refuse)
    [failure] = Dispatcher([tool]).dispatch([{"type": "tool_use", "id": "t", "name": "get_widget", "input": {}}]).failures
    assert failure.plain is None and plain_style(failure)["content"] == PLAIN_BY_CODE[ErrorCode.NOT_FOUND]
    for text in PLAIN_BY_CODE.values():
        assert problems(text) == [], text
    assert set(PLAIN_BY_CODE) == set(ErrorCode)


@pytest.mark.parametrize("plain, words", [
    ("It broke. Try later.", "one sentence"),
    ("Traceback (most recent call last): boom", "internals"),
    ("", "non-empty"),
])
def test_the_builder_refuses_a_plain_that_is_not_one_clean_sentence(plain, words):
    with pytest.raises(ValueError, match=words):
        ToolFailure("not_found", "No widget matches widget_id.", plain=plain)


@given(st.from_regex(r"[a-z]{2,10}(_[a-z]{2,10}){0,3}", fullmatch=True), st.booleans())
def test_an_argument_is_always_named_in_words(argument, was_given):
    text = plain_argument(argument, given=was_given)
    assert "_" not in text and problems(text) == [] or INSTRUCTIONS.search(argument.replace("_", " ")), text


def test_a_service_that_stopped_answering():
    assert plain_unanswered(side_effect=False) == "The service is not available right now."
    assert "not known whether the change was made" in plain_unanswered(side_effect=True)
