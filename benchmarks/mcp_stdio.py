"""Time a whole stdio session with `atlas-kit mcp`, as a client launches it: start and initialize, list tools
and prompts, open T04, one failing and one succeeding call, a graded finish. Prints the median of --sessions.

Usage: python benchmarks/mcp_stdio.py --sessions 5
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio
import mcp_types as types
from mcp import Client, StdioServerParameters

from atlas_kit.atlas import ticket

REFUND = {"invoice_id": "INV-20411", "amount_cents": 65000, "reason": "Training course cancelled by Atlas."}
ESCALATE = {"account_id": "ACC-4471", "queue": "billing_refunds",
            "reason": "Full refund of $650.00 on INV-20411: the training course was cancelled by Atlas."}


async def session(log: Path) -> tuple[float, float, str]:
    params = StdioServerParameters(command=sys.executable, args=["-m", "atlas_kit", "mcp", "--log", str(log)])
    start = time.perf_counter()
    with anyio.fail_after(120):
        async with Client(params, mode="legacy", client_info=types.Implementation(name="benchmark", version="1")) as c:
            ready = time.perf_counter()
            await c.list_tools()
            await c.list_prompts()
            await c.get_prompt("T04")
            await c.call_tool("issue_refund", REFUND)
            await c.call_tool("escalate_to_human", ESCALATE)
            done = await c.call_tool("finish", {"answer": ticket("T04").script.final, "model": "benchmark"})
            calls = time.perf_counter()
    return ready - start, calls - ready, done.content[0].text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=5)
    args = parser.parse_args()
    starts, works = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(args.sessions):
            started, worked, verdict = anyio.run(session, Path(tmp) / "log.jsonl")
            starts.append(started)
            works.append(worked)
    total = [s + w for s, w in zip(starts, works)]
    print(f"{args.sessions} stdio sessions; last verdict: {verdict}")
    print(f"start + initialize: median {statistics.median(starts):.2f} s")
    print(f"6 requests (2 lists, 1 prompt, 3 tools/call): median {statistics.median(works) * 1000:.0f} ms")
    print(f"whole session: median {statistics.median(total):.2f} s (min {min(total):.2f}, max {max(total):.2f})")


if __name__ == "__main__":
    main()
