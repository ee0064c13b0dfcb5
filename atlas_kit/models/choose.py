"""Which model answers: live, offline stand-in, or a replayed recording. Decided here only.

The environment variables and the key rule live in this file and nowhere else (the default model's
name is types.DEFAULT_MODEL). Asking for a live model with no key falls back to the offline stand-in
with a visible note, never a traceback. A deprecated name is refused, as the SDK's own warning says.
Live and recording clients retry under `retries.APIRetry`, so no wait is unbounded or silent. Chapter 00.
"""
from __future__ import annotations

import datetime as dt
import functools
import os
import re
import typing
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anthropic
from anthropic.types import Model

from .standin.model import OFFLINE_MODEL, Profile, offline_client
from .replay import Cassette, recording_client, replay_client
from .api_retry import APIRetry, bounded
from .transport import in_process_client, message_body
from ..types import DEFAULT_MODEL, SIMULATED, Mode, Source, SourceKind

__all__ = ["DEFAULT_MODEL", "KEY_ENV", "MODEL_ENV", "OFFLINE_MODEL", "SIMULATED", "Mode", "ModelChoice", "choose_model",
           "deprecation", "known_models"]

MODEL_ENV = "ATLAS_MODEL"  # overrides the default; a notebook's `model` parameter overrides both
KEY_ENV = "ANTHROPIC_API_KEY"  # the only place a key is read from
_END_OF_LIFE = re.compile(r"end-of-life on (.+?)\.(?:\n|$)")


@functools.lru_cache(maxsize=None)
def deprecation(model: str) -> str | None:
    """The end-of-life date the installed SDK gives for `model`, or None when it does not call it deprecated.

    Read from the SDK's public DeprecationWarning, which `messages.create` raises before it sends anything:
    the call goes to an in-process API, so nothing leaves the machine and no key is needed.
    """
    client = in_process_client(lambda body: message_body([], model=model, stop_reason="end_turn"), max_retries=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        client.messages.create(model=model, max_tokens=1, messages=[{"role": "user", "content": "."}])
    for warning in caught:
        if issubclass(warning.category, DeprecationWarning) and (found := _END_OF_LIFE.search(str(warning.message))):
            return found.group(1)
    return None


def known_models() -> tuple[str, ...]:
    """Model names the installed SDK lists, minus the ones it warns are deprecated."""
    literal = typing.get_args(Model)[0]
    return tuple(m for m in typing.get_args(literal) if deprecation(m) is None)


@dataclass
class ModelChoice:
    """A client, the model it answers as, and where its answers come from (`origin`, with `source` its label)."""

    client: Any
    model: str
    mode: Mode
    source: str  # what every chart and table built from its runs must say
    note: str = ""
    recording: Cassette | None = None  # set when recording a live run
    record_to: Path | None = None
    origin: Source | None = None

    def __post_init__(self) -> None:
        kinds: dict[str, SourceKind] = {"offline": "simulated", "live": "live", "replay": "replayed"}
        if self.mode not in kinds:
            raise ValueError(f"ModelChoice.mode must be one of {', '.join(kinds)}; got {self.mode!r}.")
        if self.origin is None:  # a choice made by hand: its kind follows from the mode
            kind = kinds[self.mode]
            self.origin = Source(kind, self.model, None if kind == "simulated" else dt.date.today().isoformat())

    def save_recording(self) -> Path:
        """Write the cassette of a `choose_model(..., record=path)` choice; returns the path."""
        if self.recording is None or self.record_to is None:
            raise ValueError("This choice is not recording; pass record='cassettes/name.json' to choose_model().")
        self.recording.save(self.record_to)
        return self.record_to

    def describe(self) -> str:
        text = f"Model: {self.model} — {self.source}."
        return f"{text}\nNote: {self.note}" if self.note else text


def choose_model(
    model: str | None = None,
    *,
    seed: int = 0,
    profile: Profile | None = None,
    cassette: str | os.PathLike[str] | None = None,
    record: str | os.PathLike[str] | None = None,
    async_: bool = False,
    retry: APIRetry | None = None,
) -> ModelChoice:
    """Resolve `model` (or $ATLAS_MODEL, or a default) to a client and a source label.

    `cassette=` replays a recording with no key; `record=` records a live run, written to
    that path by `ModelChoice.save_recording()`. `retry` bounds a live call's retries and waits
    (default `APIRetry()`: no retry-after over 30 s is waited for, at most 60 s of waiting a call).
    """
    if cassette is not None:
        tape = Cassette.load(cassette)
        origin = Source("replayed", tape.model, tape.recorded_on)
        return ModelChoice(replay_client(tape, async_=async_), tape.model, "replay", origin.label, origin=origin)
    wanted = model or os.environ.get(MODEL_ENV) or (DEFAULT_MODEL if os.environ.get(KEY_ENV) else OFFLINE_MODEL)
    if not isinstance(wanted, str) or not wanted.strip():
        raise ValueError(f"model must be a model name such as {DEFAULT_MODEL!r} or {OFFLINE_MODEL!r}.")
    end_of_life = deprecation(wanted) if wanted != OFFLINE_MODEL else None
    if end_of_life is not None:  # refused even with no key: the name is wrong either way
        raise ValueError(
            f"model {wanted!r} is deprecated (end of life {end_of_life}); "
            f"use {DEFAULT_MODEL!r} or another of: {', '.join(known_models()[:6])}."
        )
    simulated = Source("simulated", OFFLINE_MODEL)
    if wanted == OFFLINE_MODEL:
        return ModelChoice(offline_client(seed=seed, profile=profile, async_=async_), OFFLINE_MODEL, "offline",
                           SIMULATED, origin=simulated)
    if not os.environ.get(KEY_ENV):
        note = (f"No {KEY_ENV} is set, so the offline stand-in answers instead of {wanted}. "
                "Results below are simulated. Set the key in your environment to call the live model.")
        return ModelChoice(offline_client(seed=seed, profile=profile, async_=async_), OFFLINE_MODEL, "offline",
                           SIMULATED, note, origin=simulated)
    note = "" if wanted in known_models() else f"{wanted} is not in the installed SDK's list of model names."
    origin = Source("live", wanted, dt.date.today().isoformat())
    if record is not None:
        tape = Cassette(model=wanted, recorded_on=dt.date.today().isoformat())
        client = recording_client(tape, async_=async_, retry=retry)
        return ModelChoice(client, wanted, "live", origin.label, note or f"Recording to {Path(record).name}.", tape,
                           Path(record), origin)
    # The SDK's own retries obey any retry-after; these run under `retry` instead (retries.py).
    options = bounded(retry)
    client = anthropic.AsyncAnthropic(**options) if async_ else anthropic.Anthropic(**options)
    return ModelChoice(client, wanted, "live", origin.label, note, origin=origin)

