"""Live sweeps through a real local HTTP server: cost before, during and after; API failures kept apart; replays that cannot lie."""
from __future__ import annotations

import datetime as dt
import json

import pytest
from live_api import live  # noqa: F401 (a fixture, used by name)

from atlas_kit.experiments import guard as G
from atlas_kit.experiments.sweep import run_experiment, sweep
from atlas_kit.experiments.guard import SweepRefused, SweepStopped
from atlas_kit.experiments.metrics import success, usable
from atlas_kit.models.standin.model import OfflineModel
from atlas_kit.models.pricing import HIGH, LOW, cost_usd, estimate
from atlas_kit.models.cassette import Cassette, episode_scope
from atlas_kit.models.transport import ReplayMiss
from atlas_kit.models.replay import is_replay_miss
from atlas_kit.models.providers.replay import replay_client
from atlas_kit.types.results import read_records
from atlas_kit.face.tables import recovery_table
from atlas_kit.models.transport import APIFault

MODEL = "claude-sonnet-5-5"
TINY = dict(name="live", model=MODEL, styles=("contract",), faults=(True,), tickets=("T01", "T04"), trials=1,
            progress=False)



def costly(body):
    """The stand-in behind the server, every reply billed 10,000 tokens in and 1,000 out ($0.03 a call)."""
    reply = OfflineModel(seed=0)(body)
    reply["usage"] = {"input_tokens": 10_000, "output_tokens": 1_000}
    return reply


def failing(status, message="no", **headers):
    def handler(body):
        raise APIFault(status, message, headers={"retry-after-ms": "1", **headers})
    return handler


def _lines(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


# --- cost before, during and after --------------------------------------------------------------------------


def test_a_live_sweep_prints_its_estimate_first_and_its_spend_last(live, tmp_path, capsys):
    live(OfflineModel(seed=0))
    records = run_experiment(**TINY, out=tmp_path / "r.jsonl")
    out = capsys.readouterr().out
    assert out.index("Cost estimate: 2 live episodes of claude-sonnet-5-5") < out.index("Cost: $")
    assert all(f"  {word} " in out for word in ("low", "high", "cap"))
    spent = sum(r["cost_usd"] for r in records)
    assert spent > 0 and f"Cost: ${spent:,.4f} spent by this run on 2 live episode(s)" in out
    today = dt.date.today().isoformat()
    assert {(r["source_kind"], r["source_date"], r["stop_reason"]) for r in records} == {("live", today, "finished")}


def test_the_estimate_follows_its_documented_formula():
    e = estimate(100, model=MODEL, base_tokens=1_000, max_cost_usd=0.25, max_tokens=4_096)
    low_in, low_out = 2 * 1_000 + 250, 2 * 60  # LOW: 2 calls, context grows 250 a turn, 60 tokens written a call
    assert LOW.tokens(1_000) == (low_in, low_out) and e.low_usd == pytest.approx(100 * cost_usd(MODEL, low_in, low_out))
    high_in, high_out = HIGH.tokens(1_000)
    assert high_in == 6 * 1_500 + 700 * 15 and e.high_usd == pytest.approx(100 * cost_usd(MODEL, high_in, high_out))
    assert e.cap_usd == pytest.approx(100 * (0.25 + cost_usd(MODEL, 1_500 + 700 * 5, 4_096)))
    assert e.low_usd < e.high_usd < e.cap_usd
    half = estimate(100, model=MODEL, base_tokens=1_000, max_cost_usd=0.25, max_tokens=4_096, batch=True)
    assert (half.low_usd, half.high_usd, half.cap_usd) == pytest.approx((e.low_usd / 2, e.high_usd / 2, e.cap_usd / 2))
    assert "50% batch price" in half.describe() and "50% batch" not in e.describe()
    unlisted = estimate(1, model="claude-unpriced", base_tokens=1_000, max_cost_usd=0.25, max_tokens=1_024)
    assert "no price is listed for claude-unpriced" in unlisted.describe()


def test_a_live_sweep_above_max_cost_is_refused_before_any_call(live, tmp_path):
    server = live(OfflineModel(seed=0))
    with pytest.raises(SweepRefused, match=r"high estimate, \$0\.\d\d, is above max_cost_usd \(\$0\.01\)"):
        run_experiment(**TINY, out=tmp_path / "r.jsonl", max_cost_usd=0.01)
    assert server.messages == [] and not (tmp_path / "r.jsonl").exists()


def test_setup_sets_the_limit_for_the_rest_of_the_kernel(live, capsys):
    from atlas_kit.course.runner import setup

    server = live(OfflineModel(seed=0))
    choice = setup(model=MODEL, max_cost_usd=0.02)
    out = capsys.readouterr().out
    assert choice.mode == "live" and "max_cost_usd=0.02" in out and "refused above $0.02" in out
    with pytest.raises(SweepRefused, match=r"above max_cost_usd \(\$0\.02\)"):
        run_experiment(**TINY)
    assert server.messages == []
    with pytest.raises(ValueError, match="max_cost_usd must be a positive number"):
        setup(model=MODEL, max_cost_usd=float("nan"))


def test_a_sweep_nobody_confirms_does_not_start(live):
    server = live(OfflineModel(seed=0))
    asked = []
    with pytest.raises(SweepRefused, match="not confirmed"):
        sweep(**TINY, confirm=lambda est: asked.append(est.episodes) or False)
    assert asked == [2] and server.messages == []


def test_the_budget_stops_a_sweep_cleanly_and_a_rerun_resumes_it(live, tmp_path):
    server = live(costly)
    out = tmp_path / "r.jsonl"
    many = {**TINY, "tickets": ("T01", "T02", "T05", "T06"), "concurrency": 1}
    with pytest.warns(UserWarning, match="budget reached"):
        first = run_experiment(**many, out=out, budget_usd=0.10)
    assert 1 <= len(first) < 4 and len(_lines(out)) == len(first)
    assert sum(r["cost_usd"] for r in first) >= 0.10
    asked_before = len(server.messages)
    with pytest.raises(SweepRefused, match=r"The budget is already spent: the episodes in .*r\.jsonl cost \$0\.\d{4}"):
        run_experiment(**many, out=out, budget_usd=0.10)  # a total for the file: the same budget again is spent
    assert len(server.messages) == asked_before
    rest = run_experiment(**many, out=out, budget_usd=10)
    assert len(rest) == 4 and len(_lines(out)) == 4  # nothing ran twice
    assert rest[:len(first)] == first and len(server.messages) > asked_before


def test_the_budget_message_counts_the_episodes_still_in_flight_when_it_stopped():
    from atlas_kit.types import Source

    guard = G.Guard(Source("live", MODEL, "2026-01-02"), budget_usd=0.05, total_usd=0.05, where="r.jsonl",
                    per_episode_guess=0.02)
    assert [guard.admit() for _ in range(4)] == [True, True, True, False]  # 3 x $0.02 in flight reach $0.05
    assert "$0.0000 spent by this run on 0 episode(s)" in guard.message  # what it knew when it stopped admitting
    for cost in (0.0138, 0.02, 0.03):
        guard.finish({"cost_usd": cost, "stop_reason": "finished"})
    assert guard.stopped == "budget" and "budget reached: $0.0638 spent by this run on 3 episode(s)" in guard.message
    assert "the episodes in r.jsonl have cost $0.0638 of the $0.05 budget" in guard.message


def test_what_a_results_file_cost_counts_every_paid_line_a_failed_copy_too(tmp_path):
    out = tmp_path / "r.jsonl"
    live = {"source_kind": "live", "model": MODEL}
    rows = [{"key": "a", "cost_usd": 0.01, "stop_reason": "api_failure", **live}, {"key": "a", "cost_usd": 0.02, **live},
            {"key": "b", "cost_usd": 0.03, **live}, {"key": "c", "cost_usd": None, **live},
            {"key": "e", "cost_usd": 7.0, "source_kind": "replayed"}, {"key": "f", "cost_usd": 9.0}]  # no source: not paid
    out.write_text("".join(json.dumps(r) + "\n" for r in rows) + '{"key": "d", "cost_usd": 5')  # a cut last line
    assert G.spent_in(out) == pytest.approx(0.06) and G.spent_in(tmp_path / "none.jsonl") == 0.0
    assert len(read_records(out)) == 5  # the failed copy gave way to its rerun, but it was paid for
    out.write_text(out.read_text() + "\nnot json\n")
    assert G.spent_in(out) == pytest.approx(0.06)  # the damage is read_records' to name, with its line


def test_the_progress_bar_and_summary_report_spend(live):
    live(costly)
    result = sweep(**TINY)
    spent = sum(r["cost_usd"] for r in result.records)
    assert result.guard.spent_usd == pytest.approx(spent) and result.guard.postfix() == f"spent ${spent:,.2f} of $1.00"
    offline = sweep(**{**TINY, "model": "offline"})
    assert offline.guard.postfix() == "$0 (simulated)" and offline.estimate is None
    assert offline.guard.spend_line(offline.records).startswith("Cost: $0 (simulated")


# --- API failures are not model failures ----------------------------------------------------------------------


def test_a_rejected_key_stops_the_sweep_at_once_and_says_what_to_fix(live, tmp_path):
    server = live(failing(401, "invalid x-api-key"))
    out = tmp_path / "r.jsonl"
    with pytest.raises(SweepStopped, match="ANTHROPIC_API_KEY") as stop:  # 20 episodes, 16 at a time by default
        run_experiment(**{**TINY, "tickets": tuple(f"T{i:02d}" for i in range(1, 21))}, out=out, max_cost_usd=5)
    assert stop.value.cause == "authentication"
    written = _lines(out)
    assert len(written) == 1 and len(server.messages) == 1  # one request went first; the rest never started
    assert {(r["stop_reason"], r["api_failure"]) for r in written} == {("api_failure", "authentication")}


def test_a_live_sweep_fans_out_only_after_its_first_episode_got_through(live):
    import threading
    import time

    lock, state, seen = threading.Lock(), {"now": 0}, []  # requests in flight; (episode, in flight) of each
    stand_in = OfflineModel(seed=0)

    def counting(body):
        episode = json.dumps(body["messages"][0])  # each ticket's customer message opens its episode
        with lock:
            state["now"] += 1
            seen.append((episode, state["now"]))
        time.sleep(0.05)
        with lock:
            state["now"] -= 1
        return stand_in(body)

    live(counting)
    result = sweep(**{**TINY, "tickets": ("T01", "T02", "T05", "T06", "T07", "T08"), "concurrency": 4})
    assert [r["stop_reason"] for r in result.records].count("finished") == 6
    first = [n for episode, n in seen if episode == seen[0][0]]
    assert len(first) >= 2 and all(n == 1 for n in first)  # the first episode ran alone, every call of it
    assert seen[:len(first)] == [(seen[0][0], 1)] * len(first)  # and before any other began
    assert max(n for _, n in seen) > 1 and len({episode for episode, _ in seen}) == 6  # then the rest together


def test_api_failures_are_left_out_of_recovery_and_reported_apart(live, tmp_path):
    from atlas_kit.face.charts import recovery_by_style  # matplotlib, imported only by the one test here that draws

    def flaky(body):  # of T01, T02 and T04, only T04's customer asks for a refund
        if "refund" in json.dumps(body["messages"][0]).lower():
            raise APIFault(529, "overloaded", headers={"retry-after-ms": "1"})
        return OfflineModel(seed=0)(body)

    live(flaky)
    result = sweep(**{**TINY, "tickets": ("T01", "T02", "T04")})
    failed = [r for r in result.records if r["stop_reason"] == "api_failure"]
    assert [r["ticket"] for r in failed] == ["T04"] and failed[0]["api_failure"] == "overloaded"
    assert len(usable(result.records)) == 2 and success(result.records).n == 2
    caption = recovery_table(result.records).caption
    assert "1 episode(s) failed at the API (overloaded 1) and are left out" in caption
    title = recovery_by_style(result.records).get_title()
    assert "left out: 1 episode(s) failed at the API (overloaded 1)" in title
    assert result.stopped is None  # one of three: not most


def test_a_sweep_mostly_failed_at_the_api_stops_non_zero_and_a_resume_reruns_those_episodes(live, tmp_path):
    out = tmp_path / "r.jsonl"
    live(failing(529, "overloaded"))
    with pytest.raises(SweepStopped, match="2 of 2 episodes failed at the API") as stop:
        run_experiment(**TINY, out=out)
    assert stop.value.cause == "api_failures" and [r["api_failure"] for r in _lines(out)] == ["overloaded"] * 2
    live(OfflineModel(seed=0))
    records = run_experiment(**TINY, out=out)
    assert [r["stop_reason"] for r in records] == ["finished", "finished"]
    assert len(_lines(out)) == 4 and read_records(out) == records  # the reruns replace the failed copies


def test_a_run_of_api_failures_stops_the_sweep(live, tmp_path):
    live(failing(500, "internal"))
    out = tmp_path / "r.jsonl"
    many = {**TINY, "tickets": tuple(f"T{i:02d}" for i in range(1, 15)), "concurrency": 1}
    with pytest.raises(SweepStopped, match="10 episodes in a row failed at the API") as stop:
        run_experiment(**many, out=out, max_cost_usd=5)
    assert stop.value.cause == "api_failures" and len(_lines(out)) == G.FAILURES_IN_A_ROW


# --- replay that cannot lie ------------------------------------------------------------------------------------


@pytest.fixture
def recorded(live, tmp_path):
    """A live sweep (the stand-in behind a local server) recorded to a cassette: contract, faults on, T01 and T04, 1 trial."""
    live(OfflineModel(seed=0))
    tape = tmp_path / "class.json"
    with pytest.warns(UserWarning, match="Recording"):
        records = run_experiment(**TINY, record=tape)
    return tape, records


def test_every_record_says_which_kind_of_source_it_came_from(recorded, monkeypatch):
    tape, live_records = recorded
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    replayed = run_experiment(**{**TINY, "model": "offline"}, cassette=tape)
    simulated = run_experiment(**{**TINY, "model": "offline"})
    kinds = {r["source_kind"] for r in live_records}, {r["source_kind"] for r in replayed}, {r["source_kind"] for r in simulated}
    assert kinds == ({"live"}, {"replayed"}, {"simulated"})
    strip = lambda rs: [(r["ticket"], r["stop_reason"], r["correct"], r["steps"]) for r in rs]  # noqa: E731
    assert strip(replayed) == strip(live_records)


def test_resuming_into_a_results_file_of_another_source_is_refused(recorded, tmp_path, monkeypatch):
    tape, _ = recorded
    out = tmp_path / "r.jsonl"
    run_experiment(**{**TINY, "model": "offline"}, out=out)
    before = out.read_bytes()
    with pytest.raises(ValueError, match="holds simulated results; this sweep would add replayed ones"):
        run_experiment(**TINY, cassette=tape, out=out)
    with pytest.raises(ValueError, match="holds simulated results; this sweep would add live ones"):
        run_experiment(**TINY, out=out)
    assert out.read_bytes() == before


@pytest.mark.parametrize("more, missing", [({"trials": 2}, "2 of the 4"), ({"faults": (True, False)}, "2 of the 4"),
                                           ({"styles": ("raw",)}, "2 of the 2")])
def test_a_cassette_asked_for_episodes_it_does_not_hold_refuses_and_never_reuses_others(recorded, more, missing):
    tape, _ = recorded
    with pytest.raises(ValueError, match=f"holds no calls for {missing} episodes asked for"):
        run_experiment(**{**TINY, **more}, cassette=tape)


def test_a_replayed_episode_that_asks_something_else_is_a_replay_miss_not_an_answer(recorded):
    from atlas_kit.agent import Bounds

    tape, _ = recorded
    result = sweep(**TINY, cassette=tape, bounds=Bounds(max_tokens=2048))
    assert {(r["stop_reason"], r["api_failure"]) for r in result.records} == {("api_failure", "replay_miss")}
    assert "max_tokens differs" in result.records[0]["api_error"] and result.stopped == "api_failures"


def test_the_player_answers_an_episode_only_from_its_own_calls(recorded):
    import anthropic

    tape, _ = recorded
    entry = Cassette.load(tape).entries[0]
    with pytest.raises(ReplayMiss) as miss, episode_scope("another|episode"):
        replay_client(tape).messages.create(**entry["request"])
    assert is_replay_miss(miss.value) and "holds no calls for episode 'another|episode'" in str(miss.value)
    with episode_scope(entry["episode"]):
        assert replay_client(tape).messages.create(**entry["request"]).id == entry["response"]["id"]


def test_an_untagged_request_to_a_sweep_cassette_still_finds_its_recording(recorded):
    tape, _ = recorded
    entry = Cassette.load(tape).entries[0]
    assert replay_client(tape).messages.create(**entry["request"]).id == entry["response"]["id"]


def test_a_live_sweep_is_estimated_once_and_not_at_all_when_nothing_is_left(live, tmp_path, capsys):
    live(OfflineModel(seed=0))
    out = tmp_path / "r.jsonl"
    run_experiment(**TINY, out=out)
    capsys.readouterr()
    again = sweep(**TINY, out=out)
    assert again.ran == 0 and again.estimate is None and "Cost estimate" not in capsys.readouterr().out


def test_record_is_refused_without_a_live_model(tmp_path, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ValueError, match="record= needs a live model"):
        run_experiment(**{**TINY, "model": "offline"}, record=tmp_path / "x.json")
    with pytest.raises(ValueError, match="budget_usd must be a positive number"):
        run_experiment(**{**TINY, "model": "offline"}, budget_usd=float("nan"))


def test_a_refused_or_stopped_sweep_shows_one_line_in_a_notebook():
    # IPython renders an exception with _render_traceback_ as those lines alone: no traceback for a refusal.
    from atlas_kit.experiments.guard import SweepInterrupted, SweepRefused, SweepStopped

    assert SweepRefused("raise max_cost_usd to run it.")._render_traceback_() == ["SweepRefused: raise max_cost_usd to run it."]
    assert SweepStopped("the key was rejected.", cause="authentication")._render_traceback_() == [
        "SweepStopped: the key was rejected."]
    assert SweepInterrupted(3, 2)._render_traceback_()[0].startswith("SweepInterrupted: interrupted after 3 episode(s)")


def test_a_presets_budget_is_a_total_for_all_its_results_files(live, tmp_path):
    from atlas_kit.experiments.presets import run_preset

    server = live(costly)
    other = "claude-haiku-4-5"
    options = dict(trials=10, out=tmp_path, progress=False, max_cost_usd=10)
    assert run_preset(**options, models=[MODEL], budget_usd=10).stopped is None  # one model's design, whole
    paid = G.spent_in(tmp_path / f"self-reflective_{MODEL}.jsonl")
    budget = paid + 0.40  # what the first file cost, and room for some of the second model's episodes
    with pytest.warns(UserWarning, match="budget reached"):
        assert run_preset(**options, models=[MODEL, other], budget_usd=budget).stopped == "budget"
    second = tmp_path / f"self-reflective_{other}.jsonl"
    assert 10 < len(_lines(second)) < 20 and paid + G.spent_in(second) >= budget  # into its second arm, then stopped
    asked = len(server.requests)
    with pytest.raises(SweepRefused, match="The budget is already spent: the self-reflective design's results"):
        run_preset(**options, models=[MODEL, other], budget_usd=budget)  # both files count: nothing more to spend
    assert len(server.requests) == asked
    done = run_preset(**options, models=[MODEL, other], budget_usd=10)
    assert done.stopped is None and len(_lines(second)) == 20  # ten tickets x two arms, one trial each
