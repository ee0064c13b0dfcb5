"""How many input tokens a request takes, before it is sent: Anthropic's own count when it can give one, else an
estimate of everything sent (the system prompt, the tool definitions as JSON, the messages) plus the tool-use
system prompt the API adds (pricing.TOOL_PROMPT_TOKENS). `estimate_requests` prices a sweep's first requests
with it and says which count it used. The estimate's guesses and prices are pricing.py's. Chapter 11.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Callable, Sequence, TypedDict

import anthropic

from ..types.api import Message, ToolDefinition
from ..types.clients import wire
from ..types.tokens import estimate_tokens
from .pricing import Estimate, estimate, tool_prompt_tokens
from ..types.tokens import request_tokens


class CountedRequest(TypedDict):
    """The parts of a Messages request that take input tokens: the system prompt, the tools and the messages."""

    system: str
    tools: list[ToolDefinition]
    messages: list[Message]


TokenCounter = Callable[[CountedRequest], int]
"""Counts one request's input tokens exactly (a server's tokenizer): `anthropic_counter` makes one."""


@dataclass(frozen=True)
class RequestSizes:
    """Each request's input tokens, whether the API counted them, and one line that says how they were found."""

    tokens: tuple[int, ...]
    counted: bool
    how: str

    @property
    def mean(self) -> int:
        return round(sum(self.tokens) / len(self.tokens)) if self.tokens else 0


def estimate_request(body: CountedRequest, *, model: str) -> int:
    """About 4 characters a token of the system prompt, the tools as the JSON that is sent and the messages, plus
    `model`'s tool-use system prompt when there are tools. An estimate: a real tokenizer reads JSON more densely."""
    tools = body["tools"]
    sent = (estimate_tokens(body["system"]) + request_tokens({"messages": body["messages"]})
            + (estimate_tokens(json.dumps(tools, ensure_ascii=False)) if tools else 0))
    return sent + (tool_prompt_tokens(model)[0] if tools else 0)


def _estimated(model: str) -> str:
    tokens, published = tool_prompt_tokens(model)
    prompt = (f"Anthropic's published figure for {model}" if published else
              f"Anthropic publishes none for {model}, so the largest figure in pricing.py")
    return (f"estimated: about 4 characters a token of the system prompt, the tool definitions as JSON and the "
            f"ticket, plus {tokens} tokens of tool-use system prompt ({prompt})")


def size_requests(bodies: Sequence[CountedRequest], *, model: str, counter: TokenCounter | None = None) -> RequestSizes:
    """Every body's input tokens. With `counter`, one call counts the longest body exactly and the others are scaled
    by the same ratio to their estimates; without one, or when the count fails, the estimates (and `how` says so).

    The same body object appears once however often it is listed, so a sweep's thousands of episodes over a few
    dozen first requests are estimated a few dozen times.
    """
    first: dict[int, int] = {}
    for body in bodies:
        first.setdefault(id(body), estimate_request(body, model=model))
    estimated = tuple(first[id(b)] for b in bodies)
    if counter is None or not bodies:
        return RequestSizes(estimated, False, _estimated(model))
    longest = max(bodies, key=lambda b: first[id(b)])
    try:
        counted = counter(longest)
    except (anthropic.AnthropicError, ValueError) as err:  # a refused key, a server without the route, the network
        return RequestSizes(estimated, False, f"{_estimated(model)}; messages.count_tokens failed ({_why(err)})")
    if isinstance(counted, bool) or not isinstance(counted, int) or counted <= 0:
        return RequestSizes(estimated, False, f"{_estimated(model)}; messages.count_tokens gave {counted!r}")
    ratio = counted / first[id(longest)]
    return RequestSizes(tuple(round(e * ratio) for e in estimated), True,
                        f"counted by Anthropic's messages.count_tokens for {model} (the longest first request, "
                        f"{counted:,} tokens; the others scaled by its ratio to their estimates)")


def _why(err: BaseException) -> str:
    status = getattr(err, "status_code", None)  # never the message: an error body may quote the request
    return f"{type(err).__name__}, HTTP {status}" if isinstance(status, int) else type(err).__name__


def estimate_requests(bodies: Sequence[CountedRequest], *, model: str, max_cost_usd: float, max_tokens: int,
                      batch: bool = False, counter: TokenCounter | None = None) -> Estimate:
    """`pricing.estimate` for one episode per body, priced at the bodies' mean first request: counted by `counter`
    (the provider's exact count, `Provider.token_counter`), else estimated."""
    sizes = size_requests(bodies, model=model, counter=counter)
    return estimate(len(bodies), model=model, base_tokens=sizes.mean, max_cost_usd=max_cost_usd,
                    max_tokens=max_tokens, batch=batch, sized=sizes.how)
