"""The local path against the real llama.cpp `llama-server` (build b11434) serving a real model, Gemma 3 270M.

Built by scripts/local_server.py (CI does it before the suite; here the tests skip without it, and fail under
ATLAS_REQUIRE_LLAMA_SERVER=1). What is asserted is atlas_kit's side, whatever this small model writes: a template
that cannot carry tools is refused before any episode, a prompt counted in parts is recorded whole, a model that
never finishes a turn is stopped after two episodes, and the fake (tests/fakes/llamacpp.py) answers in the real
server's shapes. The server runs with --temp 0 and a fixed seed, so its answers repeat.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import httpx2
import pytest
from fakes import LlamaCppFake
from llama_server import BUILD, MODEL_ALIAS, serve

from atlas_kit import Bounds, Dispatcher, Task, Tool, run_agent
from atlas_kit.cli import main
from atlas_kit.models.choose import choose_model
from atlas_kit.models.provider import ProviderError

ROOT = Path(__file__).resolve().parent.parent
CONTEXT = 4096
SAMPLING = ("--temp", "0", "--seed", "0")


@pytest.fixture(scope="module")
def server():
    """One real server for the module, with a template that carries tools."""
    with serve(context=CONTEXT, extra=SAMPLING) as url:
        yield url


# --- the preflight ------------------------------------------------------------------------------------------

def test_a_model_file_with_no_template_is_refused_before_any_episode(tmp_path, capsys):
    with serve(template=None, context=512) as url:  # llama-server falls back to a plain ChatML template
        props = httpx2.get(f"{url}/props").json()
        code = main(["experiment", "--model", f"llamacpp:{MODEL_ALIAS}", "--base-url", url, "--styles", "contract",
                     "--tickets", "T01", "--trials", "1", "--no-progress", "--no-charts", "--out", str(tmp_path)])
    err = capsys.readouterr().err.strip().splitlines()
    assert props["chat_template_caps"]["supports_tools"] is False and props["build_info"].startswith(BUILD)
    assert code == 2 and len(err) == 1 and "--chat-template-file" in err[0], err
    assert not (tmp_path / "experiment.jsonl").exists()


def test_the_preflight_reads_the_window_and_the_build(server):
    choice = choose_model(f"llamacpp:{MODEL_ALIAS}", base_url=server)
    found = choice.provider.preflight(choice.model, prompt_tokens=1000)
    assert found.context_window == CONTEXT and found.server_build.startswith(BUILD)
    with pytest.raises(ProviderError, match="4,096 tokens .*-c 16384"):
        choice.provider.preflight(choice.model, prompt_tokens=CONTEXT + 1)


# --- an episode ---------------------------------------------------------------------------------------------

def _invoice_task() -> Task:
    """A one-tool task: a short prompt, so the server's first (uncached) read of it is quick."""
    lookup = Tool("get_invoice", "Look up an invoice by its id.",
                  {"type": "object", "properties": {"invoice_id": {"type": "string"}}, "required": ["invoice_id"]},
                  lambda args, ctx: {"invoice_id": args["invoice_id"], "total": "$120.00"})
    return Task("You answer billing questions with the tools.", "What is the total of INV-20411?",
                Dispatcher([lookup]))


def test_an_episode_records_the_whole_prompt_including_what_the_cache_read(server):
    choice = choose_model(f"llamacpp:{MODEL_ALIAS}", base_url=server)
    task = _invoice_task()
    exact = choice.client.messages.count_tokens(  # the server's own tokenizer
        model=choice.model, system=task.system, tools=task.dispatcher.definitions(),
        messages=[{"role": "user", "content": task.message}]).input_tokens
    # 12 tokens, then one retry at 16 (the loop's answer to a reply cut off at max_tokens): the retry sends the same
    # prompt, which the server finds in its cache and reports as cache_read_input_tokens.
    run = run_agent(choice.client, task, model=choice.model, source=choice.source,
                    bounds=Bounds(max_tokens=12, retry_max_tokens=16))
    assert run.trace.of_kind("max_tokens_retry"), "the first reply should have been cut off at 12 tokens"
    assert run.steps == 2 and run.stop_reason == "truncated" and run.input_tokens == 2 * exact
    assert choice.source.label.startswith(f"live (local: {MODEL_ALIAS} via llama.cpp")


def test_chapter_01_runs_on_the_real_server_and_says_what_this_model_did(server, tmp_path, monkeypatch, kernel_name):
    # Chapter 01's live part on a model that never ends its turn: four single runs of T07, then a sweep that the
    # guard stops after two episodes ran to max_tokens with nothing done (the CLI's one line: test_local_models).
    papermill = pytest.importorskip("papermill")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("ATLAS_BASE_URL", server)
    chapter = ROOT / "chapters" / "01_an_error_is_a_prompt.ipynb"
    papermill.execute_notebook(str(chapter), str(tmp_path / chapter.name), cwd=str(chapter.parent),
                               parameters={"model": f"llamacpp:{MODEL_ALIAS}", "max_tokens": 4},
                               kernel_name=kernel_name, progress_bar=False, engine_name="atlas",
                               request_save_on_cell_execute=False)
    ran = json.loads((tmp_path / chapter.name).read_text())
    shown = "\n".join("".join(o.get("text", "")) + "".join(o.get("data", {}).get("text/markdown", ""))
                      for c in ran["cells"] for o in c.get("outputs", []))
    assert f"live (local: {MODEL_ALIAS} via llama.cpp" in shown and "simulated" not in shown.split("This run")[1][:200]
    # the prose about this run is computed from it: whatever the model did, its count and stop reasons are stated
    said = re.search(r"This run\*\*, live \(local: [^)]*\): (\d) of 4 wordings ended correct\. Stop reasons: ([^.]*)\.",
                     shown)
    assert said is not None, "chapter 01 should state this run's outcome"
    stopped = re.search(r"The sweep stopped \(runaway\): stopped: the first 2 episodes each ran to max_tokens without "
                        r"calling a tool or answering[^\n]*", shown)
    assert stopped is not None and "--chat-template-file" in stopped.group(0), "the sweep should stop, said in one line"


# --- the fake against the real server -----------------------------------------------------------------------

_TOOL = {"name": "get_invoice", "description": "Look up an invoice by its id.",
         "input_schema": {"type": "object", "properties": {"invoice_id": {"type": "string"}},
                          "required": ["invoice_id"]}}
_BODY = {"model": MODEL_ALIAS, "max_tokens": 8, "system": "You answer billing questions.", "tools": [_TOOL],
         "messages": [{"role": "user", "content": "What is the total of INV-20411?"}]}
# (what, method, path, JSON body or raw bytes): each sent to both servers in this order
REQUESTS: list[tuple[str, str, str, object]] = [
    ("count_tokens", "POST", "/v1/messages/count_tokens", _BODY),
    ("a message", "POST", "/v1/messages", _BODY),
    ("the same message, its prompt cached", "POST", "/v1/messages", _BODY),
    ("max_tokens as text", "POST", "/v1/messages", {**_BODY, "max_tokens": "eight"}),
    ("no messages", "POST", "/v1/messages", {"model": MODEL_ALIAS, "max_tokens": 8}),
    ("a body that is not JSON", "POST", "/v1/messages", b"{not json"),
    ("a prompt over the window", "POST", "/v1/messages",
     {**_BODY, "messages": [{"role": "user", "content": "word " * (2 * CONTEXT)}]}),
    ("an unknown route", "GET", "/v1/nothing", None),
    ("health", "GET", "/health", None),
]


def _shape(response: httpx2.Response) -> dict[str, object]:
    """What a client reads from an answer besides the model's words: status, fields, error type, usage fields."""
    body = response.json()
    error = body.get("error") if isinstance(body.get("error"), dict) else None
    return {"status": response.status_code, "content_type": response.headers.get("content-type", "").split(";")[0],
            "fields": sorted(body), "error_fields": sorted(error) if error else None,
            "error_type": error.get("type") if error else None, "stop_reason": body.get("stop_reason"),
            "usage": sorted(body["usage"]) if isinstance(body.get("usage"), dict) else None,
            "block_types": sorted({b["type"] for b in body.get("content") or []}) if "content" in body else None}


def _send(url: str) -> dict[str, dict[str, object]]:
    shapes = {}
    with httpx2.Client(base_url=url, timeout=120) as http:
        for what, method, path, body in REQUESTS:
            if isinstance(body, bytes):
                answer = http.request(method, path, content=body, headers={"content-type": "application/json"})
            else:
                answer = http.request(method, path, json=body)
            shapes[what] = _shape(answer)
    return shapes


def test_the_fake_answers_in_the_real_servers_shapes(server):
    real = _send(server)
    with LlamaCppFake(n_ctx=CONTEXT, alias=MODEL_ALIAS) as fake:
        played = _send(fake.base_url)
    # The model's words differ (the fake's brain is the stand-in), so a text block may be a tool call there;
    # everything else a client reads must agree.
    for what in real:
        real[what].pop("block_types"), played[what].pop("block_types")
    assert played == real
