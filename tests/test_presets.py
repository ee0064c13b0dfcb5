"""The self-reflective preset: its cells, its leak audit, its statistics against references, its estimate and its CLI."""
from __future__ import annotations

import collections
import math
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from live_api import FAKE_KEY, LocalAPI

from atlas_kit.atlas import World, ticket
from atlas_kit.cli import main
from atlas_kit.experiments.guard import sweep_estimate
from atlas_kit.stats import wilson
from atlas_kit.models.standin.model import OfflineModel
from atlas_kit.experiments.presets import (SELF_REFLECTIVE, Preset, assign, audit, preset_estimate, preset_rows,
    published_rows, run_preset)
from atlas_kit.experiments.leaks import expected_answers
from atlas_kit.stats import fisher_exact, mcnemar_exact

TEN = SELF_REFLECTIVE.tickets


@given(st.integers(1, 200), st.integers(1, 12))
def test_assign_gives_every_cell_exactly_n_spread_as_evenly_as_possible(trials, k):
    tickets = [f"T{i:02d}" for i in range(1, k + 1)]
    groups = assign(trials, tickets)
    per = collections.Counter({t: n for group, n in groups for t in group})
    assert sum(per.values()) == trials
    assert max(per.values()) - min(per.values()) <= 1 and set(per) <= set(tickets)
    assert len(per) == min(trials, k)


def test_assign_matches_the_papers_cells_and_refuses_nonsense():
    assert assign(30, TEN) == [(TEN, 3)]
    assert assign(25, TEN) == [(TEN[:5], 3), (TEN[5:], 2)]
    with pytest.raises(ValueError, match="whole number of at least 1"):
        assign(0, TEN)


def test_the_design_has_ten_tickets_that_each_need_recovery_from_an_error():
    assert len(TEN) == len(set(TEN)) == 10 and SELF_REFLECTIVE.published.n_per_cell == 30
    for tid in TEN:
        outcome = ticket(tid).outcome(faults=True)
        assert outcome.codes and "upstream_unavailable" not in outcome.codes, tid  # a permanent error to act on


def test_expected_answers_are_what_the_customer_did_not_already_say():
    assert expected_answers(ticket("T22"), World(0)) == ("$75.00", "7500")
    assert expected_answers(ticket("T09"), World(0)) == ("INV-20440", "INV-20441")  # "$89.00" is in the message
    for seed in (0, 3):
        (figure,) = expected_answers(ticket("T19"), World(seed))  # a warehouse figure: it moves with the seed
        fact = ticket("T19").outcome(faults=True).facts[1]
        assert figure == fact.resolve(World(seed))
    assert expected_answers(ticket("T04"), World(0)) == ()  # the queue to escalate to is the recovery, not the answer


def test_the_audit_passes_the_design_and_catches_an_error_that_states_the_answer():
    assert audit(seeds=range(3)) == []
    leaks = audit(tickets=["T22"], seeds=[0])
    # The contract states the amount left; the plain arm diagnoses without it; the generic wrapper's raw text has it.
    assert {(x.style, x.answer) for x in leaks} == {("contract", "$75.00"), ("contract", "7500")}
    assert all("7500" in x.error or "75.00" in x.error for x in leaks)
    generic = Preset("generic", "the generic wrapper as control", "generic", "contract", SELF_REFLECTIVE.tasks,
                     SELF_REFLECTIVE.published)
    assert ("generic", "7500") in {(x.style, x.answer) for x in audit(generic, tickets=["T22"], seeds=[0])}
    leaky = Preset("leaky", "a design with T22", "generic", "contract", (*SELF_REFLECTIVE.tasks, ("T22", "why")),
                   SELF_REFLECTIVE.published)
    with pytest.raises(ValueError, match="leaks answers in .* first: T22"):
        run_preset(leaky, trials=11, progress=False)


def test_the_control_arm_is_the_papers_a_plain_diagnosis_with_no_recovery_suggestion():
    assert (SELF_REFLECTIVE.control, SELF_REFLECTIVE.treatment) == ("plain", "contract")
    assert "plain-English diagnoses" in SELF_REFLECTIVE.title


def test_an_offline_run_fills_each_cell_with_n_paired_episodes_and_says_simulated(tmp_path):
    result = run_preset(trials=25, progress=False, out=tmp_path)
    cells = collections.Counter((r["model"], r["style"]) for r in result.records)
    assert cells == {("atlas-offline-1", "plain"): 25, ("atlas-offline-1", "contract"): 25}
    assert {r["source_kind"] for r in result.records} == {"simulated"} and all(r["faults"] for r in result.records)
    c = result.comparisons["atlas-offline-1"]
    assert c.paired.n == 25 and c.rate_a.n == c.rate_b.n == 25
    assert (tmp_path / "self-reflective_offline.jsonl").exists()
    runs, paper = result.rows(), published_rows()
    assert "simulated" in runs.caption.lower() and "+36.7" not in repr(runs)  # a run's table holds no published figure
    assert "+36.7 to +40.0" in repr(paper) and "not significant" in repr(paper) and "N = 30" in repr(paper)
    again = run_preset(trials=25, progress=False, out=tmp_path)  # resumes: nothing new, the same records
    assert again.records == result.records


def _records(model: str, pairs: list[tuple[bool, bool]]) -> list[dict]:
    out = []
    for i, (structured, plain) in enumerate(pairs):
        for style, right in (("contract", structured), ("plain", plain)):
            out.append({"key": f"{model}|{style}|{i}", "model": model, "style": style, "faults": True,
                        "break_loops": True, "profile": None, "ticket": TEN[i % 10], "trial": i // 10, "seed": i // 10,
                        "correct": right, "stop_reason": "finished", "input_tokens": 1000 + 37 * i,
                        "output_tokens": 50 + (i % 7), "source": f"live ({model}, 2026-01-01)", "source_kind": "live",
                        "source_date": "2026-01-01"})
    return out


def test_the_tables_statistics_match_reference_implementations():
    scipy_stats = pytest.importorskip("scipy.stats")
    # 30 pairs: both right 6, structured only 14, plain only 3, neither 7 -> 20/30 against 9/30.
    pairs = [(True, True)] * 6 + [(True, False)] * 14 + [(False, True)] * 3 + [(False, False)] * 7
    table = preset_rows(_records("claude-x", pairs))
    row = table.rows[0]
    lo, hi = scipy_stats.binomtest(20, 30).proportion_ci(method="wilson")
    assert row[2] == f"67% [{lo:.0%}, {hi:.0%}] (20/30)" and (lo, hi) == pytest.approx(wilson(20, 30))
    lo, hi = scipy_stats.binomtest(9, 30).proportion_ci(method="wilson")
    assert row[1] == f"30% [{lo:.0%}, {hi:.0%}] (9/30)"
    assert row[3].startswith("+36.7 [") and row[4] == 30  # (14 - 3) / 30 points over 30 pairs, the paired difference
    assert row[5] == f"{scipy_stats.fisher_exact([[20, 10], [9, 21]]).pvalue:.3g}" == f"{fisher_exact(20, 10, 9, 21):.3g}"
    assert row[6] == f"{scipy_stats.binomtest(3, 17, 0.5).pvalue:.3g}" == f"{mcnemar_exact(14, 3):.3g}"
    tokens = sum(1000 + 37 * i + 50 + i % 7 for i, (s, _) in enumerate(pairs))
    assert row[8] == f"{tokens / 20:,.0f}"
    assert "live (claude-x" in table.caption and "Simulated" not in table.caption


def test_the_estimate_is_the_sweeps_own_and_halves_at_the_batch_price():
    est, = preset_estimate(models=["claude-sonnet-5-5"], trials=30)
    half, = preset_estimate(models=["claude-sonnet-5-5"], trials=30, via="batch")
    assert est.episodes == half.episodes == 60 and not est.batch and half.batch
    assert half.low_usd == pytest.approx(est.low_usd / 2) and half.high_usd == pytest.approx(est.high_usd / 2)
    assert "50% batch price" in half.describe()
    from atlas_kit.experiments.episodes import plan

    episodes = plan(styles=("plain", "contract"), faults=(True,), break_loops=(True,), profiles=(None,),
                    tickets=TEN, trials=3, model="claude-sonnet-5-5")
    assert est == sweep_estimate(episodes, model="claude-sonnet-5-5", max_cost_per_episode=0.25, max_tokens=4096)
    three = preset_estimate(models=["claude-sonnet-5-5", "claude-haiku-4-5", "claude-sonnet-4-5"], trials=30)
    assert [e.model for e in three] == ["claude-sonnet-5-5", "claude-haiku-4-5", "claude-sonnet-4-5"]


def test_a_live_preset_is_estimated_and_confirmed_once_per_model_before_it_spends(monkeypatch, tmp_path, capsys):
    asked = []
    with LocalAPI(OfflineModel(seed=0)) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
        monkeypatch.delenv("ATLAS_MODEL", raising=False)
        with pytest.raises(Exception, match="not confirmed"):
            run_preset(models=["claude-sonnet-5-5"], trials=15, out=tmp_path, progress=False, max_cost_usd=math.inf,
                       confirm=lambda e: asked.append(e) or False)
        assert len(asked) == 1 and server.messages == []  # refused: nothing was sent
        result = run_preset(models=["claude-sonnet-5-5"], trials=15, out=tmp_path, progress=False,
                            max_cost_usd=math.inf, confirm=lambda e: asked.append(e) or True)
    assert len(asked) == 2 and asked[1].episodes == 30  # the whole design: 15 episodes in each arm
    assert {r["source_kind"] for r in result.records} == {"live"} and len(result.records) == 30
    assert "Cost estimate" in capsys.readouterr().out


def test_the_cli_runs_the_preset_and_refuses_options_it_fixes(tmp_path, capsys):
    assert main(["experiment", "--preset", "self-reflective", "--trials", "10", "--out", str(tmp_path),
                 "--no-progress"]) == 0
    out = capsys.readouterr().out
    # Structured: 9 of 10. T23's say asks to "ask them to confirm it", which the stand-in's template leaves out.
    assert re.search(r"atlas-offline-1 +0% \[0%, 28%\] \(0/10\) +100% \[72%, 100%\] \(10/10\)", out)
    assert "Audit passed" in out and "simulated" in out
    run, paper = out.split("== Published: a paper's measurement, not a run of this design ==")
    assert run.startswith("== This run: simulated (offline stand-in) ==") and "+36.7" not in run and "McNemar p" in run
    assert "+36.7 to +40.0" in paper and "N = 30" in paper
    assert main(["experiment", "--preset", "self-reflective", "--tickets", "T01", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "drop --tickets" in err
    assert main(["experiment", "--preset", "self-reflective", "--via", "batch", "--trials", "10", "--no-progress",
                 "--out", str(tmp_path / "b")]) == 0
    assert "(10/10)" in capsys.readouterr().out


def test_the_readmes_batch_and_preset_commands_parse_as_written():
    import shlex
    from pathlib import Path

    from atlas_kit.cli.command import build_parser

    readme = (Path(__file__).parent.parent / "README.md").read_text()
    lines = [line for line in readme.splitlines() if line.startswith(".venv/bin/atlas-kit experiment --")]
    batch = next(line for line in lines if "--via batch" in line)
    preset = next(line for line in lines if "--preset self-reflective" in line)
    args = build_parser().parse_args(shlex.split(batch)[1:])
    assert args.via == "batch" and args.preset is None
    args = build_parser().parse_args(shlex.split(preset)[1:])
    assert args.preset == "self-reflective" and args.trials == 30 and "," in args.model
