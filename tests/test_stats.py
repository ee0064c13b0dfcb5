"""The comparison statistics against textbook values, brute-force references and (when installed) scipy.

Textbook: Fagerland, Lydersen and Laake, Statistical Analysis of Contingency Tables (2017), ch. 8, the
Cavo et al. (2012) paired table, as checked in their R package contingencytables; Fisher's tea-tasting
table (two-sided p = 0.4857, R's fisher.test). Brute force: every table with the same margins, or every
sign pattern of the discordant pairs, with exact fractions.
"""
from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from atlas_kit.stats import wilson
from atlas_kit.experiments.stats import (Comparison, PairedDifference, compare_arms, pair_records, paired_difference,
    paired_rows, tokens_per_success)
from atlas_kit.stats import fisher_exact, mcnemar_exact, newcombe_paired

CAVO = (59, 6, 16, 80)  # both right, only a, only b, neither


# --- references -----------------------------------------------------------------------------

def brute_fisher(a: int, b: int, c: int, d: int) -> Fraction:
    """Two-sided Fisher p by listing every table with these margins, probabilities from factorials."""
    r1, r2, c1, n = a + b, c + d, a + c, a + b + c + d

    def prob(x: int) -> Fraction:
        cells = (x, r1 - x, c1 - x, r2 - c1 + x)
        num = math.factorial(r1) * math.factorial(r2) * math.factorial(c1) * math.factorial(n - c1)
        return Fraction(num, math.factorial(n) * math.prod(math.factorial(v) for v in cells))

    tables = [x for x in range(0, min(r1, c1) + 1) if r2 - c1 + x >= 0]
    seen = prob(a)
    return sum((prob(x) for x in tables if prob(x) <= seen), Fraction(0))


def brute_mcnemar(b: int, c: int) -> Fraction:
    """Two-sided exact McNemar p by listing every way the b + c discordant pairs could have fallen."""
    n = b + c
    if n == 0:
        return Fraction(1)
    extreme = abs(b - c)
    hits = sum(1 for signs in itertools.product((0, 1), repeat=n) if abs(2 * sum(signs) - n) >= extreme)
    return Fraction(hits, 2 ** n)


# --- McNemar --------------------------------------------------------------------------------

def test_mcnemar_matches_the_textbook_value():
    assert mcnemar_exact(6, 16) == pytest.approx(0.052479, abs=5e-7)  # Fagerland et al., Cavo et al. 2012


@given(st.integers(0, 9), st.integers(0, 9))
@settings(max_examples=60, deadline=None)
def test_mcnemar_matches_brute_force_enumeration(b, c):
    assert mcnemar_exact(b, c) == pytest.approx(float(brute_mcnemar(b, c)), rel=1e-12)


def test_mcnemar_edge_cases_and_symmetry():
    assert mcnemar_exact(0, 0) == 1.0 and mcnemar_exact(5, 5) == 1.0
    assert mcnemar_exact(0, 5) == pytest.approx(2 / 32)
    assert mcnemar_exact(3, 11) == mcnemar_exact(11, 3)
    with pytest.raises(ValueError, match="counts"):
        mcnemar_exact(-1, 3)


# --- Fisher ---------------------------------------------------------------------------------

@pytest.mark.parametrize("table,p", [((3, 1, 1, 3), 0.4857142857), ((1, 9, 11, 3), 0.0027594562),
                                     ((6, 2, 1, 4), 0.1025641026), ((10, 0, 0, 10), 1.082508822e-05)])
def test_fisher_matches_published_values(table, p):
    assert fisher_exact(*table) == pytest.approx(p, rel=1e-8)


@given(st.integers(0, 12), st.integers(0, 12), st.integers(0, 12), st.integers(0, 12))
@settings(max_examples=120, deadline=None)
def test_fisher_matches_brute_force_over_every_table_with_the_same_margins(a, b, c, d):
    assert fisher_exact(a, b, c, d) == pytest.approx(float(brute_fisher(a, b, c, d)), rel=1e-12)


def test_fisher_is_symmetric_in_rows_and_columns():
    assert fisher_exact(7, 3, 2, 8) == pytest.approx(fisher_exact(2, 8, 7, 3)) == pytest.approx(fisher_exact(7, 2, 3, 8))
    assert fisher_exact(0, 0, 0, 0) == 1.0


# --- the paired interval --------------------------------------------------------------------

def test_newcombe_matches_the_textbook_interval():
    low, high = newcombe_paired(*CAVO)
    assert (round(low, 4), round(high, 4)) == (-0.1186, -0.0046)


@given(st.integers(0, 30), st.integers(0, 30), st.integers(0, 30), st.integers(0, 30))
@settings(max_examples=150, deadline=None)
def test_newcombe_contains_the_estimate_stays_in_range_and_mirrors(n11, n10, n01, n00):
    n = n11 + n10 + n01 + n00
    low, high = newcombe_paired(n11, n10, n01, n00)
    assert -1.0 <= low <= high <= 1.0
    if n:
        assert low - 1e-12 <= (n10 - n01) / n <= high + 1e-12
    mirror = newcombe_paired(n11, n01, n10, n00)
    assert mirror == pytest.approx((-high, -low), abs=1e-12)


def test_with_no_correlation_it_is_the_square_and_add_of_two_wilson_intervals():
    n11, n10, n01, n00 = 10, 10, 10, 10  # ad - bc = 0: phi is 0
    n = 40
    pa = pb = 0.5
    (la, ua), (lb, ub) = wilson(20, n), wilson(20, n)
    low, high = newcombe_paired(n11, n10, n01, n00)
    assert low == pytest.approx(-math.hypot(pa - la, ub - pb)) and high == pytest.approx(math.hypot(ua - pa, pb - lb))


def test_newcombe_covers_the_true_difference_about_95_percent_of_the_time():
    rng = random.Random(14)
    cells = (0.45, 0.20, 0.10, 0.25)  # true p_a - p_b = 0.10
    covered = 0
    for _ in range(1500):
        counts = [0, 0, 0, 0]
        for _ in range(60):
            counts[rng.choices(range(4), weights=cells)[0]] += 1
        low, high = newcombe_paired(*counts)
        covered += low <= 0.10 <= high
    assert 0.93 <= covered / 1500 <= 0.975


def test_paired_difference_counts_the_four_cells():
    pd = paired_difference([(True, True)] * 59 + [(True, False)] * 6 + [(False, True)] * 16 + [(False, False)] * 80)
    assert (pd.n11, pd.n10, pd.n01, pd.n00, pd.n) == (*CAVO, 161)
    assert pd.difference == pytest.approx(-10 / 161) and pd.p_value == pytest.approx(0.052479, abs=5e-7)
    assert "McNemar exact p = 0.0525" in str(pd) and str(PairedDifference(0, 0, 0, 0)) == "no pairs"


# --- scipy, when it happens to be installed (not a dependency) ---------------------------------

def test_exact_tests_agree_with_scipy_when_installed():
    scipy_stats = pytest.importorskip("scipy.stats")
    for a, b, c, d in itertools.product((0, 1, 4, 9), (0, 2, 7), (1, 3, 8), (0, 5, 11)):
        assert fisher_exact(a, b, c, d) == pytest.approx(scipy_stats.fisher_exact([[a, b], [c, d]]).pvalue, rel=1e-9)
    for b, c in itertools.product(range(0, 25, 3), range(0, 25, 4)):
        if b + c:
            expected = scipy_stats.binomtest(min(b, c), b + c, 0.5).pvalue
            assert mcnemar_exact(b, c) == pytest.approx(expected, rel=1e-9)


# --- tokens per success ---------------------------------------------------------------------

def record(style: str, ticket: str, trial: int, correct: bool, tokens: int = 1000, **extra) -> dict:
    base = {"model": "m", "style": style, "faults": True, "break_loops": True, "profile": "default", "ticket": ticket,
            "trial": trial, "seed": trial, "correct": correct, "input_tokens": tokens - 50, "output_tokens": 50,
            "stop_reason": "finished"}
    return {**base, **extra}


def test_tokens_per_success_is_all_tokens_over_correct_episodes():
    rs = [record("raw", "T01", i, ok, tokens) for i, (ok, tokens) in enumerate([(True, 900), (False, 1500), (True, 1100),
                                                                                (False, 700)])]
    rs.append(record("raw", "T01", 9, True, 99999, stop_reason="harness_error"))  # the harness's failure: left out
    tps = tokens_per_success(rs)
    assert (tps.tokens, tps.successes, tps.episodes) == (4200, 2, 4) and tps.value == 2100
    # delta method by hand: residuals t - R*s = (-1200, 1500, -1000, 700); sum of squares / (n-1) = 5,180,000/3
    se = math.sqrt(5_180_000 / 3 / 4) / 0.5
    assert tps.interval == pytest.approx((max(0.0, 2100 - 1.959963984540054 * se), 2100 + 1.959963984540054 * se))
    assert tps.interval[0] == 0.0  # four episodes say little: the lower end is floored at zero tokens
    assert "2,100" in str(tps)


def test_tokens_per_success_without_a_success_has_no_finite_value():
    tps = tokens_per_success([record("raw", "T01", 0, False)])
    assert tps.value == math.inf and all(math.isnan(x) for x in tps.interval)
    assert "no correct episode" in str(tps)


def test_tokens_per_success_agrees_with_the_jackknife_and_covers_the_truth():
    rng = random.Random(3)
    covered = 0
    for rep in range(400):
        rs = []
        for i in range(120):
            ok = rng.random() < 0.6
            rs.append(record("raw", "T01", i, ok, int(rng.gauss(4000 if ok else 7000, 900))))
        tps = tokens_per_success(rs)
        truth = (0.6 * 4000 + 0.4 * 7000) / 0.6
        covered += tps.interval[0] <= truth <= tps.interval[1]
        if rep == 0:  # the jackknife variance of a ratio estimator approaches the delta method's
            t = [r["input_tokens"] + r["output_tokens"] for r in rs]
            s = [int(r["correct"]) for r in rs]
            leave = [(sum(t) - t[i]) / (sum(s) - s[i]) for i in range(len(t))]
            mean = sum(leave) / len(leave)
            jack = math.sqrt((len(t) - 1) / len(t) * sum((x - mean) ** 2 for x in leave))
            delta = (tps.interval[1] - tps.value) / 1.959963984540054
            assert jack == pytest.approx(delta, rel=0.1)
    assert 0.92 <= covered / 400 <= 0.98


# --- pairing records ------------------------------------------------------------------------

def test_pair_records_matches_episodes_across_arms_and_leaves_out_the_unmatched():
    rs = [record("raw", "T01", 0, True), record("contract", "T01", 0, True),
          record("raw", "T01", 1, False), record("contract", "T01", 1, True),
          record("raw", "T02", 0, True),  # no contract partner
          record("contract", "T02", 1, False),  # no raw partner
          record("generic", "T01", 0, False)]  # another arm
    pairs = pair_records(list(reversed(rs)), a="raw", b="contract")
    assert sorted(pairs) == [(False, True), (True, True)]
    with pytest.raises(ValueError, match="same episode"):
        pair_records(rs + [record("raw", "T01", 0, False)], a="raw", b="contract")
    with pytest.raises(ValueError, match="paired on"):
        pair_records(rs, by="colour", a="raw", b="contract")


def test_compare_arms_reports_both_rates_the_paired_test_and_fisher():
    rs = []
    for i in range(20):
        rs += [record("raw", "T01", i, i < 8, 3000), record("contract", "T01", i, i < 17, 3500)]
    rs.append(record("contract", "T02", 0, True))  # unpaired: counted in the rates and Fisher, not in the pairs
    cmp = compare_arms(rs, a="contract", b="raw")
    assert isinstance(cmp, Comparison)
    assert (cmp.rate_a.successes, cmp.rate_a.n, cmp.rate_b.successes, cmp.rate_b.n) == (18, 21, 8, 20)
    assert (cmp.paired.n10, cmp.paired.n01, cmp.paired.n) == (9, 0, 20)
    assert cmp.paired.p_value == pytest.approx(2 / 2 ** 9)
    assert cmp.fisher_p == pytest.approx(fisher_exact(18, 3, 8, 12))
    assert "paired difference (contract - raw): +45%" in str(cmp)
    with pytest.raises(ValueError, match="both arms"):
        compare_arms(rs, a="contract", b="generic")


# --- paired_rows: every two-arm summary's paired table ----------------------------------------------------------

def _episode(style: str, ticket: str, trial: int, correct: bool, **more: object) -> dict:
    return {"key": f"{style}|{ticket}|{trial}|{more}", "model": "m", "style": style, "faults": True,
            "break_loops": True, "profile": None, "ticket": ticket, "trial": trial, "seed": trial, "correct": correct,
            "stop_reason": "finished", "source": "simulated (offline stand-in)", "source_kind": "simulated", **more}


@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=40))
def test_paired_rows_is_mcnemar_and_newcombe_over_the_episodes_both_arms_ran(pairs):
    records = [r for i, (a, b) in enumerate(pairs) for r in (_episode("contract", f"T{i % 9:02d}", i, a),
                                                             _episode("raw", f"T{i % 9:02d}", i, b))]
    records.append(_episode("raw", "T99", 99, True))  # an episode with no pair: left out
    table = paired_rows(records)
    [row] = table.rows
    d = paired_difference(pairs)
    assert row[:4] == ["contract - raw", "all", len(pairs), f"{d.n10} / {d.n01}"]
    low, high = newcombe_paired(d.n11, d.n10, d.n01, d.n00)
    assert row[4] == f"{d.difference * 100:+.1f} [{low * 100:+.1f}, {high * 100:+.1f}]"
    assert row[5] == f"{mcnemar_exact(d.n10, d.n01):.3g}"
    assert "same ticket, trial and seed" in table.caption and "simulated" in table.caption


def test_paired_rows_compares_every_arm_with_the_contract_and_never_pairs_across_conditions():
    records = [_episode(s, f"T0{t}", 0, ok, faults=f) for s, ok in (("raw", False), ("generic", False), ("contract", True))
               for t in range(3) for f in (True, False)]
    table = paired_rows(records)
    assert [r[:3] for r in table.rows] == [["contract - raw", "faults off", 3], ["contract - raw", "faults on", 3],
                                           ["contract - generic", "faults off", 3], ["contract - generic", "faults on", 3]]
    assert "compared with contract" in table.caption and "within one setting of faults" in table.caption
    two = paired_rows([r for r in records if r["style"] != "generic"])
    assert "compared with" not in two.caption  # two arms: nothing to say about which
    chosen = paired_rows(records, against="raw")
    assert {r[0] for r in chosen.rows} == {"raw - generic", "raw - contract"}
    no_contract = paired_rows([r for r in records if r["style"] != "contract"])
    assert {r[0] for r in no_contract.rows} == {"generic - raw"}  # the last arm seen stands in for the contract


def test_paired_rows_needs_two_arms():
    with pytest.raises(ValueError, match="two arms of style"):
        paired_rows([_episode("raw", "T01", 0, True)])
    with pytest.raises(ValueError, match="'plain' among them"):
        paired_rows([_episode("raw", "T01", 0, True), _episode("contract", "T01", 0, True)], against="plain")
