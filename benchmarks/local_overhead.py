"""atlas_kit's own overhead per call to a local model, against a fake server that answers after a fixed delay.

A fake of Ollama's Anthropic layer (tests/fakes) answers every request after `--delay` seconds. The same request
is timed three ways: the bare SDK client (`anthropic.Anthropic(base_url=...)`, the floor), atlas_kit's provider
client (`choose_model("ollama:...").client`: no-key transport, context watch, bounded retries), and one step
of the agent loop on an Atlas ticket (the request built, the reply checked, the tools dispatched). The overhead
is the median difference from the floor, as a share of the delay. Target: at most 5% of a 200 ms delay.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import anthropic

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from fakes import OllamaFake, fixed  # noqa: E402 - the test double, shipped with the tests

from atlas_kit import run_agent  # noqa: E402
from atlas_kit.atlas import atlas_session  # noqa: E402
from atlas_kit.models.choose import choose_model  # noqa: E402

MODEL = "qwen3:4b"
ASK = [{"role": "user", "content": "What is the balance of ACC-4471?"}]


def _median_seconds(call, n: int) -> float:
    call()  # warm: the first call opens the connection
    times = []
    for _ in range(n):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delay", type=float, default=0.2, help="seconds the fake takes per answer (default 0.2)")
    parser.add_argument("--calls", type=int, default=20, help="timed calls per path (default 20)")
    args = parser.parse_args()
    texts = ["The balance is $0.00."] * (4 * args.calls + 8)
    with OllamaFake(models=[MODEL], brain=fixed(*texts), delay=args.delay) as fake:
        bare = anthropic.Anthropic(base_url=fake.base_url, api_key="unused", max_retries=0)
        ours = choose_model(f"ollama:{MODEL}", base_url=fake.base_url)
        floor = _median_seconds(lambda: bare.messages.create(model=MODEL, max_tokens=64, messages=ASK), args.calls)
        client = _median_seconds(lambda: ours.client.messages.create(model=MODEL, max_tokens=64, messages=ASK),
                                 args.calls)
        step = _median_seconds(lambda: run_agent(ours.client, atlas_session("T05", seed=0), model=MODEL,
                                                 source=ours.source), args.calls)
    print(f"fake Ollama answering after {args.delay * 1000:.0f} ms; median of {args.calls} calls each")
    print(f"  bare SDK client (floor)       {floor * 1000:7.1f} ms")
    print(f"  atlas_kit provider client     {client * 1000:7.1f} ms   overhead {(client - floor) * 1000:+6.1f} ms "
          f"= {(client - floor) / args.delay:+.1%} of the delay")
    print(f"  one agent-loop step (T05)     {step * 1000:7.1f} ms   overhead {(step - floor) * 1000:+6.1f} ms "
          f"= {(step - floor) / args.delay:+.1%} of the delay (target <= 5%)")


if __name__ == "__main__":
    main()
