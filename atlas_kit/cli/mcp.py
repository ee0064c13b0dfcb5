"""`atlas-kit mcp`: serve Atlas over MCP on stdio, or print the config that connects a client to it.

The server lives in bridges/mcp/ (chapter 15); the MCP SDK is an optional extra, imported only here.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .args import ON_OFF, STYLE_NAMES, Commands, _positive, _seed, _ticket
from .paths import output_argument

__all__ = ["add_mcp_parser", "mcp_command"]

MAX_CALLS = 12  # tool calls per episode by default


def mcp_command(args: argparse.Namespace) -> int:
    """Exit 0 when the client hung up or went away, or SIGTERM, SIGHUP or Ctrl-C stopped the server (the open
    episode is logged first), or the config was printed; 2 on bad input or a missing MCP SDK, before serving."""
    try:  # the MCP SDK is an optional extra: import it only for this command
        from ..bridges.mcp.log import check_log
        from ..bridges.mcp.server import AtlasMCP, client_config
        from ..bridges.mcp.stdio import serve_stdio
    except ImportError as err:
        print(f"atlas-kit mcp: error: {err}", file=sys.stderr)
        return 2
    log: Path | None = args.log.resolve() if args.log else None
    if args.print_config:
        exe = Path(sys.executable).with_name("atlas-kit")
        command = [str(exe)] if exe.exists() else [sys.executable, "-m", "atlas_kit"]
        options = ["mcp", "--style", args.style, "--faults", args.faults, "--seed", str(args.seed),
                   "--log", str(log or Path("results/mcp/atlas.jsonl").resolve()),  # and every option given, kept
                   *(["--max-calls", str(args.max_calls)] if args.max_calls != MAX_CALLS else []),
                   *(["--ticket", args.ticket] if args.ticket else [])]
        print(client_config(args.print_config, executable=command[0], args=[*command[1:], *options]))
        return 0
    try:
        if log is not None:
            check_log(log)  # written to (nothing harmful) before serving: a log that fails later costs no grade
        server = AtlasMCP(style=args.style, faults=ON_OFF[args.faults], seed=args.seed, log=log, max_calls=args.max_calls)
    except ValueError as err:
        print(f"atlas-kit mcp: error: --log {args.log}: {err}", file=sys.stderr)
        return 2
    if args.ticket:
        server.open(args.ticket)
    print(f"atlas-kit mcp: serving Atlas over stdio (style {args.style}, faults {args.faults}, "
          f"seed {args.seed}); log: {log or 'none'}. Waiting for an MCP client on stdin; Ctrl-C stops.", file=sys.stderr)
    import anyio

    try:
        anyio.run(serve_stdio, server)
    except KeyboardInterrupt:  # Ctrl-C before the signal handlers were installed; the open episode is still logged
        server.close(why="the server was stopped by SIGINT")
    return 0


def add_mcp_parser(sub: Commands) -> None:
    """Add `atlas-kit mcp` to the subcommands."""
    mcp = sub.add_parser(
        "mcp", help="serve Atlas over MCP (stdio) so a real model in Claude Code, Claude Desktop or the MCP Inspector "
                    "can work the tickets; needs the extra: pip install -e '.[mcp]'",
        description="Serve Atlas's seven tools, a finish tool and the 27 tickets (as prompts T01-T27) over stdio. "
                    "Pick a ticket prompt in your client to open an episode; the model hands its reply in with finish, "
                    "and the server grades it.",
        epilog="example: atlas-kit mcp --print-config claude-code   (prints the exact `claude mcp add` line)")
    mcp.add_argument("--style", choices=STYLE_NAMES, default="contract",
                     help=f"how failed tool calls are worded: one of {', '.join(STYLE_NAMES)} (default: contract)")
    mcp.add_argument("--faults", choices=tuple(ON_OFF), default="on", help="inject each ticket's faults (default: on)")
    mcp.add_argument("--seed", type=_seed, default=0, help="the seed of Atlas's data and faults (default: 0)")
    output_argument(mcp, "--log", kind="file", metavar="FILE",
                    help="append each episode (calls, answer, grade, client) to this JSONL results file")
    mcp.add_argument("--ticket", type=_ticket, default=None, metavar="ID",
                     help="open this ticket at start, for clients that do not offer prompts (e.g. T04)")
    mcp.add_argument("--max-calls", type=_positive, default=MAX_CALLS, metavar="N",
                     help=f"tool calls per episode before it ends on step_limit (default: {MAX_CALLS})")
    mcp.add_argument("--print-config", choices=("claude-code", "claude-desktop", "inspector"), default=None,
                     help="print the exact command or config snippet that connects that client, then exit")
    mcp.set_defaults(func=mcp_command)
