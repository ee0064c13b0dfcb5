"""Recording a run through the real SDK and replaying it with no key and no network."""
from __future__ import annotations

import asyncio
import gzip
import json
import re
from pathlib import Path

import anthropic
import httpx2
import pytest
from anthropic.types import Message

from atlas_kit.models.cassette import IGNORED_FIELDS, Cassette, RecordingTransport, fingerprint, recording_client
from atlas_kit.models.transport import ReplayMiss
from atlas_kit.models.replay import is_replay_miss
from atlas_kit.models.providers.replay import replay_client
from atlas_kit.models.transport import APIFault, MessagesTransport, ScriptedAPI
from atlas_kit.models.body import message_body

MODEL = "claude-sonnet-5"
# Built from pieces so the repository never holds a literal key pattern.
FAKE_KEY = "sk-" + "ant-" + "test-" + "X" * 12
TOOL_USE = {"type": "tool_use", "id": "toolu_01", "name": "get_order", "input": {"order_id": "4921"}}


def live_script(*extra: object) -> ScriptedAPI:
    return ScriptedAPI([
        *extra,
        message_body([TOOL_USE], model=MODEL, stop_reason="tool_use"),
        message_body([{"type": "text", "text": "Order 4921 shipped."}], model=MODEL, stop_reason="end_turn"),
    ])


def agent_run(client: anthropic.Anthropic, *, result: str = '{"status": "shipped"}') -> list[Message]:
    """Two turns: the model calls a tool, reads its result, answers."""
    messages: list[dict] = [{"role": "user", "content": "Where is order 4921?"}]
    first = client.messages.create(model=MODEL, max_tokens=256, messages=messages)
    messages += [
        {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in first.content]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": result}]},
    ]
    return [first, client.messages.create(model=MODEL, max_tokens=256, messages=messages)]


def record(tmp_path: Path, script: ScriptedAPI | None = None, **kwargs: object) -> tuple[Path, list[Message]]:
    cassette = Cassette(model=MODEL, recorded_on="2026-05-01")
    inner = MessagesTransport(script or live_script())
    live = agent_run(recording_client(cassette, api_key=FAKE_KEY, inner=inner, **kwargs))
    path = tmp_path / "run.cassette.json"
    cassette.save(path)
    return path, live


# --- fingerprints -----------------------------------------------------------------


def test_fingerprint_ignores_key_order_and_the_ignored_fields() -> None:
    body = {"model": MODEL, "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]}
    same = {"messages": [{"content": "hi", "role": "user"}], "max_tokens": 10, "model": MODEL}
    assert fingerprint(body) == fingerprint(same)
    assert IGNORED_FIELDS == {"metadata", "stream"}
    assert fingerprint(body) == fingerprint({**body, "metadata": {"user_id": "u1"}})
    for changed in ({"model": "claude-haiku-5-5"}, {"temperature": 0.0}, {"max_tokens": 11}, {"tools": []}):
        assert fingerprint(body) != fingerprint({**body, **changed}), changed
    assert re.fullmatch(r"[0-9a-f]{64}", fingerprint(body))


# --- record, save, replay ---------------------------------------------------------


def test_replay_gives_the_recorded_responses(tmp_path: Path) -> None:
    path, live = record(tmp_path)
    replayed = agent_run(replay_client(path))
    assert [m.model_dump() for m in replayed] == [m.model_dump() for m in live]
    assert replayed[0].stop_reason == "tool_use" and replayed[1].stop_reason == "end_turn"


def test_async_record_and_replay(tmp_path: Path) -> None:
    cassette = Cassette(model=MODEL, recorded_on="2026-05-01")
    ask = [{"role": "user", "content": "hi"}]

    async def ask_once(client: anthropic.AsyncAnthropic) -> Message:
        return await client.messages.create(model=MODEL, max_tokens=8, messages=ask)

    recorder = recording_client(cassette, api_key=FAKE_KEY, inner=MessagesTransport(live_script()), async_=True)
    live = asyncio.run(ask_once(recorder))
    assert len(cassette.entries) == 1
    assert asyncio.run(ask_once(replay_client(cassette, async_=True))).model_dump() == live.model_dump()


def test_the_cassette_file_is_deterministic_and_ordered(tmp_path: Path) -> None:
    path, _ = record(tmp_path)
    cassette = Cassette.load(path)
    assert cassette.label() == f"replayed from {MODEL} on 2026-05-01"
    assert [len(e["request"]["messages"]) for e in cassette.entries] == [1, 3]
    assert all(e["fingerprint"] == fingerprint(e["request"]) for e in cassette.entries)
    again = tmp_path / "again.json"
    cassette.save(again)
    assert again.read_bytes() == path.read_bytes()
    assert path.read_text().startswith('{\n  "entries": [')


def test_only_successful_calls_are_recorded(tmp_path: Path) -> None:
    script = live_script(APIFault(429, "Rate limited.", headers={"retry-after-ms": "1"}))
    path, _ = record(tmp_path, script, max_retries=1)
    assert len(script.requests) == 3  # the 429, its retry, the second turn
    assert len(Cassette.load(path).entries) == 2


def test_other_routes_pass_through_unrecorded() -> None:
    cassette = Cassette(model=MODEL)
    client = recording_client(cassette, api_key=FAKE_KEY, inner=MessagesTransport(ScriptedAPI([])), max_retries=0)
    with pytest.raises(anthropic.NotFoundError):
        client.models.list()
    assert cassette.entries == []


def test_the_cassette_holds_no_header_and_no_key(tmp_path: Path) -> None:
    # The key also appears inside a prompt: redaction is the second guard.
    echo = [{"type": "text", "text": f"your key is {FAKE_KEY}"}]
    script = ScriptedAPI([message_body(echo, model=MODEL, stop_reason="end_turn")])
    cassette = Cassette(model=MODEL)
    client = recording_client(cassette, api_key=FAKE_KEY, inner=MessagesTransport(script))
    client.messages.create(model=MODEL, max_tokens=8,
                           messages=[{"role": "user", "content": f"I pasted {FAKE_KEY} by mistake"}])
    assert FAKE_KEY not in json.dumps(cassette.entries)  # redacted when recorded, not only when saved
    cassette.entries.append({"fingerprint": "0", "request": {"note": FAKE_KEY}, "response": {}})  # a hand-added entry
    path = tmp_path / "leak.json"
    cassette.save(path)
    text = path.read_text()
    assert FAKE_KEY in json.dumps(script.requests)  # the key really was sent, so the check below can fail
    assert FAKE_KEY not in text and "sk-ant" not in text
    assert "[redacted]" in text
    for header in ("authorization", "bearer", "x-api-key", "anthropic-version", "user-agent", "x-stainless"):
        assert header not in text.lower()


def test_recording_client_uses_the_sdk_key_resolution(monkeypatch: pytest.MonkeyPatch) -> None:
    env_key = "sk-" + "ant-" + "env-" + "Z" * 12
    monkeypatch.setenv("ANTHROPIC_API_KEY", env_key)
    assert recording_client(Cassette(model=MODEL)).api_key == env_key
    assert recording_client(Cassette(model=MODEL), api_key=FAKE_KEY).api_key == FAKE_KEY


# --- misses -----------------------------------------------------------------------


def test_a_changed_tool_result_is_refused_naming_the_difference(tmp_path: Path) -> None:
    path, _ = record(tmp_path)
    with pytest.raises(ReplayMiss) as caught:
        agent_run(replay_client(path), result='{"status": "lost"}')
    message = str(caught.value)
    assert not isinstance(caught.value, anthropic.APIStatusError)  # its own type: no message is read to tell it
    assert message.startswith("request not in cassette: messages[2].content[0].content differs")
    assert "shipped" in message and "lost" in message
    assert "the run diverged at turn 2, in message 2 (user: tool_result for toolu_01)" in message
    assert is_replay_miss(caught.value)


def test_a_changed_model_is_refused_naming_the_field(tmp_path: Path) -> None:
    path, _ = record(tmp_path)
    expected = r'model differs .*recorded "claude-sonnet-5", got "claude-haiku-5-5"'
    with pytest.raises(ReplayMiss, match=expected):
        replay_client(path).messages.create(model="claude-haiku-5-5", max_tokens=256,
                                            messages=[{"role": "user", "content": "Where is order 4921?"}])


def test_a_request_asked_more_often_than_recorded_is_refused() -> None:
    ask = [{"role": "user", "content": "Flip a coin."}]
    script = ScriptedAPI([message_body([{"type": "text", "text": side}], model=MODEL, stop_reason="end_turn")
                          for side in ("heads", "tails")])
    cassette = Cassette(model=MODEL)
    recorder = recording_client(cassette, api_key=FAKE_KEY, inner=MessagesTransport(script))
    for _ in range(2):
        recorder.messages.create(model=MODEL, max_tokens=8, messages=ask)
    player = replay_client(cassette)
    answers = [player.messages.create(model=MODEL, max_tokens=8, messages=ask) for _ in range(2)]
    sides = [a.content[0].text for a in answers]  # type: ignore[union-attr]
    assert sides == ["heads", "tails"]
    with pytest.raises(ReplayMiss, match="recorded 2 time"):
        player.messages.create(model=MODEL, max_tokens=8, messages=ask)


def test_an_empty_cassette_says_so() -> None:
    with pytest.raises(ReplayMiss, match="holds no recordings"):
        replay_client(Cassette(model=MODEL)).messages.create(
            model=MODEL, max_tokens=8, messages=[{"role": "user", "content": "hi"}])


def test_a_real_bad_request_is_not_a_replay_miss() -> None:
    from atlas_kit.models.transport import in_process_client

    with pytest.raises(anthropic.BadRequestError) as caught:
        in_process_client(ScriptedAPI([APIFault(400, "max_tokens: too large")]), max_retries=0).messages.create(
            model=MODEL, max_tokens=8, messages=[{"role": "user", "content": "hi"}])
    assert not is_replay_miss(caught.value)


def test_load_refuses_a_file_that_is_not_a_cassette(tmp_path: Path) -> None:
    path = tmp_path / "other.json"
    path.write_text('{"entries": []}')
    with pytest.raises(ValueError, match="not an atlas_kit cassette"):
        Cassette.load(path)


class GzipNetwork(httpx2.BaseTransport, httpx2.AsyncBaseTransport):
    """Answers like a real HTTP transport: a gzip-encoded body that arrives in chunks."""

    def __init__(self, body: dict) -> None:
        self.raw = gzip.compress(json.dumps(body).encode())

    def _response(self) -> httpx2.Response:
        headers = {"content-type": "application/json", "content-encoding": "gzip"}
        return httpx2.Response(200, headers=headers, stream=httpx2.ByteStream(self.raw))

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        return self._response()

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        return self._response()


def test_recording_a_gzipped_network_answer_leaves_the_response_whole() -> None:
    body = message_body([{"type": "text", "text": "hi"}], model=MODEL, stop_reason="end_turn")
    ask = {"model": MODEL, "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}]}
    cassette = Cassette(model=MODEL)
    raw = recording_client(cassette, api_key=FAKE_KEY, inner=GzipNetwork(body)).messages.with_raw_response.create(**ask)
    assert raw.parse().content[0].text == "hi"  # type: ignore[union-attr]
    assert raw.elapsed.total_seconds() >= 0  # raises if the client got an already-consumed response

    async def ask_async() -> Message:
        client = recording_client(cassette, api_key=FAKE_KEY, inner=GzipNetwork(body), async_=True)
        return await client.messages.create(**ask)

    assert asyncio.run(ask_async()).content[0].text == "hi"  # type: ignore[union-attr]
    assert [e["response"] for e in cassette.entries] == [body, body]


def test_recording_transport_closes_its_inner_transport() -> None:
    closed = []

    class Inner(MessagesTransport):
        def close(self) -> None:
            closed.append(True)

    RecordingTransport(Inner(ScriptedAPI([])), Cassette(model=MODEL)).close()
    assert closed == [True]
