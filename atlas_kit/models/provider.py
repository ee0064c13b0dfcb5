"""The provider interface: one description per kind of endpoint that answers the Messages API.

A provider says where it is (`base_url`), whether it needs a key, what it supports (batches, an exact
`count_tokens`, prompt caching, prices), how to label what it answers (`source`), how to make a real SDK
client for it, and how to check it before a sweep spends anything (`preflight`). Anthropic's API, a local
server (Ollama, llama.cpp, any Anthropic-compatible one), the offline stand-in and a replay are one small
class each, in providers/. Chapter 00 lists them; a new one is a subclass that mypy checks.
"""
from __future__ import annotations

import abc
from dataclasses import dataclass, field
from typing import ClassVar, Literal, Mapping, cast

import anthropic
import httpx2

from ..types import Source
from ..types.exceptions import AtlasKitValueError
from .api_retry import APIRetry, BoundedRetry
from .cassette import Cassette, RecordingTransport
from .resume import CallKeeper

__all__ = ["Capabilities", "Credentials", "NO_KEY", "Preflight", "Provider", "ProviderError", "ProviderKind"]

ProviderKind = Literal["anthropic", "local", "standin", "replay"]
"""Anthropic's API, a local (non-Anthropic) server, the offline stand-in, or a cassette."""


@dataclass(frozen=True)
class Credentials:
    """What a client authenticates with. `repr` shows no key."""

    api_key: str = field(repr=False)
    headers: Mapping[str, str | anthropic.Omit] = field(default_factory=dict)


# No key at all: an explicit placeholder stops the SDK reading ANTHROPIC_API_KEY (or a profile, or federation
# files), and the omitted headers stop it sending even the placeholder.
NO_KEY = Credentials("no-key-needed", {"Authorization": anthropic.Omit(), "X-Api-Key": anthropic.Omit()})


@dataclass(frozen=True)
class Capabilities:
    """What an endpoint supports. `count_tokens`: "exact" (the server tokenizes), or "none" (atlas_kit then
    estimates at about 4 characters a token, and says so). `priced`: its tokens cost money (pricing.py)."""

    batches: bool
    count_tokens: Literal["exact", "none"]
    prompt_caching: bool
    priced: bool


class ProviderError(AtlasKitValueError):
    """A provider that cannot serve this run: the message is one line that says what to do."""


@dataclass(frozen=True)
class Preflight:
    """What a provider's check found before anything ran: the model's context window in tokens when the server
    says it (and where it said it), notes worth a line each (a window that may cut long episodes), and the server's
    build when it states one (llama-server's /props build_info)."""

    context_window: int | None = None
    window_from: str = ""
    notes: tuple[str, ...] = field(default=())
    server_build: str = ""


class Provider(abc.ABC):
    """One kind of endpoint. Subclasses set the class attributes and the three abstract members."""

    kind: ClassVar[ProviderKind]
    name: ClassVar[str]  # "Anthropic", "Ollama", "llama.cpp", ...: what labels and messages call it
    capabilities: ClassVar[Capabilities]
    needs_key: ClassVar[bool] = False
    default_retry: ClassVar[APIRetry] = APIRetry()

    @property
    @abc.abstractmethod
    def base_url(self) -> str:
        """Where its requests go (an `.invalid` address for the in-process ones: nothing leaves the machine)."""

    @abc.abstractmethod
    def source(self, model: str) -> Source:
        """What every run it answers is labelled."""

    @abc.abstractmethod
    def sync_transport(self) -> httpx2.BaseTransport:
        """The HTTP transport its sync clients send through (the network, or an in-process handler)."""

    @abc.abstractmethod
    def async_transport(self) -> httpx2.AsyncBaseTransport:
        """The same for its async clients."""

    def credentials(self) -> Credentials:
        """What its clients authenticate with: no key at all (NO_KEY), unless the provider needs one."""
        return NO_KEY

    def preflight(self, model: str, *, prompt_tokens: int) -> Preflight:
        """Check, before any episode runs, that `model` can be served with a first request of about
        `prompt_tokens` tokens; raise ProviderError with one line when it cannot. The default checks nothing."""
        return Preflight()

    def client(self, *, retry: APIRetry | None = None, cassette: Cassette | None = None) -> anthropic.Anthropic:
        """A genuine `anthropic.Anthropic` for this endpoint, its retries under `retry` (default: the provider's);
        with `cassette`, every good call is recorded into it."""
        inner = self.sync_transport()
        sent = RecordingTransport(inner, cassette) if cassette is not None else inner
        policy, who = retry or self.default_retry, self.credentials()
        return anthropic.Anthropic(api_key=who.api_key, default_headers=_headers(who), base_url=self.base_url,
                                   http_client=anthropic.DefaultHttpxClient(transport=sent), open_telemetry=False,
                                   max_retries=0, timeout=policy.timeout, middleware=[BoundedRetry(policy)])

    def async_client(self, *, retry: APIRetry | None = None, cassette: Cassette | None = None,
                     keeper: CallKeeper | None = None) -> anthropic.AsyncAnthropic:
        """The `AsyncAnthropic` twin of `client`; with `keeper` (a sweep's), every call of an episode is kept, and
        a resumed episode's kept replies answer again (resume.py), under the recording if there is one."""
        inner = self.async_transport()
        kept = keeper.transport(inner) if keeper is not None else inner
        sent = RecordingTransport(kept, cassette) if cassette is not None else kept
        policy, who = retry or self.default_retry, self.credentials()
        return anthropic.AsyncAnthropic(api_key=who.api_key, default_headers=_headers(who), base_url=self.base_url,
                                        http_client=anthropic.DefaultAsyncHttpxClient(transport=sent),
                                        open_telemetry=False, max_retries=0, timeout=policy.timeout,
                                        middleware=[BoundedRetry(policy)])

    def __repr__(self) -> str:  # never a key: a provider is printed in notes and notebooks
        return f"{type(self).__name__}({self.base_url!r})"


def _headers(who: Credentials) -> Mapping[str, str]:
    # The SDK drops a header whose value is `Omit()` (it merges headers with its own omit rule), though its
    # signature types them as str; this is the one place that relies on it.
    return cast(Mapping[str, str], who.headers)
