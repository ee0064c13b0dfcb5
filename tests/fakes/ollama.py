"""A fake Ollama: its Anthropic layer at POST /v1/messages (non-streaming and streaming) and the info routes
GET /api/version, GET /api/tags, POST /api/show and GET /api/ps, as ollama/ollama's code does them (QUIRKS.md
cites each). The model is a brain (brains.py); token counts come from the fakes' stand-in tokenizer, not a
real model's. Every other route answers gin's plain-text 404, including /v1/messages/count_tokens.
"""
from __future__ import annotations

import hashlib
import json
import random
import threading
from dataclasses import dataclass
from typing import Iterable, Literal, Mapping, Sequence

from atlas_kit.types import JSONObject

from . import _ollama_stream as stream
from ._golike import GoDecodeError, decode, estimate_tokens, go_json
from ._ollama_wire import ConversionError, Msg, done_reason, fit, from_request, render_turns, stop_reason, view
from ._server import Failure, FakeServer, Recorded, Reply, json_reply, text_reply
from ._tokens import PromptCache, render, tokenize
from .brains import Brain, BrainReply, OfflineBrain

__all__ = ["OllamaFake", "OllamaModel", "UsageMode"]

UsageMode = Literal["uncached", "full", "split"]
"""What `usage.input_tokens` counts. "uncached": only the prompt tokens the KV cache did not hold (Ollama
0.30.x on its llama-server runner, before ollama PR #16428); "full": the whole prompt after truncation
(ollamarunner's prompt_eval_count, and after #16428); "split": uncached in input_tokens and the cached rest
in cache_read_input_tokens (Anthropic's own semantics, which ollama PR #17943 may have adopted; unverified)."""

_ROUTES = {"/": ("GET", "HEAD"), "/api/version": ("GET", "HEAD"), "/api/tags": ("GET", "HEAD"),
           "/api/show": ("POST",), "/api/ps": ("GET",), "/v1/messages": ("POST",)}
_NUM_KEEP = 4  # api.DefaultOptions' num_keep: the runner keeps the first 4 tokens when it cuts a prompt


@dataclass(frozen=True)
class OllamaModel:
    """A pulled model. `context_length` is what the GGUF was trained for (/api/show model_info); `num_ctx` a
    Modelfile PARAMETER (shown in /api/show `parameters`, and the window it runs with when set)."""

    family: str = "qwen3"
    context_length: int = 40960
    num_ctx: int | None = None
    capabilities: tuple[str, ...] = ("completion", "tools")
    parameter_size: str = "4.0B"
    quantization_level: str = "Q4_K_M"


def _canonical(name: str) -> str:
    """model.ParseName's short form: a missing tag is "latest"; names compare case-insensitively."""
    last = name.rsplit("/", 1)[-1]
    return (name if ":" in last else f"{name}:latest").lower()


class OllamaFake(FakeServer):
    """`with OllamaFake(models=["qwen3:4b"]) as fake:` then `anthropic.Anthropic(base_url=fake.base_url, ...)`.

    num_ctx: the server's default window (OLLAMA_CONTEXT_LENGTH), for models whose Modelfile sets none.
    A prompt longer than the window is cut silently (old messages first), and usage reports what was kept.
    parallel plays OLLAMA_NUM_PARALLEL; `version` is only what /api/version says (no behaviour depends on it).
    """

    def __init__(self, *, models: Mapping[str, OllamaModel] | Iterable[str] = ("qwen3:4b",),
                 brain: Brain | None = None, num_ctx: int = 4096, usage: UsageMode = "uncached",
                 prompt_cache: bool = True, version: str = "0.13.5", seed: int = 0, delay: float = 0.0,
                 failures: Sequence[Failure | None] = (), parallel: int = 1) -> None:
        super().__init__(delay=delay, failures=failures, parallel=parallel)
        if usage not in ("uncached", "full", "split"):
            raise ValueError(f"usage must be 'uncached', 'full' or 'split'; got {usage!r}.")
        if not isinstance(num_ctx, int) or num_ctx < _NUM_KEEP + 1:
            raise ValueError(f"num_ctx is the context window in tokens and must be an int > {_NUM_KEEP}; "
                             f"got {num_ctx!r}.")
        pulled = models.items() if isinstance(models, Mapping) else ((m, OllamaModel()) for m in models)
        self.models = {_canonical(name): (name, spec) for name, spec in pulled}
        self.brain: Brain = brain if brain is not None else OfflineBrain(seed=seed)
        self.num_ctx, self.usage, self.version = num_ctx, usage, version
        self.cache = PromptCache(enabled=prompt_cache)
        self.seen: list[JSONObject] = []  # what the model read, one view per answered request
        self.loaded: set[str] = set()
        self._random = random.Random(seed)
        self._id_lock = threading.Lock()

    # --- routing -------------------------------------------------------------------------------------

    def _route(self, request: Recorded) -> Reply:
        methods = _ROUTES.get(request.path)
        if methods is None:
            return text_reply(404, "404 page not found")
        if request.method not in methods:
            return text_reply(405, "405 method not allowed")
        if request.path == "/":
            return text_reply(200, "Ollama is running")
        if request.path == "/api/version":
            return json_reply(200, go_json({"version": self.version}))
        if request.path == "/api/tags":
            return json_reply(200, go_json({"models": [self._listing(n, s) for n, s in self.models.values()]}))
        if request.path == "/api/show":
            return self._show(request)
        if request.path == "/api/ps":
            return json_reply(200, go_json({"models": [self._running(k) for k in sorted(self.loaded)]}))
        return self._messages(request)

    def _failure(self, kind: Literal["http_500", "unreadable"], request: Recorded) -> Reply:
        if kind == "http_500":
            return self._error(500, "fake failure: the model runner stopped (scripted by the test)")
        native = {"model": "qwen3:4b", "created_at": "2026-01-01T00:00:00Z", "done": True, "done_reason": "stop",
                  "message": {"role": "assistant", "content": "An /api/chat body, not a Message."}}
        return json_reply(200, go_json(native) + "\n", content_type="application/json")

    # --- info routes ---------------------------------------------------------------------------------

    def _details(self, spec: OllamaModel) -> JSONObject:
        return {"parent_model": "", "format": "gguf", "family": spec.family, "families": [spec.family],
                "parameter_size": spec.parameter_size, "quantization_level": spec.quantization_level}

    def _listing(self, name: str, spec: OllamaModel) -> JSONObject:
        digest = hashlib.sha256(name.encode()).hexdigest()
        return {"name": name, "model": name, "modified_at": "2026-01-01T00:00:00Z", "size": 2_500_000_000,
                "digest": digest, "details": self._details(spec)}

    def _running(self, key: str) -> JSONObject:
        name, spec = self.models[key]
        return {**self._listing(name, spec), "expires_at": "2026-01-01T00:05:00Z", "size_vram": 0,
                "context_length": self._window(spec)}

    def _show(self, request: Recorded) -> Reply:
        body = request.body if isinstance(request.body, dict) else None
        if body is None:
            return self._plain_error(400, "missing request body" if not request.raw else "invalid request body")
        name = body.get("model") or body.get("name")
        if not name:
            return self._plain_error(400, "model is required")
        found = self.models.get(_canonical(str(name)))
        if found is None:
            return self._plain_error(404, f"model '{name}' not found")
        spec = found[1]
        parameters = f"{'num_ctx':<30} {spec.num_ctx}" if spec.num_ctx is not None else ""
        info = {"general.architecture": spec.family, "general.parameter_count": 4_022_468_096,
                f"{spec.family}.context_length": spec.context_length, f"{spec.family}.embedding_length": 2560}
        show = {"license": "", "modelfile": f"# Modelfile generated by \"ollama show\"\nFROM {found[0]}\n",
                "parameters": parameters, "template": "{{ .Prompt }}", "details": self._details(spec),
                "model_info": info, "capabilities": list(spec.capabilities),
                "modified_at": "2026-01-01T00:00:00Z"}
        return json_reply(200, go_json(show))

    # --- /v1/messages --------------------------------------------------------------------------------

    def _window(self, spec: OllamaModel) -> int:
        return spec.num_ctx if spec.num_ctx is not None else self.num_ctx

    def _messages(self, request: Recorded) -> Reply:
        try:
            body = decode(request.raw)
        except GoDecodeError as err:
            return self._error(400, str(err), newline=False)
        problem = ("model is required" if not body.get("model") else
                   "max_tokens is required and must be positive" if (body.get("max_tokens") or 0) <= 0 else
                   "messages is required" if not body.get("messages") else None)
        if problem:
            return self._error(400, problem, newline=False)
        try:
            msgs, tools, think = from_request(body)
        except ConversionError as err:
            return self._error(400, str(err), newline=False)
        name = str(body["model"])
        found = self.models.get(_canonical(name))
        if found is None:
            return self._error(404, f"model '{name}' not found")
        spec = found[1]
        if tools and "tools" not in spec.capabilities:
            return self._error(400, f"{_full_name(found[0])} does not support tools")
        self.loaded.add(_canonical(name))
        return self._generate(body, msgs, tools, think, spec)

    def _generate(self, body: JSONObject, msgs: list[Msg], tools: list[JSONObject], think: bool | None,
                  spec: OllamaModel) -> Reply:
        if not msgs:  # ChatHandler answers an empty chat with a "load" response (no model call)
            return self._respond(body, None, [], "load", 0, 0, 0)
        window = self._window(spec)
        kept = fit(msgs, window, lambda m: len(self._prompt(m, tools)))
        prompt = self._prompt(kept, tools)
        if len(prompt) > window:  # the runner's own cut: keep num_keep tokens, drop from just after them
            prompt = prompt[:_NUM_KEEP] + prompt[len(prompt) - (window - _NUM_KEEP):]
        seen = view(kept, tools, body)
        self.seen.append(seen)
        try:
            reply = self.brain(seen)
        except Exception as err:  # the test's brain failed: say so, in the server's own error shape
            return self._error(500, f"fake brain raised {type(err).__name__}: {err}")
        thinks = "thinking" in spec.capabilities and think is not False
        out = _limit(reply, int(body["max_tokens"]), thinks)
        cached = self.cache.reuse(prompt)
        self.cache.remember(prompt + out.tokens)
        return self._respond(body, out.thinking, out.blocks, done_reason(out.stop), len(prompt), cached,
                            len(out.tokens) + (out.stop in ("eos", "stop_word")))

    def _prompt(self, msgs: list[Msg], tools: list[JSONObject]) -> list[str]:
        system = "\n".join(m.content for m in msgs if m.role == "system")
        rest = [m for m in msgs if m.role != "system"]
        return tokenize(render(system, tools, render_turns(rest)))

    def _respond(self, body: JSONObject, thinking: str | None, blocks: list[JSONObject], done: str,
                 prompt_tokens: int, cached: int, eval_count: int) -> Reply:
        content: list[JSONObject] = [{"type": "thinking", "thinking": thinking}] if thinking else []
        text = "".join(b["text"] for b in blocks if b["type"] == "text")
        content += [{"type": "text", "text": text}] if text else []
        calls = [b for b in blocks if b["type"] == "tool_use"]
        content += [{"type": "tool_use", "id": self._call_id(), "name": c["name"], "input": _object(c["input"])}
                    for c in calls]
        usage: JSONObject = {"input_tokens": prompt_tokens if self.usage == "full" else prompt_tokens - cached,
                             "output_tokens": eval_count}
        if self.usage == "split":
            usage["cache_read_input_tokens"] = cached
        reason = stop_reason(done, bool(calls))
        message: JSONObject = {"id": self._message_id(), "type": "message", "role": "assistant",
                               "model": body.get("model"), "content": content or None}
        if reason:
            message["stop_reason"] = reason
        message["usage"] = usage
        if body.get("stream"):
            return stream.reply(message, estimate_tokens(body))
        return json_reply(200, go_json(message) + "\n", content_type="application/json")

    # --- ids and errors ------------------------------------------------------------------------------

    def _hex(self, prefix: str) -> str:
        with self._id_lock:
            return f"{prefix}_{self._random.getrandbits(96):024x}"

    def _message_id(self) -> str:
        return self._hex("msg")

    def _call_id(self) -> str:
        with self._id_lock:
            return "call_" + "".join(self._random.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(8))

    def _error(self, status: int, message: str, *, newline: bool = True) -> Reply:
        """anthropic.NewError: the Anthropic error body, its type from the status, and a request_id."""
        kind = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
                404: "not_found_error", 429: "rate_limit_error", 503: "overloaded_error",
                529: "overloaded_error"}.get(status, "api_error")
        body = {"type": "error", "error": {"type": kind, "message": message}, "request_id": self._hex("req")}
        return json_reply(status, go_json(body) + ("\n" if newline else ""),
                          content_type="application/json" if newline else "application/json; charset=utf-8")

    def _plain_error(self, status: int, message: str) -> Reply:
        return json_reply(status, go_json({"error": message}))


@dataclass(frozen=True)
class _Out:
    blocks: list[JSONObject]
    thinking: str | None
    stop: str
    tokens: list[str]


def _generated(block: JSONObject) -> str:
    if block["type"] == "text":
        return str(block.get("text", ""))
    return f"{block.get('name', '')}{go_json(block.get('input', {}))}"


def _limit(reply: BrainReply, max_tokens: int, thinks: bool) -> _Out:
    """num_predict = max_tokens: an answer longer than that is cut, and a cut tool call is no call at all."""
    thinking = reply.thinking if thinks else None
    tokens = tokenize((thinking or "") + "".join(_generated(b) for b in reply.blocks))
    if len(tokens) <= max_tokens:
        return _Out(list(reply.blocks), thinking, reply.stop, tokens)
    kept = "".join(tokenize("".join(str(b.get("text", "")) for b in reply.blocks))[:max_tokens])
    return _Out([{"type": "text", "text": kept}] if kept else [], thinking, "length", tokens[:max_tokens])


def _object(arguments: object) -> JSONObject:
    """A call's input on the wire is api.ToolCallFunctionArguments, an object: arguments the model wrote as
    text are decoded when they are a JSON object and sent as {} otherwise (see QUIRKS.md)."""
    if isinstance(arguments, dict):
        return arguments
    try:
        decoded = json.loads(str(arguments))
    except ValueError:
        return {}
    return decoded if isinstance(decoded, dict) else {}


def _full_name(name: str) -> str:
    """The name scheduleRunner puts in a capability error (model.Name.String()): host, namespace and tag
    filled in."""
    last = name.rsplit("/", 1)[-1]
    parts = (name if ":" in last else f"{name}:latest").split("/")
    prefix = {1: ["registry.ollama.ai", "library"], 2: ["registry.ollama.ai"]}.get(len(parts), [])
    return "/".join(prefix + parts)
