"""`atlas-kit mcp`: serve Atlas over MCP on stdio, or print the config that connects a client to it.

The server lives in mcp_server.py (chapter 15); the MCP SDK is an optional extra, imported only here.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .args import ON_OFF

__all__ = ["mcp_command"]


def mcp_command(args: argparse.Namespace) -> int:
    """Exit 0 when the client hung up or Ctrl-C stopped the server, or the config was printed; 2 on bad input
    or a missing MCP SDK."""
    try:  # the MCP SDK is an optional extra: import it only for this command
        from ..bridges.mcp.server import AtlasMCP, client_config, serve_stdio
        from ..experiments.results import read_records
    except ImportError as err:
        print(f"atlas-kit mcp: error: {err}", file=sys.stderr)
        return 2
    log: Path | None = args.log.resolve() if args.log else None
    if args.print_config:
        exe = Path(sys.executable).with_name("atlas-kit")
        command = [str(exe)] if exe.exists() else [sys.executable, "-m", "atlas_kit"]
        options = ["mcp", "--style", args.style, "--faults", args.faults, "--seed", str(args.seed),
                   "--log", str(log or Path("results/mcp/atlas.jsonl").resolve())]
        print(client_config(args.print_config, executable=command[0], args=[*command[1:], *options]))
        return 0
    try:
        if log is not None:
            log.parent.mkdir(parents=True, exist_ok=True)
            read_records(log)  # an existing file must be a results log, or every episode would fail to append
        server = AtlasMCP(style=args.style, faults=ON_OFF[args.faults], seed=args.seed, log=log, max_calls=args.max_calls)
    except (OSError, ValueError) as err:
        print(f"atlas-kit mcp: error: --log {args.log}: {err}", file=sys.stderr)
        return 2
    if args.ticket:
        server.open(args.ticket)
    print(f"atlas-kit mcp: serving Atlas over stdio (style {args.style}, faults {args.faults}, "
          f"seed {args.seed}); log: {log or 'none'}. Waiting for an MCP client on stdin; Ctrl-C stops.", file=sys.stderr)
    import anyio

    try:
        anyio.run(serve_stdio, server)
    except KeyboardInterrupt:
        pass
    return 0
