"""`atlas-kit audit`: score an MCP server's or Python tools' errors against the contract, for people and for CI.

Parsing, the progress bar and exit codes only; the work lives in atlas_kit/bridges/audit/ and the rubric in contract/rubric.py.
Chapter 10 runs it on a real server and on Atlas.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

if TYPE_CHECKING:
    from tqdm import tqdm

    from ..bridges.audit.report import AuditJSON
    from ..bridges.audit.run import Audit
    from ..bridges.audit.targets import Target

from .args import Commands, _csv, _one_line, _positive, _seconds
from .paths import output_argument
from ..types.exceptions import AtlasKitValueError

__all__ = ["add_audit_parser", "audit_command"]

_EPILOG = """examples:
  atlas-kit audit -- npx -y @modelcontextprotocol/server-memory
  atlas-kit audit --json audit.json --min-score 80 --fail-on echo,internals -- python my_server.py
  atlas-kit audit --python mytools:TOOLS --cases cases.jsonl
exit codes: 0 audited, every threshold met; 1 a --min-score or --fail-on threshold was missed; 2 bad input, or the
target could not be reached (one line says why); 3 the server failed the audit itself: it closed the connection
mid-audit, or no call got a usable answer (each timed out or was invalid). A call with no usable answer scores 0."""


def _score(text: str) -> float:
    """`--min-score`: a number from 0 to 100."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"{text!r} is not accepted; give a score from 0 to 100, e.g. 80.")
    return value


def _rules(text: str) -> list[object]:
    """`--fail-on`: rubric rule names, comma-separated (the rubric is imported only when the option is used)."""
    from ..contract.rubric import RULES

    return _csv("rule", RULES)(text)


def add_audit_parser(sub: Commands) -> None:
    """Add `atlas-kit audit` to the subcommands."""
    audit = sub.add_parser(
        "audit", help="score any MCP server's (or Python tools') errors against the error contract",
        description="List the target's tools, make failing calls from each input schema (each required argument "
                    "missing, a wrong type, an unknown argument, a value outside an enum, a number past its bounds, a "
                    "string its pattern or format refuses, a string past its maxLength, a canary), judge every answer "
                    "with the contract's rubric, and print a rule × tool table and the author's part of the score.",
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    audit.add_argument("server_command", nargs=argparse.REMAINDER, metavar="-- COMMAND [ARGS...]",
                       help="the MCP server to run over stdio, after `--`")
    audit.add_argument("--url", default=None, help="audit an MCP server over streamable HTTP at this URL instead")
    audit.add_argument("--python", default=None, metavar="MODULE:ATTR",
                       help="audit Python tools instead: a list of atlas_kit Tools, @contract_tool or @beta_tool functions")
    audit.add_argument("--cases", type=Path, default=None, metavar="FILE",
                       help="your own failing calls, one JSON object a line: "
                            '{"tool": "...", "arguments": {...}, "why": "..."}')
    output_argument(audit, "--json", kind="file", metavar="FILE", help="write every case and verdict as JSON")
    output_argument(audit, "--html", kind="file", metavar="FILE", help="write the report as an HTML page")
    audit.add_argument("--min-score", type=_score, default=None, metavar="N",
                       help="exit 1 if the server scores below N (0 to 100)")
    audit.add_argument("--fail-on", type=_rules, default=[], metavar="RULES",
                       help="exit 1 if any answer fails one of these rules, comma-separated: is_error, structure, "
                            "code, retryable, next, echo, internals, length")
    audit.add_argument("--call-timeout", type=_seconds, default=10.0, metavar="S", help="seconds a call may take "
                                                                                        "(default: 10)")
    audit.add_argument("--time-limit", type=_seconds, default=120.0, metavar="S",
                       help="seconds for the whole audit; cases left then are not run (default: 120)")
    audit.add_argument("--max-calls", type=_positive, default=12, metavar="N", help="calls per tool (default: 12)")
    audit.add_argument("--connect-timeout", type=_seconds, default=20.0, metavar="S",
                       help="seconds for the server to start and answer the MCP handshake (default: 20)")
    audit.add_argument("--allow-side-effects", action="store_true",
                       help="also make calls whose arguments satisfy the schema to tools the server does not mark "
                            "read-only (readOnlyHint); without it those run the tool's own code and are skipped")
    audit.add_argument("--allow-network", action="store_true",
                       help="let the server reach the network; without it (and without --allow-side-effects) a server "
                            "run over stdio gets a network namespace of its own where Linux allows one")
    audit.add_argument("--env", action="append", default=[], metavar="NAME",
                       help="pass this variable to the server although its name looks like a secret (KEY, TOKEN, "
                            "SECRET, PASSWORD...); those are removed from the server's environment otherwise; repeatable")
    audit.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    audit.set_defaults(func=audit_command)


class _Bar:
    """run.Progress on a tqdm bar (stderr, only on a terminal)."""

    def __init__(self, *, hidden: bool) -> None:
        self.hidden = hidden
        self.bar: tqdm[NoReturn] | None = None  # a bar with a total and no iterable

    def planned(self, total: int) -> None:
        from tqdm import tqdm

        self.bar = tqdm(total=total, unit="call", file=sys.stderr, leave=False, disable=self.hidden)

    def done(self, tool: str) -> None:
        if self.bar is not None:
            self.bar.set_description_str(tool[:24])
            self.bar.update(1)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _target(args: argparse.Namespace) -> Target:
    given = args.server_command
    command = given[1:] if given[:1] == ["--"] else given
    chosen = [name for name, on in (("-- COMMAND", bool(command)), ("--url", args.url), ("--python", args.python)) if on]
    if len(chosen) != 1:
        raise AtlasKitValueError(f"give exactly one target: -- COMMAND [ARGS...], --url URL or --python MODULE:ATTR "
                         f"(got {', '.join(chosen) or 'none'}).")
    if args.env and not command:
        raise AtlasKitValueError("--env passes a variable to a server audit starts (-- COMMAND); a --url or --python "
                                 "target gets none, so drop --env.")
    if args.python:
        from ..bridges.audit.python_target import PythonTarget

        return PythonTarget(args.python, connect_timeout=args.connect_timeout)
    try:
        from ..bridges.audit.mcp_target import McpTarget
    except ImportError:
        raise AtlasKitValueError("auditing an MCP server needs the MCP SDK: pip install -e '.[mcp]' (or pip install "
                         "'mcp>=2,<3').") from None
    return McpTarget(command=command or None, url=args.url, connect_timeout=args.connect_timeout, keep=tuple(args.env),
                     network=args.allow_side_effects or args.allow_network)


def audit_command(args: argparse.Namespace) -> int:
    """Exit 0 when audited and every threshold met, 1 when one is missed, 2 when the input is wrong or the target
    cannot be reached, 3 when the server failed the audit itself (it crashed, or answered no call usably)."""
    import anyio

    from ..bridges.audit.report import render_text, to_json
    from ..bridges.audit.run import Limits, run_audit
    from ..bridges.audit.targets import ConnectFailure
    from ..bridges.audit.user_cases import read_cases

    bar = _Bar(hidden=args.no_progress or not sys.stderr.isatty())
    try:
        cases = read_cases(args.cases) if args.cases else None
        limits = Limits(call_timeout=args.call_timeout, total_seconds=args.time_limit, calls_per_tool=args.max_calls,
                        allow_side_effects=args.allow_side_effects)
        _check_reports(args)  # before any call is made: a report that cannot be written is found now
        target = _target(args)
        audit = anyio.run(lambda: run_audit(target, limits=limits, cases=cases, progress=bar))
    except (ConnectFailure, ValueError) as err:
        print(f"atlas-kit audit: {_one_line(err)}", file=sys.stderr)
        return 2
    except Exception as err:  # noqa: BLE001 - never a traceback: one line, and what to do
        print(f"atlas-kit audit: the audit stopped on an unexpected {type(err).__name__}; run it again, and report it "
              "if it happens again.", file=sys.stderr)
        return 2
    finally:
        bar.close()
    _say(render_text(audit))
    doc = to_json(audit)
    try:
        _write(args, doc)
    except OSError as err:
        print(f"atlas-kit audit: cannot write the report: {_one_line(err)}", file=sys.stderr)
        return 2
    return _verdict(args, audit)


def _say(text: str) -> None:
    """Print to stdout; a reader that left early (`| head`) ends the printing, not the audit's exit code."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - stdout stays replaced until the process exits


def _check_reports(args: argparse.Namespace) -> None:
    """--json and --html name two files in folders that exist, and no folder; else one line, before the audit."""
    named = [(flag, path) for flag, path in (("--json", args.json), ("--html", args.html)) if path is not None]
    if len(named) == 2 and named[0][1].resolve() == named[1][1].resolve():
        raise AtlasKitValueError(f"--json and --html both name {named[0][1]}; give each report its own file.")
    for flag, path in named:
        if path.is_dir():
            raise AtlasKitValueError(f"{flag} {path} is a folder; give a file name, such as {path / 'audit'}"
                                     f"{'.json' if flag == '--json' else '.html'}.")
        if not path.parent.is_dir():
            raise AtlasKitValueError(f"{flag} {path}: the folder {path.parent} does not exist; create it first.")
        if not os.access(path.parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
            raise AtlasKitValueError(f"{flag} {path} cannot be written (permission denied); choose another place.")


def _write(args: argparse.Namespace, doc: AuditJSON) -> None:
    import json

    from ..bridges.audit.html import render_html

    if args.json:
        args.json.write_text(json.dumps(doc, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        _say(f"Wrote {args.json}.")
    if args.html:
        args.html.write_text(render_html(doc), encoding="utf-8")
        _say(f"Wrote {args.html}.")


def _verdict(args: argparse.Namespace, audit: Audit) -> int:
    problems = []
    if args.min_score is not None and (audit.score is None or audit.score < args.min_score):
        problems.append(f"the server scored {'nothing' if audit.score is None else f'{audit.score:.1f}'}, "
                        f"below --min-score {args.min_score:g}")
    for rule in args.fail_on:
        statuses = [j.verdict(rule).status for t in audit.tools for j in t.judgements]
        failing = statuses.count("fail")
        if failing:
            problems.append(f"{failing} answer(s) fail {rule} (--fail-on)")
        elif "pass" not in statuses:  # a gate that judged nothing has not passed
            problems.append(f"no answer could be judged on {rule} (--fail-on), so it cannot be said to pass")
    for problem in problems:
        print(f"atlas-kit audit: {problem}.", file=sys.stderr)
    if audit.failure:
        print(f"atlas-kit audit: the server failed the audit: {audit.failure}.", file=sys.stderr)
        return 3
    return 1 if problems else 0
