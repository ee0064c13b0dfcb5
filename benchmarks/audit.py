"""Time `atlas-kit audit` on a 10-tool MCP server over stdio, start to report (target: 15 s or less).

The server is this file run with --serve: ten read-only tools on the SDK's MCPServer (strings with patterns and
maxLength, integers, enums, an optional flag), so every generated case is called. Prints the wall time, the calls
made and the server's score. Usage: python benchmarks/audit.py [--runs 3]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from typing import Annotated, Callable, Literal

import anyio
from pydantic import Field

Id = Annotated[str, Field(pattern=r"^[A-Z]{3}-[0-9]{4}$", max_length=8)]


def serve() -> None:
    from mcp.server.mcpserver import MCPServer
    from mcp_types import ToolAnnotations

    server = MCPServer("bench-ten")
    read_only = ToolAnnotations(read_only_hint=True)

    def lookup(kind: str) -> Callable[..., str]:
        def tool(record_id: Id, verbose: bool = False) -> str:
            raise KeyError(record_id)  # every lookup fails, as a careless tool does
        tool.__doc__ = f"Look up one {kind} by its id, such as ABC-1234."
        return tool

    def search(query: Annotated[str, Field(max_length=200)], limit: int = 10,
               order: Literal["newest", "oldest"] = "newest") -> str:
        """Search the records; at most `limit` results."""
        raise ValueError(f"no index for {query!r}")

    for n, kind in enumerate(("account", "invoice", "order", "refund", "customer", "product", "ticket", "note", "user")):
        server.add_tool(lookup(kind), name=f"get_{kind}", annotations=read_only)
        if n == 0:
            server.add_tool(search, name="search", annotations=read_only)
    server.run("stdio")


async def audit_once() -> tuple[float, int, float | None, str]:
    from atlas_kit.bridges.audit.mcp_target import McpTarget
    from atlas_kit.bridges.audit.report import render_text
    from atlas_kit.bridges.audit.run import Limits, run_audit

    start = time.perf_counter()
    audit = await run_audit(McpTarget(command=[sys.executable, __file__, "--serve"], network=False), limits=Limits())
    calls = sum(o.reply is not None for t in audit.tools for o in t.outcomes)
    return time.perf_counter() - start, calls, audit.score, render_text(audit)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve()
        return
    times = []
    for _ in range(args.runs):
        seconds, calls, score, text = anyio.run(audit_once)
        times.append(seconds)
    print(text.splitlines()[1])
    print(f"10-tool server audited {args.runs} times: median {statistics.median(times):.2f} s (min {min(times):.2f}, "
          f"max {max(times):.2f}), {calls} calls a run, server score {score:.1f}; target: 15 s or less.")


if __name__ == "__main__":
    main()
