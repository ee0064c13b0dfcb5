"""Anthropic's Messages API: the only provider that needs a key, and the only one whose tokens cost money.

The key is handed in by choose.py (the one place that reads the environment) and goes only to this provider's
base URL: Anthropic's API, or the ANTHROPIC_BASE_URL you set for it. Also here: the model names the installed SDK
knows, and the end-of-life dates it warns about. Chapter 00.
"""
from __future__ import annotations

import datetime as dt
import os
import typing
from typing import ClassVar

import anthropic
import httpx2
from anthropic.types import Model

from ...types.records import Source
from ...types.clients import wire
from ..counting import CountedRequest, TokenCounter
from ...shim import deprecated_models
from ..provider import Capabilities, Credentials, Provider
from ...types.exceptions import AtlasKitValueError

ANTHROPIC_URL = "https://api.anthropic.com"


class AnthropicAPI(Provider):
    """Claude through Anthropic's API. `key` is ANTHROPIC_API_KEY's value; it is never shown or written."""

    name: ClassVar = "Anthropic"
    capabilities: ClassVar = Capabilities(batches=True, count_tokens="exact", prompt_caching=True, priced=True)

    def __init__(self, *, key: str) -> None:
        if not isinstance(key, str) or not key.strip():
            raise AtlasKitValueError("AnthropicAPI needs a key: set ANTHROPIC_API_KEY in the environment.")
        self._key = key

    @property
    def base_url(self) -> str:
        # The SDK's own variable: set it only to reach Anthropic's API another way (a proxy you run for it).
        return os.environ.get("ANTHROPIC_BASE_URL") or ANTHROPIC_URL

    def source(self, model: str) -> Source:
        return Source("live", model, dt.date.today().isoformat())

    def credentials(self) -> Credentials:
        return Credentials(self._key)

    def spelling(self, model: str) -> str:
        return model  # a Claude model's name is its spelling

    def token_counter(self, model: str) -> TokenCounter:
        """Anthropic's `messages.count_tokens` (free) for `model`, through a client made on first use."""
        made: list[anthropic.Anthropic] = []

        def count(body: CountedRequest) -> int:
            if not made:
                made.append(self.client())
            sent = wire({"model": model, "max_tokens": 1, **body})  # the request as the SDK types it
            return made[0].messages.count_tokens(model=sent["model"], system=sent["system"], tools=sent["tools"],
                                                 messages=sent["messages"]).input_tokens

        return count

    def sync_transport(self) -> httpx2.BaseTransport:
        return httpx2.HTTPTransport()

    def async_transport(self) -> httpx2.AsyncBaseTransport:
        return httpx2.AsyncHTTPTransport()


def deprecation(model: str) -> str | None:
    """The end-of-life date the installed SDK gives for `model`, or None when it does not call it deprecated: read
    from the SDK's own table (atlas_kit/shim.py), the one it warns from."""
    return deprecated_models().get(model)


def known_models() -> tuple[str, ...]:
    """Model names the installed SDK lists, minus the ones it warns are deprecated."""
    literal = typing.get_args(Model)[0]
    return tuple(m for m in typing.get_args(literal) if deprecation(m) is None)
