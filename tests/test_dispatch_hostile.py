"""The dispatcher against hostile tools and odd calls: an argument error stays an argument error whatever the names,
a tool's exit() is a crash result and never a raise, arguments no canonical JSON can write are still counted, each
attempt gets its own arguments, an async handler is refused, and a developer's mistake is one AtlasKit error. Each
case was found by trying the dispatcher as a practitioner."""
from __future__ import annotations

import json

import pytest

from atlas_kit.contract.errors import ErrorCode, ToolFailure
from atlas_kit.dispatch.dispatcher import Dispatcher
from atlas_kit.dispatch.tool import Tool
from atlas_kit.dispatch.transient import RetryPolicy, Transient
from atlas_kit.types.exceptions import AtlasKitError

DESCRIPTION = "Look a record up by its id, as the support desk does."


def _tool(name: str = "lookup", handler=lambda args, ctx: "ok", schema: dict | None = None, **kw) -> Tool:
    return Tool(name, DESCRIPTION, schema or {"type": "object", "properties": {"id": {"type": "string"}}}, handler, **kw)


def _use(use_id: str, name: str, args: object) -> dict:
    return {"type": "tool_use", "id": use_id, "name": name, "input": args}


def _body(result: dict) -> dict:
    return json.loads(result["content"])


@pytest.mark.parametrize("schema, args", [
    ({"type": "object", "properties": {"accountId": {"type": "string"}}, "required": ["accountId"]}, {}),
    ({"type": "object", "properties": {"order-id": {"type": "string"}}, "required": ["order-id"]}, {}),
    ({"type": "object", "properties": {"path": {"type": "string", "pattern": "^/files/[a-z]+$"}}}, {"path": "x"}),
    ({"type": "object", "properties": {"plan": {"enum": [f"plan_{i:02d}" for i in range(30)]}}}, {"plan": "x"}),
])
def test_an_argument_error_is_an_argument_error_whatever_the_names(schema, args):
    d = Dispatcher([_tool(schema=schema)])
    [result] = d.dispatch([_use("a", "lookup", args)]).results
    body = _body(result)
    assert result["is_error"] and body["error"] == "invalid_argument" and body["next"]["branch"] == "retry_changed"


def test_a_call_to_an_unknown_tool_among_many_is_an_argument_error_not_a_crash():
    d = Dispatcher([_tool(f"tool_number_{i:02d}_with_a_long_name") for i in range(25)])
    [result] = d.dispatch([_use("a", "get_customer", {})]).results
    body = _body(result)
    assert body["error"] == "invalid_argument" and "may or may not" not in body["message"]


@pytest.mark.parametrize("exc", [SystemExit(0), GeneratorExit(), StopIteration()])
def test_a_tool_that_exits_is_a_crash_result_and_the_batch_is_whole(exc):
    def handler(args: dict, ctx: object) -> str:
        raise exc

    d = Dispatcher([_tool(handler=handler), _tool("other")])
    out = d.dispatch([_use("a", "lookup", {}), _use("b", "other", {})])
    assert [r["tool_use_id"] for r in out.results] == ["a", "b"]
    assert _body(out.results[0])["error"] == "upstream_unavailable" and out.results[1]["content"] == "ok"


def test_control_flow_passes_through_as_it_came():
    def handler(args: dict, ctx: object) -> str:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        Dispatcher([_tool(handler=handler)]).dispatch([_use("a", "lookup", {})])


@pytest.mark.parametrize("args", [{1: "a", "b": 2}, {"id": {1, 2}}])
def test_arguments_no_canonical_json_can_write_are_answered_and_counted(args):
    def handler(a: dict, ctx: object) -> str:
        raise ToolFailure(ErrorCode.NOT_FOUND, "No record has that id.")

    d = Dispatcher([_tool(handler=handler, schema={"type": "object"})])
    breaks = [d.dispatch([_use(f"u{i}", "lookup", args)]).loop_break for i in range(2)]
    assert breaks[0] is None and breaks[1] is not None


def test_each_attempt_gets_its_own_copy_of_the_arguments():
    seen = []

    def handler(args: dict, ctx: object) -> str:
        seen.append(dict(args))
        args["amount"] = args.get("amount", 0) + 100  # a handler that changes what it was given
        if ctx.attempt < 2:
            raise Transient("503 Service Unavailable")
        return "done"

    d = Dispatcher([_tool(handler=handler, schema={"type": "object"}, side_effect=True)],
                   retry=RetryPolicy(sleep=lambda s: None))
    block = _use("a", "lookup", {"amount": 5})
    d.dispatch([block])
    assert seen == [{"amount": 5}, {"amount": 5}] and block["input"] == {"amount": 5}


def test_an_async_handler_or_one_of_the_wrong_shape_is_refused_when_the_tool_is_made():
    async def charge(args: dict, ctx: object) -> str:
        return "charged"

    with pytest.raises(AtlasKitError, match="the handler is async"):
        _tool(handler=charge)
    with pytest.raises(AtlasKitError, match="must take two arguments"):
        _tool(handler=lambda args: "ok")


def test_a_handler_that_returns_an_awaitable_is_a_crash_not_a_success():
    async def later() -> str:
        return "charged"

    d = Dispatcher([_tool(handler=lambda args, ctx: later())])
    [result] = d.dispatch([_use("a", "lookup", {})]).results
    assert result["is_error"] and "coroutine" not in result["content"]


@pytest.mark.parametrize("after", [-1.0, float("-inf"), float("nan"), "5"])
def test_a_retry_after_that_is_no_number_of_seconds_is_left_to_the_backoff(after):
    calls = []

    def handler(args: dict, ctx: object) -> str:
        calls.append(ctx.attempt)
        raise Transient("429 Too Many Requests", retry_after=after)

    d = Dispatcher([_tool(handler=handler)], retry=RetryPolicy(sleep=lambda s: None))
    [result] = d.dispatch([_use("a", "lookup", {})]).results
    assert calls == [1, 2, 3] and "not responding" in _body(result)["message"]


@pytest.mark.parametrize("make", [
    lambda: Dispatcher(None),  # type: ignore[arg-type]
    lambda: Dispatcher([], style="raw"),  # type: ignore[arg-type]
    lambda: Dispatcher([], loop_threshold="2"),  # type: ignore[arg-type]
    lambda: RetryPolicy(sleep=None),  # type: ignore[arg-type]
])
def test_a_developers_mistake_is_one_atlas_kit_error(make):
    with pytest.raises(AtlasKitError):
        make()


@pytest.mark.parametrize("message", [
    "Lookup failed: password\u200b=hunter2x.",  # a zero-width space inside the key's name
    "The query \uff33\uff25\uff2c\uff25\uff23\uff34 * \uff26\uff32\uff2f\uff2d users failed.",  # fullwidth letters
    "Host 2001:db8:85a3:0:0:8a2e:370:7334 did not answer.",  # IPv6 written in full
    "The file \\\\fileserver\\finance\\q1.xlsx is locked.",  # a UNC path
    "The proxy sent Authorization: Basic dXNlcjpodW50ZXIy and was refused.",
])
def test_the_builder_refuses_internals_hidden_by_unicode_or_written_in_full(message):
    from atlas_kit.contract.errors import tool_error
    from atlas_kit.contract.redaction import redact

    with pytest.raises(AtlasKitError, match="internals|secret|key"):
        tool_error("toolu_1", "not_found", message)
    assert "hunter2x" not in redact("password\u200b=hunter2x") and "dXNlcjpodW50ZXIy" not in redact(message)


def test_a_success_is_text_json_can_hold_with_no_address_no_nan_and_no_key():
    import datetime as dt

    class Thing:
        def __repr__(self) -> str:
            raise RuntimeError("no repr")

    key = "sk-" + "ant-" + "api03-" + "RESULTKEY0123456789abcdef"  # built from pieces: no literal key in the repo
    value = {"when": dt.date(2026, 12, 3), "tags": {"a"}, "raw": b"bytes", "thing": Thing(), "score": float("nan"),
             "note": f"api_key={key}"}
    [result] = Dispatcher([_tool(handler=lambda args, ctx: value)]).dispatch([_use("a", "lookup", {})]).results
    body = json.loads(result["content"])  # valid JSON: no NaN token
    assert body["when"] == "2026-12-03" and body["tags"] == ["a"] and body["thing"] == "<Thing>" and body["score"] is None
    assert "RESULTKEY" not in result["content"] and " at 0x" not in result["content"]


def test_a_success_of_fifty_megabytes_is_cut_and_says_so():
    from atlas_kit.dispatch.result_text import MAX_RESULT_CHARS

    [result] = Dispatcher([_tool(handler=lambda args, ctx: "x " * 25_000_000)]).dispatch([_use("a", "lookup", {})]).results
    assert len(result["content"]) < MAX_RESULT_CHARS + 200 and "cut: the tool returned 50,000,000 characters" in \
        result["content"]
