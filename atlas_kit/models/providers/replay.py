"""A cassette as a provider: a recorded run answers again, with no key and no network.

A request the cassette does not hold raises `ReplayMiss`, naming what differs; the runs are labelled
"replayed from <model> on <date>" (and the local server it ran on, when it was recorded on one). Chapters 00, 11.
"""
from __future__ import annotations

import os
from typing import ClassVar, Literal, overload

import anthropic

import httpx2

from ...types.records import Source
from ..api_retry import APIRetry
from ..cassette import Cassette
from ..provider import Capabilities, Provider
from ..replay import replay_transport
from ..transport import BASE_URL


class Replay(Provider):
    """Answers from `cassette`; each client made from it starts counting repeated requests afresh."""

    name: ClassVar = "a cassette"
    capabilities: ClassVar = Capabilities(batches=False, count_tokens="none", prompt_caching=False, priced=False)
    default_retry: ClassVar = APIRetry(max_retries=0)  # a miss is final

    def __init__(self, cassette: Cassette) -> None:
        self.cassette = cassette

    @property
    def base_url(self) -> str:
        return BASE_URL

    def source(self, model: str = "") -> Source:
        tape = self.cassette
        return Source("replayed", tape.model, tape.recorded_on, server=tape.server)

    def sync_transport(self) -> httpx2.BaseTransport:
        return replay_transport(self.cassette)

    def async_transport(self) -> httpx2.AsyncBaseTransport:
        return replay_transport(self.cassette)


@overload
def replay_client(cassette_or_path: Cassette | str | os.PathLike[str], *,
                  async_: Literal[False] = ...) -> anthropic.Anthropic: ...
@overload
def replay_client(cassette_or_path: Cassette | str | os.PathLike[str], *,
                  async_: Literal[True]) -> anthropic.AsyncAnthropic: ...
def replay_client(cassette_or_path: Cassette | str | os.PathLike[str], *,
                  async_: bool = False) -> anthropic.Anthropic | anthropic.AsyncAnthropic:
    """A genuine client that answers from the cassette, with no key and no network (`choose_model(cassette=)`
    gives the same, labelled). A request that was not recorded (or is asked more often than it was recorded)
    raises `ReplayMiss` (an `anthropic.AnthropicError`, never retried) whose message names the first difference
    from the nearest recording; the agent loop records it as the API failure `replay_miss`."""
    cassette = cassette_or_path if isinstance(cassette_or_path, Cassette) else Cassette.load(cassette_or_path)
    return Replay(cassette).async_client() if async_ else Replay(cassette).client()
