"""The in-process Messages API, driven through the real anthropic SDK."""
from __future__ import annotations

import asyncio
import json
import math

import anthropic
import httpx2
import pytest
from anthropic.types import Message, ToolUseBlock
from hypothesis import given
from hypothesis import strategies as st

from atlas_kit.models import transport as transport_module
from atlas_kit.contract.redaction import redact
from atlas_kit.models.transport import (BASE_URL, PLACEHOLDER_KEY, APIFault, HandlerError, MessagesTransport,
    RawAnswer, ScriptedAPI, in_process_async_client, in_process_client)
from atlas_kit.types.tokens import estimate_tokens, request_tokens
from atlas_kit.models.body import message_body

MODEL = "claude-sonnet-5"
ASK = [{"role": "user", "content": "Where is order 4921?"}]
TOOL_USE = {"type": "tool_use", "id": "toolu_01", "name": "get_order", "input": {"order_id": "4921"}}


def tool_answer() -> dict:
    return message_body([{"type": "text", "text": "Looking it up."}, TOOL_USE], model=MODEL, stop_reason="tool_use")


def create(client: anthropic.Anthropic) -> Message:
    return client.messages.create(model=MODEL, max_tokens=64, messages=ASK)


# --- round trip --------------------------------------------------------------------


def test_a_response_body_becomes_a_message_with_tool_use_and_usage() -> None:
    usage = {"input_tokens": 11, "output_tokens": 7}
    script = ScriptedAPI([message_body([TOOL_USE], model=MODEL, stop_reason="tool_use", usage=usage)])
    message = create(in_process_client(script))
    assert isinstance(message, Message)
    assert message.stop_reason == "tool_use"
    block = message.content[0]
    assert isinstance(block, ToolUseBlock)
    assert (block.id, block.name, block.input) == ("toolu_01", "get_order", {"order_id": "4921"})
    assert (message.usage.input_tokens, message.usage.output_tokens) == (11, 7)
    assert script.requests == [{"model": MODEL, "max_tokens": 64, "messages": ASK}]


def test_the_async_client_gets_the_same_message() -> None:
    script = ScriptedAPI([tool_answer()])

    async def main() -> Message:
        client = in_process_async_client(script)
        return await client.messages.create(model=MODEL, max_tokens=64, messages=ASK)

    message = asyncio.run(main())
    assert isinstance(message, Message)
    assert [b.type for b in message.content] == ["text", "tool_use"]
    assert message.model_dump(exclude_none=True)["content"] == tool_answer()["content"]


def test_the_client_holds_a_placeholder_key_whatever_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-" + "ant-" + "env-" + "Y" * 12)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "https://example.com")
    client = in_process_client(ScriptedAPI([]))
    assert client.api_key == PLACEHOLDER_KEY
    assert redact(PLACEHOLDER_KEY) == PLACEHOLDER_KEY  # does not even look like a key
    assert str(client.base_url).rstrip("/") == BASE_URL
    assert client.base_url.host.endswith(".invalid")


# --- faults through the SDK ---------------------------------------------------------


def test_a_429_with_retry_after_ms_is_retried_then_succeeds() -> None:
    script = ScriptedAPI([APIFault(429, "Rate limited.", headers={"retry-after-ms": "1"}), tool_answer()])
    message = create(in_process_client(script, max_retries=1))
    assert message.stop_reason == "tool_use"
    assert len(script.requests) == 2


def test_a_429_with_retry_after_seconds_is_retried_too() -> None:
    script = ScriptedAPI([APIFault(429, "Rate limited.", headers={"retry-after": "0.001"}), tool_answer()])
    assert create(in_process_client(script, max_retries=1)).stop_reason == "tool_use"
    assert len(script.requests) == 2


def test_a_429_when_retries_run_out_is_a_rate_limit_error() -> None:
    script = ScriptedAPI([APIFault(429, "Rate limited.", headers={"retry-after-ms": "1"})] * 2)
    with pytest.raises(anthropic.RateLimitError) as caught:
        create(in_process_client(script, max_retries=1))
    assert caught.value.status_code == 429
    assert caught.value.type == "rate_limit_error"
    assert caught.value.api_message == "Rate limited."
    assert len(script.requests) == 2


def test_a_529_is_an_overloaded_error_an_internal_server_error() -> None:
    with pytest.raises(anthropic.OverloadedError) as caught:
        create(in_process_client(ScriptedAPI([APIFault(529, "Overloaded.")]), max_retries=0))
    assert isinstance(caught.value, anthropic.InternalServerError)
    assert (caught.value.status_code, caught.value.type) == (529, "overloaded_error")


def test_a_500_is_an_internal_server_error() -> None:
    with pytest.raises(anthropic.InternalServerError) as caught:
        create(in_process_client(ScriptedAPI([APIFault(500, "Internal error.")]), max_retries=0))
    assert type(caught.value) is anthropic.InternalServerError
    assert (caught.value.status_code, caught.value.type) == (500, "api_error")


def test_a_500_then_success_is_retried() -> None:
    script = ScriptedAPI([APIFault(500, "Internal error.", headers={"retry-after-ms": "1"}), tool_answer()])
    assert create(in_process_client(script, max_retries=1)).stop_reason == "tool_use"
    assert len(script.requests) == 2


def test_a_timeout_is_an_api_timeout_error() -> None:
    with pytest.raises(anthropic.APITimeoutError) as caught:
        create(in_process_client(ScriptedAPI([httpx2.ReadTimeout("read timed out")]), max_retries=0))
    assert isinstance(caught.value.__cause__, httpx2.ReadTimeout)


@pytest.mark.parametrize("error", [httpx2.RemoteProtocolError("connection reset"), httpx2.ConnectError("refused")])
def test_a_reset_or_refused_connection_is_an_api_connection_error(error: Exception) -> None:
    with pytest.raises(anthropic.APIConnectionError) as caught:
        create(in_process_client(ScriptedAPI([error]), max_retries=0))
    assert not isinstance(caught.value, anthropic.APITimeoutError)
    assert caught.value.__cause__ is error


def test_a_network_fault_is_retried_by_the_sdk() -> None:
    # No retry-after on a dropped connection: the SDK's own backoff (about 0.5 s) would
    # be a real sleep, so it is stubbed out here.
    script = ScriptedAPI([httpx2.RemoteProtocolError("connection reset"), tool_answer()])
    client = in_process_client(script, max_retries=1)
    client._calculate_retry_timeout = lambda *args, **kwargs: 0.0  # type: ignore[method-assign]
    assert create(client).stop_reason == "tool_use"
    assert len(script.requests) == 2


def test_a_malformed_json_body_raises_a_bare_json_error_and_is_not_retried() -> None:
    script = ScriptedAPI([RawAnswer(200, b'{"id": "msg_1", "type": '), tool_answer()])
    with pytest.raises(json.JSONDecodeError):
        create(in_process_client(script, max_retries=2))
    assert len(script.requests) == 1  # the SDK neither wraps nor retries it


def test_a_non_json_success_body_comes_back_as_a_string() -> None:
    # What the SDK does when a 200 is not JSON: it returns the text instead of a Message.
    script = ScriptedAPI([RawAnswer(200, b"<html>gateway</html>", {"content-type": "text/html"})])
    assert create(in_process_client(script, max_retries=0)) == "<html>gateway</html>"


# --- the transport's own answers ----------------------------------------------------


def test_other_routes_get_a_404_error_body() -> None:
    script = ScriptedAPI([])
    with pytest.raises(anthropic.NotFoundError) as caught:
        in_process_client(script, max_retries=0).models.list()
    assert caught.value.type == "not_found_error"
    assert "GET /v1/models" in str(caught.value.api_message)
    assert script.requests == []


def test_an_unparseable_request_body_gets_a_400() -> None:
    script = ScriptedAPI([])
    request = httpx2.Request("POST", f"{BASE_URL}/v1/messages", content=b"{not json")
    response = MessagesTransport(script).handle_request(request)
    assert response.status_code == 400
    assert json.loads(response.content)["error"]["type"] == "invalid_request_error"
    assert script.requests == []


def test_a_streaming_request_is_refused_clearly() -> None:
    with pytest.raises(anthropic.BadRequestError, match="streaming is not served"):
        in_process_client(ScriptedAPI([tool_answer()]), max_retries=0).messages.create(
            model=MODEL, max_tokens=64, messages=ASK, stream=True
        )


def test_a_handler_bug_surfaces_unwrapped_and_unretried() -> None:
    calls = []

    def broken(body: dict) -> dict:
        calls.append(body)
        raise KeyError("content")

    with pytest.raises(HandlerError, match="KeyError"):
        create(in_process_client(broken, max_retries=2))
    assert len(calls) == 1


def test_a_script_that_runs_out_says_so() -> None:
    script = ScriptedAPI([tool_answer()])
    client = in_process_client(script, max_retries=2)
    create(client)
    assert script.remaining == 0
    with pytest.raises(HandlerError, match="request 2 arrived but the script holds 1 answers"):
        create(client)
    assert len(script.requests) == 2


def test_latency_sleeps_once_per_call(monkeypatch: pytest.MonkeyPatch) -> None:
    slept: list[float] = []
    monkeypatch.setattr(transport_module.time, "sleep", slept.append)
    create(in_process_client(ScriptedAPI([tool_answer()]), latency=0.25, max_retries=0))
    assert slept == [0.25]

    async def fake_sleep(seconds: float) -> None:
        slept.append(seconds)

    monkeypatch.setattr(transport_module.asyncio, "sleep", fake_sleep)
    client = in_process_async_client(ScriptedAPI([tool_answer()]), latency=0.5, max_retries=0)
    asyncio.run(client.messages.create(model=MODEL, max_tokens=64, messages=ASK))
    assert slept == [0.25, 0.5]


def test_api_fault_refuses_a_success_status_and_fills_the_error_type() -> None:
    with pytest.raises(ValueError, match="status"):
        APIFault(200, "fine")
    assert APIFault(529, "x").error_type == "overloaded_error"
    assert APIFault(503, "x").error_type == "api_error"
    assert APIFault(418, "x").body() == {"type": "error", "error": {"type": "invalid_request_error", "message": "x"}}


# --- response bodies and token estimates -------------------------------------------


def test_message_body_is_complete_and_its_id_is_stable() -> None:
    text = [{"type": "text", "text": "x" * 10}]
    body = message_body(text, model=MODEL, stop_reason="end_turn", request={"messages": ASK})
    assert body["id"].startswith("msg_")
    assert body["id"] == message_body(text, model=MODEL, stop_reason="end_turn")["id"]
    assert body["id"] != message_body(text, model="claude-haiku-5-5", stop_reason="end_turn")["id"]
    assert (body["type"], body["role"], body["stop_sequence"]) == ("message", "assistant", None)
    assert body["usage"] == {"input_tokens": request_tokens({"messages": ASK}), "output_tokens": 3}
    assert body["usage"]["input_tokens"] > 0
    with pytest.raises(ValueError, match="stop_reason"):
        message_body([], model=MODEL, stop_reason="done")
    with pytest.raises(ValueError, match=r"content_blocks\[0\]"):
        message_body(["hello"], model=MODEL, stop_reason="end_turn")  # type: ignore[list-item]


def test_estimate_is_a_documented_ceiling_of_characters_over_four() -> None:
    assert [estimate_tokens(t) for t in ("", "abc", "abcd", "abcde")] == [0, 1, 1, 2]
    assert "approximation" in (estimate_tokens.__doc__ or "")
    assert "4 characters" in (estimate_tokens.__doc__ or "")


@given(st.text(), st.text())
def test_estimate_is_monotone(a: str, b: str) -> None:
    assert estimate_tokens(a + b) >= estimate_tokens(a)
    assert estimate_tokens(a) == math.ceil(len(a) / 4)


def test_request_tokens_counts_system_messages_tool_results_and_tools() -> None:
    base = {"messages": [{"role": "user", "content": "a" * 40}]}
    assert request_tokens(base) == 10
    with_system = {**base, "system": [{"type": "text", "text": "s" * 40}]}
    assert request_tokens(with_system) == 20
    turn = [
        {"role": "assistant", "content": [TOOL_USE]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "r" * 40}]},
    ]
    with_turn = {**with_system, "messages": base["messages"] + turn}
    tool_use_chars = len("get_order") + len('{"order_id":"4921"}')
    assert request_tokens(with_turn) == math.ceil((80 + tool_use_chars + 40) / 4)
    tool = {"name": "get_order", "description": "d" * 40, "input_schema": {"type": "object"}}
    assert request_tokens({**with_turn, "tools": [tool]}) > request_tokens(with_turn)


def test_a_tool_list_counted_before_is_counted_again_when_it_has_changed_since() -> None:
    # The count of a tool list seen recently is remembered; a list changed in place after it was counted,
    # or a different list, must not be answered from that memory.
    tools = [{"name": "get_order", "description": "d" * 40, "input_schema": {"type": "object"}}]
    body = {"messages": [], "tools": tools}
    first = request_tokens(body)
    assert request_tokens({"messages": [], "tools": json.loads(json.dumps(tools))}) == first  # an equal copy
    tools[0]["description"] = "d" * 400
    assert request_tokens(body) == first + 90
    other = [{"name": "list_invoices", "description": "e" * 40, "input_schema": {"type": "object"}}]
    assert request_tokens({"messages": [], "tools": other}) == first + 1  # one more character in the name
