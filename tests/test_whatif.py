"""The what-if simulator (models/standin/whatif.py) and how it is shown (face/whatif.py): rates with their bases,
published defaults labelled as such, draws that give back the rates set, one style's draws independent of another's
rate, bad input refused in one line, and a chart and table that say the result is set by the assumed rates."""
from __future__ import annotations

import math

import matplotlib
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from atlas_kit.face.whatif import followed_rates, what_if_chart, what_if_rows
from atlas_kit.models.standin.whatif import (ASSUMED, PUBLISHED_GAP, SET_BY, STANDIN_NOTE, FollowRate, simulate,
                                             what_if)
from atlas_kit.types import AtlasKitValueError

matplotlib.use("Agg")


def test_the_defaults_label_what_is_assumed_and_what_is_published():
    rates = what_if()
    assert rates.rate("contract") == FollowRate(0.9, ASSUMED)
    middle = sum(PUBLISHED_GAP) / 2
    assert math.isclose(rates.rate("plain").value, 0.9 - middle, abs_tol=1e-4)
    assert rates.rate("plain").basis.startswith("published:") and "2606.05037" in rates.rate("plain").basis
    assert "N = 30 per cell" in rates.rate("plain").basis
    for style in ("raw", "generic"):  # no measurement exists for them: an assumed rate, and said so
        assert rates.rate(style).value == rates.rate("plain").value and rates.rate(style).basis.startswith(ASSUMED)


def test_the_gpt_4o_mini_default_gives_plain_the_contract_s_rate_and_says_why():
    rates = what_if(published="gpt-4o-mini")
    assert rates.rate("plain").value == rates.rate("contract").value
    assert "no significant difference" in rates.rate("plain").basis


def test_a_rate_you_give_is_yours_and_the_published_plain_follows_your_contract():
    rates = what_if(contract=0.6, raw=0.1)
    assert rates.rate("contract") == FollowRate(0.6, "your assumed rate")
    assert rates.rate("raw") == FollowRate(0.1, "your assumed rate")
    assert math.isclose(rates.rate("plain").value, max(0.0, 0.6 - sum(PUBLISHED_GAP) / 2), abs_tol=1e-4)
    assert what_if(contract=0.2).rate("plain").value == 0.0  # never below zero


@pytest.mark.parametrize("bad", [-0.1, 1.5, math.nan, True, "0.5"])
def test_a_rate_outside_zero_to_one_is_refused_in_one_line(bad):
    with pytest.raises(AtlasKitValueError, match="a follow rate must be a chance between 0 and 1"):
        what_if(contract=bad)


@pytest.mark.parametrize("options, words", [({"tasks": 0}, "tasks must be"), ({"trials": 1.5}, "trials must be"),
                                            ({"styles": ("raw", "bogus")}, "styles must be"),
                                            ({"styles": ("raw", "raw")}, "styles must be distinct")])
def test_bad_simulation_options_are_refused(options, words):
    with pytest.raises(AtlasKitValueError, match=words):
        simulate(what_if(), **options)


def test_an_unknown_source_of_defaults_is_refused():
    with pytest.raises(AtlasKitValueError, match="published must be"):
        what_if(published="gpt-5")  # type: ignore[arg-type]


def test_every_episode_is_drawn_once_and_the_same_seed_draws_the_same():
    episodes = simulate(what_if(), tasks=4, trials=3, seed=2)
    assert len(episodes) == 4 * 4 * 3
    assert len({(e.style, e.task, e.trial) for e in episodes}) == len(episodes)
    assert episodes == simulate(what_if(), tasks=4, trials=3, seed=2)
    assert episodes != simulate(what_if(), tasks=4, trials=3, seed=3)


def test_rates_of_zero_and_one_are_given_back_exactly():
    episodes = simulate(what_if(contract=1.0, plain=0.0), styles=("plain", "contract"), tasks=20, trials=2)
    got = followed_rates(episodes)
    assert (got["contract"].successes, got["contract"].n) == (40, 40)
    assert (got["plain"].successes, got["plain"].n) == (0, 40)


def test_one_style_s_draws_do_not_move_when_another_style_s_rate_changes():
    before = simulate(what_if(contract=0.9, plain=0.3), tasks=10, trials=3)
    after = simulate(what_if(contract=0.1, plain=0.3), tasks=10, trials=3)
    assert [e for e in before if e.style == "plain"] == [e for e in after if e.style == "plain"]
    assert [e for e in before if e.style == "contract"] != [e for e in after if e.style == "contract"]


@settings(max_examples=25, deadline=None)
@given(rate=st.floats(min_value=0.0, max_value=1.0), seed=st.integers(min_value=0, max_value=10_000))
def test_a_simulated_rate_lands_within_its_wilson_interval_of_draws_most_of_the_time(rate, seed):
    got = followed_rates(simulate(what_if(contract=rate), styles=("contract",), tasks=400, trials=1, seed=seed))
    low, high = got["contract"].interval
    assert low - 0.05 <= rate <= high + 0.05  # 400 draws: the set rate is never far from what was drawn


def test_the_table_and_chart_say_the_result_is_set_by_the_assumed_rates():
    rates = what_if()
    episodes = simulate(rates, tasks=10, trials=3)
    rows = what_if_rows(episodes, rates)
    assert SET_BY in rows.caption and "No finding" in rows.caption
    assert [r[0] for r in rows.rows] == ["raw", "generic", "plain", "contract"]
    assert rows.rows[3][1] == "0.90" and rows.rows[3][2] == ASSUMED and rows.rows[3][3].endswith("/30)")
    ax = what_if_chart(episodes, rates)
    assert SET_BY in ax.get_title() and "not by any model" in ax.get_title()
    assert [t.get_text() for t in ax.get_xticklabels()] == ["raw", "generic", "plain", "contract"]
    matplotlib.pyplot.close(ax.figure)


def test_the_stand_in_s_note_says_its_rules_and_weights_set_its_numbers():
    assert STANDIN_NOTE.startswith(SET_BY) and "stand-in's rules" in STANDIN_NOTE and "not a finding" in STANDIN_NOTE
