"""A real local HTTP server that speaks the Messages API, for testing the live path end to end.

Point `ANTHROPIC_BASE_URL` at `LocalAPI.url` and a live client from `choose_model` talks to it over
TCP, exactly as it would to the real API. The server hands each request to a transport handler
(`atlas_kit.models.transport.ScriptedAPI`, `OfflineModel`, ...), so answers, faults and raw bodies are scripted
the same way as for the in-process transport. A handler that raises an httpx2 network error makes the
server drop the connection without answering; `cut` drops it in the middle of a body. `count_tokens=` answers
`POST /v1/messages/count_tokens` as the real API does (`{"input_tokens": n}`); without it that route is a 404, as
on a server that has none.
"""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

import httpx2
import pytest

from atlas_kit.models.transport import HandlerError, MessagesTransport

# Built from pieces so the repository never holds a literal key pattern.
FAKE_KEY = "sk-" + "ant-" + "api03-" + "FAKEFAKEFAKE" + "0123456789abcdef"


COUNT_TOKENS = "/v1/messages/count_tokens"


class LocalAPI:
    """`with LocalAPI(handler) as api:` serves `handler` on 127.0.0.1; `api.requests` keeps every request seen,
    `api.messages` the `POST /v1/messages` among them (the calls that cost money), `api.counted` each counted body."""

    def __init__(self, handler: Callable[[dict[str, Any]], Any],
                 count_tokens: Callable[[dict[str, Any]], int] | None = None) -> None:
        self.transport = MessagesTransport(handler)
        self.count_tokens = count_tokens
        self.counted: list[dict[str, Any]] = []
        self.requests: list[dict[str, Any]] = []  # method, path, headers (lower-case names) of each request
        # cut(path) -> how many bytes of the body to send before dropping the connection (None: send it whole)
        self.cut: Callable[[str], int | None] = lambda path: None
        api = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (the http.server name)
                api._serve(self)

            do_GET = do_POST  # noqa: N815

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    @property
    def messages(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if r["method"] == "POST" and r["path"].split("?")[0] == "/v1/messages"]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> LocalAPI:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _serve(self, http: BaseHTTPRequestHandler) -> None:
        length = int(http.headers.get("content-length") or 0)
        body = http.rfile.read(length) if length else b""
        headers = {k.lower(): v for k, v in http.headers.items()}
        self.requests.append({"method": http.command, "path": http.path, "headers": headers})
        request = httpx2.Request(http.command, f"http://127.0.0.1{http.path}", headers=headers, content=body)
        try:
            if self.count_tokens is not None and http.path.split("?")[0] == COUNT_TOKENS:
                self.counted.append(json.loads(body))
                response = httpx2.Response(200, json={"input_tokens": self.count_tokens(self.counted[-1])})
            else:
                response = self.transport.handle_request(request)
        except httpx2.TransportError:
            http.close_connection = True  # a dropped connection: the client sees a network fault
            return
        except HandlerError as err:
            response = httpx2.Response(500, json={"type": "error", "error": {"type": "api_error", "message": str(err)}})
        content = response.read()
        http.send_response(response.status_code)
        for name, value in response.headers.items():
            if name.lower() not in ("content-length", "transfer-encoding", "connection", "content-encoding"):
                http.send_header(name, value)
        http.send_header("content-length", str(len(content)))
        http.send_header("connection", "close")
        http.end_headers()
        keep = self.cut(http.path)
        http.wfile.write(content if keep is None else content[:keep])  # short of its content-length: a cut body
        http.close_connection = True


@pytest.fixture
def live(monkeypatch: pytest.MonkeyPatch) -> Any:
    """A function that starts a LocalAPI for a handler and points a live client at it (fake key, no ATLAS_MODEL).

    Afterwards every server is stopped and the process-wide sweep limit is back at its default.
    """
    from atlas_kit.experiments import guard

    servers: list[LocalAPI] = []

    def start(handler: Any, count_tokens: Callable[[dict[str, Any]], int] | None = None) -> LocalAPI:
        server = LocalAPI(handler, count_tokens).__enter__()
        servers.append(server)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
        monkeypatch.delenv("ATLAS_MODEL", raising=False)
        return server

    yield start
    for server in servers:
        server.__exit__()
    guard.set_max_cost_usd(guard.DEFAULT_MAX_COST_USD)
