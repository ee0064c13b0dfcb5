"""The agent loop over the real SDK, with a transport that plays the API (no network, no sleeps)."""
from __future__ import annotations

import asyncio
import json

import httpx2
import pytest

from atlas_kit.models.standin.model import STANDIN_SOURCE
import atlas_kit as E
from atlas_kit.agent import Bounds, Task, arun_agent, run_agent
from atlas_kit.dispatch.dispatcher import Dispatcher
from atlas_kit.dispatch.transient import RetryPolicy
from atlas_kit.dispatch.tool import Tool
from atlas_kit.models.transport import APIFault, RawAnswer, ScriptedAPI, in_process_async_client, in_process_client
from atlas_kit.models.body import message_body

MODEL = "claude-sonnet-5-5"
SCHEMA = {"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"],
          "additionalProperties": False}


def _lookup(args, ctx):
    if args["order_id"] == "ORD-404":
        raise E.ToolFailure("not_found", "No order has that order_id.", next=E.stop("Tell the customer."))
    return {"order_id": args["order_id"], "status": "shipped"}


def task(**kw):
    tool = Tool("get_order", "Looks up one order by its order_id.", SCHEMA, _lookup)
    return Task("You are a support agent.", "Where is ORD-1?",
                Dispatcher([tool], retry=RetryPolicy(sleep=lambda s: None), **kw))


def tool_use(i, order_id):
    return message_body([{"type": "tool_use", "id": f"toolu_{i}", "name": "get_order", "input": {"order_id": order_id}}],
                        model=MODEL, stop_reason="tool_use", usage={"input_tokens": 100, "output_tokens": 20})


def final(text="Your order ORD-1 has shipped."):
    return message_body([{"type": "text", "text": text}], model=MODEL, stop_reason="end_turn",
                        usage={"input_tokens": 150, "output_tokens": 10})


def test_a_normal_run_finishes_with_every_result_returned():
    api = ScriptedAPI([tool_use(1, "ORD-1"), final()])
    run = run_agent(in_process_client(api, max_retries=0), task(), model=MODEL)
    assert run.stop_reason == "finished" and run.final_text == "Your order ORD-1 has shipped."
    assert run.steps == 2 and run.tool_calls == 1
    assert (run.input_tokens, run.output_tokens) == (250, 30)
    assert run.cost_usd == pytest.approx((250 * 2 + 30 * 10) / 1e6)
    # the second request re-sent the tool_result for the issued id
    second = api.requests[1]["messages"]
    assert second[-1]["content"][0]["tool_use_id"] == "toolu_1"
    assert second[-2]["content"][0]["type"] == "tool_use"


def test_loop_break_stops_and_escalates():
    api = ScriptedAPI([tool_use(1, "ORD-404"), tool_use(2, "ORD-404"), final()])
    run = run_agent(in_process_client(api, max_retries=0), task(), model=MODEL)
    assert run.stop_reason == "loop_broken" and run.steps == 2 and api.remaining == 1
    assert run.trace.of_kind("escalated") and "colleague" in run.final_text
    assert run.messages[-1]["content"][0]["tool_use_id"] == "toolu_2"


def test_step_bound_is_never_exceeded():
    api = ScriptedAPI([tool_use(i, f"ORD-{i}") for i in range(10)])
    run = run_agent(in_process_client(api, max_retries=0), task(), model=MODEL, bounds=Bounds(max_steps=3))
    assert run.stop_reason == "step_limit" and run.steps == 3 and len(api.requests) == 3


def test_cost_bound_stops_before_the_next_request():
    api = ScriptedAPI([tool_use(i, f"ORD-{i}") for i in range(10)])
    run = run_agent(in_process_client(api, max_retries=0), task(), model=MODEL,
                    bounds=Bounds(max_cost_usd=0.0005))
    assert run.stop_reason == "cost_limit" and len(api.requests) == 2
    assert run.cost_usd >= 0.0005


def test_rate_limit_with_retry_after_is_retried_by_the_sdk():
    api = ScriptedAPI([APIFault(429, "slow down", headers={"retry-after-ms": "1"}), final()])
    run = run_agent(in_process_client(api, max_retries=2), task(), model=MODEL)
    assert run.stop_reason == "finished" and len(api.requests) == 2


@pytest.mark.parametrize("answer,error", [
    (APIFault(429, "slow down", headers={"retry-after-ms": "1"}), "RateLimitError"),
    (APIFault(529, "overloaded"), "OverloadedError"),
    (APIFault(500, "oops"), "InternalServerError"),
    (httpx2.ReadTimeout("timed out"), "APITimeoutError"),
    (httpx2.RemoteProtocolError("connection reset"), "APIConnectionError"),
    (RawAnswer(200, b"{not json"), "JSONDecodeError"),
    (RawAnswer(200, b"<html>ok</html>", {"content-type": "text/html"}), "str"),
])
def test_api_failures_end_in_a_recorded_stop_reason(answer, error):
    api = ScriptedAPI([answer])
    run = run_agent(in_process_client(api, max_retries=0), task(), model=MODEL)
    assert run.stop_reason == "api_failure"
    [event] = run.trace.of_kind("api_failure")
    assert event["error"] == error
    assert run.final_text == ""


def test_async_twin_gives_the_same_transcript():
    answers = [tool_use(1, "ORD-1"), final()]
    sync = run_agent(in_process_client(ScriptedAPI(list(answers)), max_retries=0), task(), model=MODEL)
    run = asyncio.run(arun_agent(in_process_async_client(ScriptedAPI(list(answers)), max_retries=0), task(), model=MODEL))
    assert run.messages == sync.messages and run.stop_reason == sync.stop_reason == "finished"


def test_rendering_shows_errors_and_stop_reason_and_no_key():
    api = ScriptedAPI([tool_use(1, "ORD-404"), final("Sorry, that order does not exist.")])
    run = run_agent(in_process_client(api, max_retries=0), task(), model=MODEL, source=STANDIN_SOURCE)
    html, text = run._repr_html_(), str(run)
    assert "tool error" in html and "#c62828" in html and "stop: finished" in html
    assert "!!  tool error" in text and "not_found" in text
    assert "in-process-no-key" not in html + text + json.dumps(run.trace.events)


def test_bounds_refuse_nonsense():
    with pytest.raises(ValueError, match="max_steps"):
        Bounds(max_steps=0)
    with pytest.raises(ValueError, match="max_cost_usd"):
        Bounds(max_cost_usd=0)


def test_unknown_task_shape_is_refused_clearly():
    with pytest.raises(TypeError, match="needs a Task, or an object with a system prompt, a message and a dispatcher"):
        run_agent(in_process_client(ScriptedAPI([])), object(), model=MODEL)
