"""What a model client must offer the agent loop and the sweeps: `messages.create`, and a copy with more headers.

The real SDK's `anthropic.Anthropic` and `AsyncAnthropic` fit these Protocols as they are, whatever answers
behind them (Anthropic's API, a local server, the offline stand-in, a cassette); so does any object of your own
with the same two members. The parameters are typed as the SDK types them (type-only imports: nothing is loaded
at run time); `wire` is the one place the course's own request TypedDict meets them. Chapter 00 shows the four
providers behind one client type.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Mapping, Protocol, TypedDict, cast

from .api import MessagesRequest

if TYPE_CHECKING:
    from anthropic.types import Message as APIMessage
    from anthropic.types import MessageParam, ToolUnionParam
    from typing_extensions import Self


class WireRequest(TypedDict):
    """A request as the SDK's `messages.create` types its parameters (the same JSON as types.MessagesRequest)."""

    model: str
    max_tokens: int
    system: str
    messages: list[MessageParam]
    tools: list[ToolUnionParam]


def wire(request: MessagesRequest) -> WireRequest:
    """The request as the SDK's parameters. The two describe the same JSON; the SDK's TypedDicts list optional
    fields ours leave out (cache_control, citations ...), so the type checker cannot see it by itself."""
    return cast("WireRequest", request)


class MessagesAPI(Protocol):
    """`client.messages`: one call, `create`, which answers a request with a message."""

    def create(self, *, model: str, max_tokens: int, messages: Iterable[MessageParam], system: str,
               tools: Iterable[ToolUnionParam]) -> APIMessage: ...


class AsyncMessagesAPI(Protocol):
    """`client.messages` of an async client."""

    async def create(self, *, model: str, max_tokens: int, messages: Iterable[MessageParam], system: str,
                     tools: Iterable[ToolUnionParam]) -> APIMessage: ...


class MessagesClient(Protocol):
    """A sync client: its `messages`, and a copy that sends more headers (a sweep tags each episode's calls)."""

    @property
    def messages(self) -> MessagesAPI: ...

    def with_options(self, *, default_headers: Mapping[str, str] | None = None) -> Self: ...


class AsyncMessagesClient(Protocol):
    """An async client, as `MessagesClient`."""

    @property
    def messages(self) -> AsyncMessagesAPI: ...

    def with_options(self, *, default_headers: Mapping[str, str] | None = None) -> Self: ...
