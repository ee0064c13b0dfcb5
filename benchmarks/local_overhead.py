"""atlas_kit's own overhead per call to a local model, against a fake server that answers after a fixed delay.

A fake of Ollama's Anthropic layer (tests/fakes) answers every request after `--delay` seconds. The same request
is timed three ways: the bare SDK client (`anthropic.Anthropic(base_url=...)`, the floor), atlas_kit's provider
client (`choose_model("ollama:...").client`: no-key transport, context watch, bounded retries), and one step
of the agent loop on an Atlas ticket (the request built, the reply checked, the tools dispatched). The overhead
is the median difference from the floor, as a share of the delay. Target: at most 5% of a 200 ms delay.

`--real` times the same paths against the real llama.cpp `llama-server` serving Gemma 3 270M (built by
scripts/local_server.py), with `--temp 0` and replies of 16 tokens; the paths take turns call by call, so a change in
the machine's load falls on all three, and the overhead is a share of the server's own time (the bare SDK's call).
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

from atlas_kit import Bounds, Dispatcher, Task, Tool, run_agent  # noqa: E402
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


def _interleaved(calls: dict[str, object], n: int) -> dict[str, float]:
    """Median seconds of each call, the calls taking turns n times (each called once first, to warm)."""
    times: dict[str, list[float]] = {name: [] for name in calls}
    for call in calls.values():
        call()  # type: ignore[operator]
    for _ in range(n):
        for name, call in calls.items():
            start = time.perf_counter()
            call()  # type: ignore[operator]
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(ts) for name, ts in times.items()}


def real(n: int) -> None:
    """The three paths against the real llama-server."""
    from llama_server import MODEL_ALIAS, serve

    lookup = Tool("get_invoice", "Look up an invoice by its id.",
                  {"type": "object", "properties": {"invoice_id": {"type": "string"}}, "required": ["invoice_id"]},
                  lambda args, ctx: {"total": "$120.00"})
    ask = "What is the total of INV-20411?"
    with serve(context=2048, extra=("--temp", "0", "--seed", "0")) as url:
        bare = anthropic.Anthropic(base_url=url, api_key="unused", max_retries=0)
        ours = choose_model(f"llamacpp:{MODEL_ALIAS}", base_url=url)
        one = Bounds(max_tokens=16, retry_max_tokens=16)
        tools = Dispatcher([lookup]).definitions()
        medians = _interleaved({
            "floor": lambda: bare.messages.create(model=MODEL_ALIAS, max_tokens=16, system="You answer billing "
                                                  "questions with the tools.", tools=tools,
                                                  messages=[{"role": "user", "content": ask}]),
            "client": lambda: ours.client.messages.create(model=MODEL_ALIAS, max_tokens=16, system="You answer "
                                                          "billing questions with the tools.", tools=tools,
                                                          messages=[{"role": "user", "content": ask}]),
            "step": lambda: run_agent(ours.client, Task("You answer billing questions with the tools.", ask,
                                                        Dispatcher([lookup])), model=MODEL_ALIAS, bounds=one,
                                      source=ours.source)}, n)
    floor = medians["floor"]
    print(f"real llama-server (Gemma 3 270M, 16-token replies); median of {n} calls each, taking turns")
    print(f"  bare SDK client (floor)       {floor * 1000:7.1f} ms   the server's own time per call")
    for name, label in (("client", "atlas_kit provider client"), ("step", "one agent-loop step")):
        over = medians[name] - floor
        print(f"  {label:<29} {medians[name] * 1000:7.1f} ms   overhead {over * 1000:+6.1f} ms = {over / floor:+.1%} "
              "of the server's time (target <= 5%)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delay", type=float, default=0.2, help="seconds the fake takes per answer (default 0.2)")
    parser.add_argument("--calls", type=int, default=20, help="timed calls per path (default 20)")
    parser.add_argument("--real", action="store_true", help="time against the real llama-server instead of the fake")
    args = parser.parse_args()
    if args.real:
        real(args.calls)
        return
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
