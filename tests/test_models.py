from __future__ import annotations

import re
import typing

import anthropic
import pytest
from anthropic.types import Model

from atlas_kit.models import choose as M
from atlas_kit.models.standin.model import OFFLINE_MODEL
from atlas_kit.models.cassette import Cassette
from atlas_kit.models.body import message_body


@pytest.fixture(autouse=True)
def no_env(monkeypatch):
    monkeypatch.delenv(M.KEY_ENV, raising=False)
    monkeypatch.delenv(M.MODEL_ENV, raising=False)


def _a_deprecated_model() -> str:
    """A model the installed SDK warns is deprecated (read from its public warning, never its private list)."""
    listed = typing.get_args(typing.get_args(Model)[0])
    old = [m for m in listed if M.deprecation(m) is not None]
    if not old:
        pytest.skip("the installed SDK calls none of its models deprecated")
    return old[0]


def test_default_model_is_current_and_listed_by_the_sdk():
    assert M.DEFAULT_MODEL in M.known_models() and M.deprecation(M.DEFAULT_MODEL) is None


def test_deprecation_reads_the_sdks_own_warning_and_sends_nothing():
    old = _a_deprecated_model()
    assert re.fullmatch(r"[A-Z][a-z]+ \d{1,2}(st|nd|rd|th), \d{4}", M.deprecation(old) or ""), M.deprecation(old)
    assert old not in M.known_models() and M.deprecation("a-model-nobody-made") is None


def test_sdk_deprecation_warning_fails_the_tests():
    old = _a_deprecated_model()
    client = M.choose_model(OFFLINE_MODEL).client
    with pytest.raises(DeprecationWarning):
        client.messages.create(model=old, max_tokens=10, messages=[{"role": "user", "content": "hi"}])


def test_no_key_means_offline_without_a_note():
    choice = M.choose_model()
    assert (choice.mode, choice.model, choice.note) == ("offline", OFFLINE_MODEL, "")
    assert "simulated" in choice.source.label and "not an LLM" in choice.source.label


def test_live_model_without_key_falls_back_with_a_visible_note():
    choice = M.choose_model(M.DEFAULT_MODEL)
    assert choice.mode == "offline" and M.KEY_ENV in choice.note and "simulated" in choice.note.lower()
    assert "Note:" in choice.describe()


def test_with_a_key_the_live_client_is_the_real_sdk(monkeypatch):
    monkeypatch.setenv(M.KEY_ENV, "test-placeholder-not-a-real-key")
    choice = M.choose_model()
    assert isinstance(choice.client, anthropic.Anthropic) and choice.mode == "live"
    assert choice.model == M.DEFAULT_MODEL and choice.source.label.startswith(f"live ({M.DEFAULT_MODEL}, ")
    assert isinstance(M.choose_model().async_client(), anthropic.AsyncAnthropic)


def test_env_var_and_parameter_override_the_default(monkeypatch):
    monkeypatch.setenv(M.KEY_ENV, "test-placeholder-not-a-real-key")
    monkeypatch.setenv(M.MODEL_ENV, "claude-haiku-5-5")
    assert M.choose_model().model == "claude-haiku-5-5"
    assert M.choose_model("claude-opus-5").model == "claude-opus-5"
    assert M.choose_model(OFFLINE_MODEL).mode == "offline"


def test_deprecated_or_empty_model_names_are_refused_clearly():
    old = _a_deprecated_model()
    with pytest.raises(ValueError, match=f"deprecated \\(end of life {M.deprecation(old)}\\)"):  # with no key too
        M.choose_model(old)
    with pytest.raises(ValueError, match="model must be a name such as"):
        M.choose_model("   ")


def test_cassette_means_replay_with_its_label(tmp_path):
    tape = Cassette(model="claude-sonnet-5-5", recorded_on="2026-11-02")
    req = {"model": "claude-sonnet-5-5", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]}
    tape.record(req, message_body([{"type": "text", "text": "hello"}], model="claude-sonnet-5-5", stop_reason="end_turn"))
    path = tmp_path / "tape.json"
    tape.save(path)
    choice = M.choose_model(cassette=path)
    assert (choice.mode, choice.source.label) == ("replay", "replayed from claude-sonnet-5-5 on 2026-11-02")
    assert choice.client.messages.create(**req).content[0].text == "hello"


def test_recording_choice_saves_its_cassette(monkeypatch, tmp_path):
    monkeypatch.setenv(M.KEY_ENV, "test-placeholder-not-a-real-key")
    choice = M.choose_model(record=tmp_path / "live.json")
    assert choice.recording is not None and choice.save_recording().exists()
    with pytest.raises(ValueError, match="not recording"):
        M.choose_model().save_recording()
