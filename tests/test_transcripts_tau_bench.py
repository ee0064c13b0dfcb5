"""The shipped tau-bench file (200 gpt-4o airline episodes, MIT): it is the published file unchanged, it ships with
its licence, and the reader's figures are issue 25's hand count, computed here."""
from __future__ import annotations

import gzip
import hashlib
import re
import tomllib
from pathlib import Path

import pytest

from atlas_kit.stats import fisher_exact
from atlas_kit.transcripts.shipped import TAU_BENCH, tau_bench_licence, tau_bench_policy
from atlas_kit.transcripts import Transcripts, error_events, next_action_counts, read_transcripts, tau_bench_airline
from atlas_kit.transcripts.analysis import loops
from atlas_kit.transcripts.rates import recovery


@pytest.fixture(scope="module")
def tau() -> Transcripts:
    return read_transcripts([tau_bench_airline()])


def test_the_shipped_file_is_the_published_one_with_its_licence_and_provenance():
    readme = (tau_bench_airline().parent / "README.md").read_text()
    digest = hashlib.sha256(gzip.decompress(tau_bench_airline().read_bytes())).hexdigest()
    assert re.search(rf"\b{digest}\b", readme) and TAU_BENCH.commit in readme and TAU_BENCH.path in readme
    licence = tau_bench_licence().read_text()
    assert licence.startswith("MIT License") and "Copyright (c) 2024 Sierra" in licence
    assert tau_bench_policy().read_text().startswith("# Airline Agent Policy")
    assert TAU_BENCH.commit[:12] in TAU_BENCH.line and "arXiv 2406.12045" in TAU_BENCH.line


def test_a_pip_install_ships_the_data_folder():
    pyproject = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    assert "transcripts/data/*" in pyproject["tool"]["setuptools"]["package-data"]["atlas_kit"]


def test_200_episodes_of_gpt_4o_read_as_real_transcripts(tau):
    [note] = tau.files
    assert (note.format, note.episodes, note.models, note.evidence) == ("tau-bench", 200, ("gpt-4o",), ("real",))
    assert len({e.id for e in tau.episodes}) == 200 and {e.trial for e in tau.episodes} == {0, 1, 2, 3}


def test_recovery_is_9_of_36_against_75_of_164_as_the_issue_counted(tau):
    rec = recovery(tau.episodes)
    assert (rec.with_error.successes, rec.with_error.n) == (9, 36)
    assert (rec.without_error.successes, rec.without_error.n) == (75, 164) and rec.unknown == 0
    assert rec.p_value == fisher_exact(9, 27, 75, 89) and 0.01 < rec.p_value < 0.05


def test_73_errors_and_their_next_actions_match_the_hand_count_plus_one_that_ended_the_episode(tau):
    events = error_events(tau.episodes)
    assert len(events) == 73 and {ev.basis for ev in events} == {"text"}
    counts = {c.action: c.count for c in next_action_counts(events)}
    assert counts == {"reply": 32, "other_tool": 31, "changed_arguments": 9, "identical_retry": 0, "end": 1}
    [end] = [ev for ev in events if ev.next.action == "end"]
    assert (end.task_id, end.trial, end.tool) == ("9", 2, "book_reservation")  # the transcript's last message


def test_with_think_passed_over_identical_retries_appear_and_the_loop_signal_says_so(tau):
    events = error_events(tau.episodes, skip={"think"})
    counts = {c.action: c.count for c in next_action_counts(events)}
    assert counts["identical_retry"] > 0 and sum(counts.values()) == 73  # the same errors, read past `think`
    signals = loops(events)
    worst = max(signals, key=lambda s: s.count)
    assert (worst.episode, worst.tool, worst.count) == ("task-9/trial-2", "book_reservation", 4)
    assert all(s.count >= 2 and len(s.positions) == s.count for s in signals)
