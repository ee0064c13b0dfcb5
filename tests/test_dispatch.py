from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

import atlas_kit as E
from atlas_kit.dispatch.dispatcher import Dispatcher
from atlas_kit.dispatch.transient import RetryPolicy, Transient
from atlas_kit.dispatch.tool import Tool
from atlas_kit.dispatch.trace import Trace

SCHEMA = {
    "type": "object",
    "properties": {
        "account_id": {"type": "string", "pattern": "^ACC-[0-9]{4}$", "examples": ["ACC-4471"]},
        "limit": {"type": "integer", "minimum": 1, "maximum": 50},
        "format": {"enum": ["concise", "detailed"]},
    },
    "required": ["account_id"],
    "additionalProperties": False,
}


def use(id, name, **args):
    return {"type": "tool_use", "id": id, "name": name, "input": args}


def make(handler, *, side_effect=False, name="lookup", hands_over=False, **kw):
    sleeps: list[float] = []
    kw.setdefault("retry", RetryPolicy(attempts=3, sleep=sleeps.append))
    d = Dispatcher([Tool(name, "Looks up one account by its account_id.", SCHEMA, handler, side_effect=side_effect,
                         hands_over=hands_over)], **kw)
    return d, sleeps


def body(result):
    return json.loads(result["content"])


def ok(args, ctx):
    return {"account_id": args["account_id"], "balance_cents": 0}


def test_success_returns_a_plain_tool_result():
    d, _ = make(ok)
    [r] = d.dispatch([use("t1", "lookup", account_id="ACC-4471")]).results
    assert r == {"type": "tool_result", "tool_use_id": "t1", "content": '{"account_id":"ACC-4471","balance_cents":0}'}


def test_one_result_per_id_in_order_and_non_tool_blocks_skipped():
    d, _ = make(ok)
    content = [{"type": "text", "text": "Let me check."}, use("a", "lookup", account_id="ACC-0001"),
               use("b", "nope"), use("c", "lookup", account_id=7)]
    out = d.dispatch(content)
    assert [r["tool_use_id"] for r in out.results] == ["a", "b", "c"]
    assert [r.get("is_error", False) for r in out.results] == [False, True, True]


def test_sdk_objects_are_accepted_as_blocks():
    d, _ = make(ok)
    block = SimpleNamespace(type="tool_use", id="t9", name="lookup", input={"account_id": "ACC-4471"})
    assert d.dispatch([block]).results[0]["tool_use_id"] == "t9"


def test_duplicate_id_is_answered_once_and_traced():
    d, _ = make(ok)
    out = d.dispatch([use("a", "lookup", account_id="ACC-0001"), use("a", "lookup", account_id="ACC-0002")])
    assert len(out.results) == 1 and d.trace.of_kind("unanswerable_block")


def test_unknown_tool_lists_the_tools_and_selects_retry_changed():
    d, _ = make(ok)
    b = body(d.dispatch([use("t", "delete_everything")]).results[0])
    assert b["error"] == "invalid_argument" and "lookup" in b["message"]
    assert b["next"]["branch"] == "retry_changed"
    assert "delete_everything" not in json.dumps(b)


@pytest.mark.parametrize("args,argument,words", [
    ({}, "account_id", "is required"),
    ({"account_id": 4471}, "account_id", "must be a string"),
    ({"account_id": "4471"}, "account_id", "must look like ACC-4471"),
    ({"account_id": "ACC-4471", "limit": 500}, "limit", "at most 50"),
    ({"account_id": "ACC-4471", "format": "verbose"}, "format", "one of: concise, detailed"),
])
def test_schema_failures_name_the_argument_and_the_fix(args, argument, words):
    d, _ = make(ok)
    b = body(d.dispatch([{"type": "tool_use", "id": "t", "name": "lookup", "input": args}]).results[0])
    assert b["error"] == "invalid_argument" and b["retryable"] is True
    assert words in b["message"] and b["next"]["argument"] == argument


def test_unknown_argument_is_named_by_the_schema_not_echoed():
    d, _ = make(ok)
    b = body(d.dispatch([use("t", "lookup", account_id="ACC-4471", user="drop table")]).results[0])
    assert "accepts only: account_id, format, limit" in b["message"]
    assert "user" not in b["message"] and "drop table" not in json.dumps(b)


def test_handler_failure_becomes_the_contract_and_detail_goes_to_trace():
    def handler(args, ctx):
        raise E.ToolFailure("not_permitted", "That account belongs to another customer.",
                            next=E.stop("Do not try other account IDs."), detail="owner=globex", raw="ORA-01031")
    d, _ = make(handler)
    out = d.dispatch([use("t", "lookup", account_id="ACC-4472")])
    b = body(out.results[0])
    assert b["error"] == "not_permitted" and "owner=globex" not in out.results[0]["content"]
    assert d.trace.of_kind("error")[0]["detail"] == "owner=globex"
    assert out.failures[0].raw == "ORA-01031"


def test_a_crashing_tool_never_raises_and_the_traceback_stays_in_the_trace():
    def handler(args, ctx):
        raise KeyError("customer_id")
    d, _ = make(handler)
    r = d.dispatch([use("t", "lookup", account_id="ACC-4471")]).results[0]
    assert r["is_error"] is True
    assert "Traceback" not in r["content"] and "customer_id" not in r["content"]
    [event] = d.trace.of_kind("error")
    assert "KeyError" in event["detail"] and event["crashed"] is True and event["branch"] == "stop"
    assert body(r)["next"]["branch"] == "stop"


def test_transients_are_retried_by_the_harness_with_backoff():
    calls = []

    def handler(args, ctx):
        calls.append(ctx.attempt)
        if len(calls) < 3:
            raise TimeoutError("read timed out")
        return "done"
    d, sleeps = make(handler)
    r = d.dispatch([use("t", "lookup", account_id="ACC-4471")]).results[0]
    assert r["content"] == "done" and calls == [1, 2, 3] and sleeps == [0.25, 0.5]
    assert len(d.trace.of_kind("transient")) == 2


def test_retry_after_is_honoured_and_a_long_one_gives_up_at_once():
    def limited(args, ctx):
        raise Transient("429 Too Many Requests", retry_after=2.0)
    d, sleeps = make(limited)
    b = body(d.dispatch([use("t", "lookup", account_id="ACC-4471")]).results[0])
    assert sleeps == [2.0, 2.0] and b["error"] == "upstream_unavailable" and b["next"]["branch"] == "stop"

    def very_limited(args, ctx):
        raise Transient("429 Too Many Requests", retry_after=600)
    d, sleeps = make(very_limited)
    assert body(d.dispatch([use("t", "lookup", account_id="ACC-4471")]).results[0])["error"] == "upstream_unavailable"
    assert sleeps == []


def test_side_effect_gets_one_idempotency_key_across_harness_retries():
    applied: dict[str, int] = {}
    keys = []

    def refund(args, ctx):
        keys.append(ctx.idempotency_key)
        applied[ctx.idempotency_key] = 1  # the write lands, then the reply is lost
        if ctx.attempt == 1:
            raise TimeoutError()
        return {"refund": "ok"}
    d, _ = make(refund, side_effect=True, run_id="r7")
    d.dispatch([use("t", "lookup", account_id="ACC-4471")])
    assert keys == ["r7:t", "r7:t"] and len(applied) == 1
    d2, _ = make(ok)
    seen = []
    d2.tools["lookup"].handler = lambda a, c: seen.append(c.idempotency_key) or "x"
    d2.dispatch([use("t", "lookup", account_id="ACC-4471")])
    assert seen == [None]


def test_side_effect_giving_up_says_it_may_not_have_applied():
    def down(args, ctx):
        raise Transient("503 Service Unavailable")
    d, _ = make(down, side_effect=True)
    assert "do not repeat it" in body(d.dispatch([use("t", "lookup", account_id="ACC-4471")]).results[0])["message"]


@pytest.mark.parametrize("side_effect", [True, False])
def test_giving_up_tells_the_customer_only_what_is_true(side_effect):
    # A lost reply may follow an applied change: for a side effect, "could not be done" may be false.
    def lost(args, ctx):
        raise Transient("504 Gateway Timeout")
    d, _ = make(lost, side_effect=side_effect)
    b = body(d.dispatch([use("t", "lookup", account_id="ACC-4471")]).results[0])
    words = (b["message"] + " " + b["next"]["say"]).lower()
    assert ("could not be done" not in words) is side_effect and ("may or may not" in words) is side_effect
    assert "could not confirm whether it went through" in words if side_effect else "could not be done now" in words
    assert "offer to escalate to a person" in words


@pytest.mark.parametrize("side_effect", [True, False])
def test_a_crash_says_the_request_was_not_completed_only_for_a_tool_that_changes_nothing(side_effect):
    def half_done(args, ctx):
        raise RuntimeError("wrote the row, then failed")  # a crash may come after the change
    d, _ = make(half_done, side_effect=side_effect)
    b = body(d.dispatch([use("t", "lookup", account_id="ACC-4471")]).results[0])
    assert ("was not completed" in b["message"]) is not side_effect
    assert ("could not confirm whether it went through" in b["next"]["say"]) is side_effect
    assert E.ErrorCode(b["error"]) is E.ErrorCode.UPSTREAM_UNAVAILABLE and b["next"]["branch"] == "stop"


@pytest.mark.parametrize("side_effect", [True, False])
@pytest.mark.parametrize("failing", ["gives up", "crashes"])
def test_when_the_hand_over_to_a_person_fails_no_person_is_offered(side_effect, failing):
    def down(args, ctx):
        raise Transient("503 Service Unavailable") if failing == "gives up" else RuntimeError("queue lost")
    d, _ = make(down, side_effect=side_effect, name="escalate", hands_over=True)
    b = body(d.dispatch([use("t", "escalate", account_id="ACC-4471")]).results[0])
    say = b["next"]["say"].lower()
    assert "escalat" not in say and "offer" not in say and "write again later" in say
    assert ("could not confirm whether it reached a person" in say) is side_effect
    assert ("could not be passed to a person right now" in say) is not side_effect
    assert b["next"]["branch"] == "stop"


def test_crash_error_without_knowing_the_tool_words_the_outcome_as_unknown():
    from atlas_kit.dispatch.dispatcher import crash_error
    assert "may or may not have been applied" in crash_error("t", ValueError("x")).message
    assert "was not completed" in crash_error("t", ValueError("x"), side_effect=False).message


@pytest.mark.parametrize("failing", ["gives up", "crashes"])
def test_the_dispatchers_own_say_names_its_audience_and_no_company(failing):
    def down(args, ctx):
        raise Transient("503 Service Unavailable") if failing == "gives up" else RuntimeError("queue lost")
    plain, _ = make(down)
    say = body(plain.dispatch([use("t", "lookup", account_id="ACC-4471")]).results[0])["next"]["say"]
    assert "the user" in say and "customer" not in say
    shop, _ = make(down, audience="the shopper")
    assert "tell the shopper" in body(shop.dispatch([use("t", "lookup", account_id="ACC-4471")]).results[0])["next"]["say"].lower()


def test_an_atlas_session_tells_the_customer():
    from atlas_kit.atlas.session import atlas_session
    assert atlas_session("T04").dispatcher.audience == "the customer"


@pytest.mark.parametrize("audience", ["", "  ", None, 3])
def test_an_audience_that_names_no_one_is_refused(audience):
    with pytest.raises(TypeError, match="audience names who the agent answers"):
        Dispatcher([], audience=audience)


def test_repeated_identical_triple_reports_a_loop_break_whatever_the_message():
    n = iter(range(100))

    def handler(args, ctx):
        raise E.ToolFailure("not_found", f"Attempt {next(n)} found nothing.")
    d, _ = make(handler)
    first = d.dispatch([use("a", "lookup", account_id="ACC-4471")])
    assert first.loop_break is None
    other = d.dispatch([use("b", "lookup", account_id="ACC-4472")])
    assert other.loop_break is None
    again = d.dispatch([use("c", "lookup", account_id="ACC-4471")])
    assert again.loop_break is not None and again.loop_break.count == 2 and again.loop_break.error == "not_found"
    assert len(again.results) == 1
    assert d.trace.of_kind("loop_detected")[0]["acted"] is True


def test_argument_order_does_not_hide_a_loop():
    def handler(args, ctx):
        raise E.ToolFailure("not_found", "Nothing.")
    d, _ = make(handler)
    d.dispatch([{"type": "tool_use", "id": "a", "name": "lookup", "input": {"account_id": "ACC-1111", "limit": 2}}])
    out = d.dispatch([{"type": "tool_use", "id": "b", "name": "lookup", "input": {"limit": 2, "account_id": "ACC-1111"}}])
    assert out.loop_break is not None


def test_loop_breaker_off_detects_but_does_not_break():
    def handler(args, ctx):
        raise E.ToolFailure("not_found", "Nothing.")
    d, _ = make(handler, break_loops=False)
    d.dispatch([use("a", "lookup", account_id="ACC-4471")])
    assert d.dispatch([use("b", "lookup", account_id="ACC-4471")]).loop_break is None
    assert d.trace.of_kind("loop_detected")[0]["acted"] is False


def test_style_hook_renders_the_same_failure_differently():
    def raw_style(failure):
        return {"type": "tool_result", "tool_use_id": failure.error.tool_use_id, "is_error": True, "content": failure.raw}

    def handler(args, ctx):
        raise E.ToolFailure("invalid_argument", "Argument account_id must be numeric.", raw="ORA-01722: invalid number")
    d, _ = make(handler, style=raw_style)
    assert d.dispatch([use("t", "lookup", account_id="ACC-4471")]).results[0]["content"] == "ORA-01722: invalid number"


@pytest.mark.parametrize("kwargs,match", [
    ({"input_schema": None}, "input_schema must be a JSON Schema"),
    ({"input_schema": {"type": "object", "properties": {"a": {"type": "nope"}}}}, "not valid JSON Schema"),
    ({"description": "x"}, "write a description"),
    ({"name": "bad name"}, "letters, digits and underscores"),
])
def test_bad_tool_registration_raises_at_once(kwargs, match):
    spec = {"name": "lookup", "description": "Looks up one account by id.", "input_schema": SCHEMA, "handler": ok}
    with pytest.raises(ValueError, match=match):
        Tool(**{**spec, **kwargs})


def test_dispatcher_refuses_duplicate_names_and_non_tools():
    t = Tool("lookup", "Looks up one account by id.", SCHEMA, ok)
    with pytest.raises(ValueError, match="unique"):
        Dispatcher([t, t])
    with pytest.raises(TypeError, match="Wrap the callable"):
        Dispatcher([ok])
    with pytest.raises(ValueError, match="loop_threshold"):
        Dispatcher([t], loop_threshold=1)


def test_trace_is_json_serialisable_and_redacts_keys():
    tr = Trace()
    key = "sk-" + "ant-" + "api03-" + "A" * 20
    tr.add("error", detail=f"auth failed with {key}", nested={"k": [key]})
    text = tr.to_json()
    assert key not in text and "[redacted]" in text
    assert json.loads(text)[0]["kind"] == "error"


def test_raw_text_of_a_schema_failure_is_the_validators_own():
    seen = []
    d, _ = make(ok, style=lambda f: seen.append(f) or f.error.block())
    d.dispatch([use("t", "lookup", account_id="4471")])
    assert seen[0].raw.startswith("jsonschema.exceptions.ValidationError: '4471' does not match")
    assert "4471'" not in seen[0].error.message


@pytest.mark.parametrize("kwargs,match", [({"attempts": 0}, "attempts"), ({"max_delay": -1}, "max_delay")])
def test_retry_policy_refuses_nonsense(kwargs, match):
    with pytest.raises(ValueError, match=match):
        RetryPolicy(**kwargs)
