"""An MCP server as an audit target: a command over stdio, a streamable HTTP URL, or an SDK Server in this process.

Each way a connection can fail becomes one line (command not found, exited at start, not an MCP server, timed
out); the server's stderr goes to a file, never to the terminal. With network=False a command runs with no network
(network.py). Needs the `mcp` extra. Chapters 10 and 15.
"""
from __future__ import annotations

import logging
import os
import re
import shutil
import tempfile
import time
from contextlib import AsyncExitStack
from typing import IO, Iterable, Iterator

import anyio
from mcp import Client, MCPError
from mcp.server import Server
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT, CallToolResult, Tool

from ...contract.redaction import hide_login, redact, secret_variable
from ...types.sets import JSONObject
from .network import OFFLINE_HINT, confined
from .targets import ConnectFailure, Reply, ReplyKind, ToolInfo
from ...types.exceptions import AtlasKitError, AtlasKitValueError

_MAX_PAGES = 50


class _Lines(logging.Handler):
    """Counts the SDK's complaints that the server wrote something other than JSON-RPC on stdout."""

    def __init__(self) -> None:
        super().__init__()
        self.not_json = 0

    def emit(self, record: logging.LogRecord) -> None:
        if "parse JSONRPC" in record.getMessage():
            self.not_json += 1


class McpTarget:
    """`command` (argv) over stdio, or `url` over streamable HTTP. Enter it once; every call has its own timeout.

    The command runs with this process's environment minus every secret variable (contract.redaction.
    secret_variable: KEY, TOKEN, SECRET, PASS, PWD, AUTH, ... in the name, or a password in an address), except those
    `keep` names; `env` is added on top. `notes` says what the listing could not do (a cursor that repeats, a
    listing cut at _MAX_PAGES pages). network=False runs the command in a network namespace of its own where one can
    be made; `network` then says whether it was blocked.
    """

    def __init__(self, *, command: list[str] | None = None, url: str | None = None, server: Server | None = None,
                 connect_timeout: float = 20.0, env: dict[str, str] | None = None, keep: tuple[str, ...] = (),
                 network: bool = True) -> None:
        if sum(x is not None for x in (command, url, server)) != 1:
            raise AtlasKitValueError("McpTarget takes one of command= (the server's argv), url= or server= (an SDK Server "
                             "in this process).")
        self.command, self.url, self.server, self.connect_timeout, self.env = command, url, server, connect_timeout, env
        self.keep = keep
        if url is not None and not re.match(r"https?://[^/\s]", url.strip()):
            raise ConnectFailure(f"--url {hide_login(url)!r} is not an http:// or https:// address; give the server's "
                                 "streamable HTTP endpoint, such as http://127.0.0.1:8000/mcp.")
        self.label = hide_login(url) if url is not None else f"{server.name} (in process)" if server is not None \
            else " ".join(command or [])
        self._stack = AsyncExitStack()
        self._client: Client | None = None
        self._stderr: IO[str] | None = None
        self._lines = _Lines()
        self._was = (True, logging.NOTSET)
        self.notes: list[str] = []
        self._junk_before = 0
        self._confine = not network and command is not None
        self.network = ("allowed (--allow-network or --allow-side-effects)" if network else
                        "not blocked: the server runs elsewhere (--url), out of the audit's reach" if url is not None
                        else "not blocked: the server runs in this process")

    async def __aenter__(self) -> McpTarget:
        self._quiet_sdk()
        if self.command is not None:
            self._check_command(self.command[0])
            self._stderr = self._stack.enter_context(tempfile.TemporaryFile(mode="w+", encoding="utf-8",
                                                                            errors="replace"))
            argv, env = self.command, self._environment()
            if self._confine:  # no network: in a namespace of its own, and `network` says whether that worked
                argv, env, self.network = confined(argv, env)
            params = StdioServerParameters(command=argv[0], args=argv[1:], env=env)
            client = Client(stdio_client(params, errlog=self._stderr), read_timeout_seconds=self.connect_timeout)
        elif self.server is not None:
            client = Client(self.server, mode="legacy", read_timeout_seconds=self.connect_timeout)
        else:
            client = Client(streamable_http_client(self.url or ""), read_timeout_seconds=self.connect_timeout)
        try:  # the handshake is bounded by read_timeout_seconds (a cancel scope around it would outlive its task group)
            self._client = await self._stack.enter_async_context(client)
        except BaseException as err:  # the SDK wraps a dead server in exception groups; one line says which
            line = self._failure(err)
            await self._close()
            if isinstance(err, (KeyboardInterrupt, anyio.get_cancelled_exc_class())):
                raise
            raise ConnectFailure(line) from None
        self._junk_before = self._lines.not_json  # what it wrote while starting is the handshake's business
        return self

    def _environment(self) -> dict[str, str]:
        """Your environment without anything named like a secret (unless `keep` names it), plus `env`: a server you
        audit may be one you do not trust, and the SDK's own default (PATH, HOME and a few) breaks most servers."""
        passed = {k: v for k, v in os.environ.items() if k in self.keep or not secret_variable(k, v)}
        return {**passed, **(self.env or {})}

    def stderr_text(self) -> str:
        """The last 20,000 characters the server wrote on stderr (read to find a network attempt)."""
        try:
            return "" if self._stderr is None or self._stderr.seek(0) else self._stderr.read()[-20_000:]
        except (OSError, ValueError):
            return ""

    async def __aexit__(self, *exc: object) -> None:
        await self._close()

    async def _close(self) -> None:
        try:  # no cancel scope of its own here: the client's task group must close in the scope it opened in
            await self._stack.aclose()
        except Exception:  # noqa: BLE001 - a server that dies on the way out has already been judged
            pass
        sdk = logging.getLogger("mcp")
        sdk.removeHandler(self._lines)
        sdk.propagate, sdk.level = self._was

    def _quiet_sdk(self) -> None:
        """The SDK logs a server's bad output with a traceback; count it instead of printing it."""
        sdk = logging.getLogger("mcp")
        self._was = (sdk.propagate, sdk.level)
        sdk.addHandler(self._lines)
        sdk.propagate = False
        sdk.setLevel(logging.WARNING)

    def _check_command(self, name: str) -> None:
        if os.sep in name and not os.path.exists(name):
            raise ConnectFailure(f"command not found: {name} does not exist; check the path after `--`.")
        if os.sep not in name and shutil.which(name) is None:
            raise ConnectFailure(f"command not found: {name} is not on PATH; give the server's full path after `--`.")
        if os.sep in name and not os.access(name, os.X_OK):
            raise ConnectFailure(f"cannot run {name}: it is not executable; chmod +x it, or run it through its "
                                 "interpreter (-- python server.py).")

    def _failure(self, err: BaseException) -> str:
        leaves = list(_leaves(err))
        codes = {e.code for e in leaves if isinstance(e, MCPError)}
        said = self._stderr_tail()
        if self.url is not None:
            status = next((s for e in leaves if isinstance(s := getattr(getattr(e, "response", None), "status_code",
                                                                        None), int)), None)
            if status in (401, 403):
                return (f"{self.label} answered {status}: the server asks for authentication the audit does not "
                        "send; audit a copy that needs none, or run it over stdio (-- COMMAND).")
            if any(isinstance(e, MCPError) for e in leaves) and not any(isinstance(e, TimeoutError) for e in leaves):
                return f"{self.label} answered, but not as an MCP server: check the URL's path (often /mcp)."
            if any(isinstance(e, TimeoutError) for e in leaves):
                return (f"timed out: {self.label} did not complete the MCP handshake within {self.connect_timeout:g} s "
                        "(an endpoint of the older SSE transport, often /sse, never does: give the /mcp one).")
            return f"cannot connect to {self.label}: is the server running and is the URL right?"
        if self._lines.not_json:
            return ("not an MCP server: it wrote text that is not JSON-RPC on stdout (an MCP server over stdio writes "
                    "only JSON-RPC there; logs go to stderr).")
        offline = OFFLINE_HINT if self.network.startswith("blocked") else ""
        if CONNECTION_CLOSED in codes:
            return f"the server exited at start, before the MCP handshake{said}.{offline}"
        if codes - {REQUEST_TIMEOUT}:
            return "not an MCP server: it answered the MCP handshake with an error (does it speak MCP over stdio?)."
        if any(isinstance(e, TimeoutError) for e in leaves) or REQUEST_TIMEOUT in codes:
            return (f"timed out: the server did not answer the MCP handshake within {self.connect_timeout:g} s"
                    f"{said} (raise --connect-timeout if it is slow to start).{offline}")
        if any(isinstance(e, OSError) for e in leaves):
            return f"cannot start the server: {next(e for e in leaves if isinstance(e, OSError)).strerror}."
        return f"could not connect: {type(leaves[0]).__name__ if leaves else 'unknown error'}{said}."

    def _stderr_tail(self) -> str:
        lines = [line.strip() for line in self.stderr_text()[-4000:].splitlines() if line.strip()]
        return f"; its last words on stderr: {redact(lines[-1])[:160]!r}" if lines else ""

    async def list_tools(self) -> list[ToolInfo]:
        client = self._connected()
        tools: list[ToolInfo] = []
        cursor: str | None = None
        seen: set[str] = set()
        try:
            with anyio.fail_after(self.connect_timeout):  # one deadline for the whole listing, however many pages
                for _ in range(_MAX_PAGES):
                    page = await client.list_tools(cursor=cursor)
                    tools += _infos(page.tools)
                    cursor = page.next_cursor
                    if cursor is None:
                        return tools
                    if cursor in seen:
                        self.notes.append(f"the server's tool list repeats (cursor {cursor[:40]!r} came back); "
                                          "the audit stopped listing there")
                        return _distinct(tools)
                    seen.add(cursor)
        except TimeoutError:
            raise ConnectFailure(f"timed out: the server did not finish listing its tools within "
                                 f"{self.connect_timeout:g} s ({len(tools)} listed so far; raise --connect-timeout if "
                                 "it is only slow).") from None
        except MCPError as err:
            raise ConnectFailure(f"the server did not list its tools ({_brief(err)}){self._stderr_tail()}.") from None
        except ValueError as err:  # the SDK refused a tool's shape (pydantic): name the tool and the field
            raise ConnectFailure(f"the server's tool list is not valid MCP: {_invalid(err)}") from None
        self.notes.append(f"the server listed more than {_MAX_PAGES} pages of tools; the audit took the first "
                          f"{len(tools)} tools")
        return tools

    async def call(self, tool: str, arguments: JSONObject, *, timeout: float) -> Reply:
        client = self._connected()
        start = time.monotonic()
        try:
            with anyio.fail_after(timeout + 1.0):
                result = await client.call_tool(tool, arguments, read_timeout_seconds=timeout)
        except MCPError as err:
            kind: ReplyKind = "closed" if err.code == CONNECTION_CLOSED else \
                "timeout" if err.code == REQUEST_TIMEOUT else "protocol_error"
            return Reply(kind, err.error.message, True if kind == "protocol_error" else None,
                         time.monotonic() - start, err.code)
        except TimeoutError:
            return Reply("timeout", "", None, time.monotonic() - start)
        except Exception as err:  # noqa: BLE001 - the SDK refused the reply (e.g. its output schema): say so, go on
            return Reply("invalid", f"the reply was not a valid tool result ({type(err).__name__})", None,
                         time.monotonic() - start)
        self._junk_said()
        return Reply("result", _text(result), bool(result.is_error), time.monotonic() - start)

    def _junk_said(self) -> None:
        """Note, once, that the server wrote something other than JSON-RPC on stdout while answering calls."""
        if self._lines.not_json > self._junk_before and not any("not JSON-RPC" in n for n in self.notes):
            self.notes.append("the server wrote text that is not JSON-RPC on stdout while answering calls (a log line "
                              "or a print); a stricter client may drop the connection on it: log to stderr")

    def _connected(self) -> Client:
        if self._client is None:
            raise AtlasKitError("McpTarget: enter it (`async with McpTarget(...) as target`) before listing or calling.")
        return self._client


def _infos(listed: Iterable[Tool]) -> list[ToolInfo]:
    infos = []
    for t in listed:
        hints = t.annotations
        infos.append(ToolInfo(t.name, t.description or "", dict(t.input_schema),
                              read_only=hints.read_only_hint if hints else None,
                              destructive=hints.destructive_hint if hints else None,
                              task_only=t.execution is not None and t.execution.task_support == "required"))
    return infos


def _distinct(tools: list[ToolInfo]) -> list[ToolInfo]:
    """Each tool name once (a listing that repeats itself lists the same tools again)."""
    return list({t.name: t for t in reversed(tools)}.values())[::-1]


def _invalid(err: ValueError) -> str:
    """pydantic's first complaint about a tool list, as 'tool 5 (name): inputSchema.type: Input should be ...'."""
    problems = getattr(err, "errors", None)
    first = problems()[0] if callable(problems) and problems() else None
    if not isinstance(first, dict):
        return f"{type(err).__name__}; check the tools' names and inputSchema objects."
    where = [str(p) for p in first.get("loc", ())]
    place = f"tool {where[1]}" if len(where) > 1 and where[0] == "tools" else "the list"
    field = ".".join(where[2:]) or "its shape"
    return (f"{place}: {field}: {first.get('msg', 'invalid')} (MCP asks each tool for a name and an inputSchema whose "
            "type is 'object'); fix that tool, and the audit can list the rest.")


def _text(result: CallToolResult) -> str:
    """The text a model reads: every text block, in order (an empty one is empty); an embedded resource's text is
    its text; other blocks are named, not inlined."""
    parts = []
    for b in result.content:
        text = getattr(b, "text", None)
        inner = getattr(getattr(b, "resource", None), "text", None)
        parts.append(text if isinstance(text, str) else inner if isinstance(inner, str) else
                     f"[{getattr(b, 'type', 'block')} block]")
    return "\n".join(parts)


def _leaves(err: BaseException) -> Iterator[BaseException]:
    """The exceptions inside any exception groups (BaseExceptionGroup, or its backport on Python 3.10)."""
    inner = getattr(err, "exceptions", None)
    if isinstance(inner, (list, tuple)):
        for e in inner:
            if isinstance(e, BaseException):
                yield from _leaves(e)
    else:
        yield err


def _brief(err: BaseException) -> str:
    return f"JSON-RPC error {err.code}" if isinstance(err, MCPError) else "timed out"
