"""Local models (issue 24) through the real SDK, against fakes of Ollama's and llama-server's Anthropic layers.

No model runs here: tests/fakes plays each server's documented behaviour (QUIRKS.md cites the code), with the
offline stand-in as the brain behind it. What is asserted is atlas_kit's side: the spelling, the labels, that no
key reaches a local server, each preflight failure as one line, each quirk handled, the truncation warning, and a
sweep that is labelled local, costs nothing and says how long it will take.
"""
from __future__ import annotations

import json
import re
import warnings

import anthropic
import pytest
from fakes import LlamaCppFake, OllamaFake, OllamaModel, empty_stop, fixed, thinking_first, tool_call
from fakes.brains import BrainReply

from atlas_kit import run_agent
from atlas_kit.atlas import atlas_session, grade
from atlas_kit.cli import main
from atlas_kit.models.choose import choose_model
from atlas_kit.models.registry import parse_model
from atlas_kit.models.provider import ProviderError
from atlas_kit.models.providers import _watch
from atlas_kit.models.providers._watch import ContextWarning
from atlas_kit.models.providers.llamacpp import LlamaCpp
from atlas_kit.models.providers.ollama import Ollama

KEY = "sk-" + "ant-" + "api03-" + "LOCALTESTKEY" + "0123456789abcdef"  # built from pieces: no literal key in the repo
MODEL = "qwen3:4b"


@pytest.fixture(autouse=True)
def a_key_in_the_environment(monkeypatch):
    """Every test runs with a real-looking key set: none may ever reach a local server."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_CUSTOM_HEADERS", f"X-Gateway-Token: {KEY}\nAuthorization: Bearer {KEY}")
    monkeypatch.delenv("ATLAS_MODEL", raising=False)
    monkeypatch.delenv("ATLAS_BASE_URL", raising=False)
    monkeypatch.delenv("OLLAMA_HOST", raising=False)


def _no_key_reached(fake) -> None:
    assert fake.requests, "the fake saw no request"
    for request in fake.requests:
        assert KEY not in json.dumps(request.headers) and KEY.encode() not in request.raw, request.path
        assert "authorization" not in request.headers and "x-api-key" not in request.headers
        assert "x-gateway-token" not in request.headers


# --- the spelling ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, server, model", [
    ("ollama:qwen3:4b", "ollama", "qwen3:4b"), ("llamacpp:qwen3-4b", "llamacpp", "qwen3-4b"),
    ("offline", "standin", "atlas-offline-1"), ("claude-sonnet-5-5", "anthropic", "claude-sonnet-5-5"),
])
def test_a_model_is_spelt_the_same_everywhere(text, server, model):
    assert (parse_model(text).server, parse_model(text).model) == (server, model)


def test_a_bare_name_with_a_base_url_is_another_compatible_server_and_an_empty_local_name_is_refused():
    assert parse_model("qwen3", base_url="http://127.0.0.1:1234").server == "compatible"
    with pytest.raises(ValueError, match=r"names no model: write ollama:<model>, such as ollama:qwen3:4b"):
        parse_model("ollama:")
    for bare in ("ollama", "llamacpp"):  # the server alone, no model: refused, never a Claude call or the stand-in
        with pytest.raises(ValueError, match=rf"^'{bare}' names no model: write {bare}:<model>"):
            parse_model(bare)


@pytest.mark.parametrize("text", ["qwen3:4b", "llama3.2:3b", "gpt-oss:20b"])
def test_a_local_models_name_without_its_server_is_refused_with_the_spelling_that_works(text):
    with pytest.raises(ValueError, match=rf"^'{re.escape(text)}' is not a Claude model's name: a model Ollama serves is "
                                         rf"written ollama:{re.escape(text)}, one llama.cpp serves is written llamacpp:"):
        parse_model(text)
    assert parse_model(text, base_url="http://127.0.0.1:1234").server == "compatible"  # another server's, by address


def test_the_env_and_the_chapters_parameter_take_the_same_spelling(monkeypatch):
    with OllamaFake(models=[MODEL]) as fake:
        monkeypatch.setenv("ATLAS_MODEL", f"ollama:{MODEL}")
        monkeypatch.setenv("ATLAS_BASE_URL", fake.base_url)
        choice = choose_model()
        assert isinstance(choice.provider, Ollama) and choice.provider.base_url == fake.base_url
        assert choice.source.label.startswith(f"live (local: {MODEL} via Ollama, ")
        assert choice.source.local and not choice.source.costs_money and choice.mode == "live"


@pytest.mark.parametrize("value, url", [
    ("0.0.0.0", "http://0.0.0.0:11434"), ("127.0.0.1:11500", "http://127.0.0.1:11500"), (":11500", "http://127.0.0.1:11500"),
    ("http://gpu-box", "http://gpu-box:80"), ("https://ollama.example.com/", "https://ollama.example.com:443"),
    (" 'localhost:9999' ", "http://localhost:9999"), ("[::1]:11434", "http://[::1]:11434"), ("::1", "http://[::1]:11434"),
    ("gpu-box:notaport", "http://gpu-box:11434"), ("", None), ("  ", None),
])
def test_ollama_host_is_read_as_ollamas_own_client_reads_it(value, url):
    from atlas_kit.models.providers.ollama import ollama_host
    assert ollama_host(value) == url


def test_ollama_is_found_where_ollama_host_says_unless_an_address_is_given(monkeypatch):
    with OllamaFake(models=[MODEL]) as fake:
        monkeypatch.setenv("OLLAMA_HOST", fake.base_url.removeprefix("http://"))  # as people set it: host:port
        choice = choose_model(f"ollama:{MODEL}")
        assert choice.provider.base_url == fake.base_url
        _preflight(choice.provider)
        with OllamaFake(models=[MODEL]) as other:
            monkeypatch.setenv("ATLAS_BASE_URL", other.base_url)  # the course's own setting comes first
            assert choose_model(f"ollama:{MODEL}").provider.base_url == other.base_url
            assert Ollama(fake.base_url).base_url == fake.base_url
    with pytest.raises(ProviderError, match=r"start it with `ollama serve`, or check OLLAMA_HOST \(the address came "
                                            r"from it\)\.$"):
        _preflight(Ollama())
    monkeypatch.setenv("OLLAMA_HOST", "ftp://nowhere")
    with pytest.raises(ProviderError, match=r"^OLLAMA_HOST \('ftp://nowhere', read as Ollama reads it\) must be an http"):
        Ollama()


# --- a run ------------------------------------------------------------------------------------------------

def test_a_run_on_ollama_is_labelled_local_costs_nothing_and_no_key_reaches_the_server():
    with OllamaFake(models=[MODEL]) as fake:
        choice = choose_model(f"ollama:{MODEL}", base_url=fake.base_url)
        run = run_agent(choice.client, atlas_session("T04", style="contract", seed=0), model=choice.model,
                        source=choice.source)
    assert run.stop_reason == "finished" and run.steps >= 2
    assert run.cost_usd == 0.0 and run.input_tokens > 0 and not run.notes  # the server's counts, never priced
    assert "via Ollama" in str(run)
    _no_key_reached(fake)


def test_ollama_drops_is_error_so_each_style_must_read_as_an_error_by_its_text_alone():
    for style in ("raw", "generic", "contract"):
        with OllamaFake(models=[MODEL]) as fake:
            choice = choose_model(f"ollama:{MODEL}", base_url=fake.base_url)
            run = run_agent(choice.client, atlas_session("T04", style=style, seed=0), model=choice.model,
                            source=choice.source)
        results = [b for view in fake.seen for m in view["messages"] if isinstance(m["content"], list)
                   for b in m["content"] if b["type"] == "tool_result"]
        assert results and not any("is_error" in b for b in results), style  # the flag never reached the model
        assert run.tool_errors, style  # atlas_kit's own trace still knows which calls failed
    # the stand-in reads the contract body's text and follows it, flag or no flag: T04 is right in contract style
    assert grade(run).correct, grade(run).reasons


def test_llama_server_runs_the_same_and_sends_no_key():
    with LlamaCppFake() as fake:
        choice = choose_model("llamacpp:qwen3-4b", base_url=fake.base_url)
        run = run_agent(choice.client, atlas_session("T01", style="contract", seed=0), model=choice.model,
                        source=choice.source)
    assert run.stop_reason == "finished" and "via llama.cpp" in choice.source.label and run.cost_usd == 0.0
    _no_key_reached(fake)


def test_a_prompt_counted_in_parts_is_recorded_whole():
    # With its cache warm, llama-server may report {"input_tokens": 5, "cache_read_input_tokens": 225}: the run's
    # prompt tokens are the whole prompt either way.
    runs = {}
    for usage in ("full", "split"):
        with LlamaCppFake(usage=usage) as fake:
            choice = choose_model("llamacpp:qwen3-4b", base_url=fake.base_url)
            runs[usage] = run_agent(choice.client, atlas_session("T04", style="contract", seed=0),
                                    model=choice.model, source=choice.source)
    # more than one call: the second finds the first's prompt in the slot, so "split" reports most of it as cached
    assert runs["full"].steps > 1 and runs["split"].input_tokens == runs["full"].input_tokens


def test_odd_answers_are_recorded_never_a_traceback():
    session = lambda: atlas_session("T05", style="contract", seed=0)  # noqa: E731
    with OllamaFake(models=[MODEL], brain=empty_stop("Thinking about it")) as fake:  # no stop reason at all
        run = run_agent(choose_model(f"ollama:{MODEL}", base_url=fake.base_url).client, session(), model=MODEL)
    assert run.stop_reason == "unknown_stop" and run.trace.of_kind("stopped")[0]["model_stop_reason"] == ""
    thinks = {MODEL: OllamaModel(capabilities=("completion", "tools", "thinking"))}
    with OllamaFake(models=thinks, brain=thinking_first("Let me look.", "Your invoices are fine.")) as fake:
        run = run_agent(choose_model(f"ollama:{MODEL}", base_url=fake.base_url).client, session(), model=MODEL)
    assert run.stop_reason == "finished" and run.final_text == "Your invoices are fine."
    assert run.messages[1]["content"][0]["type"] == "thinking"  # kept, and sent back as it came
    brain = tool_call("get_account", '{"account_id": "ACC-4471"', then="Sorry, I could not read that.")
    with OllamaFake(models=[MODEL], brain=brain) as fake:  # arguments written as text, not an object
        run = run_agent(choose_model(f"ollama:{MODEL}", base_url=fake.base_url).client, session(), model=MODEL)
    first = run.messages[1]["content"][-1]
    assert first["type"] == "tool_use" and first["id"].startswith("call_")  # Ollama's own id format, accepted
    assert run.stop_reason == "finished" and run.api_failure is None


def test_llama_server_tool_input_that_is_not_json_becomes_an_argument_error_for_the_model():
    brain = tool_call("get_account", "ACC-4471 please", then="I need the id in the right form.")
    with LlamaCppFake(brain=brain) as fake:
        run = run_agent(choose_model("llamacpp:q", base_url=fake.base_url).client,
                        atlas_session("T05", style="contract", seed=0), model="q")
    assert run.api_failure is None and run.stop_reason == "finished"


# --- preflight: one line each, before any episode -----------------------------------------------------------

def _preflight(provider, model=MODEL, tokens=2000):
    return provider.preflight(model, prompt_tokens=tokens)


def test_preflight_says_ollama_is_not_running_and_how_to_start_it():
    with OllamaFake() as fake:
        url = fake.base_url
    with pytest.raises(ProviderError, match=rf"^Ollama is not running at {url}: start it with `ollama serve`\.$"):
        _preflight(Ollama(url))


def test_preflight_says_which_model_to_pull():
    with OllamaFake(models=["llama3.2:3b"]) as fake:
        with pytest.raises(ProviderError, match=rf"qwen3:4b is not pulled on Ollama at {fake.base_url}: run "
                                                r"`ollama pull qwen3:4b`\."):
            _preflight(Ollama(fake.base_url))


def test_preflight_refuses_a_model_that_cannot_use_tools():
    models = {"gemma3:270m": OllamaModel(family="gemma3", capabilities=("completion",))}
    with OllamaFake(models=models) as fake:
        with pytest.raises(ProviderError, match=r"gemma3:270m cannot use tools on Ollama .*such as qwen3:4b"):
            _preflight(Ollama(fake.base_url), "gemma3:270m")


def test_preflight_reads_the_window_from_the_modelfile_and_refuses_one_too_small():
    models = {MODEL: OllamaModel(num_ctx=1024)}
    with OllamaFake(models=models) as fake:
        with pytest.raises(ProviderError, match=r"context window on Ollama is 1,024 tokens \(num_ctx in its "
                                                r"Modelfile\), smaller than .*OLLAMA_CONTEXT_LENGTH"):
            _preflight(Ollama(fake.base_url))
        assert _preflight(Ollama(fake.base_url), tokens=800).context_window == 1024


def test_preflight_notes_a_window_ollama_does_not_state():
    with OllamaFake(models=[MODEL]) as fake:
        found = _preflight(Ollama(fake.base_url))
    assert found.context_window is None and "OLLAMA_CONTEXT_LENGTH=16384 ollama serve" in found.notes[0]


def test_preflight_says_llama_server_needs_jinja_for_tools():
    with LlamaCppFake(jinja=False) as fake:
        with pytest.raises(ProviderError, match=r"cannot use tools: restart it with --jinja"):
            _preflight(LlamaCpp(fake.base_url))


def test_a_template_that_drops_tools_is_refused_in_one_line_before_any_episode(tmp_path, capsys):
    with LlamaCppFake(tool_template=False) as fake:
        code = main([*SWEEP, "--model", "llamacpp:gemma", "--base-url", fake.base_url, "--out", str(tmp_path)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "chat_template_caps.supports_tools is false" in err[0], err
    assert "--chat-template-file" in err[0] and "Traceback" not in err[0]
    assert not [r for r in fake.requests if r.path == "/v1/messages"]


def test_the_preflight_reads_the_servers_build():
    with LlamaCppFake() as fake:
        assert _preflight(LlamaCpp(fake.base_url)).server_build == "b0000-fake"


def test_preflight_reads_llama_servers_window_from_props():
    with LlamaCppFake(n_ctx=2048) as fake:
        with pytest.raises(ProviderError, match=r"is 2,048 tokens \(default_generation_settings.n_ctx in /props\)"):
            _preflight(LlamaCpp(fake.base_url), tokens=3000)
        assert _preflight(LlamaCpp(fake.base_url), tokens=1000).context_window == 2048


def test_preflight_says_llama_server_is_still_loading():
    with LlamaCppFake(loading=True) as fake:
        with pytest.raises(ProviderError, match="still loading its model"):
            _preflight(LlamaCpp(fake.base_url))


def test_preflight_says_when_another_program_answers_on_the_port():
    with LlamaCppFake() as fake:  # llama-server where Ollama was expected: /api/version is not its route
        with pytest.raises(ProviderError, match=r"does not answer /api/version as Ollama does .* ATLAS_BASE_URL"):
            _preflight(Ollama(fake.base_url))


def test_a_bad_address_is_one_line():
    with pytest.raises(ProviderError, match="must be an http:// or https:// address"):
        choose_model("ollama:qwen3:4b", base_url="localhost:11434")


# --- the window: a prompt cut silently --------------------------------------------------------------------

def test_a_prompt_cut_to_fit_the_window_is_warned_once_naming_the_setting():
    models = {MODEL: OllamaModel()}
    with OllamaFake(models=models, num_ctx=700, usage="full") as fake:  # the window the server runs with
        choice = choose_model(f"ollama:{MODEL}", base_url=fake.base_url)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for ticket in ("T04", "T19"):
                run_agent(choice.client, atlas_session(ticket, style="raw", seed=0), model=MODEL,
                          source=choice.source)
    cut = [w for w in caught if issubclass(w.category, ContextWarning)]
    assert len(cut) == 1 and "OLLAMA_CONTEXT_LENGTH=16384" in str(cut[0].message)
    assert "estimated at about 4 characters a token" in str(cut[0].message)


def test_a_cut_is_caught_even_when_the_server_counts_only_what_its_cache_missed():
    # Ollama 0.30's usage: only uncached tokens. The window is not in the Modelfile, so the preflight cannot read
    # it; the watch asks /api/ps once the model is loaded, and a later request longer than the window is warned.
    with OllamaFake(models=[MODEL], num_ctx=1500, usage="uncached") as fake:
        choice = choose_model(f"ollama:{MODEL}", base_url=fake.base_url)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            run = run_agent(choice.client, atlas_session("T19", style="contract", seed=0), model=MODEL,
                            source=choice.source)
    cut = [w for w in caught if issubclass(w.category, ContextWarning)]
    assert len(cut) == 1 and "1,500-token context window" in str(cut[0].message)
    # what the cut did: the customer's message fell out of the prompt, so the stand-in no longer saw a ticket
    assert fake.seen[-1]["messages"][0]["role"] != "user" or "SKU-2041" not in json.dumps(fake.seen[-1]["messages"][0])
    assert not grade(run).correct


class _OldOllama(OllamaFake):
    """An Ollama whose /api/ps does not say the window a loaded model runs with: only the counts can tell."""

    def _running(self, key):
        running = super()._running(key)
        del running["context_length"]
        return running


@pytest.mark.parametrize("usage", ["full", "uncached", "split"])
def test_a_cut_is_warned_from_the_counts_alone_when_no_window_is_stated(usage, tmp_path, capsys):
    # A 40-token window: the server reports about 37 input tokens for a request of about 1,650 (issue 48's case).
    _watch._SENT.clear()  # what this process has sent to each address: a fresh start, whatever ran before
    with _OldOllama(models=[MODEL], num_ctx=40, usage=usage) as fake:
        code = main([*SWEEP, "--model", f"ollama:{MODEL}", "--base-url", fake.base_url, "--out", str(tmp_path)])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "probably cut the prompt" in out.err and "no earlier request from here" in out.err
    assert "those episodes saw part of the conversation" in out.out + out.err


def test_the_prompt_cache_alone_is_not_mistaken_for_a_cut():
    with OllamaFake(models=[MODEL], num_ctx=32768, usage="uncached") as fake:  # reports only what it evaluated
        choice = choose_model(f"ollama:{MODEL}", base_url=fake.base_url)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for ticket in ("T04", "T19", "T21"):
                run_agent(choice.client, atlas_session(ticket, style="contract", seed=0), model=MODEL,
                          source=choice.source)
    assert not [w for w in caught if issubclass(w.category, ContextWarning)]


def test_another_clients_warm_cache_is_not_mistaken_for_a_cut():
    # Two choices (two watches) against one server: the second's first request finds the system prompt and the
    # tools in the server's cache, from the first's requests; the server reports only what it evaluated.
    with OllamaFake(models=[MODEL], num_ctx=32768, usage="uncached") as fake:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for _ in range(2):
                choice = choose_model(f"ollama:{MODEL}", base_url=fake.base_url)
                for ticket in ("T04", "T19"):
                    run_agent(choice.client, atlas_session(ticket, style="raw", seed=0), model=MODEL,
                              source=choice.source)
    assert not [w for w in caught if issubclass(w.category, ContextWarning)]


# --- a sweep from the command line ------------------------------------------------------------------------

SWEEP = ["experiment", "--styles", "contract", "--faults", "on", "--tickets", "T01,T04", "--trials", "2",
         "--no-progress", "--no-charts"]  # charts: test_cli.py


def test_a_local_sweep_completes_labelled_local_at_no_cost_with_a_time_estimate(tmp_path, capsys):
    with OllamaFake(models=[MODEL]) as fake:
        code = main([*SWEEP, "--model", f"ollama:{MODEL}", "--base-url", fake.base_url, "--out", str(tmp_path)])
    out = capsys.readouterr()
    assert code == 0, out.err
    records = [json.loads(line) for line in (tmp_path / "experiment.jsonl").read_text().splitlines()]
    assert len(records) == 4 and {r["source_server"] for r in records} == {"Ollama"}
    assert all(r["source"].startswith(f"live (local: {MODEL} via Ollama") and r["cost_usd"] == 0 for r in records)
    assert "Cost estimate" not in out.out and "The first episode took" in out.out + out.err
    assert "local" in out.out
    _no_key_reached(fake)


def _babbler(view):
    """A model that never ends its turn: each reply runs on until the server stops it at max_tokens."""
    return BrainReply(({"type": "text", "text": "and then " * 5000},), "eos")


def test_a_model_that_never_finishes_is_stopped_after_two_episodes_in_one_line(tmp_path, capsys):
    with LlamaCppFake(brain=_babbler, n_ctx=16384) as fake:
        code = main([*SWEEP[:-6], "--tickets", "T01,T04,T05,T06", "--trials", "1", "--no-progress", "--no-charts",
                     "--model", "llamacpp:gemma", "--base-url", fake.base_url, "--out", str(tmp_path)])
    err = capsys.readouterr().err.strip().splitlines()
    calls = [json.loads(r.raw) for r in fake.requests if r.path == "/v1/messages"]
    assert code == 2 and err[-1].startswith("atlas-kit experiment: stopped: the first 2 episodes"), err
    assert "--chat-template-file" in err[-1] and "--max-tokens" in err[-1]
    # two episodes, each a first call at the local default and its one retry; the other two never started
    assert [c["max_tokens"] for c in calls] == [1024, 2048, 1024, 2048]
    records = [json.loads(line) for line in (tmp_path / "experiment.jsonl").read_text().splitlines()]
    assert [r["stop_reason"] for r in records] == ["truncated", "truncated"]


def test_max_tokens_caps_every_reply_of_a_sweep(tmp_path, capsys):
    with LlamaCppFake(brain=_babbler, n_ctx=16384) as fake:
        code = main([*SWEEP, "--max-tokens", "64", "--model", "llamacpp:gemma", "--base-url", fake.base_url,
                     "--out", str(tmp_path)])
    calls = [json.loads(r.raw) for r in fake.requests if r.path == "/v1/messages"]
    assert code == 2 and [c["max_tokens"] for c in calls] == [64, 64], capsys.readouterr().err


def test_each_preflight_failure_is_one_line_and_exit_2_before_any_episode(tmp_path, capsys):
    with OllamaFake(models=["llama3.2:3b"]) as fake:
        code = main([*SWEEP, "--model", f"ollama:{MODEL}", "--base-url", fake.base_url, "--out", str(tmp_path)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "ollama pull qwen3:4b" in err[0] and "Traceback" not in err[0]
    assert not [r for r in fake.requests if r.path == "/v1/messages"] and not (tmp_path / "experiment.jsonl").exists()


@pytest.mark.parametrize("extra, words", [(["--via", "batch"], "drop --via batch"),
                                          (["--budget", "1"], "drop --budget")])
def test_batches_and_budgets_are_refused_for_a_local_model_in_one_line(tmp_path, capsys, extra, words):
    with OllamaFake(models=[MODEL]) as fake:
        code = main([*SWEEP, "--model", f"ollama:{MODEL}", "--base-url", fake.base_url, "--out", str(tmp_path),
                     *extra])
    err = capsys.readouterr().err
    assert code == 2 and words in err and len(err.strip().splitlines()) == 1
    assert not [r for r in fake.requests if r.path == "/v1/messages"]


def test_a_local_sweep_records_and_replays_in_class(tmp_path, capsys):
    tape = tmp_path / "class.json"
    with OllamaFake(models=[MODEL]) as fake:
        assert main([*SWEEP, "--model", f"ollama:{MODEL}", "--base-url", fake.base_url, "--out", str(tmp_path / "a"),
                     "--record", str(tape)]) == 0
    capsys.readouterr()
    assert main([*SWEEP, "--cassette", str(tape), "--out", str(tmp_path / "b")]) == 0
    records = [json.loads(line) for line in (tmp_path / "b" / "experiment.jsonl").read_text().splitlines()]
    assert {r["source"].split(" on ")[0] for r in records} == {f"replayed from {MODEL} via Ollama"}
    assert all(r["cost_usd"] == 0 or r["source_kind"] == "replayed" for r in records)


def test_a_claude_key_is_never_offered_to_a_compatible_server():
    with OllamaFake(models=[MODEL]) as fake:
        choice = choose_model(MODEL, base_url=fake.base_url)  # a bare name: "another Anthropic-compatible server"
        choice.client.messages.create(model=MODEL, max_tokens=16, messages=[{"role": "user", "content": "hi"}])
    assert choice.source.server == fake.base_url.split("//")[1]
    _no_key_reached(fake)
    assert isinstance(choice.client, anthropic.Anthropic)


def test_fixed_brain_still_answers_through_the_sdk():
    with OllamaFake(models=[MODEL], brain=fixed("hello")) as fake:
        reply = choose_model(f"ollama:{MODEL}", base_url=fake.base_url).client.messages.create(
            model=MODEL, max_tokens=16, messages=[{"role": "user", "content": "hi"}])
    assert reply.content[0].text == "hello"  # type: ignore[union-attr]
