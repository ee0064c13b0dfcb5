from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time

import pytest

import atlas_kit.experiments.episodes as episodes
from atlas_kit.atlas.grade import case_of
from atlas_kit.agent import run_agent
from atlas_kit.models.standin.model import STANDIN_SOURCE
from atlas_kit.atlas import atlas_session, grade
from atlas_kit.experiments.sweep import run_experiment
from atlas_kit.experiments.episodes import Episode, plan
from atlas_kit.experiments.running import arun_episodes, run_episode
from atlas_kit.types.records import SIMULATED
from atlas_kit.models.standin.model import OFFLINE_MODEL, OfflineModel, Profile, offline_client
from atlas_kit.models.cassette import Cassette, recording_client
from atlas_kit.types.results import HARNESS_ERROR, read_records
from atlas_kit.experiments.results import Condition
from atlas_kit.models.transport import MessagesTransport

TINY = dict(name="tiny", styles=("raw", "contract"), faults=(True,), tickets=("T01", "T04"), trials=2, progress=False)


def _keys(path) -> list[str]:
    return [json.loads(line)["key"] for line in path.read_text().splitlines()]


def test_plan_orders_conditions_then_tickets_then_trials_and_drops_repeats():
    episodes = plan(styles=("raw", "contract", "raw"), faults=(True, False), break_loops=(True,), profiles=(None,),
                    tickets=("T01", "T02"), trials=3, model=OFFLINE_MODEL)
    assert len(episodes) == 2 * 2 * 2 * 3
    assert [(e.condition.style, e.condition.faults, e.ticket, e.trial) for e in episodes[:4]] == [
        ("raw", True, "T01", 0), ("raw", True, "T01", 1), ("raw", True, "T01", 2), ("raw", True, "T02", 0)]
    assert all(e.condition.profile == "default" and e.seed == e.trial for e in episodes)
    live = plan(styles=("raw",), faults=(True,), break_loops=(True,), profiles=(None,), tickets=("T01",), trials=1,
                model="claude-sonnet-5-5")
    assert live[0].condition.profile is None


def test_a_plan_is_bounded_at_max_episodes_before_anything_is_built():
    from atlas_kit.types.sets import MAX_EPISODES
    from atlas_kit.experiments.episodes import check_options
    from atlas_kit.experiments.spec import SweepSpec

    one = dict(styles=("raw",), faults=(True,), break_loops=(True,), tickets=("T01",))
    check_options(**one, trials=MAX_EPISODES)  # the bound itself is allowed
    with pytest.raises(ValueError, match=f"plans {MAX_EPISODES + 1:,} episodes .* give at most {MAX_EPISODES:,} trials"):
        check_options(**one, trials=MAX_EPISODES + 1)
    with pytest.raises(ValueError, match=r"plans 1,000,000,000 episodes \(1,000 conditions and tickets"):
        check_options(**one, trials=10**6, profiles=1_000)  # the stand-in's profiles multiply the plan too
    with pytest.raises(ValueError, match="trials=1,000,000 plans 162,000,000 episodes"):
        SweepSpec(name="huge", trials=10**6)  # the defaults: 3 styles x 2 faults x 27 tickets
    with pytest.raises(ValueError, match="give at most 12,500 trials"):
        plan(styles=("raw", "contract"), faults=(True, False), break_loops=(True,), profiles=(None, "stubborn"),
             tickets=("T01",), trials=10**6, model=OFFLINE_MODEL)


def test_two_profiles_with_one_name_are_refused():
    with pytest.raises(ValueError, match="two profiles are named 'p'"):
        plan(styles=("raw",), faults=(True,), break_loops=(True,), tickets=("T01",), trials=1, model=OFFLINE_MODEL,
             profiles=(Profile(name="p"), Profile(name="p", retry_same=0.5, vary_argument=0.0)))


def test_a_sweep_writes_each_episode_once_and_a_second_run_adds_nothing(tmp_path):
    out = tmp_path / "r.jsonl"
    first = run_experiment(**TINY, out=out)
    assert len(first) == 8 and len(set(_keys(out))) == 8
    assert {r["style"] for r in first} == {"raw", "contract"} and all(r["source"] == SIMULATED for r in first)
    assert all(r["experiment"] == "tiny" and r["model"] == OFFLINE_MODEL for r in first)
    before = out.read_bytes()
    second = run_experiment(**TINY, out=out)
    assert out.read_bytes() == before
    assert second == first


def test_more_trials_extend_the_file_and_return_old_and_new(tmp_path):
    out = tmp_path / "r.jsonl"
    run_experiment(**{**TINY, "trials": 1}, out=out)
    before = out.read_bytes()
    records = run_experiment(**TINY, out=out)
    assert out.read_bytes().startswith(before)
    assert len(records) == 8 and len(_keys(out)) == 8
    assert [r["trial"] for r in records[:2]] == [0, 1]  # returned in plan order, not file order


def test_offline_sweeps_are_deterministic_and_seeded_per_trial(tmp_path):
    a = run_experiment(**TINY, out=tmp_path / "a.jsonl")
    b = run_experiment(**TINY, out=None)
    assert a == b
    assert (tmp_path / "a.jsonl").read_text() == "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in a)


def test_one_failing_episode_is_recorded_and_the_sweep_goes_on(tmp_path, monkeypatch):
    real = episodes.grade  # episodes.episode_record grades every way of running an episode

    def flaky(run):
        if case_of(run).ticket.id == "T04":
            raise RuntimeError("grader bug")
        return real(run)

    monkeypatch.setattr(episodes, "grade", flaky)
    records = run_experiment(**TINY, out=tmp_path / "r.jsonl")
    broken = [r for r in records if r["stop_reason"] == HARNESS_ERROR]
    assert len(records) == 8 and len(broken) == 4 and {r["ticket"] for r in broken} == {"T04"}
    assert broken[0]["harness_error"] == "RuntimeError: grader bug"


def test_the_async_path_gives_the_same_records_as_the_sync_path():
    cond = Condition("contract", True, True, "default", OFFLINE_MODEL)
    episodes = [Episode(cond, t, 0) for t in ("T01", "T04", "T09", "T11", "T14")]
    sync = [run_episode(offline_client(seed=0), e, source=STANDIN_SOURCE) for e in episodes]
    seen = []
    done = asyncio.run(arun_episodes(offline_client(seed=0, async_=True), episodes, source=STANDIN_SOURCE,
                                     concurrency=3, on_record=seen.append))
    assert sorted(done, key=lambda r: r["key"]) == sorted(sync, key=lambda r: r["key"]) and seen == done


def test_a_replayed_sweep_runs_through_the_async_client_and_says_replayed(tmp_path):
    from atlas_kit.models.cassette import episode_scope

    model = "claude-sonnet-5-5"
    tape = Cassette(model=model, recorded_on="2026-01-02")
    client = recording_client(tape, api_key="not-a-key", inner=MessagesTransport(OfflineModel(seed=0)), max_retries=0)
    (episode,) = plan(styles=("contract",), faults=(True,), break_loops=(True,), profiles=(None,), tickets=("T04",),
                      trials=1, model=model)
    # A sweep tags every call with its episode; a run recorded by hand the same way replays in a sweep.
    with episode_scope(episode.key):
        live = run_agent(client, atlas_session("T04", style="contract", faults=True, seed=0), model=model)
    tape.save(tmp_path / "t04.json")
    records = run_experiment(name="replay", styles=("contract",), faults=(True,), tickets=("T04",), trials=1,
                             cassette=tmp_path / "t04.json", out=tmp_path / "r.jsonl", progress=False)
    (r,) = records
    assert r["source"] == "replayed from claude-sonnet-5-5 on 2026-01-02" and r["model"] == model
    assert (r["source_kind"], r["source_date"]) == ("replayed", "2026-01-02")
    assert r["profile"] is None and r["stop_reason"] == "finished"
    assert r["correct"] is grade(live).correct and r["steps"] == live.steps
    untagged = Cassette(model=model, recorded_on="2026-01-02", entries=[dict(tape.entries[0], episode=None)])
    untagged.save(tmp_path / "untagged.json")
    with pytest.raises(ValueError, match="was not recorded by a sweep"):
        run_experiment(name="replay", styles=("contract",), faults=(True,), tickets=("T04",), trials=1,
                       cassette=tmp_path / "untagged.json", progress=False)


def test_a_live_name_without_a_key_runs_the_stand_in_and_says_simulated(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.warns(UserWarning, match="offline stand-in answers"):
        records = run_experiment(**{**TINY, "trials": 1}, model="claude-sonnet-5-5")
    assert {r["model"] for r in records} == {OFFLINE_MODEL} and {r["source"] for r in records} == {SIMULATED}


@pytest.mark.parametrize("options, message", [
    ({"styles": ("fancy",)}, "styles: 'fancy' not accepted; use values from: raw, generic, plain, contract"),
    ({"tickets": ("T99",)}, "tickets: 'T99' not accepted"),
    ({"faults": (1,)}, "faults: 1 not accepted; use values from: True, False"),
    ({"styles": "raw"}, "styles must be a non-empty list"),
    ({"trials": 0}, "trials must be a whole number of at least 1"),
    ({"concurrency": -1}, "concurrency must be a whole number"),
    ({"profiles": ("nope",)}, "profile 'nope' is not one of: cautious, default, stubborn"),
    ({"model": ""}, "model must be a name such as"),
])
def test_bad_options_name_the_parameter_and_the_accepted_values(options, message):
    with pytest.raises(ValueError) as err:
        run_experiment(**{**TINY, **options})
    assert message in str(err.value)


def test_a_folder_given_as_the_results_file_is_refused_with_the_fix(tmp_path):
    with pytest.raises(ValueError, match="is a folder; pass the results file"):
        run_experiment(**TINY, out=tmp_path)


def test_profiles_are_refused_for_a_replayed_model(tmp_path):
    tape = Cassette(model="claude-sonnet-5-5", recorded_on="2026-01-02")
    tape.save(tmp_path / "empty.json")
    with pytest.raises(ValueError, match="profiles apply only to the offline stand-in"):
        run_experiment(**TINY, cassette=tmp_path / "empty.json", profiles=("default",))


CRASH_SWEEP = dict(name="crash", styles=("raw", "contract"), faults=(True,),
                   tickets=tuple(f"T{i:02d}" for i in range(1, 11)), trials=2, progress=False)
SLOW_CHILD = """
import sys, time
import atlas_kit.experiments.running as R
from atlas_kit.experiments import run_experiment
real = R.run_episode
def slow(*args, **kwargs):
    time.sleep(0.05)  # slow enough to be killed part-way, whatever the machine
    return real(*args, **kwargs)
R.run_episode = slow
run_experiment(**{sweep}, out=sys.argv[1])
"""


def test_a_sweep_killed_mid_way_resumes_to_exactly_the_uninterrupted_result(tmp_path):
    out = tmp_path / "crash.jsonl"
    child = subprocess.Popen([sys.executable, "-c", SLOW_CHILD.format(sweep=repr(CRASH_SWEEP)), str(out)])
    try:
        deadline = time.monotonic() + 60
        while (not out.exists() or out.read_bytes().count(b"\n") < 8) and time.monotonic() < deadline:
            assert child.poll() is None, "the sweep ended before it could be killed"
            time.sleep(0.01)
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=10)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == -signal.SIGKILL
    written = out.read_bytes()
    assert 8 <= written.count(b"\n") < 40
    out.write_bytes(written + b'{"key": "atlas-offline-1|raw|fau')  # and a write the kill cut short
    resumed = run_experiment(**CRASH_SWEEP, out=out)
    assert out.read_bytes().startswith(written)  # nothing already on disk was rewritten or lost
    keys = _keys(out)  # every line parses: the partial one is gone
    assert len(keys) == len(set(keys)) == 40
    whole = run_experiment(**CRASH_SWEEP, out=tmp_path / "whole.jsonl")
    assert set(keys) == set(_keys(tmp_path / "whole.jsonl"))
    assert resumed == whole == read_records(tmp_path / "whole.jsonl")
    assert sorted(read_records(out), key=lambda r: r["key"]) == sorted(whole, key=lambda r: r["key"])


def test_first_seed_moves_the_sweep_and_keeps_seed_zero_keys():
    base = run_experiment(name="s", styles=("raw",), faults=(True,), tickets=("T05", "T08"), trials=3, progress=False)
    moved = run_experiment(name="s", styles=("raw",), faults=(True,), tickets=("T05", "T08"), trials=3,
                           first_seed=7, progress=False)
    assert [r["seed"] for r in base] == [0, 1, 2] * 2 and [r["seed"] for r in moved] == [7, 8, 9] * 2
    assert not any("|s" in r["key"] for r in base) and all(r["key"].endswith(f"|s{r['seed']}") for r in moved)
    with pytest.raises(ValueError, match="first_seed"):
        run_experiment(name="s", tickets=("T05",), trials=1, first_seed=-1, progress=False)


def test_a_recorded_live_sweep_replays_with_no_key(tmp_path, monkeypatch):
    import atlas_kit.models.replay as replay_mod
    from atlas_kit.models.standin.model import OfflineModel
    from atlas_kit.models.transport import MessagesTransport

    # "Live" here is the stand-in behind a real async transport: no network is touched.
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-placeholder-not-a-real-key")
    monkeypatch.setattr(replay_mod.httpx2, "AsyncHTTPTransport", lambda: MessagesTransport(OfflineModel(seed=0)))
    tape = tmp_path / "cassettes" / "class.json"  # the folder is made on save
    plan = dict(styles=("raw", "contract"), faults=(True,), tickets=("T01", "T05"), trials=2, progress=False)
    with pytest.warns(UserWarning, match="Recording"):
        live = run_experiment(name="rec", model="claude-sonnet-5-5", record=tape, **plan)
    assert tape.exists() and all(r["source"].startswith("live (claude-sonnet-5-5") for r in live)
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    replayed = run_experiment(name="rec", cassette=tape, **plan)
    assert all(r["source"].startswith("replayed from claude-sonnet-5-5") for r in replayed)
    strip = lambda rs: [(r["ticket"], r["style"], r["trial"], r["stop_reason"], r["correct"], r["steps"]) for r in rs]  # noqa: E731
    assert strip(replayed) == strip(live)
    with pytest.raises(ValueError, match="record= needs a live model"):
        run_experiment(name="rec", record=tmp_path / "x.json", **plan)
