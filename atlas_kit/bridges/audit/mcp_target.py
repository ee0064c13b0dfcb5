"""An MCP server as an audit target: a command over stdio, a streamable HTTP URL, or an SDK Server in this process.

Each way a connection can fail becomes one line (command not found, exited at start, not an MCP server, timed
out); the server's stderr goes to a file, never to the terminal. Needs the `mcp` extra. Chapters 10 and 15.
"""
from __future__ import annotations

import logging
import os
import re
import shutil
import tempfile
import time
from contextlib import AsyncExitStack
from typing import IO, Iterator

import anyio
from mcp import Client, MCPError
from mcp.server import Server
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT, CallToolResult

from ...contract.redaction import redact
from ...types import JSONObject
from .targets import ConnectFailure, Reply, ReplyKind, ToolInfo
from ...types.exceptions import AtlasKitValueError

__all__ = ["McpTarget"]

_MAX_PAGES = 50
# Variables named like a secret are not passed to the server (grading/kernel.py strips the same names).
_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|^ANTHROPIC_", re.IGNORECASE)


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

    The command runs with this process's environment minus every variable named like a secret (KEY, TOKEN, SECRET,
    PASSWORD, CREDENTIAL, ANTHROPIC_*; the grader's rule), except those `keep` names; `env` is added on top.
    """

    def __init__(self, *, command: list[str] | None = None, url: str | None = None, server: Server | None = None,
                 connect_timeout: float = 20.0, env: dict[str, str] | None = None, keep: tuple[str, ...] = ()) -> None:
        if sum(x is not None for x in (command, url, server)) != 1:
            raise AtlasKitValueError("McpTarget takes one of command= (the server's argv), url= or server= (an SDK Server "
                             "in this process).")
        self.command, self.url, self.server, self.connect_timeout, self.env = command, url, server, connect_timeout, env
        self.keep = keep
        self.label = url if url is not None else f"{server.name} (in process)" if server is not None else \
            " ".join(command or [])
        self._stack = AsyncExitStack()
        self._client: Client | None = None
        self._stderr: IO[str] | None = None
        self._lines = _Lines()
        self._was = (True, logging.NOTSET)

    async def __aenter__(self) -> McpTarget:
        self._quiet_sdk()
        if self.command is not None:
            self._check_command(self.command[0])
            self._stderr = self._stack.enter_context(tempfile.TemporaryFile(mode="w+", encoding="utf-8",
                                                                            errors="replace"))
            params = StdioServerParameters(command=self.command[0], args=self.command[1:], env=self._environment())
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
        return self

    def _environment(self) -> dict[str, str]:
        """Your environment without anything named like a secret (unless `keep` names it), plus `env`: a server you
        audit may be one you do not trust, and the SDK's own default (PATH, HOME and a few) breaks most servers."""
        passed = {k: v for k, v in os.environ.items() if k in self.keep or not _SECRET_NAME.search(k)}
        return {**passed, **(self.env or {})}

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
            if any(isinstance(e, MCPError) for e in leaves) and not any(isinstance(e, TimeoutError) for e in leaves):
                return f"{self.url} answered, but not as an MCP server: check the URL's path (often /mcp)."
            if any(isinstance(e, TimeoutError) for e in leaves):
                return f"timed out: {self.url} did not complete the MCP handshake within {self.connect_timeout:g} s."
            return f"cannot connect to {self.url}: is the server running and is the URL right?"
        if self._lines.not_json:
            return ("not an MCP server: it wrote text that is not JSON-RPC on stdout (an MCP server over stdio writes "
                    "only JSON-RPC there; logs go to stderr).")
        if CONNECTION_CLOSED in codes:
            return f"the server exited at start, before the MCP handshake{said}."
        if codes - {REQUEST_TIMEOUT}:
            return "not an MCP server: it answered the MCP handshake with an error (does it speak MCP over stdio?)."
        if any(isinstance(e, TimeoutError) for e in leaves) or REQUEST_TIMEOUT in codes:
            return (f"timed out: the server did not answer the MCP handshake within {self.connect_timeout:g} s"
                    f"{said} (raise --connect-timeout if it is slow to start).")
        if any(isinstance(e, OSError) for e in leaves):
            return f"cannot start the server: {next(e for e in leaves if isinstance(e, OSError)).strerror}."
        return f"could not connect: {type(leaves[0]).__name__ if leaves else 'unknown error'}{said}."

    def _stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        try:
            self._stderr.seek(0)
            lines = [line.strip() for line in self._stderr.read()[-4000:].splitlines() if line.strip()]
        except (OSError, ValueError):
            return ""
        return f"; its last words on stderr: {redact(lines[-1])[:160]!r}" if lines else ""

    async def list_tools(self) -> list[ToolInfo]:
        client = self._connected()
        tools: list[ToolInfo] = []
        cursor: str | None = None
        for _ in range(_MAX_PAGES):
            try:
                with anyio.fail_after(self.connect_timeout):
                    page = await client.list_tools(cursor=cursor)
            except (MCPError, TimeoutError) as err:
                raise ConnectFailure(f"the server did not list its tools ({_brief(err)}).") from None
            for t in page.tools:
                hints = t.annotations
                tools.append(ToolInfo(t.name, t.description or "", dict(t.input_schema),
                                      read_only=hints.read_only_hint if hints else None,
                                      destructive=hints.destructive_hint if hints else None,
                                      task_only=t.execution is not None and t.execution.task_support == "required"))
            cursor = page.next_cursor
            if cursor is None:
                break
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
        return Reply("result", _text(result), bool(result.is_error), time.monotonic() - start)

    def _connected(self) -> Client:
        if self._client is None:
            raise RuntimeError("McpTarget: enter it (`async with McpTarget(...) as target`) before listing or calling.")
        return self._client


def _text(result: CallToolResult) -> str:
    """The text a model reads: every text block, in order; other blocks are named, not inlined."""
    parts = [getattr(b, "text", None) or f"[{getattr(b, 'type', 'block')} block]" for b in result.content]
    return "\n".join(str(p) for p in parts)


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
