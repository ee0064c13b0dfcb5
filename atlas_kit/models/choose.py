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
from typing import Literal

import anthropic

from ..types import DEFAULT_MODEL, SIMULATED, Mode, Source
from .api_retry import APIRetry
from .cassette import Cassette
from .record_path import cassette_to_extend
from .provider import Provider
from .resume import CallKeeper
from .providers.anthropic import AnthropicAPI, deprecation, known_models
from .providers.compatible import Compatible
from .providers.llamacpp import LlamaCpp
from .providers.ollama import Ollama
from .providers.replay import Replay
from .providers.standin import StandIn
from .env import BASE_URL_ENV, KEY_ENV, MODEL_ENV  # re-exported: they were born here
from .standin.model import OFFLINE_MODEL, Profile
from ..types.exceptions import AtlasKitValueError

__all__ = ["BASE_URL_ENV", "DEFAULT_MODEL", "KEY_ENV", "MODEL_ENV", "OFFLINE_ALIASES", "OFFLINE_MODEL", "SIMULATED",
           "Mode", "ModelChoice", "Spelling", "choose_model", "deprecation", "known_models", "parse_model"]

OFFLINE_ALIASES = ("offline", OFFLINE_MODEL)
_LOCAL: dict[str, type[Ollama] | type[LlamaCpp]] = {"ollama": Ollama, "llamacpp": LlamaCpp}

ServerKind = Literal["anthropic", "ollama", "llamacpp", "compatible", "standin"]


@dataclass(frozen=True)
class Spelling:
    """A model as written (`ollama:qwen3:4b`): which kind of server, and the model's own name there."""

    server: ServerKind
    model: str


def parse_model(text: str, *, base_url: str | None = None) -> Spelling:
    """Read a model's spelling; a name with `base_url` and no prefix is another Anthropic-compatible server's."""
    if not isinstance(text, str) or not text.strip():
        raise AtlasKitValueError(f"model must be a name such as {DEFAULT_MODEL!r}, 'ollama:qwen3:4b' or {OFFLINE_MODEL!r}; "
                         f"got {text!r}.")
    text = text.strip()
    if text in OFFLINE_ALIASES:
        return Spelling("standin", OFFLINE_MODEL)
    prefix, sep, rest = text.partition(":")
    if text in _LOCAL:
        raise AtlasKitValueError(f"{text!r} names no model: write {text}:<model>, such as {text}:qwen3:4b.")
    if sep and prefix not in _LOCAL and not base_url and not text.startswith("claude"):
        # Claude's names have no colon; Ollama's do (qwen3:4b): a local model written without its server.
        raise AtlasKitValueError(f"{text!r} is not a Claude model's name: a model Ollama serves is written "
                                 f"ollama:{text}, one llama-server serves llamacpp:{text}, and another server's needs "
                                 "its address (base_url=, or --base-url).")
    if sep and prefix in _LOCAL:
        if not rest.strip():
            raise AtlasKitValueError(f"{text!r} names no model: write {prefix}:<model>, such as {prefix}:qwen3:4b.")
        return Spelling("ollama" if prefix == "ollama" else "llamacpp", rest.strip())
    return Spelling("compatible" if base_url else "anthropic", text)


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
        if isinstance(self.provider, StandIn):
            return "offline"
        if isinstance(self.provider, (Replay, Compatible)):
            raise ValueError(f"{self.source.label} has no model spelling a sweep can take: pass the cassette= or "
                             "base_url= this choice was made with to the sweep as well.")
        prefix = next((name for name, server in _LOCAL.items() if isinstance(self.provider, server)), None)
        return f"{prefix}:{self.model}" if prefix else self.model

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
    if spelling.server in _LOCAL:
        from_env = None if base_url else os.environ.get(BASE_URL_ENV) or None
        return _LOCAL[spelling.server](base_url or from_env, address_from=BASE_URL_ENV if from_env else None), ""
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

