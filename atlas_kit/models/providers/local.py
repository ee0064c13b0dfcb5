"""A local server that speaks the Messages API (Ollama, llama.cpp's llama-server, or another): the base class.

No key is needed, and none is ever sent: the client holds only a placeholder, its auth headers are omitted, and
the transport strips any header that could carry a credential (including those ANTHROPIC_CUSTOM_HEADERS adds)
before a request leaves. Its tokens are the server's own counts, never priced. Calls may take minutes on a CPU,
so the bound per call is long but there is one. Subclasses add the server's own preflight. Chapter 00.
"""
from __future__ import annotations

import datetime as dt
import json
import os
import time
import urllib.parse
from typing import ClassVar, Iterable, Mapping

import httpx2

from ...types.sets import JSONObject
from ...types.records import Source
from ..api_retry import APIRetry
from ..provider import Capabilities, Preflight, Provider, ProviderError
from ._watch import ContextWatch

# Header names that carry credentials in some client or proxy; never sent to a local server.
_SECRET_HEADERS = frozenset({"authorization", "x-api-key", "proxy-authorization", "cookie", "anthropic-api-key"})
PREFLIGHT_TIMEOUT = httpx2.Timeout(10.0, connect=3.0)


def check_url(url: str, *, what: str) -> str:
    """`url` without a trailing slash, if it is an http(s) address with a host and a valid port; else one line
    saying so. An address that holds a user name or password (user:pass@host) is refused: a local server is sent no
    credential, and the address is written into every results label, so it must hold none."""
    parts: urllib.parse.SplitResult | None = None
    try:
        parts = urllib.parse.urlsplit(url.strip()) if isinstance(url, str) else None
        port = parts.port if parts is not None else None  # ValueError for a port that is not a number
    except ValueError:
        parts, port = None, None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname or port == 0:
        raise ProviderError(f"{what} must be an http:// or https:// address such as http://localhost:11434 (a port, "
                            f"if any, a number from 1 to 65535); got {_without_login(url)!r}.")
    if parts.username is not None or parts.password is not None:
        raise ProviderError(f"{what} holds a user name or password (user:password@); a local server is sent no "
                            "credential: give the address without it, such as http://localhost:11434.")
    return url.strip().rstrip("/")


def _without_login(url: object) -> str:
    """`url` as a message may show it: anything before an @ in its address part is left out."""
    text = str(url)
    scheme, sep, rest = text.partition("://")
    if not sep:
        return text.rsplit("@", 1)[-1]
    host, slash, path = rest.partition("/")
    return f"{scheme}://{host.rsplit('@', 1)[-1]}{slash}{path}"


def _custom_header_names() -> set[str]:
    """Header names ANTHROPIC_CUSTOM_HEADERS makes the SDK send (one `Name: value` a line): meant for Anthropic."""
    lines = os.environ.get("ANTHROPIC_CUSTOM_HEADERS", "").split("\n")
    return {line.split(":", 1)[0].strip().lower() for line in lines if ":" in line}


class NoKeyTransport(httpx2.BaseTransport, httpx2.AsyncBaseTransport):
    """Forwards to the network with every credential-bearing header removed, reads each reply whole within
    `deadline` seconds of sending (a server that trickles a byte now and then is a timeout, not a wait without
    end), refuses to follow a redirect, and shows each reply to a watch."""

    def __init__(self, inner: httpx2.BaseTransport | httpx2.AsyncBaseTransport, watch: ContextWatch, *,
                 deadline: float = 600.0) -> None:
        self.inner, self.watch, self.deadline = inner, watch, deadline

    def _strip(self, request: httpx2.Request) -> None:
        for name in _SECRET_HEADERS | _custom_header_names():
            if name in request.headers:
                del request.headers[name]

    def _late(self, request: httpx2.Request, start: float) -> None:
        if time.monotonic() - start > self.deadline:
            raise httpx2.ReadTimeout(f"the server's reply took more than {self.deadline:.0f} s to arrive whole",
                                     request=request)

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        assert isinstance(self.inner, httpx2.BaseTransport)
        self._strip(request)
        start = time.monotonic()
        response = self.inner.handle_request(request)
        chunks = []
        try:
            if response.is_redirect:
                return _redirect_refused(request, response)
            for chunk in response.iter_bytes():
                chunks.append(chunk)
                self._late(request, start)
        finally:
            response.close()
        return self._seen(request, response, b"".join(chunks))

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        assert isinstance(self.inner, httpx2.AsyncBaseTransport)
        self._strip(request)
        start = time.monotonic()
        response = await self.inner.handle_async_request(request)
        chunks = []
        try:
            if response.is_redirect:
                return _redirect_refused(request, response)
            async for chunk in response.aiter_bytes():
                chunks.append(chunk)
                self._late(request, start)
        finally:
            await response.aclose()
        return self._seen(request, response, b"".join(chunks))

    def _seen(self, request: httpx2.Request, response: httpx2.Response, raw: bytes) -> httpx2.Response:
        if _watched(request, response):
            try:
                sent, answer = json.loads(request.content), json.loads(raw)
            except (ValueError, httpx2.RequestNotRead):
                sent = answer = None  # the SDK reports a body it cannot read; nothing to watch
            if isinstance(sent, dict) and isinstance(answer, dict):
                self.watch.observe(sent, answer)
        headers = [(k, v) for k, v in response.headers.items() if k.lower() not in ("content-encoding", "content-length")]
        return httpx2.Response(response.status_code, headers=headers, content=raw, extensions=response.extensions)

    def close(self) -> None:
        if isinstance(self.inner, httpx2.BaseTransport):
            self.inner.close()

    async def aclose(self) -> None:
        if isinstance(self.inner, httpx2.AsyncBaseTransport):
            await self.inner.aclose()


def _redirect_refused(request: httpx2.Request, response: httpx2.Response) -> httpx2.Response:
    """A redirect from a local server, answered as the refusal it is: following it would send the conversation to
    an address nobody named (another host, perhaps)."""
    where = _without_login(response.headers.get("location", ""))[:200]
    message = (f"the server at {request.url.host} answered {response.status_code} with a redirect to {where!r}; "
               "atlas_kit does not follow a local server's redirects (the conversation would go where nobody named): "
               "give the address it redirects to as --base-url (or ATLAS_BASE_URL)")
    return httpx2.Response(400, json={"type": "error", "error": {"type": "invalid_request_error", "message": message}})


def _watched(request: httpx2.Request, response: httpx2.Response) -> bool:
    return (request.method == "POST" and request.url.path.endswith("/v1/messages") and response.status_code == 200
            and "json" in response.headers.get("content-type", ""))


def probe(method: str, url: str, *, body: Mapping[str, object] | None = None,
          ok: Iterable[int] = (200,)) -> tuple[int, object]:
    """One bounded preflight request: (status, parsed JSON or the text); raises httpx2 errors for the caller."""
    with httpx2.Client(timeout=PREFLIGHT_TIMEOUT) as http:
        response = http.request(method, url, json=body)
    try:
        return response.status_code, response.json()
    except ValueError:
        return response.status_code, response.text


class LocalServer(Provider):
    """A server on this machine (or your network) that serves the Messages API at `base_url`/v1/messages."""

    capabilities: ClassVar = Capabilities(batches=False, count_tokens="none", prompt_caching=False, priced=False)
    # A CPU can take minutes for one reply: each call may take 10 minutes, is retried once, and waits 30 s at most.
    default_retry: ClassVar = APIRetry(max_retries=1, total_wait=30.0, timeout=600.0)
    default_url: ClassVar[str] = "http://localhost:8080"
    prefix: ClassVar[str | None] = None  # how a model on it is spelled, "ollama" in "ollama:qwen3:4b" (registry.py)
    context_setting: ClassVar[str] = "the server's context-size setting"  # how to raise the window
    start_hint: ClassVar[str] = "start the server"

    def __init__(self, base_url: str | None = None, *, address_from: str | None = None) -> None:
        """`address_from`: the environment variable `base_url` was read from, named when nothing answers there."""
        where = f" ({address_from})" if address_from else ""
        self._url = check_url(base_url or self.default_url, what=f"the {self.name} address{where}")
        self._from = f", or check {address_from} (the address came from it)" if address_from else ""
        self.watch = ContextWatch(self.server_name, self.context_setting, self._url)

    @property
    def base_url(self) -> str:
        return self._url

    @property
    def server_name(self) -> str:
        """What labels call it: the server's name (a subclass of an unknown server says its address)."""
        return self.name

    def source(self, model: str) -> Source:
        return Source("live", model, dt.date.today().isoformat(), server=self.server_name)

    def spelling(self, model: str) -> str:
        """`prefix:model`, found again through ATLAS_BASE_URL when the server is not at its default address."""
        if self.prefix is None:
            return super().spelling(model)
        return f"{self.prefix}:{model}"

    def run_notes(self) -> tuple[str, ...]:
        return ("a local server cut a prompt to fit its window (see the warning above); those episodes saw part of "
                "the conversation.",) if self.watch.warned else ()

    def sync_transport(self) -> httpx2.BaseTransport:
        return NoKeyTransport(httpx2.HTTPTransport(), self.watch, deadline=self.default_retry.timeout)

    def async_transport(self) -> httpx2.AsyncBaseTransport:
        return NoKeyTransport(httpx2.AsyncHTTPTransport(), self.watch, deadline=self.default_retry.timeout)

    def preflight(self, model: str, *, prompt_tokens: int) -> Preflight:
        """Reachable, the model present and able to use tools, its window big enough; one line when not."""
        found = self.check(model, prompt_tokens=prompt_tokens)
        self.watch.window = found.context_window
        if found.context_window is not None and prompt_tokens > found.context_window:
            raise ProviderError(
                f"{model}'s context window on {self.server_name} is {found.context_window:,} tokens "
                f"({found.window_from}), smaller than the course's first request (about {prompt_tokens:,}): raise it "
                f"({self.context_setting}).")
        return found

    def check(self, model: str, *, prompt_tokens: int) -> Preflight:
        """The server's own checks; the base only asks that something answers at the address."""
        self.reach("/")
        return Preflight()

    def reach(self, path: str, *, method: str = "GET", body: Mapping[str, object] | None = None) -> tuple[int, object]:
        """`probe` this server, turning a refused connection or a timeout into the server's one-line hint."""
        try:
            return probe(method, self._url + path, body=body)
        except httpx2.TimeoutException as err:
            waited = PREFLIGHT_TIMEOUT.connect if isinstance(err, httpx2.ConnectTimeout) else PREFLIGHT_TIMEOUT.read
            raise ProviderError(f"{self.server_name} at {self._url} did not answer within {waited:.0f} s: is it busy "
                                "or stuck? Restart it and run again.") from None
        except httpx2.HTTPError:
            raise ProviderError(f"{self.server_name} is not running at {self._url}: {self.start_hint}{self._from}.") \
                from None

    def unreadable(self, path: str, got: object) -> ProviderError:
        """The line for an answer in a shape this server would not give: probably another program on that port."""
        shown = str(got)[:80].replace("\n", " ")
        return ProviderError(f"the server at {self._url} does not answer {path} as {self.name} does (got {shown!r}): "
                             f"is {self.name} the program listening there? Set ATLAS_BASE_URL to its address.")


def json_object(value: object) -> JSONObject | None:
    """`value` if it is a JSON object."""
    return value if isinstance(value, dict) else None
