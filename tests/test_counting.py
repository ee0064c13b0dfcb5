"""Sizing a first request before a live sweep: everything sent plus the tool-use system prompt, or Anthropic's own
count through the SDK's messages.count_tokens (tested through a real local HTTP server), and the fallback."""
from __future__ import annotations

import json
import math

import anthropic
import pytest
from hypothesis import given, strategies as st
from live_api import live  # noqa: F401 (a fixture, used by name)

from atlas_kit.atlas import atlas_session
from atlas_kit.experiments.sweep import run_experiment
from atlas_kit.models import pricing as P
from atlas_kit.models.choose import choose_model
from atlas_kit.models.counting import (CountedRequest, estimate_request, estimate_requests,
                                       size_requests)
from atlas_kit.models.standin.model import OfflineModel
from atlas_kit.types.tokens import request_tokens

MODEL = "claude-sonnet-5-5"


def first(ticket: str = "T01") -> CountedRequest:
    s = atlas_session(ticket)
    return {"system": s.system, "tools": s.dispatcher.definitions(),
            "messages": [{"role": "user", "content": s.ticket.message}]}


def test_the_estimate_counts_the_tools_as_json_and_the_tool_use_system_prompt():
    body = first()
    chars = len(body["system"]) + len(body["messages"][0]["content"]) + len(json.dumps(body["tools"], ensure_ascii=False))
    for model, prompt in (("claude-sonnet-5", 354), ("claude-haiku-4-5", 496), (MODEL, 496)):
        assert P.tool_prompt_tokens(model)[0] == prompt
        assert abs(estimate_request(body, model=model) - (math.ceil(chars / 4) + prompt)) <= 2  # three parts, each rounded up
    old = request_tokens(body)  # the old estimate: text only, no JSON framing, no tool-use system prompt
    assert estimate_request(body, model=MODEL) - old > 496 and old < 1_600 < 2_100 < estimate_request(body, model=MODEL)
    no_tools: CountedRequest = {**body, "tools": []}
    assert estimate_request(no_tools, model=MODEL) == request_tokens(no_tools)  # no tools: no tool-use prompt


def test_a_model_anthropic_publishes_no_figure_for_gets_the_largest_and_says_so():
    assert P.tool_prompt_tokens("claude-sonnet-5") == (354, True)
    assert P.tool_prompt_tokens("claude-nobody-1") == (max(P.TOOL_PROMPT_TOKENS.values()), False)
    assert "Anthropic publishes none for claude-nobody-1" in size_requests([first()], model="claude-nobody-1").how
    assert "published figure for claude-sonnet-5" in size_requests([first()], model="claude-sonnet-5").how


_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=200)


@given(_TEXT, _TEXT, st.lists(st.tuples(st.from_regex(r"[a-z_]{1,20}", fullmatch=True), _TEXT,
                                        st.dictionaries(st.from_regex(r"[a-z]{1,8}", fullmatch=True), _TEXT,
                                                        max_size=4)), max_size=4))
def test_the_estimate_is_never_below_the_old_one_plus_the_tool_use_prompt(system, ticket, tools):
    defs = [{"name": n, "description": d, "input_schema": {"type": "object", "properties": {k: {"description": v}
                                                                                          for k, v in p.items()}}}
            for n, d, p in tools]
    body: CountedRequest = {"system": system, "tools": defs, "messages": [{"role": "user", "content": ticket}]}
    prompt = P.tool_prompt_tokens(MODEL)[0] if defs else 0
    assert estimate_request(body, model=MODEL) >= request_tokens(body) + prompt


def test_one_count_sizes_every_request_by_its_ratio_to_the_estimate():
    a, b = first("T01"), first("T19")
    seen: list[CountedRequest] = []

    def counter(body: CountedRequest) -> int:
        seen.append(body)
        return 3_000

    sizes = size_requests([a, b, a, a, b], model=MODEL, counter=counter)
    longest = max((a, b), key=lambda x: estimate_request(x, model=MODEL))
    assert seen == [longest] and sizes.counted and "counted by Anthropic's messages.count_tokens" in sizes.how
    ratio = 3_000 / estimate_request(longest, model=MODEL)
    assert sizes.tokens == tuple(round(estimate_request(x, model=MODEL) * ratio) for x in (a, b, a, a, b))
    assert max(sizes.tokens) == 3_000


@pytest.mark.parametrize("failure, words", [
    (anthropic.APIConnectionError(request=__import__("httpx").Request("POST", "http://x.invalid")),
     "APIConnectionError"),
    (ValueError("nope"), "ValueError"),
])
def test_a_count_that_fails_falls_back_on_the_estimate_and_says_why(failure, words):
    def counter(body: CountedRequest) -> int:
        raise failure

    sizes = size_requests([first()], model=MODEL, counter=counter)
    assert not sizes.counted and sizes.tokens == (estimate_request(first(), model=MODEL),)
    assert f"messages.count_tokens failed ({words})" in sizes.how and sizes.how.startswith("estimated:")
    odd = size_requests([first()], model=MODEL, counter=lambda body: 0)
    assert not odd.counted and "gave 0" in odd.how


def test_without_a_key_or_for_another_provider_nothing_is_counted(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    # no key: the stand-in answers, and it counts nothing; nor does a local server, whose tokens are never priced
    for spelled in (MODEL, "offline", "ollama:qwen3:4b"):
        choice = choose_model(spelled)
        assert choice.provider.token_counter(choice.model) is None
    est = estimate_requests([first()], model=MODEL, max_cost_usd=0.25, max_tokens=1_024)
    assert est.base_tokens == estimate_request(first(), model=MODEL) and est.sized.startswith("estimated:")
    assert f"first request: {est.base_tokens:,} input tokens, estimated:" in est.describe()


def test_a_live_sweep_counts_its_first_request_once_through_the_api(live, tmp_path, capsys):
    server = live(OfflineModel(seed=0), count_tokens=lambda body: 2_250)
    run_experiment(name="live", model=MODEL, styles=("plain", "contract"), faults=(True,), tickets=("T01",),
                   trials=2, progress=False, out=tmp_path / "r.jsonl")
    out = capsys.readouterr().out
    assert len(server.counted) == 1  # once per sweep, however many episodes
    [body] = server.counted
    assert body["model"] == MODEL and body["tools"] and body["messages"][0]["role"] == "user" and body["system"]
    assert "max_tokens" not in body  # count_tokens takes no max_tokens
    # Both arms send the same first request, so the one count is every episode's.
    assert "  first request: 2,250 input tokens, counted by Anthropic's messages.count_tokens for claude-sonnet-5-5" in out
    assert out.index("Cost estimate: 4 live episodes") < out.index("first request") and len(server.messages) >= 4


def test_a_server_without_count_tokens_gets_the_estimate_and_the_sweep_runs(live, tmp_path, capsys):
    server = live(OfflineModel(seed=0))  # /v1/messages/count_tokens answers 404 here
    run_experiment(name="live", model=MODEL, styles=("contract",), faults=(True,), tickets=("T01",), trials=1,
                   progress=False, out=tmp_path / "r.jsonl")
    out = capsys.readouterr().out
    assert "messages.count_tokens failed (NotFoundError, HTTP 404)" in out and "first request:" in out
    assert [r["path"] for r in server.requests][0].startswith("/v1/messages/count_tokens")
    assert len(server.messages) >= 1 and "sk-ant" not in out
