"""The batch path offline: requests, batches and wall time of a 2-style × 5-trial sweep, beside the messages path.

The sweep is raw and contract on the 27 core tickets, faults on and off, five trials: 540 episodes. The
messages path sends one request a call; the batch path puts each round's requests into one batch on the
in-process batch API (the stand-in behind it: two polls before a batch ends, results shuffled, 5% of first
attempts errored and 5% expired). Both write a results file (the batch path also its journal). Simulated.
"""
from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

import atlas_kit.experiments.batch.parts as parts
from atlas_kit.experiments.sweep import sweep
from atlas_kit.models.transport import MessagesTransport

SWEEP: dict[str, Any] = dict(name="bench", styles=("raw", "contract"), faults=(True, False), trials=5, progress=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs of each path; the best time is shown (default 3)")
    args = parser.parse_args()
    calls = {"n": 0}
    real = MessagesTransport._call

    def counted(self: MessagesTransport, body: dict[str, Any], request: Any) -> Any:
        calls["n"] += 1
        return real(self, body, request)

    MessagesTransport._call = counted  # type: ignore[method-assign]  # count the messages path's requests
    made: list[Any] = []
    build = parts.standin_server

    def server(plan: Any, profiles: Any) -> Any:
        made.append(build(plan, profiles))
        return made[-1]

    parts.standin_server = server  # type: ignore[assignment]  # keep the server to read its counters
    best: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.repeat):
            for via in ("messages", "batch"):
                calls["n"] = 0
                start = time.perf_counter()
                result = sweep(**SWEEP, out=Path(tmp) / f"{via}{i}.jsonl", via=via)
                best[via] = min(best.get(via, float("inf")), time.perf_counter() - start)
                if via == "messages":
                    messages_calls, records = calls["n"], result.records
                else:
                    report, api, batch_records = result.batch, made[-1], result.records
    same = all({k: v for k, v in a.items() if k != "cost_usd"} == {k: v for k, v in b.items() if k != "cost_usd"}
               for a, b in zip(records, batch_records)) and len(records) == len(batch_records)
    print(f"sweep: 2 styles x faults on/off x 27 tickets x 5 trials = {len(records)} episodes (simulated)")
    print(f"messages path: {messages_calls} requests (one HTTP call each), best of {args.repeat}: {best['messages']:.2f} s")
    print(f"batch path:    {api.requests_seen} requests in {api.created} batches over {report.rounds} rounds "
          f"({report.retried} resent after an errored or expired result), {api.retrieves} retrieves, "
          f"best of {args.repeat}: {best['batch']:.2f} s")
    print(f"the batch sweep's episodes equal the messages sweep's (cost_usd aside, at half the price): {same}")


if __name__ == "__main__":
    main()
