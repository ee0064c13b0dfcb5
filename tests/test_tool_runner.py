from __future__ import annotations

import asyncio
import datetime
import json
import logging
import re
from typing import Annotated, Any, Literal

import jsonschema
import pydantic
import pytest
from anthropic import beta_async_tool, beta_tool
from anthropic.lib.tools import BetaAsyncFunctionTool, BetaFunctionTool
from anthropic.lib.tools import ToolError as SDKToolError
from hypothesis import given, settings
from hypothesis import strategies as st

from atlas_kit.contract.errors import RETRYABLE, ErrorCode, ToolFailure, error_schema, switch_tool
from atlas_kit.contract.defaults import DEFAULT_NEXT
from atlas_kit.bridges.tool_runner import (ContractAsyncFunctionTool, ContractFunctionTool, Conversation,
    contract_async_tool, contract_tool)
from atlas_kit.models.transport import ScriptedAPI, in_process_async_client, in_process_client
from atlas_kit.models.body import message_body

MODEL = "scripted-model"
SQL = "SELECT * FROM invoices WHERE tenant_id = 9312 failed on db-7.atlas.internal"
LEAKS = ("SELECT", "invoices WHERE", "9312", "db-7", "atlas.internal", "RuntimeError", "Traceback", "File \"")
SCHEMA = error_schema()


def _turns(name: str, inputs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A scripted model: one tool_use per turn with each input in order, then a closing text."""
    turns = [message_body([{"type": "tool_use", "id": f"toolu_{i:02d}", "name": name, "input": inp}],
                          model=MODEL, stop_reason="tool_use") for i, inp in enumerate(inputs)]
    return turns + [message_body([{"type": "text", "text": "Done."}], model=MODEL, stop_reason="end_turn")]


def _sent(api: ScriptedAPI) -> list[dict[str, Any]]:
    """The tool_result blocks the runner sent back, one per scripted turn, as they went over the wire."""
    results = [req["messages"][-1]["content"] for req in api.requests[1:]]
    assert all(len(r) == 1 and r[0]["type"] == "tool_result" for r in results)
    return [r[0] for r in results]


def run_sync(tools: list[Any], name: str, inputs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    api = ScriptedAPI(_turns(name, inputs))
    runner = in_process_client(api, max_retries=0).beta.messages.tool_runner(
        model=MODEL, max_tokens=256, tools=tools, messages=[{"role": "user", "content": "Find invoice INV-20411."}])
    runner.until_done()
    assert api.remaining == 0
    return _sent(api)


def run_async(tools: list[Any], name: str, inputs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    api = ScriptedAPI(_turns(name, inputs))

    async def go() -> None:
        runner = in_process_async_client(api, max_retries=0).beta.messages.tool_runner(
            model=MODEL, max_tokens=256, tools=tools, messages=[{"role": "user", "content": "Find it."}])
        await runner.until_done()

    asyncio.run(go())
    assert api.remaining == 0
    return _sent(api)


def body(result: dict[str, Any]) -> dict[str, Any]:
    """The contract body of an error tool_result, checked against the shipped schema."""
    assert result.get("is_error") is True, result
    assert isinstance(result["content"], str), result
    parsed = json.loads(result["content"])
    jsonschema.validate(parsed, SCHEMA)
    return parsed


def lookup(invoice_id: Annotated[str, pydantic.Field(pattern=r"^INV-[0-9]{5}$")],
           status: Literal["open", "paid"] = "open", limit: Annotated[int, pydantic.Field(ge=1, le=50)] = 10) -> str:
    """Look up one invoice by its id."""
    if invoice_id == "INV-00404":
        raise ToolFailure("not_found", "No invoice has that id.")
    if invoice_id == "INV-00500":
        raise RuntimeError(SQL)
    return json.dumps({"invoice_id": invoice_id, "status": status, "limit": limit})


async def alookup(invoice_id: str, limit: int = 10) -> str:
    """Look up one invoice by its id, asynchronously."""
    if invoice_id == "INV-00500":
        raise RuntimeError(SQL)
    return f"{invoice_id}:{limit}"


# --- before: what the SDK sends today --------------------------------------------


def test_before_the_sdk_sends_the_exception_repr_and_an_argument_free_validation_error():
    sent = run_sync([beta_tool(lookup)], "lookup", [{"invoice_id": "INV-00500"}, {"invoice_id": "INV-1"}])
    assert sent[0]["is_error"] and SQL in sent[0]["content"] and sent[0]["content"].startswith("RuntimeError(")
    assert sent[1]["is_error"] and "invoice_id" not in sent[1]["content"]


# --- after: the contract ----------------------------------------------------------


@pytest.mark.parametrize("runner", ["sync", "async"])
def test_a_crash_sends_a_neutral_contract_body_and_the_text_goes_to_trace_and_log(runner, caplog):
    conv = Conversation()
    caplog.set_level(logging.INFO, logger="atlas_kit.tool_runner")
    if runner == "sync":
        sent = run_sync(conv.bind(contract_tool(lookup)), "lookup", [{"invoice_id": "INV-00500"}])
    else:
        sent = run_async(conv.bind(contract_async_tool(alookup)), "alookup", [{"invoice_id": "INV-00500"}])
    got = body(sent[0])
    assert got["error"] == "upstream_unavailable" and got["next"]["branch"] == "stop"
    assert not [leak for leak in LEAKS if leak in sent[0]["content"]]
    [error] = conv.trace.of_kind("error")
    assert error["crashed"] is True and SQL in error["detail"] and "Traceback" in error["detail"]
    [record] = [r for r in caplog.records if r.name == "atlas_kit.tool_runner" and r.levelno == logging.ERROR]
    logged = record.getMessage()  # the traceback is in the message, redacted; the record carries no exc_info
    assert SQL in logged and "Traceback" in logged and "RuntimeError" in logged and record.exc_info is None
    assert not conv.breaker_fired


# Built from pieces so the repository never holds a literal key pattern.
FAKE_KEY = "sk-" + "ant-" + "api03-" + "FAKEFAKEFAKE" + "0123456789abcdef"
PASSWORD_VALUE = "hunter2" + "hunter2"


def leaky(invoice_id: str) -> str:
    """Look up one invoice; its database driver puts the connection's credentials in the exception."""
    try:
        raise ConnectionError(f"login refused for key {FAKE_KEY}")
    except ConnectionError as cause:
        raise RuntimeError(f"connect failed: password={PASSWORD_VALUE} api_key={FAKE_KEY}") from cause


@pytest.mark.parametrize("runner", ["sync", "async"])
def test_the_logger_never_writes_a_key_or_a_password_even_in_a_traceback(runner, capsys, caplog):
    async def aleaky(invoice_id: str) -> str:
        """Look up one invoice, asynchronously, with the same leaky driver."""
        return leaky(invoice_id)

    root = logging.getLogger()
    before = list(root.handlers)
    logging.basicConfig(force=True)  # what an application does first: a stderr handler with the default format
    try:
        caplog.set_level(logging.INFO, logger="atlas_kit.tool_runner")
        conv = Conversation()
        if runner == "sync":
            sent = run_sync(conv.bind(contract_tool(leaky)), "leaky", [{"invoice_id": "INV-00500"}] * 3)
        else:
            sent = run_async(conv.bind(contract_async_tool(aleaky)), "aleaky", [{"invoice_id": "INV-00500"}] * 3)
    finally:
        for handler in root.handlers:
            root.removeHandler(handler)
        for handler in before:
            root.addHandler(handler)
    err = capsys.readouterr().err
    shown = err + caplog.text + "".join(logging.Formatter().format(r) for r in caplog.records)
    assert "Traceback" in err and "connect failed" in err and "login refused for key [redacted]" in err
    assert "loop breaker" in err  # the third call trips it: every line the logger writes is checked, not just one
    assert FAKE_KEY not in shown and PASSWORD_VALUE not in shown and "api03" not in shown
    assert all(FAKE_KEY not in r["content"] for r in sent)


@pytest.mark.parametrize(
    ("args", "argument", "form", "secret"),
    [
        ({"invoice_id": "INV-1"}, "invoice_id", "must match the pattern ^INV-[0-9]{5}$", "INV-1\""),
        ({"invoice_id": "INV-00001", "status": "refunded-secretly"}, "status", "must be one of: open, paid", "secretly"),
        ({"invoice_id": "INV-00001", "limit": "lots-and-lots"}, "limit", "must be a whole number", "lots"),
        ({"invoice_id": "INV-00001", "limit": 9999}, "limit", "must be at most 50", "9999"),
        ({"status": "paid"}, "invoice_id", "is required", None),
        ({"invoice_id": "INV-00001", "drop_table_students": 1}, None, "accepts only: invoice_id, limit, status", "drop"),
    ],
)
def test_a_validation_error_names_the_argument_and_its_form_never_the_value(args, argument, form, secret):
    conv = Conversation()
    [sent] = run_sync(conv.bind(contract_tool(lookup)), "lookup", [args])
    got = body(sent)
    assert got["error"] == "invalid_argument" and got["retryable"] is True
    # An argument the tool does not take names none: "input" or the made-up name would send the model after it.
    assert got["next"]["branch"] == "retry_changed" and got["next"].get("argument") == argument
    assert form in got["message"]
    assert secret is None or secret not in sent["content"]  # a value the model sent, or a name it made up
    assert "INV-00001" not in sent["content"]
    assert conv.trace.of_kind("error")[0]["detail"]  # the validator's own words, value and all, go to the trace


def test_the_async_runner_names_the_argument_too():
    [sent] = run_async([contract_async_tool(alookup)], "alookup", [{"invoice_id": "INV-1", "limit": "many-many"}])
    got = body(sent)
    assert got["next"]["argument"] == "limit" and "whole number" in got["message"] and "many" not in sent["content"]


def test_what_only_pydantic_refuses_still_names_the_argument():
    @contract_tool
    def book(day: datetime.date) -> str:
        """Book a slot on one day."""
        return day.isoformat()

    [sent] = run_sync([book], "book", [{"day": "the-ides-of-march"}])
    got = body(sent)
    assert got["next"]["argument"] == "day" and "valid date" in got["message"]
    assert "ides" not in sent["content"]


def test_an_error_raised_inside_the_body_is_not_mistaken_for_bad_arguments():
    class Row(pydantic.BaseModel):
        total: int

    @contract_tool
    def total(invoice_id: str) -> str:
        """Read an invoice total from a malformed row."""
        return str(Row(total="corrupt-row-7731").total)  # type: ignore[arg-type]

    [sent] = run_sync([total], "total", [{"invoice_id": "INV-00001"}])
    assert body(sent)["error"] == "upstream_unavailable"
    assert "7731" not in sent["content"] and "invoice_id" not in sent["content"]


def test_arguments_that_fit_the_schema_but_not_the_signature_name_what_the_tool_accepts():
    @contract_tool(input_schema={"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]})
    def search(query: str) -> str:
        """Search the catalogue."""
        return query

    [sent] = run_sync([search], "search", [{"q": "red-widget-secret"}])
    got = body(sent)
    assert got["error"] == "invalid_argument" and "accepts only: q" in got["message"]
    assert "red-widget-secret" not in sent["content"] and "query" not in sent["content"]


def test_a_tool_failure_whose_message_holds_internals_is_refused_by_the_builder_and_sent_neutral():
    @contract_tool
    def leaky(invoice_id: str) -> str:
        """Look up one invoice."""
        raise ToolFailure("not_found", f"No row: {SQL}")

    conv = Conversation()
    [sent] = run_sync(conv.bind(leaky), "leaky", [{"invoice_id": "INV-00001"}])
    assert body(sent)["error"] == "upstream_unavailable"
    assert not [leak for leak in LEAKS if leak in sent["content"]]
    assert "contains internals" in conv.trace.of_kind("error")[0]["detail"]


@pytest.mark.parametrize("code", list(ErrorCode))
def test_a_plain_tool_failure_gets_its_codes_default_next(code):
    @contract_tool
    def act(account_id: str) -> str:
        """Act on one account."""
        raise ToolFailure(code, "That did not work for this account.", detail="row 12 locked", raw="ORA-00054")

    conv = Conversation()
    [sent] = run_sync(conv.bind(act), "act", [{"account_id": "ACC-1"}])
    got = body(sent)
    assert got == {"error": code.value, "message": "That did not work for this account.",
                   "retryable": RETRYABLE[code], "next": DEFAULT_NEXT[code].to_json()}
    assert "ORA-00054" in conv.trace.of_kind("error")[0]["detail"] and "row 12" in conv.trace.of_kind("error")[0]["detail"]
    # the runner cannot know the agent has a person to hand to, so no default offers one
    assert not re.search(r"person|colleague|human|escalat", got["next"]["say"], re.I)


def test_an_authors_next_is_kept():
    @contract_tool
    def refund(invoice_id: str) -> str:
        """Refund one invoice."""
        raise ToolFailure("limit_exceeded", "Refunds above the ceiling need a person.",
                          next=switch_tool("escalate_to_human", "Escalate to queue billing_refunds."))

    got = body(run_sync([refund], "refund", [{"invoice_id": "INV-00001"}])[0])
    assert got["next"] == {"branch": "switch_tool", "say": "Escalate to queue billing_refunds.", "tool": "escalate_to_human"}


@pytest.mark.parametrize("runner", ["sync", "async"])
def test_the_breaker_fires_on_a_repeated_triple_whatever_the_message_says(runner):
    calls: list[str] = []

    def missing(invoice_id: str) -> str:
        """Find one invoice."""
        calls.append(invoice_id)
        raise ToolFailure("not_found", f"No invoice has that id (attempt {len(calls)}).")

    async def amissing(invoice_id: str) -> str:
        """Find one invoice."""
        return missing(invoice_id)

    conv = Conversation()
    same = [{"invoice_id": "INV-00404"}] * 3
    if runner == "sync":
        sent = run_sync(conv.bind(contract_tool(missing)), "missing", same)
    else:
        sent = run_async(conv.bind(contract_async_tool(amissing, name="missing")), "missing", same)
    first, second, third = (body(s) for s in sent)
    assert first["error"] == "not_found" and not first["message"] == second["message"]
    assert second["error"] == "limit_exceeded" and second["next"]["branch"] == "stop" and second["retryable"] is False
    assert "2 times" in second["message"] and "3 times" in third["message"]
    # the runner hands nothing to a person, so the model is not told to say it did
    assert not re.search(r"person|colleague|human|passing", second["next"]["say"], re.I)
    assert conv.breaker_fired and conv.loop_break is not None
    assert (conv.loop_break.tool, conv.loop_break.error, conv.loop_break.count) == ("missing", "not_found", 2)
    assert calls == ["INV-00404", "INV-00404"]  # once tripped, the same call is answered without running
    assert len(conv.trace.of_kind("loop_detected")) == 1 and len(conv.trace.of_kind("refused")) == 1


def test_the_breaker_keys_on_tool_arguments_and_code_not_on_key_order():
    codes = iter(["not_found", "not_permitted", "not_found"])

    @contract_tool
    def probe(account_id: str, region: str = "eu") -> str:
        """Probe one account."""
        raise ToolFailure(next(codes), "That account cannot be read.")

    conv = Conversation()
    run_sync(conv.bind(probe), "probe", [{"account_id": "A1", "region": "eu"}, {"region": "eu", "account_id": "A1"}])
    assert not conv.breaker_fired  # same arguments, but not_found then not_permitted: two triples
    run_sync(conv.bind(probe), "probe", [{"region": "eu", "account_id": "A1"}])
    assert conv.breaker_fired and conv.loop_break.error == "not_found"


def test_each_conversation_has_its_own_breaker():
    tool = contract_tool(lookup)
    one, two = Conversation(), Conversation()
    for conv in (one, two):
        body(run_sync(conv.bind(tool), "lookup", [{"invoice_id": "INV-00404"}])[0])
    assert not one.breaker_fired and not two.breaker_fired
    assert tool.conversation is not one and not tool.conversation.trace.events  # the original stays untouched


def test_a_breaker_with_a_higher_threshold_waits():
    conv = Conversation(loop_threshold=3)
    sent = run_sync(conv.bind(contract_tool(lookup)), "lookup", [{"invoice_id": "INV-00404"}] * 3)
    assert [body(s)["error"] for s in sent] == ["not_found", "not_found", "limit_exceeded"]
    with pytest.raises(ValueError, match="loop_threshold"):
        Conversation(loop_threshold=1)


@pytest.mark.parametrize("args", [{"invoice_id": "INV-20411"}, {"invoice_id": "INV-20411", "limit": "7"}])
def test_a_tool_that_succeeds_is_unchanged(args):
    before = run_sync([beta_tool(lookup)], "lookup", [args])
    conv = Conversation()
    after = run_sync(conv.bind(contract_tool(lookup)), "lookup", [args])
    assert after == before and "is_error" not in after[0]
    assert json.loads(after[0]["content"])["invoice_id"] == "INV-20411"
    assert [e["kind"] for e in conv.trace] == ["call", "result"]


def test_an_async_tool_that_succeeds_is_unchanged():
    before = run_async([beta_async_tool(alookup)], "alookup", [{"invoice_id": "INV-1", "limit": 3}])
    after = run_async([contract_async_tool(alookup)], "alookup", [{"invoice_id": "INV-1", "limit": 3}])
    assert after == before == [{"type": "tool_result", "tool_use_id": "toolu_00", "content": "INV-1:3"}]


def test_the_decorator_is_used_like_beta_tool_and_returns_the_sdks_tool():
    plain = beta_tool(lookup, name="find_invoice", description="Find one invoice by its id, exactly as stored.")
    ours = contract_tool(name="find_invoice", description="Find one invoice by its id, exactly as stored.")(lookup)
    assert isinstance(ours, BetaFunctionTool) and isinstance(ours, ContractFunctionTool)
    assert ours.to_dict() == plain.to_dict() and ours("INV-20411") == lookup("INV-20411")
    assert isinstance(contract_async_tool(alookup), BetaAsyncFunctionTool)
    assert isinstance(contract_async_tool(alookup), ContractAsyncFunctionTool)


def test_wrong_flavours_and_foreign_tools_are_refused_with_the_fix():
    with pytest.raises(TypeError, match="contract_async_tool"):
        contract_tool(alookup)
    with pytest.raises(TypeError, match="@contract_tool"):
        contract_async_tool(lookup)
    with pytest.raises(TypeError, match="tools=\\[\\*conv.bind"):
        Conversation().bind(beta_tool(lookup))
    with pytest.raises(TypeError, match="Conversation"):
        contract_tool(lookup, conversation="run-1")  # type: ignore[arg-type]


def test_an_sdk_tool_error_raised_by_the_author_is_sent_as_written():
    @contract_tool
    def custom(q: str) -> str:
        """Answer one question."""
        raise SDKToolError([{"type": "text", "text": "Ask about invoices only."}])

    [sent] = run_sync([custom], "custom", [{"q": "weather"}])
    assert sent["is_error"] and sent["content"] == [{"type": "text", "text": "Ask about invoices only."}]


def test_input_that_is_not_an_object_is_an_invalid_argument():
    tool = contract_tool(lookup)
    with pytest.raises(SDKToolError) as caught:
        tool.call(["INV-00001"])
    got = json.loads(caught.value.content)  # type: ignore[arg-type]
    jsonschema.validate(got, SCHEMA)
    assert got["error"] == "invalid_argument" and "JSON object" in got["message"]


@settings(max_examples=60, deadline=None)
@given(text=st.text(min_size=1, max_size=300),
       value=st.text(alphabet=st.characters(blacklist_categories=("Nd", "Cs")), min_size=1, max_size=60))
def test_no_exception_text_or_argument_value_ever_reaches_the_model(text, value):
    def boom(count: int) -> str:
        """Fail with whatever text."""
        raise RuntimeError(text)

    # The runner cannot know whether a tool changes anything, so a crash's outcome is worded as unknown.
    fixed = {"upstream_unavailable": "The tool failed unexpectedly, so the request may or may not have been applied.",
             "invalid_argument": "Argument count must be a whole number. Change it and call the tool again."}
    for args, code in (({"count": 1}, "upstream_unavailable"), ({"count": value}, "invalid_argument")):
        [tool] = Conversation().bind(contract_tool(boom))
        with pytest.raises(SDKToolError) as caught:
            tool.call(args)
        got = json.loads(caught.value.content)  # type: ignore[arg-type]
        jsonschema.validate(got, SCHEMA)
        assert got["error"] == code and got["message"] == fixed[code]  # the same words whatever text or value
