"""`atlas-kit mcp` on stdio: the SDK's transport, plus what a hostile or dying client needs of it.

Every request with an id gets exactly one answer: one the SDK cannot read as JSON-RPC (params that are not an object)
gets -32600 here, where the SDK would drop it and leave the client waiting. SIGTERM, SIGHUP and SIGINT log the open
episode (as ended by that signal) and end the process at once; a client that vanishes while replies are pending ends
the server as a hang-up does, with no traceback, even when it keeps stdin open. Chapter 15.
"""
from __future__ import annotations

import json
import os
import signal
import sys
import threading
from typing import AsyncIterator, Iterator, cast

import anyio
import anyio.lowlevel
from anyio.from_thread import BlockingPortal
from anyio.streams.memory import MemoryObjectSendStream
from mcp.server.stdio import stdio_server
from mcp.shared._stream_protocols import ReadStream, WriteStream
from mcp.shared.message import SessionMessage
from mcp_types import INVALID_REQUEST, ErrorData, JSONRPCError

from .server import AtlasMCP
from .wording import BAD_REQUEST, PLAIN_BAD_REQUEST, in_style

__all__ = ["STOP_SIGNALS", "malformed_reply", "serve_stdio"]

STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)
_SHAPE = ('This request is not one JSON-RPC 2.0 and MCP can read: send "jsonrpc": "2.0", a "method", and "params" '
          "as an object of named fields (or no params).")


class _Lines:
    """stdin's lines for the SDK's reader, remembering the last one (the text of a message the SDK could not read).

    A daemon thread of its own reads the pipe (os.read: no buffered file's lock to hold), so waiting for a line is
    cancellable: when the client stops reading the replies but keeps stdin open, the server ends at once instead of
    waiting on a read no task can interrupt, and the process exits with that thread still blocked in it."""

    def __init__(self, fd: int, portal: BlockingPortal) -> None:
        self.last = ""
        self._pending = bytearray()
        self._ended = False
        self._send, self._chunks = anyio.create_memory_object_stream[bytes](0)
        threading.Thread(target=self._pump, args=(fd, portal), name="atlas-kit mcp stdin", daemon=True).start()

    def _pump(self, fd: int, portal: BlockingPortal) -> None:
        """Hand each chunk of stdin to the server, b"" at its end; stop when the server takes no more."""
        try:
            while True:
                chunk = os.read(fd, 1 << 16)
                portal.call(self._send.send, chunk)
                if not chunk:
                    return
        except Exception:  # noqa: BLE001 - the server has stopped (its portal or stream is closed): nothing to hand
            return
        finally:
            os.close(fd)

    def __aiter__(self) -> AsyncIterator[str]:
        return self

    async def __anext__(self) -> str:
        # The SDK's reader hands the error for a line to _screen and then asks for the next line: yield first, so
        # _screen (already woken with that error) reads `last` before it moves on, even when the next line is here.
        await anyio.lowlevel.checkpoint()
        while (end := self._pending.find(b"\n")) < 0 and not self._ended:
            chunk = await self._chunks.receive()
            self._ended = not chunk
            self._pending += chunk
        if end < 0:
            end = len(self._pending) - 1  # the last line, with no newline after it
        if end < 0:
            raise StopAsyncIteration
        line = self._pending[:end + 1].decode("utf-8", errors="replace")  # as the SDK reads stdin, whatever the locale
        del self._pending[:end + 1]
        self.last = line
        return line

    def close(self) -> None:
        """Take no more chunks: the reader thread ends at its next one (or with the process)."""
        self._chunks.close()


def malformed_reply(line: str, *, style: str) -> JSONRPCError | None:
    """The answer to a line the SDK could not read as a JSON-RPC message: -32600 when it is a request with a usable id
    (a string or a whole number); None when there is no id to answer it by (a notification, a line that is not a JSON
    object, an id of null) or it is a response (it has "result" or "error")."""
    try:
        message = json.loads(line)
    except ValueError:
        return None
    if not isinstance(message, dict) or "result" in message or "error" in message:
        return None
    request_id = message.get("id")
    if isinstance(request_id, bool) or not isinstance(request_id, (str, int)):
        return None
    message = in_style(style, raw=BAD_REQUEST, contract=_SHAPE, plain=PLAIN_BAD_REQUEST)
    error = ErrorData(code=INVALID_REQUEST, message=message)
    return JSONRPCError(jsonrpc="2.0", id=request_id, error=error)


async def _screen(incoming: ReadStream[SessionMessage | Exception], out: MemoryObjectSendStream[SessionMessage | Exception],
                  write: WriteStream[SessionMessage], lines: _Lines, style: str) -> None:
    """Pass every message on to the server; answer, in its place, each request the SDK could not read. Ends quietly
    when the server has stopped taking messages (the client went away)."""
    async with out:
        try:
            async for item in incoming:
                # The SDK's reader sends the error for a line before it reads the next, so `lines.last` is that line.
                reply = malformed_reply(lines.last, style=style) if isinstance(item, Exception) else None
                if reply is not None:
                    await write.send(SessionMessage(reply))
                else:
                    await out.send(item)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            return


async def _stop_on_signal(server: AtlasMCP) -> None:
    with anyio.open_signal_receiver(*STOP_SIGNALS) as signals:
        async for signum in signals:
            # The handlers are synchronous, so no call is half done: log the episode, then end at once. A worker
            # thread blocked on a pipe the client stopped reading cannot be cancelled, so no shutdown is awaited.
            try:
                server.close(why=f"the server was stopped by {signal.Signals(signum).name}")
            finally:
                sys.stderr.flush()
                os._exit(0)


async def serve_stdio(server: AtlasMCP) -> None:
    """Serve over this process's stdin and stdout until the client closes stdin or goes away (a broken pipe, even
    with stdin still open), or a stop signal comes (which ends the process: this is `atlas-kit mcp`'s loop); the
    open episode is logged in every case."""
    try:
        async with BlockingPortal() as portal:
            lines = _Lines(os.dup(sys.stdin.fileno()), portal)
            try:
                await _serve(server, lines)
            finally:
                lines.close()
    except Exception as exc:  # an exception group on 3.11+ (anyio's own on 3.10)
        if not _client_gone(exc):
            raise
        server.close(why="the client stopped reading the server's replies")
    finally:
        server.close()


async def _serve(server: AtlasMCP, lines: _Lines) -> None:
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(_stop_on_signal, server)
        # stdin is passed in, so the SDK reads it through `lines`; stdout stays the SDK's own (fd 1 is diverted).
        async with stdio_server(stdin=cast("anyio.AsyncFile[str]", lines)) as (read, write):
            out, screened = anyio.create_memory_object_stream[SessionMessage | Exception](0)
            tasks.start_soon(_screen, read, out, write, lines, server.style)
            await server.server.run(screened, write, server.server.create_initialization_options())
        tasks.cancel_scope.cancel()


_GONE = (BrokenPipeError, ConnectionResetError)  # the client closed its end of the pipe
_AFTER = (anyio.BrokenResourceError, anyio.ClosedResourceError)  # what the server's own streams raise then


def _client_gone(exc: BaseException) -> bool:
    """Whether `exc` says the client went away: a broken pipe, alone or in a group with only what follows from it."""
    found = list(_leaves(exc))
    return any(isinstance(e, _GONE) for e in found) and all(isinstance(e, _GONE + _AFTER) for e in found)


def _leaves(exc: BaseException) -> Iterator[BaseException]:
    inner = getattr(exc, "exceptions", None)  # an exception group (the builtin on 3.11+, anyio's backport on 3.10)
    if isinstance(inner, tuple):
        for each in inner:
            yield from _leaves(each)
    else:
        yield exc
