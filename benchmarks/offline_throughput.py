"""Offline throughput: episodes per second through the real SDK, and with the HTTP layer bypassed.

Each episode builds an Atlas session, runs the agent loop against the offline stand-in and grades
the run. The same episodes run three ways: through a genuine `anthropic.Anthropic` and its
in-process transport; with the SDK and HTTP bypassed (the stand-in's handler called directly);
and through `run_experiment` with its JSONL file (write, flush and fsync per episode). The floor is the bare SDK's
own cost: the same requests sent through a genuine client and the same in-process transport to a handler that only
hands back the recorded answer; atlas_kit's overhead is the SDK path's time over that floor (the loop, the
dispatcher, Atlas's tools, the grader and the stand-in's planning). Targets: 1,000 offline episodes in at most 5 s
on one core, and at most 1.3x the floor.

The SDK path and the floor are each timed `--repeats` times, taking turns, and the fastest of each is reported (the
machine's speed drifts). The SDK path costs more over the floor than atlas_kit's own work with the HTTP layer
bypassed: taking turns on one core, each slows the other (its caches). So the floor is also timed with the bypassed
path run between its episodes, and what that adds is printed.
"""
from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

from anthropic.types import Message

from atlas_kit.atlas import TICKETS
from atlas_kit.experiments.sweep import run_experiment
from atlas_kit.agent import run_agent
from atlas_kit.experiments.episodes import episode_record, episode_session, plan
from atlas_kit.experiments.running import run_episode

from atlas_kit.models.standin.model import OFFLINE_MODEL, STANDIN_SOURCE, OfflineModel, offline_client
from atlas_kit.models.transport import in_process_client

STYLES = ("raw", "generic", "contract")


class _Messages:
    def __init__(self, handler: OfflineModel) -> None:
        self.handler = handler

    def create(self, **request: Any) -> Message:
        return Message.model_validate(self.handler(request))


class DirectClient:
    """Just enough client for run_agent: `.messages.create(**request)` calls the handler; no HTTP, no JSON."""

    def __init__(self, handler: OfflineModel) -> None:
        self.messages = _Messages(handler)


class _Taped:
    """The stand-in, keeping every request it answered and its answer: what the floor sends again."""

    def __init__(self, seed: int, tape: list[tuple[dict, dict]]) -> None:
        self.model, self.tape = OfflineModel(seed=seed), tape

    def __call__(self, body: dict) -> dict:
        answer = self.model(body)
        self.tape.append((body, answer))
        return answer


Tape = list[list[tuple[dict, dict]]]  # each episode's requests, as the stand-in received them, and its answers


def _tape(episodes: list) -> Tape:
    tapes: Tape = []
    for e in episodes:
        tapes.append([])
        run_episode(in_process_client(_Taped(e.seed, tapes[-1]), max_retries=0), e, source=STANDIN_SOURCE)
    return tapes


def _floor(tapes: Tape, between: Callable[[int], object] | None = None) -> float:
    """Seconds for the bare SDK to send every taped request, in order, through the in-process transport to a
    handler that only hands back the next recorded answer: the SDK's own cost, with none of atlas_kit's.
    `between(i)`, if given, runs untimed before the i-th episode's requests."""
    answers = iter([answer for tape in tapes for _, answer in tape])
    client = in_process_client(lambda body: next(answers), max_retries=0)
    episodes = [[dict(body) for body, _ in tape] for tape in tapes]
    spent = 0.0
    for i, requests in enumerate(episodes):
        if between is not None:
            between(i)
        start = time.perf_counter()
        for body in requests:
            client.messages.create(**body)
        spent += time.perf_counter() - start
    return spent


def _looked_up(episodes: list, tapes: Tape, *, graded: bool) -> tuple[float, list]:
    """Seconds for the loop, the dispatcher and Atlas's tools (and, if `graded`, the grader and the record) to run
    every episode against a genuine client whose handler hands back the stand-in's recorded answers in order: the
    SDK path without the stand-in's own work. Returns the records when graded, to check they are the same runs."""
    answers = iter([answer for tape in tapes for _, answer in tape])
    client = in_process_client(lambda body: next(answers), max_retries=0)
    records = []
    start = time.perf_counter()
    for e in episodes:
        run = run_agent(client, episode_session(e), model=e.condition.model, source=STANDIN_SOURCE)
        if graded:
            records.append(episode_record(e, run))
    return time.perf_counter() - start, records


def _sweep(episodes: list, make_client: Any) -> tuple[float, list[dict]]:
    clients: dict[int, Any] = {}
    start = time.perf_counter()
    records = []
    for e in episodes:
        if e.seed not in clients:
            clients[e.seed] = make_client(e.seed)
        records.append(run_episode(clients[e.seed], e, source=STANDIN_SOURCE))
    return time.perf_counter() - start, records


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of 1 or more")
    return int(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=_positive, default=1000, help="episodes per measurement (default 1000)")
    parser.add_argument("--repeats", type=_positive, default=3, help="times the SDK path and the floor are each timed, "
                        "taking turns (default 3; the fastest of each is reported)")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core, as the target says
    per_trial = len(STYLES) * 2 * len(TICKETS)
    trials = -(-args.episodes // per_trial)
    episodes = plan(styles=STYLES, faults=(True, False), break_loops=(True,), profiles=(None,),
                    tickets=list(TICKETS), trials=trials, model=OFFLINE_MODEL)[: args.episodes]
    _sweep(episodes[:30], lambda seed: offline_client(seed=seed))  # warm-up: imports and caches
    tapes = _tape(episodes)
    sdk_times, floor_times, loop_times, graded_times = [], [], [], []
    for _ in range(args.repeats):
        sdk_s, sdk = _sweep(episodes, lambda seed: offline_client(seed=seed))
        sdk_times.append(sdk_s)
        floor_times.append(_floor(tapes))
        loop_times.append(_looked_up(episodes, tapes, graded=False)[0])
        graded_s, looked_up = _looked_up(episodes, tapes, graded=True)
        graded_times.append(graded_s)
    sdk_s, floor_s, loop_s, graded_s = min(sdk_times), min(floor_times), min(loop_times), min(graded_times)
    direct_s, direct = _sweep(episodes, lambda seed: DirectClient(OfflineModel(seed=seed)))

    def one_bypassed(i: int) -> None:  # the stand-in keeps no state between requests: a client per episode is fine
        e = episodes[i]
        run_episode(DirectClient(OfflineModel(seed=e.seed)), e, source=STANDIN_SOURCE)

    turns_s = _floor(tapes, between=one_bypassed)
    finals = [tape[-1][1]["content"] for tape in tapes if tape]
    distinct = len({json.dumps(content, sort_keys=True) for content in finals})
    requests = sum(len(tape) for tape in tapes)
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        file_n = len(run_experiment(name="bench", styles=STYLES, faults=(True, False), tickets=list(TICKETS),
                                    trials=trials, out=Path(folder) / "bench.jsonl", progress=False))
        file_s = time.perf_counter() - start
    calls = sum(r["steps"] for r in sdk)
    n = len(episodes)
    print(f"Offline throughput, {n} episodes ({len(STYLES)} styles x faults on/off x {len(TICKETS)} tickets, "
          f"seeds 0-{trials - 1}), {calls} model calls, one core")
    print(f"  real SDK + in-process HTTP : {sdk_s:6.2f} s  {n / sdk_s:7.0f} episodes/s  "
          f"-> 1,000 episodes in {1000 * sdk_s / n:.2f} s (target <= 5 s: {'met' if 1000 * sdk_s / n <= 5 else 'NOT met'})")
    print(f"  the bare SDK's floor       : {floor_s:6.2f} s  the same {requests} requests, answers looked up, no "
          "atlas_kit")
    print(f"  atlas_kit over the floor   : {sdk_s / floor_s:6.2f}x (target <= 1.3x: "
          f"{'met' if sdk_s / floor_s <= 1.3 else 'NOT met'}; {1000 * (sdk_s - floor_s) / calls:.2f} ms a call)")
    print(f"  (the fastest of {args.repeats} each, taking turns: SDK path {', '.join(f'{t:.2f}' for t in sdk_times)} s;"
          f" floor {', '.join(f'{t:.2f}' for t in floor_times)} s)")
    print("  where atlas_kit's part goes (each step adds to the floor; the fastest of each, taking turns):")
    print(f"    + the loop, the dispatcher and Atlas's tools, answers looked up: {loop_s:5.2f} s  "
          f"{loop_s / floor_s:.2f}x the floor (+{loop_s - floor_s:.2f} s)")
    print(f"    + grading each run and making its record                     : {graded_s:5.2f} s  "
          f"{graded_s / floor_s:.2f}x (+{graded_s - loop_s:.2f} s)")
    print(f"    + the stand-in answering (the SDK path)                      : {sdk_s:5.2f} s  "
          f"{sdk_s / floor_s:.2f}x (+{sdk_s - graded_s:.2f} s)")
    print(f"    (the looked-up runs are the stand-in's runs: {'yes' if looked_up == sdk else 'NO: they differ'})")
    print(f"  HTTP layer bypassed        : {direct_s:6.2f} s  {n / direct_s:7.0f} episodes/s: atlas_kit's own work and "
          f"pydantic's Message ({distinct} distinct final answers in {len(finals)} episodes)")
    print(f"  the floor between episodes : {turns_s:6.2f} s  the floor again, with the bypassed path run between its "
          f"episodes ({turns_s - floor_s:+.2f} s: each slows the other on one core)")
    print(f"  SDK + HTTP cost per call   : {1000 * (sdk_s - direct_s) / calls:.2f} ms "
          f"({(sdk_s - direct_s) / sdk_s:.0%} of the SDK path)")
    print(f"  run_experiment + JSONL     : {file_s:6.2f} s  {file_n / file_s:7.0f} episodes/s ({file_n} episodes, "
          "fsync per record)")
    print(f"  same records both ways     : {'yes' if sdk == direct else 'NO: the paths disagree'}")
    print("Reproduce: python benchmarks/offline_throughput.py --episodes", n)


if __name__ == "__main__":
    main()
