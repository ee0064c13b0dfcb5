"""A local server that misbehaves, or an address that should not be used: every wait is bounded, no redirect is
followed, a password in an address is refused before it can reach a label, another server's results are not
resumed as this one's, and a results file that was not written by a sweep is one line. Each case was found by
running `atlas-kit experiment` against a fake server it had not seen."""
from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

import anthropic
import httpx2
import pytest
from fakes import LlamaCppFake, OllamaFake

from atlas_kit.cli import main
from atlas_kit.models.provider import ProviderError
from atlas_kit.models.providers._watch import ContextWatch
from atlas_kit.models.providers.compatible import Compatible
from atlas_kit.models.providers.llamacpp import LlamaCpp
from atlas_kit.models.providers.local import NoKeyTransport

MODEL = "qwen3:4b"
SWEEP = ["experiment", "--styles", "contract", "--faults", "on", "--tickets", "T01", "--trials", "1",
         "--no-progress", "--no-charts", "--yes"]


@pytest.fixture(autouse=True)
def no_address_from_the_environment(monkeypatch):
    for name in ("ATLAS_BASE_URL", "OLLAMA_HOST", "ATLAS_MODEL"):
        monkeypatch.delenv(name, raising=False)


class _Server:
    """A bare HTTP server on 127.0.0.1 whose every request `answer(handler)` writes by hand; `seen` counts them."""

    def __init__(self, answer: Callable[[BaseHTTPRequestHandler], None]) -> None:
        self.seen = 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                outer.seen += 1
                self.rfile.read(int(self.headers.get("content-length") or 0))
                answer(self)

            do_GET = do_POST  # noqa: N815

            def log_message(self, *args: Any) -> None:
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.http.daemon_threads = True
        threading.Thread(target=self.http.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.http.server_address[1]}"

    def close(self) -> None:
        self.http.shutdown()
        self.http.server_close()


def _client(url: str, *, deadline: float = 600.0) -> anthropic.Anthropic:
    transport = NoKeyTransport(httpx2.HTTPTransport(), ContextWatch("a test server", "its setting"), deadline=deadline)
    return anthropic.Anthropic(base_url=url, api_key="placeholder", max_retries=0,
                               http_client=httpx2.Client(transport=transport, timeout=30.0))


def _ask(client: anthropic.Anthropic) -> object:
    return client.messages.create(model=MODEL, max_tokens=16, messages=[{"role": "user", "content": "hi"}])


def test_a_reply_that_trickles_forever_is_a_timeout_at_the_deadline():
    stop = threading.Event()

    def trickle(h: BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("content-type", "application/json")
        h.send_header("content-length", str(10 ** 9))
        h.end_headers()
        while not stop.is_set():  # a byte every 0.1 s: each read hears something, so no read timeout fires
            try:
                h.wfile.write(b" ")
                h.wfile.flush()
            except OSError:
                return
            time.sleep(0.1)

    server = _Server(trickle)
    try:
        start = time.monotonic()
        with pytest.raises(anthropic.APITimeoutError):
            _ask(_client(server.url, deadline=1.0))
        assert time.monotonic() - start < 5
    finally:
        stop.set()
        server.close()


def test_a_redirect_is_refused_and_the_other_host_hears_nothing():
    other = _Server(lambda h: (h.send_response(200), h.end_headers()))

    def redirect(h: BaseHTTPRequestHandler) -> None:
        h.send_response(307)
        h.send_header("location", f"http://user:pw@127.0.0.1:{other.http.server_address[1]}/v1/messages")
        h.send_header("content-length", "0")
        h.end_headers()

    server = _Server(redirect)
    try:
        with pytest.raises(anthropic.BadRequestError, match="does not follow a local server's redirects") as caught:
            _ask(_client(server.url))
        assert other.seen == 0 and "pw@" not in str(caught.value) and "--base-url" in str(caught.value)
    finally:
        server.close()
        other.close()


@pytest.mark.parametrize("address, words", [
    ("http://alice:s3cretpw@127.0.0.1:9", "holds a user name or password"),
    ("http://127.0.0.1:abc", "a port, if any, a number from 1 to 65535"),
    ("http://127.0.0.1:99999", "a port, if any, a number from 1 to 65535"),
])
@pytest.mark.parametrize("model", [f"ollama:{MODEL}", "llamacpp:qwen", MODEL])
def test_an_address_with_a_password_or_a_bad_port_is_one_line(tmp_path, capsys, address, words, model):
    assert main([*SWEEP, "--model", model, "--base-url", address, "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0] and "s3cretpw" not in err[0] and "Traceback" not in err[0]
    assert not (tmp_path / "experiment.jsonl").exists()


def test_an_address_from_atlas_base_url_is_named_when_it_is_wrong(monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("ATLAS_BASE_URL", "127.0.0.1:11434")
    assert main([*SWEEP, "--model", f"ollama:{MODEL}", "--out", str(tmp_path)]) == 2
    assert "ATLAS_BASE_URL" in capsys.readouterr().err


def test_llama_server_with_an_api_key_is_said_though_its_health_is_open():
    with LlamaCppFake(api_key="k" * 20) as fake:
        with pytest.raises(ProviderError, match="was started with --api-key"):
            LlamaCpp(fake.base_url).preflight("qwen", prompt_tokens=100)


def test_one_servers_results_are_not_resumed_as_anothers(tmp_path, capsys):
    with OllamaFake(models=[MODEL]) as ollama:
        assert main([*SWEEP, "--model", f"ollama:{MODEL}", "--base-url", ollama.base_url, "--out", str(tmp_path)]) == 0
    with LlamaCppFake(alias=MODEL) as llama:
        code = main([*SWEEP, "--model", f"llamacpp:{MODEL}", "--base-url", llama.base_url, "--out", str(tmp_path)])
        assert not [r for r in llama.requests if r.path == "/v1/messages"]
    err = capsys.readouterr().err
    assert code == 2 and "live (local: Ollama) results" in err and "live (local: llama.cpp)" in err
    assert len((tmp_path / "experiment.jsonl").read_text().splitlines()) == 1


@pytest.mark.parametrize("line, words", [
    ({"key": ["a"]}, "no 'key' string"), ({"key": {"a": 1}}, "no 'key' string"),
    ("KEY", "has no style, faults"),
])
def test_a_results_file_this_sweep_did_not_write_is_one_line(tmp_path, capsys, line, words):
    if line == "KEY":  # a record of this very episode, with only its key
        assert main([*SWEEP, "--out", str(tmp_path)]) == 0
        key = json.loads((tmp_path / "experiment.jsonl").read_text())["key"]
        line = {"key": key, "correct": True}
        capsys.readouterr()
    (tmp_path / "experiment.jsonl").write_text(json.dumps(line) + "\n")
    assert main([*SWEEP, "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0] and "Traceback" not in err[0]


def test_a_compatible_server_never_puts_a_login_in_its_label():
    with pytest.raises(ProviderError, match="holds a user name or password"):
        Compatible("http://user:pass@127.0.0.1:9")


@pytest.mark.parametrize("reason, words", [("authentication", "sends a local server none"),
                                           ("rate_limit", "the local server is busy"),
                                           ("connection", "check that it runs at --base-url")])
def test_an_api_failure_on_a_local_server_says_what_to_do_there(reason, words):
    from atlas_kit.models.replies import APIFailure

    failure = APIFailure(reason, "SomeError", "the server's words", 401)
    assert words in failure.line(local=True) and "ANTHROPIC_API_KEY" not in failure.line(local=True)
    assert words not in failure.line()  # Anthropic's API keeps its own advice
