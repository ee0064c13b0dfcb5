"""ModelChoice.spelling: a chapter's sweep runs the model its single runs ran (chapter 00), a local one included."""
from __future__ import annotations

from pathlib import Path

import pytest
from live_api import FAKE_KEY

from atlas_kit.models.cassette import Cassette
from atlas_kit.models.choose import choose_model
from atlas_kit.models.registry import parse_model


@pytest.fixture(autouse=True)
def no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ATLAS_MODEL", raising=False)
    monkeypatch.delenv("ATLAS_BASE_URL", raising=False)


@pytest.mark.parametrize("named", ["ollama:qwen3:4b", "llamacpp:qwen3-4b", "offline"])
def test_a_choice_spells_itself_as_choose_model_reads_it(named: str) -> None:
    choice = choose_model(named)
    again = choose_model(choice.spelling)
    assert (type(again.provider), again.model) == (type(choice.provider), choice.model)
    assert parse_model(choice.spelling) == parse_model(named)


def test_the_stand_in_and_claude_spell_as_a_sweep_takes_them(monkeypatch: pytest.MonkeyPatch) -> None:
    assert choose_model().spelling == "offline"
    assert choose_model("claude-sonnet-5-5").spelling == "offline"  # no key: the stand-in answers, and is spelled so
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    assert choose_model("claude-sonnet-5-5").spelling == "claude-sonnet-5-5"


def test_a_replay_or_an_addressed_server_says_what_to_pass_instead(tmp_path: Path) -> None:
    tape = tmp_path / "t.json"
    Cassette(model="claude-sonnet-5-5").save(tape)
    for choice in (choose_model(cassette=tape), choose_model("qwen3", base_url="http://127.0.0.1:9")):
        with pytest.raises(ValueError, match=r"pass the cassette= or base_url= this choice was made with"):
            choice.spelling
