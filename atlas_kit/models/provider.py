"""The provider interface: one description per kind of endpoint that answers the Messages API.

A provider says where it is (`base_url`), whether it needs a key, what it supports (batches, an exact
`count_tokens`, prompt caching, prices), how to label what it answers (`source`), how to make a real SDK
client for it, how to check it before a sweep spends anything (`preflight`), how a sweep spells it, its exact token
count and its notes. Anthropic's API, a local server (Ollama, llama.cpp, any Anthropic-compatible one), the offline
stand-in and a replay are one small class each, in providers/; registry.py maps a spelling to one. Chapter 00.
"""
from __future__ import annotations

import abc
from dataclasses import dataclass, field
from typing import ClassVar, Literal, Mapping, cast

import anthropic
import httpx2

from ..types.records import Source
from ..types.exceptions import AtlasKitValueError
from .api_retry import APIRetry, BoundedRetry
from .cassette import Cassette, RecordingTransport
from .counting import TokenCounter
from .resume import CallKeeper


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
    """One kind of endpoint: who answers a request. A subclass says what it is (`name`, `capabilities`), where it is
    and how to reach it (`base_url`, the transports), what its runs are labelled (`source`); mypy refuses to make one
    that leaves any of these out. The rest has defaults it may override: its key, its check before a sweep, how a
    sweep spells it, an exact token count, and what a run found worth a line."""

    default_retry: ClassVar[APIRetry] = APIRetry()

    @property
    @abc.abstractmethod
    def name(self) -> str:
        """What labels and messages call it: "Anthropic", "Ollama", "llama.cpp", ..."""

    @property
    @abc.abstractmethod
    def capabilities(self) -> Capabilities:
        """What it supports: batches, an exact token count, prompt caching, prices."""

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

    def spelling(self, model: str) -> str:
        """`model` on this provider as `--model`, ATLAS_MODEL and a sweep's `model=` write it (registry.py reads it
        back). The default: none, said in one line (a cassette, a server known only by its address)."""
        raise ProviderError(f"{self.source(model).label} has no model spelling a sweep can take: pass the cassette= or "
                            "base_url= this choice was made with to the sweep as well.")

    def token_counter(self, model: str) -> TokenCounter | None:
        """An exact count of a request's input tokens, free, before it is sent (pricing a sweep's estimate); None
        when this provider prices nothing or cannot count (the estimate then says it guessed)."""
        return None

    def run_notes(self) -> tuple[str, ...]:
        """What the runs so far showed worth a line after a sweep (a local server that cut a prompt); none by default."""
        return ()

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
