"""Token prices, in one dated table you can override.

Used by the agent loop for its cost bound and by the experiments for cost per
ticket. Taught in chapters 06 and 07.
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PRICES", "PRICES_AS_OF", "Price", "cost_usd", "price_for", "set_price"]

# US dollars per million tokens, as published rates were reported on this date.
# Check the provider's pricing page before you budget with them; override with set_price().
PRICES_AS_OF = "2026-10-07"


@dataclass(frozen=True)
class Price:
    input_per_mtok: float
    output_per_mtok: float


PRICES: dict[str, Price] = {
    "claude-sonnet-5-5": Price(2.00, 10.00),
    "claude-sonnet-5": Price(2.00, 10.00),
    "claude-haiku-5-5": Price(0.10, 0.50),
    "claude-haiku-4-5": Price(1.00, 5.00),
    "claude-sonnet-4-5": Price(3.00, 15.00),
}
# Offline runs are priced as if the default model had produced the same tokens, so a
# cost bound behaves the same way in a simulation as in a live run.
FALLBACK_MODEL = "claude-sonnet-5-5"


def set_price(model: str, *, input_per_mtok: float, output_per_mtok: float) -> None:
    """Add or replace one model's price for this process."""
    if input_per_mtok < 0 or output_per_mtok < 0:
        raise ValueError("Prices must be zero or more US dollars per million tokens.")
    PRICES[model] = Price(float(input_per_mtok), float(output_per_mtok))


def price_for(model: str) -> tuple[Price, bool]:
    """The price to use for `model`, and whether the table really lists it."""
    if model in PRICES:
        return PRICES[model], True
    return PRICES[FALLBACK_MODEL], False


def cost_usd(model: str, input_tokens: int, output_tokens: int) -> float:
    price, _ = price_for(model)
    return (input_tokens * price.input_per_mtok + output_tokens * price.output_per_mtok) / 1_000_000
