"""The HTTP plumbing every fake server shares: a real server on 127.0.0.1 (port 0) in a thread, that records
every request and answers it with a `Reply` its subclass builds. It knows nothing of any server's wire format
(ollama.py and llamacpp.py hold those); it plays delays and the failures no wire format defines (a dropped body).
"""
from __future__ import annotations

import json
import socket
import threading
from collections import deque
from dataclasses import dataclass, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal, Sequence, TypeVar

__all__ = ["Failure", "FakeServer", "Recorded", "Reply", "json_reply", "text_reply"]

Failure = Literal["http_500", "unreadable", "drop_mid_body"]
"""A scripted failure of one inference request: a 500 in the server's own error shape, a 200 whose body no
client can read as a Message, or a connection dropped half way through the body. (An unreachable server is a
fake that was never started, or one that was stopped.)"""

FAILURES: tuple[Failure, ...] = ("http_500", "unreadable", "drop_mid_body")
_Fake = TypeVar("_Fake", bound="FakeServer")


@dataclass(frozen=True)
class Recorded:
    """One request as the fake received it: header names lower-cased, the body parsed when it was JSON."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    raw: bytes


@dataclass(frozen=True)
class Reply:
    """One answer, byte for byte. `drop_after` closes the connection after that many body bytes."""

    status: int
    body: bytes
    content_type: str = "application/json; charset=utf-8"
    headers: tuple[tuple[str, str], ...] = ()
    drop_after: int | None = None


def json_reply(status: int, text: str, *, content_type: str = "application/json; charset=utf-8",
               headers: tuple[tuple[str, str], ...] = ()) -> Reply:
    """A reply whose body is already-serialised JSON text (each server serialises in its own way)."""
    return Reply(status, text.encode(), content_type, headers)


def text_reply(status: int, text: str) -> Reply:
    return Reply(status, text.encode(), "text/plain; charset=utf-8")


class _HTTPServer(ThreadingHTTPServer):
    """Keeps the open connections, so `stop()` can end keep-alive connections the client still holds."""

    daemon_threads = False
    block_on_close = True

    def __init__(self, fake: FakeServer) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.fake = fake
        self.open: set[socket.socket] = set()
        self.open_lock = threading.Lock()

    def process_request(self, request: Any, client_address: Any) -> None:
        with self.open_lock:
            self.open.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self.open_lock:
            self.open.discard(request)
        super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        if self.fake._stopping.is_set():  # a client cut off by stop(): nothing to report
            return
        super().handle_error(request, client_address)

    def cut_connections(self) -> None:
        with self.open_lock:
            sockets = list(self.open)
        for sock in sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 10  # a client that opens a connection and sends nothing cannot hold a thread for long
    server: _HTTPServer

    def setup(self) -> None:
        super().setup()
        # Headers and body go out in two writes; without this, Nagle's algorithm and the client's delayed
        # ACK hold the body back about 40 ms on every keep-alive request after the first.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def _serve(self) -> None:
        self.server.fake._serve(self)

    do_GET = do_POST = do_HEAD = do_DELETE = do_PUT = _serve  # noqa: N815 (the http.server names)

    def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
        pass


class FakeServer:
    """A fake server's life and its record. Subclasses implement `_route` (and `_failure` for scripted faults).

    `delay` seconds pass before every inference answer (`_inference` paths); `failures` are used up one per
    inference request, in order (None answers normally). At most `parallel` inference requests are answered at
    once (the server's slots); the others wait their turn, as on a real server.
    """

    _inference: frozenset[str] = frozenset({"/v1/messages"})

    def __init__(self, *, delay: float = 0.0, failures: Sequence[Failure | None] = (), parallel: int = 1) -> None:
        if not isinstance(delay, (int, float)) or delay < 0:
            raise ValueError(f"delay is seconds before each answer and must be >= 0, got {delay!r}.")
        if not isinstance(parallel, int) or parallel < 1:
            raise ValueError(f"parallel is how many requests the server answers at once; give an int >= 1, "
                             f"got {parallel!r}.")
        for i, kind in enumerate(failures):
            if kind is not None and kind not in FAILURES:
                raise ValueError(f"failures[{i}] is {kind!r}; use one of {', '.join(FAILURES)}, or None.")
        self.delay, self.parallel = float(delay), parallel
        self._slots = threading.BoundedSemaphore(parallel)
        self._failures: deque[Failure | None] = deque(failures)
        self._lock = threading.Lock()
        self._requests: list[Recorded] = []
        self._stopping = threading.Event()
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- life -------------------------------------------------------------------------------------

    def start(self: _Fake) -> _Fake:
        if self._httpd is not None:
            raise RuntimeError(f"{type(self).__name__} is already started at {self.base_url}; start it once.")
        self._httpd = _HTTPServer(self)
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02},
                                        name=f"{type(self).__name__}-serve", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and end every connection; idempotent. Afterwards the port refuses connections."""
        httpd, thread = self._httpd, self._thread
        if httpd is None or thread is None or self._stopping.is_set():
            return
        self._stopping.set()  # a delayed answer stops waiting
        httpd.shutdown()
        httpd.cut_connections()
        httpd.server_close()  # joins the request threads
        thread.join()

    def __enter__(self: _Fake) -> _Fake:
        return self.start() if self._httpd is None else self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        if self._httpd is None:
            raise RuntimeError(f"{type(self).__name__} has no address yet: call start() (or use it in a with block).")
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    @property
    def requests(self) -> list[Recorded]:
        """Every request received so far, in order (a copy)."""
        with self._lock:
            return list(self._requests)

    # --- serving ----------------------------------------------------------------------------------

    def _serve(self, http: BaseHTTPRequestHandler) -> None:
        length = int(http.headers.get("content-length") or 0)
        raw = http.rfile.read(length) if length else b""
        headers: dict[str, str] = {}
        for name, value in http.headers.items():
            key = name.lower()
            headers[key] = f"{headers[key]}, {value}" if key in headers else value
        path = http.path.split("?", 1)[0]
        recorded = Recorded(http.command, path, headers, _parse(raw), raw)
        with self._lock:
            self._requests.append(recorded)
        reply = self._answer(recorded)
        self._write(http, reply)

    def _answer(self, request: Recorded) -> Reply:
        if request.method != "POST" or request.path not in self._inference:
            return self._route(request)
        with self._slots:
            with self._lock:
                failure = self._failures.popleft() if self._failures else None
            if self.delay:
                self._stopping.wait(self.delay)
            if failure == "drop_mid_body":  # the real answer, cut off half way
                reply = self._route(request)
                return replace(reply, drop_after=len(reply.body) // 2)
            if failure is not None:
                return self._failure(failure, request)
            return self._route(request)

    def _write(self, http: BaseHTTPRequestHandler, reply: Reply) -> None:
        http.send_response(reply.status)
        http.send_header("Content-Type", reply.content_type)
        for name, value in reply.headers:
            http.send_header(name, value)
        http.send_header("Content-Length", str(len(reply.body)))
        http.end_headers()
        if http.command == "HEAD":
            return
        if reply.drop_after is None:
            http.wfile.write(reply.body)
            return
        http.wfile.write(reply.body[:reply.drop_after])
        http.wfile.flush()
        http.close_connection = True
        try:
            http.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def _route(self, request: Recorded) -> Reply:
        raise NotImplementedError

    def _failure(self, kind: Literal["http_500", "unreadable"], request: Recorded) -> Reply:
        raise NotImplementedError


def _parse(raw: bytes) -> Any:
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return None
