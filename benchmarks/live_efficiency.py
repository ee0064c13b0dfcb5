"""Live-call efficiency: a concurrent sweep against an API that takes a fixed time per call.

The offline stand-in answers behind the async SDK's in-process transport, which waits `latency`
seconds before each answer, as a network and a model would. At `concurrency` episodes in flight,
the ideal wall time is total model calls × latency / concurrency. Target: within 1.3× of it.
"""
from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from atlas_kit.atlas import TICKETS
from atlas_kit.experiments.episodes import plan
from atlas_kit.experiments.running import arun_episodes
from atlas_kit.models.standin.model import OFFLINE_MODEL, STANDIN_SOURCE, OfflineModel
from atlas_kit.experiments.results import ResultsWriter
from atlas_kit.models.transport import in_process_async_client


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.2, help="seconds per model call (default 0.2)")
    parser.add_argument("--concurrency", type=int, default=16, help="episodes in flight (default 16)")
    parser.add_argument("--trials", type=int, default=1, help="trials per ticket and condition (default 1)")
    args = parser.parse_args()
    episodes = plan(styles=("raw", "generic", "contract"), faults=(True, False), break_loops=(True,),
                    profiles=(None,), tickets=list(TICKETS), trials=args.trials, model=OFFLINE_MODEL)
    # One stand-in for every episode: trial 0 is seed 0. More trials share it, which changes no timing.
    client = in_process_async_client(OfflineModel(seed=0), latency=args.latency, max_retries=0)
    with tempfile.TemporaryDirectory() as folder, ResultsWriter(Path(folder) / "live.jsonl") as writer:
        start = time.perf_counter()  # as run_experiment does it: each record appended and fsynced as it ends
        records = asyncio.run(arun_episodes(client, episodes, source=STANDIN_SOURCE, concurrency=args.concurrency,
                                            on_record=writer.append))
        wall = time.perf_counter() - start
    calls = sum(r["steps"] for r in records)
    ideal = calls * args.latency / args.concurrency
    longest = max(r["steps"] for r in records) * args.latency
    print(f"Live-call efficiency: {len(records)} episodes, {calls} model calls, {args.latency:g} s per call, "
          f"concurrency {args.concurrency}")
    print(f"  one at a time would take : {calls * args.latency:6.2f} s")
    print(f"  ideal (calls x latency / concurrency): {ideal:6.2f} s  (no run can beat its longest episode, "
          f"{longest:.2f} s)")
    print(f"  measured wall time       : {wall:6.2f} s  = {wall / ideal:.2f}x ideal "
          f"(target <= 1.3x: {'met' if wall / ideal <= 1.3 else 'NOT met'})")
    print(f"  harness failures         : {sum(r['stop_reason'] == 'harness_error' for r in records)}")
    print(f"Reproduce: python benchmarks/live_efficiency.py --latency {args.latency:g} "
          f"--concurrency {args.concurrency} --trials {args.trials}")


if __name__ == "__main__":
    main()
