"""Token prices and the tool-use system prompt's size in dated tables you can override, and the cost estimate
shown before a live sweep.

Used by the agent loop for its cost bound, by the experiments for cost per ticket, and by the sweep's estimate
(a batch path calls `estimate(..., batch=True)` for the 50% batch price); counting.py sizes the first request it
prices. Taught in chapters 06, 07 and 11.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..types.sets import DEFAULT_MODEL
from ..types.records import Source
from ..types.exceptions import AtlasKitValueError

# US dollars per million tokens, as published rates were reported on this date.
# Check the provider's pricing page before you budget with them; override with set_price().
PRICES_AS_OF = "2026-10-07"
BATCH_DISCOUNT = 0.5  # the Message Batches API bills half the standard price


@dataclass(frozen=True)
class Price:
    """US dollars per million input tokens and per million output tokens."""

    input_per_mtok: float
    output_per_mtok: float


PRICES: dict[str, Price] = {
    "claude-sonnet-5-5": Price(2.00, 10.00),
    "claude-sonnet-5": Price(2.00, 10.00),
    "claude-haiku-5-5": Price(0.10, 0.50),
    "claude-haiku-4-5": Price(1.00, 5.00),
    "claude-sonnet-4-5": Price(3.00, 15.00),
}
# The system prompt the API adds to every request that has tools, in tokens, with tool_choice auto or none (the
# agent loop sends no tool_choice, so auto), as Anthropic publishes it: "Tool use system prompt token count" in
# https://platform.claude.com/docs/en/agents-and-tools/tool-use/overview (Pricing), read for PRICES_AS_OF. It is
# billed as input on top of the tool definitions, the system prompt and the messages. The page lists no figure for
# claude-sonnet-5-5 or claude-haiku-5-5; an unlisted model is sized at the largest figure here (tool_prompt_tokens).
TOOL_PROMPT_TOKENS: dict[str, int] = {
    "claude-sonnet-5": 354,
    "claude-sonnet-4-5": 496,
    "claude-haiku-4-5": 496,
}
# Offline runs are priced as if the default model had produced the same tokens, so a
# cost bound behaves the same way in a simulation as in a live run.
FALLBACK_MODEL = DEFAULT_MODEL
_NOTED: set[str] = set()


def set_price(model: str, *, input_per_mtok: float, output_per_mtok: float) -> None:
    """Add or replace one model's price for this process."""
    for value in (input_per_mtok, output_per_mtok):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
            raise AtlasKitValueError(f"Prices must be finite numbers of zero or more US dollars per million tokens; got {value!r}.")
    PRICES[model] = Price(float(input_per_mtok), float(output_per_mtok))


def price_for(model: str) -> tuple[Price, bool]:
    """The price to use for `model`, and whether the table really lists it."""
    if model in PRICES:
        return PRICES[model], True
    return PRICES[FALLBACK_MODEL], False


def price_note(model: str) -> str | None:
    """The note that `model` has no listed price: returned the first time per model in a process, then None."""
    if price_for(model)[1] or model in _NOTED:
        return None
    _NOTED.add(model)
    return f"No price is listed for {model}; cost is estimated at the fallback model's rate."


def run_cost_usd(model: str, source: Source | None, input_tokens: int, output_tokens: int) -> float:
    """What one run's tokens cost: $0 for a local model (its server's token counts are its own and never
    priced); otherwise `cost_usd`, so the stand-in's and a replay's cost bound behaves as a live run's would."""
    return 0.0 if source is not None and source.local else cost_usd(model, input_tokens, output_tokens)


def run_price_note(model: str, source: Source | None) -> str | None:
    """`price_note` for a run; a local model has no price to miss."""
    return None if source is not None and source.local else price_note(model)


def tool_prompt_tokens(model: str) -> tuple[int, bool]:
    """The tool-use system prompt's tokens for `model`, and whether Anthropic publishes that figure for it (else the
    largest one in TOOL_PROMPT_TOKENS, so a model with no figure is not estimated low for the lack of one)."""
    if model in TOOL_PROMPT_TOKENS:
        return TOOL_PROMPT_TOKENS[model], True
    return max(TOOL_PROMPT_TOKENS.values(), default=0), False


def cost_usd(model: str, input_tokens: int, output_tokens: int) -> float:
    """What these tokens cost at `model`'s price (the fallback model's when it has none), in US dollars."""
    price, _ = price_for(model)
    return (input_tokens * price.input_per_mtok + output_tokens * price.output_per_mtok) / 1_000_000


@dataclass(frozen=True)
class Guess:
    """The shape of one episode: model calls, tokens the model writes per call, and tokens each turn adds.

    base_factor scales the first request's size (counting.py's, which already holds the tools and the tool-use
    system prompt) for how far a real tokenizer may run above an estimate.
    """

    calls: int
    output_per_call: int
    growth_per_call: int
    base_factor: float
    why: str

    def tokens(self, base: int) -> tuple[int, int]:
        """(input, output) tokens of one episode: every call re-sends the context, which grows each turn."""
        first = round(base * self.base_factor)
        return (self.calls * first + self.growth_per_call * self.calls * (self.calls - 1) // 2,
                self.calls * self.output_per_call)


# LOW is the stand-in's measured shape (2.2 calls, about 27 output tokens a call, $0.0077 an
# episode at claude-sonnet-5-5's price, all 27 tickets); HIGH is a model that explores and writes more.
LOW = Guess(2, 60, 250, 1.0, "short replies, like the stand-in's")
HIGH = Guess(6, 400, 700, 1.5, "a model that explores and writes more")


@dataclass(frozen=True)
class Estimate:
    """What a sweep may cost: low and high guesses, and the cap its bounds allow, in US dollars."""

    episodes: int
    model: str
    price: Price
    listed: bool
    batch: bool
    base_tokens: int
    low_usd: float
    high_usd: float
    stop_usd: float  # an episode's spend at which the agent loop stops it
    last_call_usd: float  # the most one more call can add (the high guess's context, max_tokens out)
    low: Guess = LOW
    high: Guess = HIGH
    sized: str = "estimated"  # how base_tokens was found: counted by the API, or estimated, and from what

    @property
    def cap_usd(self) -> float:
        return self.episodes * (self.stop_usd + self.last_call_usd)

    def describe(self) -> str:
        rate = (f"${self.price.input_per_mtok:.2f} / ${self.price.output_per_mtok:.2f} per million input / output "
                f"tokens{' at the 50% batch price' if self.batch else ''} (pricing.py, {PRICES_AS_OF})")
        unlisted = "" if self.listed else f"; no price is listed for {self.model}, so {FALLBACK_MODEL}'s is used"
        lines = [f"Cost estimate: {self.episodes:,} live episodes of {self.model} at {rate}{unlisted}.",
                 f"  first request: {self.base_tokens:,} input tokens, {self.sized}."]
        for name, usd, guess in (("low", self.low_usd, self.low), ("high", self.high_usd, self.high)):
            tin, tout = guess.tokens(self.base_tokens)
            lines.append(f"  {name:<4} {_usd(usd):>11}  {guess.calls} calls an episode, {tin:,} input and {tout:,} "
                         f"output tokens ({guess.why})")
        lines.append(f"  cap  {_usd(self.cap_usd):>11}  what the bounds allow: each episode stops once it has spent "
                     f"{_usd(self.stop_usd)}, plus the call that crossed it (up to {_usd(self.last_call_usd)})")
        return "\n".join(lines)


def _usd(value: float) -> str:
    return f"${value:,.2f}" if value >= 0.01 or value == 0 else f"${value:.4f}"


def estimate(episodes: int, *, model: str, base_tokens: int, max_cost_usd: float, max_tokens: int,
             batch: bool = False, low: Guess = LOW, high: Guess = HIGH, sized: str = "estimated") -> Estimate:
    """Price `episodes` episodes whose first request is about `base_tokens` tokens (`sized`: how that was found).

    low and high: episodes × the guess's tokens × the price. cap: episodes × (max_cost_usd, where
    the agent loop stops an episode, plus one more call at the high guess's context and max_tokens
    out). batch=True halves every figure (the Message Batches price).
    """
    if isinstance(episodes, bool) or not isinstance(episodes, int) or episodes < 0:
        raise AtlasKitValueError(f"episodes must be a whole number of 0 or more; got {episodes!r}.")
    price, listed = price_for(model)
    scale = BATCH_DISCOUNT if batch else 1.0

    def dollars(tokens: tuple[int, int]) -> float:
        return scale * cost_usd(model, *tokens)

    last_context = round(base_tokens * high.base_factor) + high.growth_per_call * (high.calls - 1)
    return Estimate(episodes, model, price, listed, batch, base_tokens, episodes * dollars(low.tokens(base_tokens)),
                    episodes * dollars(high.tokens(base_tokens)), scale * max_cost_usd,
                    dollars((last_context, max_tokens)), low, high, sized)
