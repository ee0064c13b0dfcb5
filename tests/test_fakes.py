"""The fake Ollama and llama-server (tests/fakes/), driven through the real anthropic SDK over TCP: each quirk
QUIRKS.md lists is asserted here, and the plumbing (start, stop, record) that other tests rely on."""
from __future__ import annotations

import json
import re
import socket
import threading
import weakref
from typing import Any, Iterator

import anthropic
import httpx2
import pytest
from anthropic.types import Message, MessageParam, TextBlock, ToolParam
from fakes import (BrainReply, EngineStop, LlamaCppFake, OllamaFake, OllamaModel, Scripted, empty_stop, fixed,
                   thinking_first, tool_call)
from fakes._golike import estimate_tokens
from fakes._ollama_wire import from_request, view
from hypothesis import given, settings
from hypothesis import strategies as st

ASK: list[MessageParam] = [{"role": "user", "content": "Where is order 4921?"}]
TOOL: ToolParam = {
    "name": "get_order", "description": "Look up an order.",
    "input_schema": {"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"],
                     "additionalProperties": False}}
# An assistant call, then a failed result the client marks is_error, then the user's next words.
FAILED_TURN: list[MessageParam] = [
    {"role": "user", "content": "Where is order 4921?"},
    {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "get_order",
                                       "input": {"order_id": "4921"}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "is_error": True,
                                  "content": [{"type": "text", "text": "order_not_found: "},
                                              {"type": "text", "text": "no order 4921"}]},
                                 {"type": "text", "text": "Try again."}]},
]


# Plain http:// to 127.0.0.1 needs no TLS context, and building the default one costs ~30 ms a client.
HTTP = httpx2.Client(timeout=5, verify=False)
_clients: weakref.WeakKeyDictionary[Any, anthropic.Anthropic] = weakref.WeakKeyDictionary()


def sdk(fake: Any, **options: Any) -> anthropic.Anthropic:
    options.setdefault("api_key", "local-no-key")
    return anthropic.Anthropic(base_url=fake.base_url, max_retries=0, http_client=httpx2.Client(verify=False),
                               **options)


def client(fake: Any) -> anthropic.Anthropic:
    """One SDK client per fake, so its requests share a keep-alive connection as a real client's do."""
    if fake not in _clients:
        _clients[fake] = sdk(fake)
    return _clients[fake]


def ask(fake: Any, messages: Any = None, **params: Any) -> Any:
    """A create() with the defaults filled in; the message it returns is read attribute by attribute."""
    params.setdefault("model", "qwen3:4b")
    params.setdefault("max_tokens", 200)
    return client(fake).messages.create(messages=messages or ASK, **params)


def text_of(message: Message) -> str:
    block = message.content[0]
    assert isinstance(block, TextBlock), block
    return block.text


def body_of(error: anthropic.APIStatusError) -> Any:
    """The error body the server sent (the SDK types it as object)."""
    return error.body


@pytest.fixture
def ollama() -> Iterator[OllamaFake]:
    with OllamaFake(brain=fixed("Order 4921 shipped.", "It is on its way.")) as fake:
        yield fake


# --- Ollama: request conversion ---------------------------------------------------------------------


def test_ollama_drops_is_error_and_keeps_only_the_text_of_a_tool_result() -> None:
    brain = fixed("Sorry.")
    with OllamaFake(brain=brain) as fake:
        ask(fake, FAILED_TURN, tools=[TOOL])
    user = brain.seen[0]["messages"][-1]
    assert user["role"] == "user"
    result, text = user["content"]  # the tool result comes first, the user's own words after it
    assert result == {"type": "tool_result", "tool_use_id": "toolu_1", "content": "order_not_found: no order 4921"}
    assert text == {"type": "text", "text": "Try again."}
    assert "is_error" not in json.dumps(brain.seen[0])


def test_ollama_joins_text_blocks_with_nothing_between() -> None:
    brain = fixed("ok")
    with OllamaFake(brain=brain) as fake:
        ask(fake, [{"role": "user", "content": [{"type": "text", "text": "First."},
                                                {"type": "text", "text": "Second."}]}],
            system=[{"type": "text", "text": "Be brief."}, {"type": "text", "text": "Be kind."}])
    assert brain.seen[0]["messages"][0]["content"] == [{"type": "text", "text": "First.Second."}]
    assert brain.seen[0]["system"] == "Be brief.Be kind."


def test_ollama_cuts_a_tool_schema_to_its_parameter_fields() -> None:
    brain = fixed("ok")
    with OllamaFake(brain=brain) as fake:
        ask(fake, tools=[TOOL])
    schema = brain.seen[0]["tools"][0]["input_schema"]
    assert "additionalProperties" not in schema
    assert schema["required"] == ["order_id"] and "order_id" in schema["properties"]


@given(texts=st.lists(st.text(max_size=20), min_size=1, max_size=5), flag=st.booleans())
@settings(max_examples=60, deadline=None)
def test_ollama_conversion_rule_holds_for_every_text(texts: list[str], flag: bool) -> None:
    body = {"model": "m", "max_tokens": 5, "messages": [
        {"role": "user", "content": [{"type": "text", "text": t} for t in texts]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "f", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "is_error": flag,
                                      "content": "".join(texts) or "x"}]}]}
    msgs, tools, _ = from_request(body)
    seen = view(msgs, tools, body)
    joined = "".join(texts)
    first = seen["messages"][0]  # a user turn with no text left is no turn at all
    assert (first["role"], first["content"]) == (("user", [{"type": "text", "text": joined}]) if joined else
                                                 ("assistant", [{"type": "tool_use", "id": "c1", "name": "f",
                                                                 "input": {}}]))
    assert all("is_error" not in block for m in seen["messages"] for block in m["content"])


# --- Ollama: responses ------------------------------------------------------------------------------


def test_ollama_message_and_tool_use_ids_have_ollamas_formats() -> None:
    with OllamaFake(brain=tool_call("get_order", {"order_id": "4921"}, text="Looking.")) as fake:
        message = ask(fake, tools=[TOOL])
    assert re.fullmatch(r"msg_[0-9a-f]{24}", message.id)
    assert message.stop_reason == "tool_use"
    text, use = message.content
    assert text.text == "Looking."
    assert re.fullmatch(r"call_[a-z0-9]{8}", use.id)
    assert use.input == {"order_id": "4921"}


@pytest.mark.parametrize("stop, expected", [("eos", "end_turn"), ("stop_word", "end_turn"), ("length", "max_tokens"),
                                            ("other", "stop_sequence"), ("empty", None)])
def test_ollama_maps_the_engine_stop_like_map_stop_reason(stop: EngineStop, expected: str | None) -> None:
    brain = Scripted([BrainReply(({"type": "text", "text": "Done."},), stop)])
    with OllamaFake(brain=brain) as fake:
        raw = client(fake).messages.with_raw_response.create(model="qwen3:4b", max_tokens=50, messages=ASK)
    body = json.loads(raw.http_response.content)
    assert raw.parse().stop_reason == expected
    assert ("stop_reason" in body) == (expected is not None)  # an empty reason is left out (omitempty)
    assert "stop_sequence" not in body


def test_ollama_sends_thinking_first_for_a_thinking_model_only() -> None:
    thinker = OllamaModel(capabilities=("completion", "tools", "thinking"))
    with OllamaFake(models={"qwen3:4b": thinker}, brain=thinking_first("Check the order.", "Shipped.")) as fake:
        message = ask(fake)
    assert [b.type for b in message.content] == ["thinking", "text"]
    assert message.content[0].thinking == "Check the order."
    assert message.content[0].signature is None  # Ollama sends no signature
    with OllamaFake(brain=thinking_first("Check the order.", "Shipped.")) as fake:
        assert [b.type for b in ask(fake).content] == ["text"]


def test_ollama_answers_null_content_and_stop_sequence_when_every_block_is_dropped() -> None:
    with OllamaFake(brain=fixed("never asked")) as fake:
        raw = client(fake).messages.with_raw_response.create(
            model="qwen3:4b", max_tokens=10, messages=[{"role": "user", "content": [
                {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "x"}}]}])
    body = json.loads(raw.http_response.content)
    assert body["content"] is None and body["stop_reason"] == "stop_sequence"
    assert body["usage"] == {"input_tokens": 0, "output_tokens": 0}


# --- Ollama: usage ----------------------------------------------------------------------------------


def test_ollama_reports_only_uncached_prompt_tokens_by_default(ollama: OllamaFake) -> None:
    first, second = ask(ollama), ask(ollama)
    assert second.usage.input_tokens < first.usage.input_tokens
    assert second.usage.input_tokens == 1  # the whole prompt was cached; its last token is evaluated again


@pytest.mark.parametrize("options", [{"prompt_cache": False}, {"usage": "full"}])
def test_ollama_reports_the_whole_prompt_without_a_cache_or_in_full_mode(options: dict[str, Any]) -> None:
    with OllamaFake(brain=fixed("a", "b"), **options) as fake:
        first, second = ask(fake), ask(fake)
    assert first.usage.input_tokens == second.usage.input_tokens > 1


def test_ollama_split_usage_names_the_cached_part() -> None:
    with OllamaFake(brain=fixed("a", "b"), usage="split") as fake:
        first, second = ask(fake), ask(fake)
    assert second.usage.input_tokens + second.usage.cache_read_input_tokens == first.usage.input_tokens
    assert second.usage.cache_read_input_tokens > 0


def test_ollama_silently_truncates_a_prompt_longer_than_num_ctx() -> None:
    long = [{"role": "user", "content": "word " * 300}, {"role": "assistant", "content": "Noted."},
            {"role": "user", "content": "And now?"}]
    brain = fixed("ok", "ok")
    with OllamaFake(brain=brain, usage="full", num_ctx=64) as small, OllamaFake(brain=fixed("ok"), usage="full",
                                                                                num_ctx=8192) as big:
        cut, whole = ask(small, long), ask(big, long)
    assert cut.usage.input_tokens <= 64 < whole.usage.input_tokens
    assert [m["content"] for m in brain.seen[0]["messages"]] == [[{"type": "text", "text": "Noted."}],
                                                                  [{"type": "text", "text": "And now?"}]]


def test_ollama_streams_the_len_over_4_estimate_in_message_start() -> None:
    # "user" (4 bytes) + "hello world!" (12) + a 40-byte system: 56 bytes, 14 tokens by len/4
    messages: list[MessageParam] = [{"role": "user", "content": "hello world!"}]
    assert estimate_tokens({"system": "abcd" * 10, "messages": messages}) == 14
    with OllamaFake(brain=fixed("Hi."), usage="full") as fake:
        with client(fake).messages.stream(model="qwen3:4b", max_tokens=20, system="abcd" * 10,
                                          messages=messages) as stream:
            events = list(stream)
            final = stream.get_final_message()
    assert events[0].type == "message_start" and events[0].message.usage.input_tokens == 14
    assert text_of(final) == "Hi." and final.stop_reason == "end_turn"
    assert final.usage.input_tokens != 14  # message_delta carries the real (stand-in tokenizer's) count


# --- Ollama: errors and info routes -----------------------------------------------------------------


def test_ollama_answers_a_missing_model_with_404_not_found_error(ollama: OllamaFake) -> None:
    with pytest.raises(anthropic.NotFoundError) as caught:
        ask(ollama, model="qwen3:8b")
    assert body_of(caught.value)["error"] == {"type": "not_found_error", "message": "model 'qwen3:8b' not found"}
    assert re.fullmatch(r"req_[0-9a-f]{24}", body_of(caught.value)["request_id"])
    assert ask(ollama, model="QWEN3:4B").content[0].text  # names match case-insensitively


def test_ollama_refuses_tools_for_a_model_without_the_capability() -> None:
    with OllamaFake(models={"gemma3:270m": OllamaModel(family="gemma3", capabilities=("completion",))}) as fake:
        with pytest.raises(anthropic.BadRequestError) as caught:
            ask(fake, model="gemma3:270m", tools=[TOOL])
    assert body_of(caught.value)["error"] == {"type": "invalid_request_error",
                                          "message": "registry.ollama.ai/library/gemma3:270m does not support tools"}


@pytest.mark.parametrize("params, message", [({"max_tokens": 0}, "max_tokens is required and must be positive"),
                                             ({"model": ""}, "model is required")])
def test_ollama_validates_like_its_middleware(ollama: OllamaFake, params: dict[str, Any], message: str) -> None:
    with pytest.raises(anthropic.BadRequestError) as caught:
        ask(ollama, **params)
    assert body_of(caught.value)["error"]["message"] == message


def test_ollama_reports_a_malformed_body_in_gos_words(ollama: OllamaFake) -> None:
    answer = HTTP.post(f"{ollama.base_url}/v1/messages", content=b"{oops")
    assert answer.status_code == 400
    assert answer.json()["error"] == {"type": "invalid_request_error",
                                      "message": "invalid character 'o' looking for beginning of value"}


def test_ollama_has_no_count_tokens_route(ollama: OllamaFake) -> None:
    with pytest.raises(anthropic.NotFoundError) as caught:
        client(ollama).messages.count_tokens(model="qwen3:4b", messages=ASK)
    assert caught.value.response.text == "404 page not found"


def test_ollama_info_routes_tell_the_trained_context_and_the_num_ctx_parameter() -> None:
    models = {"qwen3:4b": OllamaModel(context_length=40960, num_ctx=8192), "llama3.2": OllamaModel(family="llama")}
    with OllamaFake(models=models, brain=fixed("ok"), num_ctx=4096, version="0.13.5") as fake:
        show = HTTP.post(f"{fake.base_url}/api/show", json={"model": "qwen3:4b"}).json()
        missing = HTTP.post(f"{fake.base_url}/api/show", json={"model": "qwen3:8b"})
        tags = HTTP.get(f"{fake.base_url}/api/tags").json()
        version = HTTP.get(f"{fake.base_url}/api/version").json()
        before = HTTP.get(f"{fake.base_url}/api/ps").json()
        ask(fake, model="llama3.2")
        after = HTTP.get(f"{fake.base_url}/api/ps").json()
    assert show["model_info"]["qwen3.context_length"] == 40960
    assert re.fullmatch(r"num_ctx +8192", show["parameters"])
    assert (missing.status_code, missing.json()) == (404, {"error": "model 'qwen3:8b' not found"})
    assert [m["name"] for m in tags["models"]] == ["qwen3:4b", "llama3.2"]
    assert version == {"version": "0.13.5"} and before == {"models": []}
    assert [(m["name"], m["context_length"]) for m in after["models"]] == [("llama3.2", 4096)]


# --- llama-server -----------------------------------------------------------------------------------


def test_llamacpp_refuses_tools_without_jinja_with_a_500() -> None:
    with LlamaCppFake(jinja=False, brain=fixed("ok", "ok")) as fake:
        with pytest.raises(anthropic.InternalServerError) as caught:
            ask(fake, tools=[TOOL])
        with pytest.raises(anthropic.InternalServerError):
            client(fake).messages.count_tokens(model="m", messages=ASK, tools=[TOOL])
        assert ask(fake).content[0].text == "ok"  # without tools it answers
    assert caught.value.body == {"error": {"code": 500, "message": "tools param requires --jinja flag",
                                           "type": "server_error"}}


def test_llamacpp_drops_is_error_and_puts_a_users_text_before_its_tool_results() -> None:
    brain = fixed("Sorry.")
    with LlamaCppFake(brain=brain) as fake:
        ask(fake, FAILED_TURN, tools=[TOOL])
    text, result = brain.seen[0]["messages"][-1]["content"]
    assert text == {"type": "text", "text": "Try again."}
    assert result == {"type": "tool_result", "tool_use_id": "toolu_1", "content": "order_not_found: no order 4921"}
    assert "is_error" not in json.dumps(brain.seen[0])


def test_llamacpp_props_and_models_give_the_slot_context() -> None:
    with LlamaCppFake(n_ctx=8192, n_ctx_train=40960, alias="qwen3-4b") as fake:
        props = HTTP.get(f"{fake.base_url}/props").json()
        models = HTTP.get(f"{fake.base_url}/v1/models").json()
        health = HTTP.get(f"{fake.base_url}/health")
    assert props["default_generation_settings"]["n_ctx"] == 8192
    assert models["data"][0]["id"] == "qwen3-4b" and models["data"][0]["meta"]["n_ctx_train"] == 40960
    assert (health.status_code, health.json()) == (200, {"status": "ok"})


def test_llamacpp_refuses_a_prompt_that_does_not_fit() -> None:
    with LlamaCppFake(n_ctx=32, brain=fixed("ok")) as fake:
        with pytest.raises(anthropic.BadRequestError) as caught:
            ask(fake, [{"role": "user", "content": "word " * 40}])
    error = body_of(caught.value)["error"]
    assert error["type"] == "exceed_context_size_error" and error["n_ctx"] == 32 and error["n_prompt_tokens"] >= 32
    assert error["message"] == (f"request ({error['n_prompt_tokens']} tokens) exceeds the available context size "
                                "(32 tokens), try increasing it")


def test_llamacpp_counts_tokens_exactly_and_reports_the_whole_prompt_in_full_mode() -> None:
    with LlamaCppFake(brain=fixed("a", "b"), usage="full") as fake:
        counted = client(fake).messages.count_tokens(model="m", messages=ASK)
        first, second = ask(fake), ask(fake)
    assert counted.input_tokens == first.usage.input_tokens == second.usage.input_tokens  # cache or not


def test_llamacpp_split_usage_names_the_cached_part_as_b11434_does() -> None:
    with LlamaCppFake(brain=fixed("a", "b")) as fake:  # "split" is the default
        first, second = ask(fake), ask(fake)
    assert first.usage.cache_read_input_tokens == 0
    assert second.usage.input_tokens + second.usage.cache_read_input_tokens == first.usage.input_tokens


def test_llamacpp_ids_thinking_and_model_name() -> None:
    brain = Scripted([BrainReply(({"type": "tool_use", "id": "abc123XYZ", "name": "get_order",
                                   "input": {"order_id": "4921"}},), "eos", thinking="Look it up.")] * 2)
    with LlamaCppFake(brain=brain, alias="qwen3-4b") as made, LlamaCppFake(brain=brain, model_ids=True) as kept:
        message, keeps = ask(made, tools=[TOOL]), ask(kept, tools=[TOOL])
    assert re.fullmatch(r"chatcmpl-[0-9A-Za-z]{32}", message.id) and message.model == "qwen3-4b"
    thinking, use = message.content
    assert (thinking.type, thinking.thinking, thinking.signature) == ("thinking", "Look it up.", "")
    assert re.fullmatch(r"[0-9A-Za-z]{32}", use.id) and message.stop_reason == "tool_use"
    assert keeps.content[1].id == "abc123XYZ"


@pytest.mark.parametrize("arguments, expected", [('{"order_id": "4921"}', {"order_id": "4921"}), ("order 4921", {})])
def test_tool_arguments_written_as_text(arguments: str, expected: dict[str, str]) -> None:
    """Both servers send the text decoded when it is a JSON object, and {} when it is not JSON."""
    for kind in (LlamaCppFake, OllamaFake):
        with kind(brain=tool_call("get_order", arguments)) as fake:
            assert ask(fake, tools=[TOOL]).content[0].input == expected


@pytest.mark.parametrize("stop, reason, sequence", [("empty", "max_tokens", None), ("other", "max_tokens", None),
                                                    ("stop_word", "end_turn", "</answer>")])
def test_llamacpp_stop_reasons(stop: EngineStop, reason: str, sequence: str | None) -> None:
    brain = Scripted([BrainReply(({"type": "text", "text": "x"},), stop, stop_word="</answer>")])
    with LlamaCppFake(brain=brain) as fake:
        message = ask(fake)
    assert (message.stop_reason, message.stop_sequence) == (reason, sequence)


def test_llamacpp_api_key_and_loading_middlewares() -> None:
    with LlamaCppFake(api_key="k1", brain=fixed("ok")) as fake:
        health = HTTP.get(f"{fake.base_url}/health")
        with pytest.raises(anthropic.AuthenticationError) as caught:
            ask(fake)
        assert text_of(sdk(fake, api_key="k1").messages.create(model="m", max_tokens=10, messages=ASK)) == "ok"
    assert health.status_code == 200
    assert caught.value.body == {"error": {"message": "Invalid API Key", "type": "authentication_error", "code": 401}}
    with LlamaCppFake(loading=True) as fake:
        loading = HTTP.get(f"{fake.base_url}/health")
    assert (loading.status_code, loading.json()["error"]["message"]) == (503, "Loading model")


# --- both: failures, headers, plumbing --------------------------------------------------------------


@pytest.mark.parametrize("kind", [OllamaFake, LlamaCppFake])
def test_scripted_failures_in_order(kind: type) -> None:
    with kind(brain=fixed("ok", "ok"), failures=["http_500", "drop_mid_body", "unreadable", None]) as fake:
        with pytest.raises(anthropic.InternalServerError):
            ask(fake)
        with pytest.raises(anthropic.APIConnectionError):
            ask(fake)
        unreadable = ask(fake)
        assert unreadable.content is None and unreadable.usage is None  # a 200 no client can read as a Message
        assert ask(fake).content[0].text == "ok"


def test_a_stopped_server_is_unreachable_and_leaves_no_thread() -> None:
    threads = threading.active_count()
    fake = OllamaFake(brain=fixed("ok"), delay=0.01).start()
    session = client(fake)
    assert text_of(session.messages.create(model="qwen3:4b", max_tokens=10, messages=ASK)) == "ok"
    port = int(fake.base_url.rsplit(":", 1)[1])
    fake.stop()  # the client still holds its keep-alive connection: stop() must end it
    fake.stop()
    assert threading.active_count() == threads
    with pytest.raises(anthropic.APIConnectionError):
        session.messages.create(model="qwen3:4b", max_tokens=10, messages=ASK)
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=1)


class _Crowd:
    """A brain that notes how many requests it is answering at once (each waits for `barrier`, or a moment)."""

    def __init__(self, barrier: threading.Barrier | None = None) -> None:
        self.barrier, self.active, self.most, self.lock = barrier, 0, 0, threading.Lock()

    def __call__(self, view: Any) -> BrainReply:
        with self.lock:
            self.active += 1
            self.most = max(self.most, self.active)
        if self.barrier is not None:
            self.barrier.wait()
        else:
            threading.Event().wait(0.02)
        with self.lock:
            self.active -= 1
        return BrainReply(({"type": "text", "text": "ok"},))


@pytest.mark.parametrize("parallel", [1, 3])
def test_a_server_answers_at_most_parallel_requests_at_once(parallel: int) -> None:
    crowd = _Crowd(threading.Barrier(3, timeout=5) if parallel == 3 else None)
    with OllamaFake(brain=crowd, parallel=parallel) as fake:
        callers = [threading.Thread(target=lambda: sdk(fake).messages.create(model="qwen3:4b", max_tokens=9,
                                                                             messages=ASK)) for _ in range(3)]
        for caller in callers:
            caller.start()
        for caller in callers:
            caller.join()
    assert crowd.most == parallel and len(fake.seen) == 3


def test_received_headers_show_whether_a_key_was_sent(ollama: OllamaFake) -> None:
    keyless = sdk(ollama, api_key=None, auth_token=None, default_headers={"Authorization": anthropic.Omit()})
    keyless.messages.create(model="qwen3:4b", max_tokens=10, messages=ASK)
    ask(ollama)
    sent = [{k for k in r.headers if k in ("x-api-key", "authorization")} for r in ollama.requests]
    assert sent[0] == set() and sent[1] != set()
    assert [(r.method, r.path, r.body["model"]) for r in ollama.requests] == [("POST", "/v1/messages", "qwen3:4b")] * 2


def test_bad_options_get_one_line_that_names_them() -> None:
    with pytest.raises(ValueError, match="delay is seconds"):
        OllamaFake(delay=-1)
    with pytest.raises(ValueError, match=r"failures\[0\]"):
        LlamaCppFake(failures=["timeout"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="usage must be"):
        OllamaFake(usage="cached")  # type: ignore[arg-type]
    with pytest.raises(RuntimeError, match="call start"):
        OllamaFake().base_url


def test_a_scripted_brain_that_runs_out_says_so_in_the_servers_error_shape() -> None:
    with OllamaFake(brain=empty_stop("once")) as fake:
        ask(fake)
        with pytest.raises(anthropic.InternalServerError) as caught:
            ask(fake)
    assert "Scripted brain has 1 replies" in body_of(caught.value)["error"]["message"]
