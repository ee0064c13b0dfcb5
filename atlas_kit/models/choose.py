"""Which model answers, and through which provider: decided here only, from one spelling.

`choose_model("claude-sonnet-5-5")` (Anthropic, with ANTHROPIC_API_KEY), `choose_model("ollama:qwen3:4b")` and
`choose_model("llamacpp:qwen3-4b")` (local servers, no key), `choose_model("qwen3", base_url=...)` (any other
Anthropic-compatible server), `choose_model("offline")` (the stand-in), `choose_model(cassette=path)` (a replay).
The same spelling works in `--model`, ATLAS_MODEL and every chapter's `model` parameter. The environment
variables and the key rule live here and nowhere else: the key goes only to Anthropic's API. Chapter 00.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import anthropic

from ..types.sets import DEFAULT_MODEL, Mode
from ..types.records import SIMULATED, Source
from .api_retry import APIRetry
from .cassette import Cassette
from .record_path import cassette_to_extend
from .provider import Provider
from .resume import CallKeeper
from .providers.anthropic import AnthropicAPI, deprecation, known_models
from .providers.compatible import Compatible
from .registry import LOCAL, Spelling, parse_model
from .providers.replay import Replay
from .providers.standin import StandIn
from .env import BASE_URL_ENV, KEY_ENV, MODEL_ENV  # re-exported: they were born here
from .standin.model import OFFLINE_MODEL, Profile
from ..types.exceptions import AtlasKitValueError

@dataclass
class ModelChoice:
    """A provider and the model it answers as: `client` and `async_client()` for runs, `source` for labels."""

    provider: Provider
    model: str
    note: str = ""
    recording: Cassette | None = None  # set when recording: every good call is kept here
    record_to: Path | None = None
    retry: APIRetry | None = None
    _async: anthropic.AsyncAnthropic | None = field(default=None, repr=False)

    @cached_property
    def source(self) -> Source:
        """Where its answers come from, typed: what every chart and table built from its runs must say."""
        return self.provider.source(self.model)

    @property
    def mode(self) -> Mode:
        """offline (the stand-in), live (a model, Anthropic's or local), or replay."""
        return {"simulated": "offline", "live": "live", "replayed": "replay"}[self.source.kind]  # type: ignore[return-value]

    @cached_property
    def client(self) -> anthropic.Anthropic:
        """A genuine sync SDK client for the provider (made once)."""
        return self.provider.client(retry=self.retry, cassette=self.recording)

    def async_client(self, *, keeper: CallKeeper | None = None) -> anthropic.AsyncAnthropic:
        """A genuine async SDK client for the provider (made once); with a sweep's `keeper`, a new one whose
        calls it keeps (models/resume.py)."""
        if keeper is not None:
            return self.provider.async_client(retry=self.retry, cassette=self.recording, keeper=keeper)
        if self._async is None:
            self._async = self.provider.async_client(retry=self.retry, cassette=self.recording)
        return self._async

    def save_recording(self) -> Path:
        """Write the cassette of a `choose_model(..., record=path)` choice: the calls the file held when the choice
        was made, then every call recorded since. Returns the path."""
        if self.recording is None or self.record_to is None:
            raise AtlasKitValueError("This choice is not recording; pass record='cassettes/name.json' to choose_model().")
        self.recording.save(self.record_to)
        return self.record_to

    @property
    def spelling(self) -> str:
        """This choice as a sweep's `model=` (and `--model`, ATLAS_MODEL) spells it, so a chapter's sweep runs the
        model its single runs ran: 'offline', 'ollama:qwen3:4b', 'llamacpp:<model>' or a Claude model's name. A
        local server at another address is found again through ATLAS_BASE_URL."""
        return self.provider.spelling(self.model)

    def describe(self) -> str:
        text = f"Model: {self.model} — {self.source.label}."
        return f"{text}\nNote: {self.note}" if self.note else text


def choose_model(
    model: str | None = None,
    *,
    seed: int = 0,
    profile: Profile | None = None,
    cassette: str | os.PathLike[str] | None = None,
    record: str | os.PathLike[str] | None = None,
    retry: APIRetry | None = None,
    base_url: str | None = None,
) -> ModelChoice:
    """Resolve `model` (or $ATLAS_MODEL, or a default) to a provider and a model.

    Without a key and with no model named, the stand-in answers; asking for a Claude model with no key falls
    back to the stand-in with a note. `cassette=` replays a recording; `record=` records a live run (Anthropic's
    or a local one), written by `ModelChoice.save_recording()`: the path is checked here, before any call, and a
    cassette already there is added to, never replaced (record_path.py). `base_url=` (or
    $ATLAS_BASE_URL for the ollama:/llamacpp: spellings) says where a local server listens. `retry` bounds each
    call's retries and waits (the provider's default otherwise).
    """
    if cassette is not None:
        tape = Cassette.load(cassette)
        return ModelChoice(Replay(tape), tape.model)
    key = os.environ.get(KEY_ENV)
    named = model if model is not None else os.environ.get(MODEL_ENV) or (DEFAULT_MODEL if key else OFFLINE_MODEL)
    spelling = parse_model(named, base_url=base_url)
    if spelling.server == "standin":
        if record is not None:
            raise AtlasKitValueError("record= records a live model; the stand-in's answers can be made again from its seed.")
        return ModelChoice(StandIn(seed=seed, profile=profile), OFFLINE_MODEL)
    provider, note = _provider(spelling, key=key, base_url=base_url)
    if provider is None:  # a Claude model with no key: the stand-in answers, and says so
        return ModelChoice(StandIn(seed=seed, profile=profile), OFFLINE_MODEL, note)
    choice = ModelChoice(provider, spelling.model, note, retry=retry)
    if record is not None:  # checked before any call; a cassette already there is added to, never replaced
        held = cassette_to_extend(record, model=spelling.model, server=choice.source.server)
        choice.recording = held or Cassette(model=spelling.model, server=choice.source.server)
        choice.record_to = Path(record)
        adding = f" (adding to its {len(held.entries):,} recorded call(s))" if held is not None else ""
        choice.note = note or f"Recording to {Path(record).name}{adding}."
    return choice


def _provider(spelling: Spelling, *, key: str | None, base_url: str | None) -> tuple[Provider | None, str]:
    if spelling.server in LOCAL:
        from_env = None if base_url else os.environ.get(BASE_URL_ENV) or None
        return LOCAL[spelling.server](base_url or from_env, address_from=BASE_URL_ENV if from_env else None), ""
    if spelling.server == "compatible":
        assert base_url is not None  # parse_model gives "compatible" only with one
        return Compatible(base_url), ""
    end_of_life = deprecation(spelling.model)
    if end_of_life is not None:  # refused even with no key: the name is wrong either way
        raise AtlasKitValueError(f"model {spelling.model!r} is deprecated (end of life {end_of_life}); use {DEFAULT_MODEL!r} "
                         f"or another of: {', '.join(known_models()[:6])}.")
    if not key:
        return None, (f"No {KEY_ENV} is set, so the offline stand-in answers instead of {spelling.model}. Results "
                      "below are simulated. Set the key to call Claude, or run a local model for free "
                      "(model='ollama:qwen3:4b', see chapter 00).")
    known = "" if spelling.model in known_models() else f"{spelling.model} is not in the installed SDK's list of models."
    return AnthropicAPI(key=key), known

