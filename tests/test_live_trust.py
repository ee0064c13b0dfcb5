"""The live path, played through a real local HTTP server (ANTHROPIC_BASE_URL) and the in-process transport.

Every stop reason the Messages API defines, every malformed body, and every wait: each has one
defined, recorded outcome, a tool runs only on a whole `tool_use` reply, and no wait is unbounded
or silent. No network: the server listens on 127.0.0.1 and the key is fake.
"""
from __future__ import annotations

import asyncio
import json
import re
import sys
import threading
import time

import httpx2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from live_api import live  # noqa: F401 (a fixture, used by name)

from atlas_kit.models import pricing
from atlas_kit.agent import STOP_REASONS, Bounds, Task, arun_agent, run_agent
from atlas_kit.atlas import atlas_session, grade
from atlas_kit.dispatch.dispatcher import Dispatcher
from atlas_kit.dispatch.transient import RetryPolicy
from atlas_kit.dispatch.tool import Tool
from atlas_kit.models.choose import choose_model
from atlas_kit.models.replay import Cassette, recording_client
from atlas_kit.models.api_retry import APIRetry, BoundedRetry
from atlas_kit.models.replies import MAX_CALL_TOKENS
from atlas_kit.models.transport import APIFault, RawAnswer, ScriptedAPI, in_process_client, message_body

MODEL = "claude-sonnet-5-5"
USAGE = {"input_tokens": 100, "output_tokens": 20}
SCHEMA = {"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"],
          "additionalProperties": False}



class Counter:
    """A side-effecting tool that counts how often it really ran."""

    def __init__(self) -> None:
        self.ran: list[dict] = []

    def __call__(self, args, ctx):
        self.ran.append(args)
        return {"order_id": args["order_id"], "cancelled": True}


def task(counter: Counter) -> Task:
    tool = Tool("cancel_order", "Cancels one order by its order_id; this cannot be undone.", SCHEMA, counter,
                side_effect=True)
    return Task("You are a support agent.", "Cancel ORD-1.", Dispatcher([tool], retry=RetryPolicy(sleep=lambda s: None)))


def use(i, order_id="ORD-1", stop="tool_use"):
    return message_body([{"type": "tool_use", "id": f"toolu_{i}", "name": "cancel_order", "input": {"order_id": order_id}}],
                        model=MODEL, stop_reason=stop, usage=USAGE)


def text(words="Order ORD-1 is cancelled.", stop="end_turn"):
    return message_body([{"type": "text", "text": words}], model=MODEL, stop_reason=stop, usage=USAGE)


def raw(body) -> RawAnswer:
    return RawAnswer(200, json.dumps(body).encode())


# --- every stop reason has an outcome of its own ------------------------------------------------------------


def test_a_tool_call_cut_off_at_max_tokens_is_never_run_and_is_asked_again_with_room(live):
    counter = Counter()
    server = live(ScriptedAPI([use(1, "ORD-1", stop="max_tokens"), use(2), text()]))
    choice = choose_model(MODEL)
    run = run_agent(choice.client, task(counter), model=MODEL, source=choice.source)
    assert run.stop_reason == "finished" and counter.ran == [{"order_id": "ORD-1"}]  # once: the whole call only
    assert [r["max_tokens"] for r in server.transport.handler.requests] == [1024, 4096, 4096]
    [retry] = run.trace.of_kind("max_tokens_retry")
    assert retry["unexecuted"] == ["cancel_order"] and run.steps == 3
    assert all(b.get("id") != "toolu_1" for m in run.messages for b in m["content"] if isinstance(b, dict))


def test_cut_off_again_ends_truncated_and_runs_nothing(live):
    counter = Counter()
    live(ScriptedAPI([use(1, stop="max_tokens"), use(2, stop="max_tokens")]))
    run = run_agent(choose_model(MODEL).client, task(counter), model=MODEL)
    assert run.stop_reason == "truncated" and counter.ran == [] and run.steps == 2
    assert run.trace.of_kind("stopped")[0]["unexecuted"] == ["cancel_order"]


def test_with_no_room_to_retry_a_cut_off_reply_is_truncated_at_once(live):
    counter = Counter()
    server = live(ScriptedAPI([use(1, stop="max_tokens")]))
    run = run_agent(choose_model(MODEL).client, task(counter), model=MODEL,
                    bounds=Bounds(max_tokens=512, retry_max_tokens=512))
    assert run.stop_reason == "truncated" and counter.ran == [] and len(server.requests) == 1


@pytest.mark.parametrize("api_stop, ours", [
    ("refusal", "refused"), ("stop_sequence", "stop_sequence"), ("model_context_window_exceeded", "context_exceeded"),
    ("a_stop_reason_from_2030", "unknown_stop"),
])
def test_every_other_stop_reason_ends_the_run_with_its_own_reason_and_runs_no_tool(live, api_stop, ours):
    counter = Counter()
    blocks = [{"type": "text", "text": "I will cancel it."}]
    if api_stop != "stop_sequence":  # a tool call in a reply that did not stop on tool_use is never run
        blocks.append({"type": "tool_use", "id": "toolu_1", "name": "cancel_order", "input": {"order_id": "ORD-1"}})
    body = {"id": "msg_1", "type": "message", "role": "assistant", "model": MODEL, "content": blocks,
            "stop_reason": api_stop, "stop_sequence": None, "usage": USAGE}
    live(ScriptedAPI([raw(body)]))
    run = run_agent(choose_model(MODEL).client, task(counter), model=MODEL)
    assert run.stop_reason == ours and counter.ran == [] and run.api_stop_reason == api_stop
    assert run.final_text == "I will cancel it." and run.trace.of_kind("stopped")[0]["model_stop_reason"] == api_stop


def test_a_refusal_is_never_graded_as_a_finished_answer(live):
    session = atlas_session("T01", seed=0)
    refusal = message_body([{"type": "text", "text": "Account ACC-4471 owes $400.49 on INV-20412 and INV-20413."}],
                           model=MODEL, stop_reason="refusal", usage=USAGE)
    live(ScriptedAPI([refusal]))
    run = run_agent(choose_model(MODEL).client, session, model=MODEL)
    g = grade(run)
    assert run.stop_reason == "refused" and not g.correct
    assert any("refused" in reason for reason in g.reasons)


def test_pause_turn_sends_the_paused_turn_back_and_continues_within_the_step_bound(live):
    paused = message_body([{"type": "text", "text": "Looking that up..."}], model=MODEL, stop_reason="pause_turn",
                          usage=USAGE)
    server = live(ScriptedAPI([paused, text()]))
    run = run_agent(choose_model(MODEL).client, task(Counter()), model=MODEL)
    assert run.stop_reason == "finished" and run.steps == 2
    second = server.transport.handler.requests[1]["messages"]
    assert second[-1] == {"role": "assistant", "content": [{"type": "text", "text": "Looking that up..."}]}
    live(ScriptedAPI([paused] * 3))
    stuck = run_agent(choose_model(MODEL).client, task(Counter()), model=MODEL, bounds=Bounds(max_steps=3))
    assert stuck.stop_reason == "paused" and stuck.steps == 3


# --- no response body can make run_agent raise ----------------------------------------------------------------


def _base(**change):
    body = {"id": "msg_1", "type": "message", "role": "assistant", "model": MODEL, "stop_reason": "end_turn",
            "stop_sequence": None, "content": [{"type": "text", "text": "Done."}], "usage": dict(USAGE)}
    body.update(change)
    return {k: v for k, v in body.items() if v is not _DROP}


_DROP = object()
TWO_USES = [{"type": "tool_use", "id": "toolu_1", "name": "cancel_order", "input": {"order_id": "ORD-1"}},
            {"type": "tool_use", "id": "toolu_1", "name": "cancel_order", "input": {"order_id": "ORD-2"}}]


@pytest.mark.parametrize("body, why", [
    (_base(usage=_DROP), "usage is missing"),
    (_base(content="Done."), "content is str"),
    (_base(content=[{"type": "text"}]), "text block without text"),
    (_base(content=[{"type": "tool_use", "name": "cancel_order", "input": {}}], stop_reason="tool_use"),
     "tool_use without a string id"),
    (_base(content=TWO_USES, stop_reason="tool_use"), "is used twice"),
    (_base(usage={"input_tokens": -5, "output_tokens": 3}), "not whole numbers of 0 or more"),
    (_base(usage={"input_tokens": True, "output_tokens": 3}), "not whole numbers of 0 or more"),
    (_base(usage={"input_tokens": 10**30, "output_tokens": 3}), "more than any model's context window holds"),
    (_base(usage={"input_tokens": MAX_CALL_TOKENS, "output_tokens": 1}), "more than any model's context window holds"),
    (_base(stop_reason=5), "stop_reason is a int"),
    (_base(stop_reason="tool_use"), "stop_reason tool_use with no tool_use block"),
    (_base(content=TWO_USES[:1]), "tool_use blocks in a reply that stopped on end_turn"),
    (_base(content=TWO_USES[:1], stop_reason="pause_turn"), "tool_use blocks in a reply that stopped on pause_turn"),
    ({"type": "error", "error": {"type": "api_error", "message": "oops"}}, "type 'error'"),
    ([1, 2, 3], "a list"),
    ("just text", "a str"),
])
def test_a_body_that_is_not_a_message_is_an_api_failure_with_its_reason(body, why):
    counter = Counter()
    run = run_agent(in_process_client(ScriptedAPI([raw(body)]), max_retries=0), task(counter), model=MODEL)
    assert run.stop_reason == "api_failure" and run.api_failure.reason == "bad_body" and counter.ran == []
    assert why in run.api_failure.message and why in run.trace.of_kind("api_failure")[0]["message"]
    assert (run.input_tokens, run.cost_usd) == (0, 0.0)  # a body that is not a message is not counted


def test_absurd_usage_from_a_live_server_is_the_apis_failure_and_costs_nothing(live):
    # 10^30 tokens would price at about $2 x 10^24; a sane count at the bound itself is still accepted.
    live(ScriptedAPI([raw(_base(usage={"input_tokens": 10**30, "output_tokens": 10**30}))]))
    run = run_agent(choose_model(MODEL).client, task(Counter()), model=MODEL)
    assert run.stop_reason == "api_failure" and run.api_failure.reason == "bad_body" and run.cost_usd == 0.0
    assert "10,000,000: replies.MAX_CALL_TOKENS" in run.api_failure.message
    live(ScriptedAPI([raw(_base(usage={"input_tokens": MAX_CALL_TOKENS - 1, "output_tokens": 1}))]))
    run = run_agent(choose_model(MODEL).client, task(Counter()), model=MODEL)
    assert run.stop_reason == "finished" and run.input_tokens == MAX_CALL_TOKENS - 1


def test_a_reply_with_no_stop_reason_or_null_content_is_an_unknown_stop_and_runs_nothing():
    # Ollama leaves stop_reason out when its model ended for no reason it names, and sends "content": null for a
    # reply with no blocks: the run ends as unknown_stop (the model's odd end, recorded), and no tool runs.
    for body in (_base(stop_reason=None), _base(stop_reason=None, content=TWO_USES[:1]), _base(content=None)):
        counter = Counter()
        run = run_agent(in_process_client(ScriptedAPI([raw(body)]), max_retries=0), task(counter), model=MODEL)
        if body["content"] is None:
            assert run.stop_reason == "finished" and run.final_text == "" and counter.ran == []
        else:
            assert run.stop_reason == "unknown_stop" and counter.ran == [], body
            assert run.trace.of_kind("stopped")[0]["model_stop_reason"] == ""


def test_a_tool_use_id_reused_from_an_earlier_turn_is_refused_before_anything_runs():
    counter = Counter()
    api = ScriptedAPI([use(1, "ORD-1"), use(1, "ORD-2")])
    run = run_agent(in_process_client(api, max_retries=0), task(counter), model=MODEL)
    assert counter.ran == [{"order_id": "ORD-1"}] and run.stop_reason == "api_failure"
    assert "used twice" in run.api_failure.message


def test_empty_content_on_end_turn_is_the_models_empty_answer_not_an_api_failure():
    run = run_agent(in_process_client(ScriptedAPI([raw(_base(content=[]))]), max_retries=0), task(Counter()), model=MODEL)
    assert run.stop_reason == "finished" and run.final_text == "" and run.api_failure is None


def test_unknown_block_types_are_kept_in_the_transcript_and_never_run():
    body = _base(content=[{"type": "thinking", "thinking": "hmm", "signature": "abc"}, {"type": "text", "text": "Done."}])
    run = run_agent(in_process_client(ScriptedAPI([raw(body)]), max_retries=0), task(Counter()), model=MODEL)
    assert run.stop_reason == "finished" and run.messages[-1]["content"][0]["type"] == "thinking"


JSON = st.recursive(st.none() | st.booleans() | st.integers(-10, 10**6) | st.floats(allow_nan=False) | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
                    max_leaves=8)
STOPS = ["end_turn", "tool_use", "max_tokens", "stop_sequence", "pause_turn", "refusal",
         "model_context_window_exceeded", "a_new_reason"]
FIELDS = ["type", "role", "stop_reason", "content", "usage", "usage.input_tokens", "usage.output_tokens", "block",
          "block.type", "block.id", "block.name", "block.input", "block.text", "drop"]


@st.composite
def replies(draw):
    """A well-formed reply (any stop reason, text and tool_use blocks), then 0 to 2 fields broken at random."""
    blocks = []
    for _ in range(draw(st.integers(0, 3))):
        if draw(st.booleans()):
            blocks.append({"type": "tool_use", "id": f"toolu_{draw(st.integers(1, 4))}", "name": "cancel_order",
                           "input": {"order_id": "ORD-1"}})
        else:
            blocks.append({"type": "text", "text": draw(st.text(max_size=20))})
    calls = any(b["type"] == "tool_use" for b in blocks)
    stop = "tool_use" if calls and draw(st.booleans()) else draw(st.sampled_from(STOPS))
    body = {"id": "msg_1", "type": "message", "role": "assistant", "model": MODEL, "stop_reason": stop, "content": blocks,
            "usage": {"input_tokens": draw(st.integers(0, 500)), "output_tokens": draw(st.integers(0, 500))}}
    for _ in range(draw(st.sampled_from([0, 0, 1, 2]))):
        where, value = draw(st.sampled_from(FIELDS)), draw(JSON)
        if where == "drop":
            body.pop(draw(st.sampled_from(["type", "stop_reason", "content", "usage"])), None)
        elif where.startswith("usage.") and isinstance(body.get("usage"), dict):
            body["usage"][where[6:]] = value
        elif where.startswith("block") and isinstance(body.get("content"), list) and body["content"]:
            block = body["content"][draw(st.integers(0, len(body["content"]) - 1))]
            if where == "block":
                body["content"][body["content"].index(block)] = value
            elif isinstance(block, dict):
                block[where[6:]] = value
        elif "." not in where and where != "block":
            body[where] = value
    return body


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bodies=st.lists(st.one_of(replies(), replies(), replies(), JSON), min_size=1, max_size=3))
def test_no_response_body_makes_run_agent_raise(bodies):
    counter = Counter()
    answers = [raw(b) for b in bodies] + [text()]
    run = run_agent(in_process_client(ScriptedAPI(answers), max_retries=0), task(counter), model=MODEL,
                    bounds=Bounds(max_steps=len(answers)))
    assert run.stop_reason in STOP_REASONS
    # a tool ran only on a reply that stopped on tool_use, for a whole, well-formed call in it
    calls = sum(1 for b in bodies if isinstance(b, dict) and b.get("stop_reason") == "tool_use"
                and isinstance(b.get("content"), list)
                for block in b["content"] if isinstance(block, dict) and block.get("type") == "tool_use")
    assert len(counter.ran) <= calls
    assert all(args == {"order_id": "ORD-1"} for args in counter.ran)
    assert (run.api_failure is not None) == (run.stop_reason == "api_failure")


# --- bounded waiting -------------------------------------------------------------------------------------------


def test_a_120_second_retry_after_is_not_waited_for_and_says_so(live, capsys):
    server = live(ScriptedAPI([APIFault(429, "rate limited", headers={"retry-after": "120"})]))
    start = time.monotonic()
    run = run_agent(choose_model(MODEL).client, task(Counter()), model=MODEL)
    waited = time.monotonic() - start
    assert waited < 5 and len(server.requests) == 1  # the SDK's defaults would hold this call for 240 s
    assert run.stop_reason == "api_failure" and run.api_failure.reason == "rate_limit"
    assert "asked to wait 120 s, more than the 30 s cap" in run.api_failure.message
    err = capsys.readouterr().err
    assert "note: API call failed with HTTP 429; not retrying: the API asked to wait 120 s" in err


def test_a_short_retry_after_is_waited_for_and_a_long_wait_is_announced(live, capsys):
    server = live(ScriptedAPI([APIFault(429, "slow down", headers={"retry-after-ms": "300"}), text()]))
    choice = choose_model(MODEL, retry=APIRetry(show_after=0.1))
    start = time.monotonic()
    run = run_agent(choice.client, task(Counter()), model=MODEL)
    assert run.stop_reason == "finished" and len(server.requests) == 2
    assert time.monotonic() - start >= 0.3
    assert "note: API answered HTTP 429; waiting 0.3 s before retry 1." in capsys.readouterr().err


def test_the_waits_of_one_call_have_a_total(live):
    server = live(ScriptedAPI([APIFault(529, "busy", headers={"retry-after-ms": "150"})] * 3))
    retry = APIRetry(max_retries=5, total_wait=0.2, show_after=60)
    run = run_agent(choose_model(MODEL, retry=retry).client, task(Counter()), model=MODEL)
    assert len(server.requests) == 2 and run.api_failure.reason == "overloaded"
    assert "waiting 0.1 s more would pass the 0.2 s total" in run.api_failure.message


def test_a_server_that_is_too_slow_times_out_within_the_bound(live):
    def slow(body):
        time.sleep(1.5)
        return text()

    live(slow)
    start = time.monotonic()
    run = run_agent(choose_model(MODEL, retry=APIRetry(timeout=0.3, max_retries=0)).client, task(Counter()), model=MODEL)
    assert run.api_failure.reason == "timeout" and time.monotonic() - start < 1.4


class Stderr:
    """sys.stderr for a test: keeps what is written, and sets `seen` once a call still waiting has been announced."""

    def __init__(self) -> None:
        self.text, self.seen = "", threading.Event()

    def write(self, text: str) -> int:
        self.text += text
        if "still waiting" in self.text:
            self.seen.set()
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False


def test_a_call_the_api_is_slow_to_answer_is_announced_while_it_waits(live, monkeypatch):
    err = Stderr()
    monkeypatch.setattr(sys, "stderr", err)

    def hung(body):  # answers only once the wait was announced: the note came while the call waited, not after
        if not err.seen.wait(20):
            raise APIFault(500, "the test's server gave up: no note came")
        return text()

    live(hung)
    run = run_agent(choose_model(MODEL, retry=APIRetry(note_after=0.2)).client, task(Counter()), model=MODEL)
    assert run.stop_reason == "finished"
    assert re.search(r"note: API call still waiting after [\d.]+ s \(attempt 1\); an attempt that hears nothing for "
                     r"120 s fails as a timeout \(APIRetry\.timeout\)\.", err.text), err.text
    assert err.text.rstrip().splitlines()[-1].startswith("note: API answered after ")


def test_a_hung_api_is_announced_and_still_ends_at_the_timeout(live, monkeypatch):
    err, release = Stderr(), threading.Event()
    monkeypatch.setattr(sys, "stderr", err)

    def hung(body):  # never answers: once the client has given up, the connection is dropped
        release.wait(20)
        raise httpx2.RemoteProtocolError("the client gave up")

    live(hung)
    try:
        run = run_agent(choose_model(MODEL, retry=APIRetry(timeout=1.0, note_after=0.2, max_retries=0)).client,
                        task(Counter()), model=MODEL)
    finally:
        release.set()
    assert run.api_failure.reason == "timeout" and err.seen.is_set()
    assert "answered after" not in err.text  # it never was


def test_one_watchdog_announces_every_sync_call_still_waiting_and_nothing_once_they_ended():
    from atlas_kit.models.api_watch import Watch

    heard, both = [], threading.Event()

    def listener(notice):
        heard.append(notice)
        if {n.attempt for n in heard if not n.answered} == {1, 2}:
            both.set()

    with Watch(0.05, 10.0, 1, listener), Watch(0.05, 10.0, 2, listener):
        assert both.wait(10)  # two calls in flight at once, each announced by the one thread
    ended = len(heard)
    assert [n.answered for n in heard[-2:]] == [True, True] and {n.attempt for n in heard[-2:]} == {1, 2}
    time.sleep(0.2)  # four more periods: a watch that ended is never announced again
    assert len(heard) == ended
    with Watch(10.0, 10.0, 3, listener):  # the timeout comes first: nothing to watch
        pass
    assert len(heard) == ended


def test_a_live_sweep_shows_a_call_still_waiting_on_its_progress_bar(live, monkeypatch):
    from atlas_kit.experiments.sweep import sweep
    from atlas_kit.models.provider import Provider
    from atlas_kit.models.standin.model import OfflineModel

    err, stand_in = Stderr(), OfflineModel(seed=0)
    monkeypatch.setattr(sys, "stderr", err)  # where the bar is drawn

    def first_hangs(body):
        if len(body["messages"]) == 1 and not err.seen.wait(20):
            raise APIFault(500, "the test's server gave up: the bar showed no wait")
        return stand_in(body)

    live(first_hangs)
    monkeypatch.setattr(Provider, "default_retry", APIRetry(note_after=0.2))  # the live default, announcing sooner
    result = sweep(name="hung", model=MODEL, styles=("contract",), faults=(True,), tickets=("T01",), trials=1)
    assert [r["stop_reason"] for r in result.records] == ["finished"]
    bar = [line for line in re.split(r"[\r\n]", err.text) if "still waiting" in line]
    assert bar and "spent $" in bar[0] and "· API call still waiting after" in bar[0]
    assert "note: API call still waiting" not in err.text  # on the bar, not as a note


def test_a_dropped_connection_is_retried_then_reported_as_a_connection_failure(live):
    server = live(ScriptedAPI([httpx2.RemoteProtocolError("reset")] * 2 + [text()]))
    run = run_agent(choose_model(MODEL, retry=APIRetry(base_delay=0.01)).client, task(Counter()), model=MODEL)
    assert run.stop_reason == "finished" and len(server.requests) == 3
    server = live(ScriptedAPI([httpx2.RemoteProtocolError("reset")] * 3))
    run = run_agent(choose_model(MODEL, retry=APIRetry(base_delay=0.01)).client, task(Counter()), model=MODEL)
    assert run.api_failure.reason == "connection" and len(server.requests) == 3


def test_the_recording_client_caps_its_waits_too(live):
    server = live(ScriptedAPI([APIFault(429, "later", headers={"retry-after": "120"})]))
    tape = Cassette(model=MODEL)
    start = time.monotonic()
    run = run_agent(recording_client(tape), task(Counter()), model=MODEL)
    assert time.monotonic() - start < 5 and len(server.requests) == 1
    assert run.api_failure.reason == "rate_limit" and tape.entries == []


def test_the_async_live_client_has_the_same_bounds(live):
    live(ScriptedAPI([APIFault(429, "later", headers={"retry-after": "120"})]))
    start = time.monotonic()
    run = asyncio.run(arun_agent(choose_model(MODEL).async_client(), task(Counter()), model=MODEL))
    assert run.api_failure.reason == "rate_limit" and time.monotonic() - start < 5


def test_the_retry_policy_decides_each_wait():
    policy = APIRetry()
    assert policy.delay(1, 12.0, 0.0) == (12.0, "")
    assert policy.delay(1, 31.0, 0.0)[0] is None and policy.delay(3, None, 0.0)[0] is None
    assert policy.delay(2, 25.0, 40.0)[0] is None  # 40 s waited already: 25 more passes the 60 s total
    assert [policy.delay(n, None, 0.0)[0] for n in (1, 2)] == [0.5, 1.0]


def test_the_middleware_sleeps_what_the_policy_decides_and_no_more():
    slept: list[float] = []
    api = ScriptedAPI([APIFault(503, "busy", headers={"retry-after": "7"}), APIFault(503, "busy"), text()])
    client = in_process_client(api, max_retries=0).with_options(
        middleware=[BoundedRetry(APIRetry(show_after=60), sleep=slept.append)])
    run = run_agent(client, task(Counter()), model=MODEL)
    assert run.stop_reason == "finished" and slept == [7.0, 1.0]  # the retry-after, then the 2nd backoff step


@pytest.mark.parametrize("options", [{"max_retries": True}, {"max_retries": 1.5}, {"retry_after_cap": float("nan")},
                                     {"total_wait": -1}, {"timeout": 0}, {"timeout": float("inf")}])
def test_retry_options_refuse_nonsense(options):
    with pytest.raises(ValueError, match="APIRetry"):
        APIRetry(**options)


def test_the_no_price_note_is_given_once_per_process(live):
    model = "claude-unlisted-test-model"
    pricing._NOTED.discard(model)
    live(ScriptedAPI([text(), text()]))
    client = choose_model(model).client
    first, second = (run_agent(client, task(Counter()), model=model) for _ in range(2))
    assert any("No price is listed for claude-unlisted-test-model" in n for n in first.notes)
    assert second.notes == []


# --- a tool_use whose input is not an object ------------------------------------------------------------------


class StrictAPI:
    """The Messages API's rule for what a request may carry back: a tool_use block's `input` is an object (the
    SDK's ToolUseBlockParam types it `Dict[str, object]`); a request that breaks it is refused with a 400."""

    def __init__(self, answers) -> None:
        self.script = ScriptedAPI(answers)

    def __call__(self, body):
        for i, message in enumerate(body["messages"]):
            for j, block in enumerate(message["content"] if isinstance(message["content"], list) else []):
                if block.get("type") == "tool_use" and not isinstance(block.get("input"), dict):
                    raise APIFault(400, f"messages.{i}.content.{j}.tool_use.input: Input should be a valid dictionary")
        return self.script(body)


def test_a_string_tool_input_is_answered_invalid_argument_and_goes_back_as_an_object_the_api_accepts(live):
    counter = Counter()
    string_input = message_body([{"type": "tool_use", "id": "toolu_s", "name": "cancel_order", "input": "ORD-1"}],
                                model=MODEL, stop_reason="tool_use", usage=USAGE)
    api = StrictAPI([string_input, use(2), text()])
    server = live(api)
    run = run_agent(choose_model(MODEL).client, task(counter), model=MODEL)
    assert run.stop_reason == "finished" and run.api_failure is None and len(server.messages) == 3
    assert counter.ran == [{"order_id": "ORD-1"}]  # only the corrected call ran
    sent_back = api.script.requests[1]["messages"][1]["content"][0]
    assert sent_back == {"type": "tool_use", "id": "toolu_s", "name": "cancel_order", "input": {}}
    answered = api.script.requests[1]["messages"][2]["content"][0]
    assert answered["tool_use_id"] == "toolu_s" and json.loads(answered["content"])["error"] == "invalid_argument"
    assert run.trace.of_kind("call")[0]["args"] == '"ORD-1"'  # the call as the model wrote it stays in the trace
