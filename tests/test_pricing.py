"""Prices and the estimate a live sweep shows first: the arithmetic, the fallback, and the guard rails."""
from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from atlas_kit.models import pricing as P
from atlas_kit.types.sets import DEFAULT_MODEL

LISTED = "claude-sonnet-5-5"


@pytest.fixture
def prices(monkeypatch):
    """The table, restored after the test: set_price changes it for the whole process."""
    monkeypatch.setattr(P, "PRICES", dict(P.PRICES))
    return P.PRICES


def test_cost_is_tokens_times_the_price_per_million():
    price = P.PRICES[LISTED]
    assert P.cost_usd(LISTED, 1_000_000, 0) == pytest.approx(price.input_per_mtok)
    assert P.cost_usd(LISTED, 0, 1_000_000) == pytest.approx(price.output_per_mtok)
    assert P.cost_usd(LISTED, 250_000, 50_000) == pytest.approx(0.25 * price.input_per_mtok + 0.05 * price.output_per_mtok)
    assert P.cost_usd(LISTED, 0, 0) == 0


@given(st.integers(0, 10**8), st.integers(0, 10**8), st.integers(0, 10**6))
def test_cost_never_falls_when_tokens_rise_and_adds_up(tokens_in, tokens_out, more):
    for model in (LISTED, "claude-nobody-priced"):
        base = P.cost_usd(model, tokens_in, tokens_out)
        assert P.cost_usd(model, tokens_in + more, tokens_out) >= base
        assert P.cost_usd(model, tokens_in, tokens_out + more) >= base
        assert math.isclose(base, P.cost_usd(model, tokens_in, 0) + P.cost_usd(model, 0, tokens_out), rel_tol=1e-9,
                            abs_tol=1e-12)


def test_an_unlisted_model_costs_the_fallback_models_price_and_says_so_once():
    assert P.FALLBACK_MODEL == DEFAULT_MODEL and DEFAULT_MODEL in P.PRICES  # the fallback itself is priced
    price, listed = P.price_for("claude-test-unlisted-1")
    assert (price, listed) == (P.PRICES[DEFAULT_MODEL], False) and P.price_for(LISTED) == (P.PRICES[LISTED], True)
    note = P.price_note("claude-test-unlisted-1")
    assert note is not None and "claude-test-unlisted-1" in note and "fallback" in note
    assert P.price_note("claude-test-unlisted-1") is None  # once per model per process
    assert P.price_note(LISTED) is None


def test_set_price_adds_a_model_and_refuses_what_is_not_a_price(prices):
    P.set_price("claude-mine", input_per_mtok=1, output_per_mtok=4.5)
    assert prices["claude-mine"] == P.Price(1.0, 4.5) and P.price_for("claude-mine")[1]
    assert P.cost_usd("claude-mine", 2_000_000, 1_000_000) == pytest.approx(6.5)
    for bad in (-1, float("nan"), float("inf"), True, "2"):
        with pytest.raises(ValueError, match="finite numbers of zero or more"):
            P.set_price("claude-mine", input_per_mtok=bad, output_per_mtok=1)  # type: ignore[arg-type]
    assert prices["claude-mine"] == P.Price(1.0, 4.5)  # a refused price changes nothing


def test_a_guess_resends_a_growing_context_every_call():
    guess = P.Guess(calls=3, output_per_call=100, growth_per_call=50, base_factor=2.0, why="test")
    # first request 2 x 1,000; then +50 and +100: 2,000 + 2,050 + 2,100 input; 3 x 100 output.
    assert guess.tokens(1_000) == (6_150, 300)
    assert P.Guess(1, 10, 999, 1.0, "one call").tokens(500) == (500, 10)


def test_the_estimate_brackets_a_sweep_and_the_cap_follows_the_bounds():
    e = P.estimate(40, model=LISTED, base_tokens=2_000, max_cost_usd=0.25, max_tokens=4_096)
    low_in, low_out = P.LOW.tokens(2_000)
    assert e.low_usd == pytest.approx(40 * P.cost_usd(LISTED, low_in, low_out))
    assert 0 < e.low_usd < e.high_usd < e.cap_usd
    assert e.cap_usd == pytest.approx(40 * (0.25 + e.last_call_usd))
    assert e.stop_usd == 0.25 and e.listed and not e.batch


def test_the_batch_price_halves_every_figure():
    full = P.estimate(10, model=LISTED, base_tokens=1_500, max_cost_usd=0.5, max_tokens=1_024)
    half = P.estimate(10, model=LISTED, base_tokens=1_500, max_cost_usd=0.5, max_tokens=1_024, batch=True)
    for name in ("low_usd", "high_usd", "stop_usd", "last_call_usd", "cap_usd"):
        assert getattr(half, name) == pytest.approx(P.BATCH_DISCOUNT * getattr(full, name)), name
    assert "50% batch price" in half.describe() and "batch" not in full.describe()


def test_the_estimate_says_what_it_assumed():
    text = P.estimate(3, model="claude-test-unlisted-2", base_tokens=900, max_cost_usd=0.1, max_tokens=512).describe()
    assert text.startswith("Cost estimate: 3 live episodes of claude-test-unlisted-2")
    assert f"so {P.FALLBACK_MODEL}'s is used" in text and P.PRICES_AS_OF in text
    assert text.count("\n") == 4 and "  first request: 900 input tokens, estimated." in text and "  low " in text and "  high " in text and "  cap " in text


def test_zero_episodes_cost_nothing_and_a_bad_count_is_refused():
    nothing = P.estimate(0, model=LISTED, base_tokens=1_000, max_cost_usd=0.25, max_tokens=1_024)
    assert (nothing.low_usd, nothing.high_usd, nothing.cap_usd) == (0, 0, 0)
    for bad in (-1, 2.5, True, "3"):
        with pytest.raises(ValueError, match="episodes must be a whole number"):
            P.estimate(bad, model=LISTED, base_tokens=1_000, max_cost_usd=0.25, max_tokens=1_024)  # type: ignore[arg-type]
