from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from atlas_kit.stats import Rate, wilson
from atlas_kit.experiments.metrics import (failure_modes, groups, paired_recovery, pass_k, per_ticket, recovery,
    recovery_rows, success, usable)
from atlas_kit.types.results import HARNESS_ERROR
from atlas_kit.face.tables import recovery_table

Z2 = 1.959963984540054 ** 2


def ep(ticket="T01", *, correct=True, hit=True, codes=("not_found",), style="contract", faults=True, labels=(),
       trial=0, stop="finished", **use) -> dict:
    return {"key": f"{style}|{faults}|{ticket}|{trial}", "model": "m", "style": style, "faults": faults,
            "break_loops": True, "profile": "default", "ticket": ticket, "trial": trial, "correct": correct,
            "hit_error": hit, "error_codes": list(codes) if hit else [], "labels": list(labels), "stop_reason": stop,
            "source": "simulated (offline rule-based stand-in, not an LLM)",
            **{"steps": 2, "tool_calls": 1, "input_tokens": 100, "output_tokens": 10, "cost_usd": 0.001, **use}}


def test_wilson_at_zero_successes_starts_at_exactly_zero_and_is_not_a_point():
    low, high = wilson(0, 10)
    assert low == 0.0
    assert high == pytest.approx(Z2 / (10 + Z2))  # 0.2775: the closed form at p = 0
    assert high == pytest.approx(0.2775, abs=1e-4)


def test_wilson_at_all_successes_ends_at_exactly_one_and_mirrors_zero():
    low, high = wilson(10, 10)
    assert high == 1.0
    assert low == pytest.approx(1 - Z2 / (10 + Z2))


def test_wilson_middle_case_matches_a_hand_computed_value():
    # 8/10 at z = 1.96: centre (0.8 + 0.19207) / 1.38415 = 0.71674, half-width 1.96 * 0.16001 / 1.38415 = 0.22658.
    low, high = wilson(8, 10)
    assert low == pytest.approx(0.4902, abs=1e-4) and high == pytest.approx(0.9433, abs=1e-4)


def test_wilson_with_no_data_says_nothing_and_rejects_impossible_counts():
    assert wilson(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError, match="successes"):
        wilson(3, 2)


@given(st.integers(min_value=1, max_value=2000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_always_brackets_the_rate_inside_0_1_with_width(case):
    s, n = case
    low, high = wilson(s, n)
    assert 0.0 <= low <= s / n <= high <= 1.0
    assert high - low > 0


def test_rate_prints_the_rate_interval_and_counts():
    assert str(Rate(8, 10)) == "80% [49%, 94%] (8/10)"
    assert math.isnan(Rate(0, 0).rate) and str(Rate(0, 0)) == "n/a (0 episodes)"


def test_recovery_counts_only_episodes_that_hit_an_error():
    records = [ep(correct=True), ep(correct=True), ep(correct=False), ep(correct=True, hit=False),
               ep(correct=False, hit=False), ep(correct=False, stop=HARNESS_ERROR)]
    assert recovery(records) == Rate(2, 3)
    assert success(records) == Rate(3, 5)  # the harness failure is left out of both
    assert len(usable(records)) == 5


def test_recovery_per_code_counts_an_episode_under_each_code_it_hit():
    records = [ep(codes=("not_found", "limit_exceeded"), correct=True), ep(codes=("not_found",), correct=False),
               ep(hit=False)]
    per_code = {code: recovery(rs) for code, rs in groups(records, "error_codes").items()}
    assert per_code == {"limit_exceeded": Rate(1, 1), "not_found": Rate(1, 2)}


def test_groups_by_several_fields_and_by_function_with_sorted_keys():
    records = [ep(style="raw", faults=False), ep(style="contract"), ep(style="raw")]
    assert list(groups(records, ("style", "faults"))) == [("contract", True), ("raw", False), ("raw", True)]
    assert list(groups(records, lambda r: r["style"].upper())) == ["CONTRACT", "RAW"]


def test_paired_recovery_divides_success_with_faults_by_success_without():
    records = [ep("T01", correct=True), ep("T01", correct=False, trial=1),
               ep("T01", faults=False, correct=True), ep("T01", faults=False, correct=True, trial=1),
               ep("T02", correct=True), ep("T02", faults=False, correct=False),
               ep("T03", correct=True)]  # T03 never ran without faults: no pair
    pairs = paired_recovery(records)
    assert set(pairs) == {"T01", "T02"}
    assert pairs["T01"].with_faults == Rate(1, 2) and pairs["T01"].without == Rate(2, 2)
    assert pairs["T01"].ratio == pytest.approx(0.5)
    assert pairs["T02"].ratio is None  # nothing succeeded without faults: no ratio to give


def test_pass_k_is_the_unbiased_estimator_averaged_over_tickets():
    a = [ep("A", trial=i, correct=i < 3) for i in range(4)]  # 3 of 4
    b = [ep("B", trial=i, correct=True) for i in range(4)]  # 4 of 4
    # A: C(3,2)/C(4,2) = 3/6; B: 1. Mean 0.75. With k=1 it is the plain success rate per ticket.
    assert pass_k(a + b, 2) == pytest.approx(0.75)
    assert pass_k(a + b, 1) == pytest.approx((0.75 + 1) / 2)
    assert pass_k(a + b, 4) == pytest.approx((0 + 1) / 2)  # C(3,4) = 0
    with pytest.raises(ValueError, match="at least 5 trials"):
        pass_k(a + b, 5)
    with pytest.raises(ValueError, match="k >= 1"):
        pass_k(a, 0)


def test_pass_k_keeps_conditions_apart():
    raw = [ep("A", style="raw", trial=i, correct=False) for i in range(2)]
    con = [ep("A", style="contract", trial=i, correct=True) for i in range(2)]
    assert pass_k(raw + con, 2) == pytest.approx(0.5)  # pooled into one cell it would be C(2,2)/C(4,2) = 1/6


def test_failure_modes_give_each_label_its_share_of_episodes():
    records = [ep(labels=("loop",)), ep(labels=("loop", "fabrication")), ep(), ep(labels=("new_label",))]
    modes = failure_modes(records)
    assert modes["loop"] == Rate(2, 4) and modes["fabrication"] == Rate(1, 4)
    assert modes["enumeration"] == Rate(0, 4)
    assert list(modes)[-1] == "new_label"  # labels the grader does not list still appear, last


def test_per_ticket_means_turns_calls_tokens_and_cost():
    records = [ep("T01", steps=2, tool_calls=1, input_tokens=100, cost_usd=0.01),
               ep("T01", steps=4, tool_calls=3, input_tokens=300, cost_usd=0.03, trial=1),
               ep("T02", steps=1, tool_calls=0, input_tokens=50, cost_usd=0.0)]
    use = per_ticket(records)
    assert use["T01"].n == 2 and use["T01"].turns == 3 and use["T01"].tool_calls == 2
    assert use["T01"].input_tokens == 200 and use["T01"].cost_usd == pytest.approx(0.02)
    assert use["T02"].turns == 1


def test_recovery_table_shows_source_groups_and_intervals():
    records = [ep(style="raw", correct=False), ep(style="contract", correct=True, trial=1),
               ep(style="contract", stop=HARNESS_ERROR, correct=False, trial=2)]
    table = recovery_table(records)
    assert "Data: simulated (offline stand-in). Simulated: the result is set by the assumed rates." in table.caption
    assert "1 episode(s) failed inside the harness" in table.caption
    assert table.columns[:3] == ["style", "episodes", "hit error"]
    assert table.rows[0][:4] == ["contract", "1", "1", "100% [21%, 100%]"]
    assert table.rows[1][:4] == ["raw", "1", "1", "0% [0%, 79%]"]
    assert "contract  1" in repr(table)  # the text form a terminal and nbval see


def test_only_the_stand_ins_outcomes_carry_the_note_that_assumed_rates_set_them():
    live = dict(source="live (claude-x, 2026-10-07)", source_kind="live", source_date="2026-10-07")
    records = [ep(style="raw", correct=False, **live), ep(style="contract", trial=1, **live)]
    assert recovery_table(records).caption.endswith("Data: live (claude-x, 2026-10-07).")
    mixed = [*records, ep(style="raw", trial=2)]
    assert recovery_table(mixed).caption.endswith("The simulated episodes' result is set by the assumed rates.")


def test_recovery_rows_are_the_tables_content_before_any_formatting():
    records = [ep(style="raw", correct=False), ep(style="contract", correct=True, trial=1)]
    rows = recovery_rows(records, by=("style",))
    assert rows.columns == recovery_table(records).columns
    assert rows.rows[0][:3] == ["contract", 1, 1] and rows.rows[1][3] == Rate(0, 1).brief == "0% [0%, 79%]"
    assert rows.caption == recovery_table(records).caption
    assert Rate(0, 0).brief == "n/a" and Rate(2, 2).brief == "100% [34%, 100%]"


def test_groups_by_a_tuple_expands_list_valued_fields():
    from atlas_kit.experiments.metrics import groups

    rs = [{"style": "raw", "branches": ["stop", "switch_tool"]}, {"style": "contract", "branches": ["stop"]}]
    got = groups(rs, ("style", "branches"))
    assert sorted(got) == [("contract", "stop"), ("raw", "stop"), ("raw", "switch_tool")]
    assert got[("raw", "switch_tool")] == [rs[0]]
