"""A fake llama-server (llama.cpp tools/server): POST /v1/messages and /v1/messages/count_tokens, GET /props,
/v1/models (and /models), /health (and /v1/health), its API-key and loading middleware and its error bodies,
as ggml-org/llama.cpp's code does them (QUIRKS.md cites each). The model is a brain (brains.py); token counts
come from the fakes' stand-in tokenizer. Streaming is not played: a stream=True request gets a 501 that says so.
"""
from __future__ import annotations

import json
import random
import threading
from typing import Callable, Literal, Sequence

from atlas_kit.types import JSONObject

from ._llamacpp_wire import LlamaError, check, convert, render_turns, stop_reason, view
from ._server import Failure, FakeServer, Recorded, Reply, json_reply
from ._tokens import PromptCache, render, tokenize
from .brains import Brain, BrainReply, OfflineBrain

__all__ = ["LlamaCppFake", "LlamaUsage"]

LlamaUsage = Literal["full", "split"]
"""What `usage.input_tokens` counts. "split" (the default; what build b11434 sends): the uncached ones, with the
cached rest in cache_read_input_tokens, present even when 0; "full": every prompt token, cached or not
(to_json_anthropic's n_prompt_tokens in an older ggml-org version read)."""

_PUBLIC = frozenset({"/health", "/v1/health", "/models", "/v1/models", "/"})  # no API key asked
_ALNUM = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _dump(value: object) -> str:
    """safe_json_to_str: nlohmann's compact dump, UTF-8 kept."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class LlamaCppFake(FakeServer):
    """`with LlamaCppFake(jinja=False) as fake:` then `anthropic.Anthropic(base_url=fake.base_url, ...)`.

    n_ctx: the slot's context (-c); a prompt of n_ctx tokens or more is refused, never cut. jinja=False plays
    `--no-jinja` (the default is on in current builds). api_key plays `--api-key`; loading=True a server that is
    still loading its model. model_ids=True keeps tool-call ids the model wrote; otherwise the server makes them.
    parallel plays -np (its "auto" is 4 slots). tool_template=False plays a model file with no chat template of
    its own: the server's fallback cannot carry tools, says so in /props, and drops them without a word.
    """

    _inference = frozenset({"/v1/messages"})

    def __init__(self, *, alias: str = "qwen3-4b-instruct", n_ctx: int = 4096, n_ctx_train: int = 40960,
                 jinja: bool = True, vision: bool = False, reasoning: bool = True, api_key: str | None = None,
                 loading: bool = False, brain: Brain | None = None, usage: LlamaUsage = "split",
                 prompt_cache: bool = True, model_ids: bool = False, seed: int = 0, delay: float = 0.0,
                 failures: Sequence[Failure | None] = (), parallel: int = 4, tool_template: bool = True) -> None:
        super().__init__(delay=delay, failures=failures, parallel=parallel)
        if usage not in ("full", "split"):
            raise ValueError(f"usage must be 'full' or 'split'; got {usage!r}.")
        if not isinstance(n_ctx, int) or n_ctx < 2:
            raise ValueError(f"n_ctx is the slot's context in tokens and must be an int >= 2; got {n_ctx!r}.")
        self.alias, self.n_ctx, self.n_ctx_train = alias, n_ctx, n_ctx_train
        self.jinja, self.vision, self.reasoning, self.api_key = jinja, vision, reasoning, api_key
        self.loading, self.usage, self.model_ids, self.tool_template = loading, usage, model_ids, tool_template
        self.brain: Brain = brain if brain is not None else OfflineBrain(seed=seed)
        self.cache = PromptCache(enabled=prompt_cache)
        self.seen: list[JSONObject] = []
        self._random = random.Random(seed)
        self._id_lock = threading.Lock()

    # --- routing -------------------------------------------------------------------------------------

    def _route(self, request: Recorded) -> Reply:
        if self.loading:  # middleware_server_state: nothing is served until the model is loaded
            return self._error(LlamaError(503, "unavailable_error", "Loading model"), order="mtc")
        if self.api_key is not None and request.path not in _PUBLIC and not self._key_ok(request):
            return self._error(LlamaError(401, "authentication_error", "Invalid API Key"), order="mtc")
        route = (request.method, request.path)
        if route in (("GET", "/health"), ("GET", "/v1/health")):
            return json_reply(200, _dump({"status": "ok"}))
        if route == ("GET", "/props"):
            return json_reply(200, _dump(self._props()))
        if route in (("GET", "/models"), ("GET", "/v1/models")):
            return json_reply(200, _dump(self._models()))
        if route == ("POST", "/v1/messages"):
            return self._guard(self._messages, request)
        if route == ("POST", "/v1/messages/count_tokens"):
            return self._guard(self._count, request)
        return self._error(LlamaError(404, "not_found_error", "File Not Found"), order="mtc")

    def _key_ok(self, request: Recorded) -> bool:
        """Authorization (with or without "Bearer "), else X-Api-Key, must be the key."""
        given = request.headers.get("authorization") or request.headers.get("x-api-key") or ""
        return given.removeprefix("Bearer ") == self.api_key

    def _guard(self, handler: Callable[[Recorded], Reply], request: Recorded) -> Reply:
        try:
            return handler(request)
        except LlamaError as err:
            return self._error(err)

    def _failure(self, kind: Literal["http_500", "unreadable"], request: Recorded) -> Reply:
        if kind == "http_500":
            return self._error(LlamaError(500, "server_error", "fake failure: the slot crashed (scripted by the test)"))
        chat = {"id": "chatcmpl-x", "object": "chat.completion", "choices": [
            {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "A chat completion."}}]}
        return json_reply(200, _dump(chat))

    # --- info routes ---------------------------------------------------------------------------------

    def _props(self) -> JSONObject:
        return {"default_generation_settings": {"params": {"n_predict": -1, "temperature": 0.8},
                                                "n_ctx": self.n_ctx},
                "total_slots": self.parallel, "model_alias": self.alias, "model_path": f"/models/{self.alias}.gguf",
                "modalities": {"vision": self.vision, "video": False, "audio": False},
                "chat_template": "{{ messages }}", "chat_template_caps": self._caps(), "bos_token": "",
                "eos_token": "<|im_end|>", "build_info": "b0000-fake", "is_sleeping": False}

    def _caps(self) -> JSONObject:
        """common_chat_templates_get_caps: what the template can render (b11434 lists these nine)."""
        tools = self.tool_template
        return {"supports_object_arguments": tools, "supports_parallel_tool_calls": tools,
                "supports_preserve_reasoning": False, "supports_reasoning_effort": False,
                "supports_string_content": True, "supports_system_role": True, "supports_tool_calls": tools,
                "supports_tools": tools, "supports_typed_content": False}

    def _models(self) -> JSONObject:
        meta = {"vocab_type": 2, "n_vocab": 151936, "n_ctx": self.n_ctx, "n_ctx_train": self.n_ctx_train,
                "n_embd": 2560, "n_params": 4_022_468_096, "size": 2_497_280_256, "ftype": "Q4_K - Medium"}
        listing = {"name": self.alias, "model": self.alias, "modified_at": "", "size": "", "digest": "",
                   "type": "model", "description": "", "tags": [""], "capabilities": ["completion"],
                   "parameters": "", "details": {"parent_model": "", "format": "gguf", "family": "", "families": [""],
                                                 "parameter_size": "", "quantization_level": ""}}
        return {"models": [listing], "object": "list", "data": [
            {"id": self.alias, "aliases": [self.alias], "tags": [], "object": "model", "created": 0,
             "owned_by": "llamacpp", "meta": meta}]}

    # --- /v1/messages and count_tokens ---------------------------------------------------------------

    def _parse(self, request: Recorded) -> tuple[JSONObject, JSONObject, list[str]]:
        text = request.raw.decode("utf-8", errors="replace")
        try:
            body = json.loads(text)
        except json.JSONDecodeError as err:
            what = ("attempting to parse an empty input; check that your input string or stream contains the "
                    "expected JSON" if not text.strip() else "syntax error while parsing value")
            raise LlamaError(400, "invalid_request_error", f"[json.exception.parse_error.101] parse error at line "
                             f"{err.lineno}, column {err.colno}: {what}") from None  # 400 in b11434 (QUIRKS.md)
        oai = convert(body)
        check(oai, jinja=self.jinja, vision=self.vision)
        if not self.tool_template:  # the fallback template renders no tools: they are gone, and nothing says so
            oai.pop("tools", None)
        system, tools, turns = render_turns(oai)
        return body, oai, tokenize(render(system, tools, turns))

    def _count(self, request: Recorded) -> Reply:
        _, _, prompt = self._parse(request)
        return json_reply(200, _dump({"input_tokens": len(prompt)}))

    def _messages(self, request: Recorded) -> Reply:
        body, oai, prompt = self._parse(request)
        if body.get("stream"):
            raise LlamaError(501, "not_supported_error", "fake llama-server: streaming is not played; call "
                             "messages.create without stream=True")
        if len(prompt) >= self.n_ctx:
            raise LlamaError(400, "exceed_context_size_error", f"request ({len(prompt)} tokens) exceeds the "
                             f"available context size ({self.n_ctx} tokens), try increasing it",
                             n_prompt_tokens=len(prompt), n_ctx=self.n_ctx)
        limit = oai.get("max_tokens")
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, (int, float))):
            kind = {str: "string", dict: "object", list: "array", bool: "boolean"}[type(limit)]
            raise LlamaError(400, "invalid_request_error", "Field 'max_tokens': [json.exception.type_error.302] type "
                             f"must be number, but is {kind}")  # params_from_json's handle_with_catch
        seen = view(oai, body)
        self.seen.append(seen)
        try:
            reply = self.brain(seen)
        except Exception as err:
            raise LlamaError(500, "server_error", f"fake brain raised {type(err).__name__}: {err}") from err
        budget = min(int(oai.get("max_tokens") or 4096), self.n_ctx - len(prompt) - 1)
        blocks, stop, out = _limit(reply, budget)
        cached = self.cache.reuse(prompt)
        self.cache.remember(prompt + out)
        return json_reply(200, _dump(self._body(reply, blocks, stop, len(prompt), cached, len(out))))

    def _body(self, reply: BrainReply, blocks: list[JSONObject], stop: str, n_prompt: int, cached: int,
              n_decoded: int) -> JSONObject:
        content: list[JSONObject] = []
        text = "".join(str(b["text"]) for b in blocks if b["type"] == "text")
        if reply.thinking and self.reasoning:
            content.append({"type": "thinking", "thinking": reply.thinking, "signature": ""})
        elif reply.thinking:  # --reasoning-format none: the thinking stays in the text
            text = f"<think>{reply.thinking}</think>{text}"
        if text:
            content.append({"type": "text", "text": text})
        calls = [b for b in blocks if b["type"] == "tool_use"]
        content += [{"type": "tool_use", "id": self._call_id(c), "name": c["name"], "input": _arguments(c["input"])}
                    for c in calls]
        usage: JSONObject = {"input_tokens": n_prompt, "output_tokens": n_decoded}
        if self.usage == "split":
            usage = {"cache_read_input_tokens": cached, "input_tokens": n_prompt - cached, "output_tokens": n_decoded}
        word = reply.stop_word if stop == "stop_word" else None
        return {"id": f"chatcmpl-{self._random_string()}", "type": "message", "role": "assistant",
                "content": content, "model": self.alias, "stop_reason": stop_reason(stop, bool(calls)),
                "stop_sequence": word or None, "usage": usage}

    def _random_string(self) -> str:
        with self._id_lock:
            return "".join(self._random.choice(_ALNUM) for _ in range(32))

    def _call_id(self, call: JSONObject) -> str:
        """ensure_tool_call_ids_set: an id the model wrote is kept; otherwise gen_tool_call_id makes one."""
        given = str(call.get("id") or "")
        return given if self.model_ids and given else self._random_string()

    def _error(self, err: LlamaError, *, order: str = "cmt") -> Reply:
        """res->error(): {"error": {...}} with the status from its code. The middlewares write the fields
        in another order (message, type, code)."""
        body = err.body()
        if order == "mtc":
            inner = body["error"]
            body = {"error": {"message": inner["message"], "type": inner["type"], "code": inner["code"]}}
        return json_reply(err.status, _dump(body))


def _arguments(arguments: object) -> object:
    """to_json_anthropic parses the call's argument text; text that is not JSON becomes {}."""
    if not isinstance(arguments, str):
        return arguments
    try:
        return json.loads(arguments)
    except ValueError:
        return {}


def _limit(reply: BrainReply, budget: int) -> tuple[list[JSONObject], str, list[str]]:
    """n_predict (max_tokens) and the context's end both stop generation at the limit (STOP_TYPE_LIMIT)."""
    pieces = [str(b.get("text", "")) if b["type"] == "text" else f"{b.get('name', '')}{_dump(b.get('input', {}))}"
              for b in reply.blocks]
    tokens = tokenize((reply.thinking or "") + "".join(pieces))
    if len(tokens) <= budget:
        return list(reply.blocks), reply.stop, tokens
    kept = "".join(tokenize("".join(str(b.get("text", "")) for b in reply.blocks if b["type"] == "text"))[:budget])
    return ([{"type": "text", "text": kept}] if kept else []), "length", tokens[:max(budget, 0)]
