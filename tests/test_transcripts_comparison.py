"""Several models or trials at once (rates.py, analysis.next_actions_by_model, comparison.py): recovery per model,
paired by task across models, what each model did next, pass^k over tau-bench's four trials checked against a count
of the raw file, and the dashboard's sections that show them only when there is something to compare."""
from __future__ import annotations

import functools
import gzip
import json
import math
from collections import Counter

import pytest

from atlas_kit.transcripts import (MODEL_UNKNOWN, Episode, ModelText, Outcome, ToolCall, ToolResult, Transcripts,
                                   UserText, agentdojo_runs, dashboard, error_events, model_action_rows, model_rows,
                                   next_action_counts, next_actions_by_model, paired_by_task, paired_rows, pass_hat_k,
                                   pass_k_rows, read_transcripts, recovery_by_model, tau_bench_airline)


@functools.cache
def dojo() -> Transcripts:
    """The shipped AgentDojo runs, read once for this module."""
    return read_transcripts([agentdojo_runs()])


def ep(model: str | None, task: str, *, errors: int, correct: bool | None, file: str = "runs",
       trial: int | None = None) -> Episode:
    turns: list = [UserText("go", 0)]
    for k in range(errors):
        turns += [ToolCall(f"c{k}", "book", {"k": k}, 2 * k + 1),
                  ToolResult(f"c{k}", True, "flag", "Error: full", 2 * k + 2)]
    turns.append(ModelText("done", 2 * errors + 1))
    return Episode(id=f"{model}/{task}/{trial}", format="agentdojo", file=file, record=0, turns=tuple(turns),
                   outcome=Outcome(correct), evidence="real", task_id=task, trial=trial, model=model)


EPISODES = [ep("b", "t1", errors=2, correct=False), ep("b", "t2", errors=0, correct=True),
            ep("a", "t1", errors=0, correct=True), ep("a", "t2", errors=1, correct=True),
            ep(None, "t1", errors=0, correct=False), ep("a", "t3", errors=0, correct=None)]


def test_recovery_per_model_counts_each_model_s_own_episodes_sorted_with_the_unnamed_last():
    rows = recovery_by_model(EPISODES)
    assert [r.model for r in rows] == ["a", "b", None]
    a, b, unknown = rows
    assert (a.recovery.episodes, a.errors, a.recovery.hit, a.recovery.unknown) == (3, 1, 1, 1)
    assert (str(a.recovery.with_error), str(a.recovery.without_error)) == ("100% [21%, 100%] (1/1)",
                                                                           "100% [21%, 100%] (1/1)")
    assert (b.errors, b.recovery.with_error.successes, b.recovery.without_error.successes) == (2, 0, 1)
    assert unknown.recovery.episodes == 1 and unknown.errors == 0
    table = model_rows(rows, caption="c")
    assert [r[0] for r in table.rows] == ["a", "b", MODEL_UNKNOWN] and table.rows[0][1:4] == [3, 1, 1]


def test_paired_by_task_sets_a_model_s_recovery_beside_the_other_models_on_the_same_tasks():
    rows = paired_by_task(EPISODES)
    assert [r.model for r in rows] == ["a", "b"]  # only models that met an error
    a, b = rows
    assert (a.tasks, a.recovery.successes, a.recovery.n) == (1, 1, 1)
    assert (a.others.successes, a.others.n, a.others_clean.n) == (1, 1, 1)  # b on t2, no error, correct
    assert (b.tasks, b.recovery.successes, b.recovery.n) == (1, 0, 1)
    assert (b.others.successes, b.others.n) == (1, 2)  # a on t1 correct, the unnamed model on t1 not
    assert paired_rows(rows, caption="c").rows[1][:2] == ["b", 1]


def test_pass_k_over_tau_bench_s_four_trials_matches_a_count_of_the_raw_file():
    raw = json.loads(gzip.decompress(tau_bench_airline().read_bytes()))
    trials = Counter(r["task_id"] for r in raw)
    successes = Counter(r["task_id"] for r in raw if r["reward"] == 1.0)
    assert set(trials.values()) == {4} and len(trials) == 50  # four trials of each of 50 tasks
    expected = [sum(math.comb(successes[t], k) / math.comb(4, k) for t in trials) / 50 for k in (1, 2, 3, 4)]
    found = pass_hat_k(read_transcripts([tau_bench_airline()]).episodes)
    assert [p.k for p in found] == [1, 2, 3, 4] and [p.tasks for p in found] == [50] * 4
    assert [p.value for p in found] == pytest.approx(expected)
    assert found[0].value == pytest.approx(84 / 200) and found[0].value > found[1].value > found[3].value
    assert [r[1] for r in pass_k_rows(found, caption="c").rows] == [f"{v:.3f}" for v in expected]


def test_pass_k_takes_only_whole_numbers_of_trials():
    with pytest.raises(ValueError, match="ks must be whole numbers of trials, 1 or more"):
        pass_hat_k(EPISODES, [0])
    assert [(p.tasks, p.left_out) for p in pass_hat_k(EPISODES, [1, 2])] == [(5, 0), (0, 5)]


def test_next_actions_per_model_are_each_model_s_own_errors():
    events = error_events(dojo().episodes)
    rows = next_actions_by_model(events)
    assert len(rows) == 21 and sum(r.errors for r in rows) == len(events) == 303
    for row in rows:
        own = [ev for ev in events if ev.model == row.model]
        assert list(row.counts) == next_action_counts(own)
    table = model_action_rows(rows, caption="c")
    assert table.columns[:3] == ["model", "errors", "identical retry"]
    command_r = next(r for r in table.rows if r[0] == "command-r")
    mine = next(r for r in rows if r.model == "command-r")
    assert command_r[1] == mine.errors and command_r[3] == f"{mine.count('changed_arguments').count} (" \
        f"{mine.count('changed_arguments').share:.0%})"


def test_the_dashboard_shows_per_model_sections_only_when_several_models_are_read():
    one = dashboard(read_transcripts([tau_bench_airline()]))
    assert "Per model" not in one and "What each model did next" not in one
    assert "pass^k: the chance that k trials of a task all succeed" in one and "  4  0.200" in one
    several = dashboard(dojo())
    assert "Per model (each as its records name it" in several and "Paired by task:" in several
    assert "What each model did next after its own errors:" in several and "pass^k" not in several


def test_a_task_run_under_two_conditions_with_one_trial_number_is_not_its_trials():
    """An Atlas sweep runs each ticket once per style, each as trial 0: two conditions, not two trials."""
    styles = [ep("m", "t1", errors=0, correct=c, trial=0) for c in (True, False)]
    repeats = [ep("m", "t2", errors=0, correct=c, trial=n) for n, c in enumerate((True, False))]
    [one, two] = pass_hat_k(styles + repeats)
    assert (one.value, one.tasks, one.mixed, one.left_out) == (0.5, 1, 1, 1)
    assert (two.value, two.tasks) == (0.0, 1)
    assert pass_hat_k(styles) == []


def test_the_task_split_across_models_holds_one_source_s_tasks_fixed_whoever_ran_them():
    from atlas_kit.transcripts import task_split, task_split_rows

    episodes = [ep("a", "t1", errors=1, correct=False), ep("b", "t1", errors=0, correct=False),
                ep("b", "t2", errors=0, correct=True), ep("c", "t1", errors=0, correct=True),
                ep("c", "t2", errors=0, correct=True), ep("c", "t1", errors=0, correct=True, file="other")]
    per_model = task_split(episodes)  # one run per model and task: no model has another trial to compare
    assert (per_model.same_tasks.n, per_model.other_tasks.n) == (0, 5)
    across = task_split(episodes, across_models=True)
    assert (across.with_error.successes, across.with_error.n) == (0, 1)
    assert (across.same_tasks.successes, across.same_tasks.n) == (1, 2)  # b and c on t1 of "runs"; not "other"'s t1
    assert (across.other_tasks.successes, across.other_tasks.n) == (3, 3)
    rows = task_split_rows(across, caption="c", across_models=True)
    assert [r[0] for r in rows.rows][1:] == ["no error, on tasks where another run met one",
                                              "no error, on tasks no model's run met one on"]
    assert "another trial" in task_split_rows(per_model, caption="c").rows[1][0]


def test_agentdojo_s_tasks_that_met_an_error_in_some_run_went_worse_without_one_too():
    from atlas_kit.transcripts import task_split

    split = task_split(dojo().episodes, across_models=True)
    hit_tasks = {(e.file, e.task_id) for e in dojo().episodes if any(isinstance(t, ToolResult) and t.is_error
                                                                       for t in e.turns)}
    clean = [e for e in dojo().episodes if not any(isinstance(t, ToolResult) and t.is_error for t in e.turns)]
    same = [e for e in clean if (e.file, e.task_id) in hit_tasks]
    assert (split.with_error.n, split.same_tasks.n, split.other_tasks.n) == (210, len(same), len(clean) - len(same))
    assert split.same_tasks.successes == sum(bool(e.outcome.correct) for e in same)
    assert split.same_tasks.rate < split.other_tasks.rate


def test_each_common_error_text_comes_with_the_next_moves_that_followed_it():
    from atlas_kit.transcripts import error_groups
    from atlas_kit.transcripts.comparison import group_action_rows

    events = error_events(dojo().episodes)
    rows = group_action_rows(error_groups(events), events, caption="c", top=3)
    assert rows.columns[:3] == ["an error text as a model read it", "errors", "models"] and len(rows.rows) == 3
    for text, errors, models, *moves in rows.rows:
        assert sum(moves) == errors and 1 <= models <= 21 and text in {e.text for e in events}
    first = rows.rows[0]
    same = [e for e in events if e.masked == error_groups(events)[0].masked]
    assert first[1] == len(same) and first[2] == len({e.model for e in same})
    assert first[3:] == [sum(e.next.action == a for e in same) for a in
                         ("identical_retry", "changed_arguments", "other_tool", "reply", "end")]
