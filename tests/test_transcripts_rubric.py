"""The contract's rubric on transcript errors: what each event gives the rubric (text, arguments, the flag when the
data has one), the per-rule counts, recovery by whether an error named a next step, and that the dashboard and the
CSV show the reading and say it is a heuristic. The tau-bench file's figures are read, not typed, where they can be."""
from __future__ import annotations

import csv
import json
import math
from dataclasses import replace

import pytest
from hypothesis import given, strategies as st

from atlas_kit.contract.errors import retry_changed, tool_error
from atlas_kit.contract.rubric import RULES, judge
from atlas_kit.stats import fisher_exact
from atlas_kit.transcripts.report import CSV_COLUMNS, write_error_csv
from atlas_kit.transcripts.rubric import (HEURISTIC, RULE_LABELS, judge_event, read_by_rubric, recovery_by_next_step,
    rule_counts)
from atlas_kit.transcripts import Episode, Transcripts, dashboard, error_events, read_transcripts, tau_bench_airline
from atlas_kit.transcripts.model import ModelText, Outcome, ToolCall, ToolResult, UserText

CONTRACT = json.dumps(tool_error("toolu_1", "invalid_argument", "The amounts must add up to the total price.",
                                 next=retry_changed("payment_methods", "Make the amounts add up to the total.")).body())
PLAIN = "Error: payment amount does not add up"


def failing(text: str, *, id: str = "e", correct: bool | None = True, basis: str = "text",
            args: dict[str, object] | None = None) -> Episode:
    turns = (UserText("book it", 0), ToolCall("c1", "book_reservation", args or {"user_id": "u1"}, 1),
             ToolResult("c1", True, basis, text, 1), ModelText("Sorry.", 2))  # type: ignore[arg-type]
    return Episode(id=id, format="anthropic", file="f.json", record=0, turns=turns, outcome=Outcome(correct),
                   evidence="real")


def test_each_event_gives_the_rubric_its_text_its_arguments_and_the_flag_only_when_the_data_has_one():
    flagged, inferred = error_events([failing(CONTRACT, basis="flag"), failing(PLAIN)])
    assert judge_event(flagged) == judge(CONTRACT, is_error=True, arguments={"user_id": "u1"})
    assert judge_event(flagged).verdict("is_error").status == "pass"
    assert judge_event(inferred).verdict("is_error").status == "n/a"  # "Error:" is the text, not a flag


def test_a_contract_body_names_its_next_step_and_a_plain_error_does_not():
    contract, plain = read_by_rubric(error_events([failing(CONTRACT), failing(PLAIN)]))
    assert contract.named_next and not plain.named_next
    assert {r: contract.judgement.verdict(r).status for r in ("structure", "code", "retryable")} == dict.fromkeys(
        ("structure", "code", "retryable"), "pass")
    assert plain.judgement.failed == ("structure", "code", "retryable", "next")


def test_an_error_that_quotes_the_calls_input_fails_echo():
    quoted = failing("Error: not enough balance in payment method gift_card_5094406",
                     args={"payment_methods": [{"payment_id": "gift_card_5094406", "amount": 10}]})
    [reading] = read_by_rubric(error_events([quoted]))
    assert reading.judgement.verdict("echo").status == "fail"


def test_rule_counts_cover_every_rule_and_count_pass_fail_and_unjudged():
    readings = read_by_rubric(error_events([failing(CONTRACT), failing(PLAIN), failing(PLAIN)]))
    counts = {c.rule: c for c in rule_counts(readings)}
    assert tuple(counts) == RULES and set(RULE_LABELS) == set(RULES)
    assert (counts["next"].passed, counts["next"].failed, counts["next"].share) == (1, 2, pytest.approx(1 / 3))
    assert (counts["is_error"].unjudged, counts["is_error"].judged) == (3, 0) and math.isnan(counts["is_error"].share)
    assert all(c.passed + c.failed + c.unjudged == 3 for c in counts.values())


def test_recovery_by_next_step_puts_an_episode_where_any_of_its_errors_named_one():
    mixed = failing(PLAIN, id="mixed", correct=True)
    mixed = replace(mixed, turns=(*mixed.turns, ToolCall("c2", "book_reservation", {}, 3),
                                  ToolResult("c2", True, "text", CONTRACT, 3)))
    eps = [mixed, failing(CONTRACT, id="named-wrong", correct=False), failing(CONTRACT, id="named-unknown", correct=None),
           failing(PLAIN, id="plain-right"), failing(PLAIN, id="plain-wrong", correct=False)]
    rec = recovery_by_next_step(read_by_rubric(error_events(eps)))
    assert (rec.named.successes, rec.named.n, rec.unknown_named) == (1, 2, 1)
    assert (rec.not_named.successes, rec.not_named.n, rec.unknown_not_named) == (1, 2, 0)
    assert rec.difference == pytest.approx(0.0) and rec.p_value == fisher_exact(1, 1, 1, 1)


def test_with_one_group_empty_there_is_no_difference_and_no_test():
    rec = recovery_by_next_step(read_by_rubric(error_events([failing(PLAIN)])))
    assert rec.named.n == 0 and math.isnan(rec.difference) and math.isnan(rec.p_value)


@given(st.lists(st.tuples(st.integers(0, 5), st.booleans(), st.sampled_from([True, False, None])), max_size=12))
def test_the_two_groups_and_the_unknown_hold_each_episode_once(spec):
    eps = {}
    for n, named, correct in spec:  # an episode's id, whether this error names a step, its outcome
        ep = eps.get(n) or failing(CONTRACT if named else PLAIN, id=f"e{n}", correct=correct)
        if n in eps:
            k = len(ep.turns)
            ep = replace(ep, turns=(*ep.turns, ToolCall(f"c{k}", "book_reservation", {}, k),
                                    ToolResult(f"c{k}", True, "text", CONTRACT if named else PLAIN, k)))
        eps[n] = ep
    rec = recovery_by_next_step(read_by_rubric(error_events(eps.values())))
    assert rec.named.n + rec.not_named.n + rec.unknown_named + rec.unknown_not_named == len(eps)
    named_ids = {n for n, named, _ in spec if named}
    assert rec.named.n + rec.unknown_named == len(named_ids)


def test_the_csv_has_each_rules_verdict_in_a_column_that_says_heuristic(tmp_path):
    path = write_error_csv(error_events([failing(CONTRACT), failing(PLAIN)]), tmp_path / "errors.csv")
    rows = list(csv.DictReader(path.open()))
    assert tuple(rows[0]) == CSV_COLUMNS and all(f"rubric_heuristic_{r}" in CSV_COLUMNS for r in RULES)
    assert (rows[0]["rubric_heuristic_next"], rows[1]["rubric_heuristic_next"]) == ("pass", "fail")
    assert rows[1]["rubric_heuristic_is_error"] == "n/a"


@pytest.fixture(scope="module")
def tau() -> Transcripts:
    return read_transcripts([tau_bench_airline()])


def test_on_tau_bench_no_error_names_a_next_step_and_the_echoes_are_the_payment_ids_quoted(tau):
    readings = read_by_rubric(error_events(tau.episodes))
    counts = {c.rule: c for c in rule_counts(readings)}
    assert counts["next"].passed == 0 and counts["retryable"].passed == 0 and counts["internals"].failed == 0
    sent = [r for r in readings if any(p["payment_id"] in r.event.text
                                       for p in r.event.arguments.get("payment_methods", []))]  # type: ignore[union-attr]
    assert [r.judgement.verdict("echo").status for r in readings].count("fail") == len(sent) == 5
    rec = recovery_by_next_step(readings)
    assert rec.named.n == 0 and (rec.not_named.successes, rec.not_named.n) == (9, 36)


def test_the_dashboard_shows_the_rubric_and_says_it_is_a_heuristic(tau):
    text = dashboard(tau)
    assert HEURISTIC in text and "next: names a next step" in text
    assert "no error named a next step               25% [14%, 41%] (9/36)" in text
    assert "n/a (one group is empty)" in text


def test_the_task_split_sets_recovery_beside_the_same_tasks_without_their_errors(tau):
    from atlas_kit.transcripts.rates import task_split

    split = task_split(tau.episodes)
    hit_tasks = {e.task_id for e in tau.episodes if any(ev.episode == e.id for ev in error_events([e]))}
    same = [e for e in tau.episodes if e.task_id in hit_tasks and not error_events([e])]
    assert (split.with_error.successes, split.with_error.n) == (9, 36) and split.no_task == 0
    assert (split.same_tasks.successes, split.same_tasks.n) == (sum(bool(e.outcome.correct) for e in same), len(same))
    assert split.same_tasks.n + split.other_tasks.n == 164  # every episode without an error, once
    assert "no error, on tasks where another trial met one" in dashboard(tau)


def test_a_next_action_reads_as_the_branch_it_took():
    from atlas_kit.contract.errors import Branch
    from atlas_kit.transcripts.analysis import NEXT_ACTIONS
    from atlas_kit.transcripts.rubric import branch_taken

    assert [branch_taken(a) for a in NEXT_ACTIONS] == [Branch.RETRY_UNCHANGED, Branch.RETRY_CHANGED,
                                                       Branch.SWITCH_TOOL, Branch.STOP, Branch.STOP]


def test_names_only_keeps_machine_paths_out_of_the_dashboard(tau):
    text = dashboard(tau, names_only=True)
    assert str(tau_bench_airline().parent) not in text and "tau-bench-gpt-4o-airline.json.gz" in text


def test_a_p_value_below_a_thousandth_reads_p_less_than_never_p_equals_less_than():
    from atlas_kit.transcripts.report import next_step_rows
    from atlas_kit.transcripts.rubric import NextStepRecovery
    from atlas_kit.stats import Rate

    [_, _, difference, _] = next_step_rows(NextStepRecovery(Rate(20, 20), Rate(0, 20), 0, 0), caption="c").rows
    assert difference[1] == "+100 points; Fisher's exact test, two-sided: p < 0.001"


def test_a_file_with_no_error_text_says_so_once_instead_of_empty_tables():
    from atlas_kit.transcripts.model import FileRead

    quiet = Episode(id="q", format="anthropic", file="f.json", record=0, turns=(UserText("hi", 0),),
                    outcome=Outcome(True), evidence="real")
    text = dashboard(Transcripts((quiet,), (FileRead("f.json", "anthropic", "named", 1, (), ("real",)),)))
    assert text.endswith("No tool error text in these files: no next actions, rubric reading or error groups to show.")
    assert "What the model did next" not in text and HEURISTIC not in text


def test_results_records_say_what_they_cannot_give_and_how_often_the_loop_breaker_fired():
    from atlas_kit.transcripts.model import FileRead, Summary

    def record(n: int, broke: bool) -> Episode:
        return Episode(id=f"r{n}", format="atlas", file="r.jsonl", record=n, turns=(), outcome=Outcome(False),
                       evidence="simulated", detail="summary", summary=Summary(True, ("not_found",), ("stop",), 3, broke))
    note = FileRead("r.jsonl", "atlas", "named", 3, (), ("simulated",))
    text = dashboard(Transcripts((record(0, True), record(1, False), record(2, True)), (note,)))
    assert "3 episodes are results records without transcripts" in text
    assert "atlas_kit's loop breaker fired in 2 of them" in text
