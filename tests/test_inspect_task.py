"""Atlas as an inspect_ai task (atlas_kit/inspect_ai_bridge): the CLI run offline, what the model reads, the scores.

Every run here is offline: inspect's mockllm with scripted outputs that carry their usage, or the stand-in
through the `atlas` provider. Logs are read back with read_eval_log, as a researcher would.
"""
from __future__ import annotations

import asyncio
import json
import os
import shlex
import socket
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

import pytest

from atlas_kit.agent import LOOP_BROKEN_REPLY, run_agent
from atlas_kit.atlas import ALL_TICKETS, atlas_session, grade
from atlas_kit.models.standin.model import OFFLINE_MODEL, offline_client

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog, EvalSample
    from inspect_ai.model import ChatMessage

INSPECT = Path(sys.executable).with_name("inspect")
REFUND = {"invoice_id": "INV-20411", "amount_cents": 65000, "reason": "Training course cancelled by Atlas."}
ESCALATE = {"account_id": "ACC-4471", "queue": "billing_refunds",
            "reason": "Full refund of $650.00 on INV-20411: the training course was cancelled by Atlas."}
T04_ANSWER = ("Refunds above $500.00 need a person's approval, so I couldn't issue the $650.00 refund on INV-20411 "
              "myself. I've passed it to our billing refunds team (ESC-0001), who will reply within one business day.")
Step = tuple[str, dict[str, Any]] | str  # a tool call (name, arguments) or a final answer


@pytest.fixture(scope="module", autouse=True)
def inspect_ai_names() -> None:
    """Import inspect_ai, and atlas_kit's bridge built on it, when a test here first runs, not at collection.

    The import costs about 1.5 s of CPU, and every xdist worker collects this file. Without inspect_ai (Python
    3.10, where it does not install) each test here is skipped, as pytest.importorskip at the top used to.
    """
    global inspect_eval, ModelEvent, read_eval_log, ChatMessageTool, ModelOutput, ModelUsage, get_model
    global GenerateConfig, EpisodeSpec, ReplayMismatch, atlas, replay, select_tickets
    pytest.importorskip("inspect_ai")
    from inspect_ai import eval as inspect_eval
    from inspect_ai.event import ModelEvent
    from inspect_ai.log import read_eval_log
    from inspect_ai.model import ChatMessageTool, GenerateConfig, ModelOutput, ModelUsage, get_model

    from atlas_kit.bridges.inspect import EpisodeSpec, ReplayMismatch, atlas, replay, select_tickets


def anthropic_wire(messages: list[ChatMessage]) -> dict[str, Any]:
    """The request body inspect's own Anthropic provider sends for `messages`, caught by atlas_kit's in-process
    transport (inspect_ai's public get_model, which takes the SDK's http_client): no network, no key."""
    import anthropic

    from atlas_kit.models.transport import BASE_URL, PLACEHOLDER_KEY, MessagesTransport
    from atlas_kit.models.body import message_body

    sent: list[dict[str, Any]] = []

    def answer(body: dict[str, Any]) -> Any:
        sent.append(body)
        return message_body([{"type": "text", "text": "Done."}], model=body["model"], stop_reason="end_turn")

    http = anthropic.DefaultAsyncHttpxClient(transport=MessagesTransport(answer))
    model = get_model("anthropic/claude-sonnet-4-5", api_key=PLACEHOLDER_KEY, base_url=BASE_URL, http_client=http,
                      streaming=False)
    asyncio.run(model.generate(messages, config=GenerateConfig(max_tokens=256)))
    assert len(sent) == 1
    return sent[0]


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[list[str]]:
    """Refuse every connection and name lookup that is not local; the test fails if one was tried."""
    tried: list[str] = []
    real_connect, real_lookup = socket.socket.connect, socket.getaddrinfo

    def connect(self: socket.socket, address: Any) -> None:
        if isinstance(address, tuple) and str(address[0]) not in ("127.0.0.1", "::1", "localhost"):
            tried.append(str(address))
            raise OSError("network blocked by the test")
        real_connect(self, address)

    def lookup(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host not in (None, "localhost", "127.0.0.1", "::1"):
            tried.append(str(host))
            raise socket.gaierror("network blocked by the test")
        return real_lookup(host, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket, "getaddrinfo", lookup)
    monkeypatch.setenv("INSPECT_LOG_DIR", str(tmp_path / "logs"))
    yield tried
    assert not tried, f"the test reached for the network: {tried}"


def scripted(plans: dict[str, list[Step]], seen: list[list[ChatMessage]]) -> Callable[..., ModelOutput]:
    """mockllm outputs that play one plan per ticket, turn by turn, each with its usage set (no tokenizer)."""
    by_message = {ALL_TICKETS[t].message: t for t in plans}

    def outputs(input: list[ChatMessage], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        seen.append(list(input))
        ticket = by_message[next(m.text for m in input if m.role == "user")]
        turn = sum(m.role == "assistant" for m in input)
        step = plans[ticket][turn]
        if isinstance(step, str):
            out = ModelOutput.from_content("mockllm/model", step)
        else:
            out = ModelOutput.for_tool_call("mockllm/model", step[0], step[1], tool_call_id=f"toolu_{ticket}_{turn}")
        out.usage = ModelUsage(input_tokens=100, output_tokens=10, total_tokens=110)
        return out

    return outputs


def run(plans: dict[str, list[Step]], *conditions: dict[str, Any]) -> tuple[list[EvalLog], list[list[ChatMessage]]]:
    """One eval of the planned tickets per condition (task arguments), read back from the log files."""
    seen: list[list[ChatMessage]] = []
    model = get_model("mockllm/model", custom_outputs=scripted(plans, seen))
    logs = inspect_eval([atlas(tickets=",".join(plans), **c) for c in conditions or ({},)], model=model, display="none")
    assert all(log.status == "success" for log in logs), [log.error for log in logs]
    return [read_eval_log(log.location, resolve_attachments=True) for log in logs], seen


def sample(log: EvalLog, ticket: str) -> EvalSample:
    return next(s for s in log.samples or [] if s.id == ticket)


def dispatched(ticket: str, style: str, calls: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """What atlas_kit's own dispatcher answers to these calls, one turn each: the texts the model must read."""
    session = atlas_session(ticket, style=style)
    return [session.dispatcher.dispatch([{"type": "tool_use", "id": f"toolu_{ticket}_{n}", "name": name,
                                          "input": args}]).results[0]["content"]
            for n, (name, args) in enumerate(calls)]


def test_the_cli_command_runs_offline_and_logs_five_graded_samples(tmp_path: Path) -> None:
    guard = tmp_path / "guard"
    guard.mkdir()
    (guard / "sitecustomize.py").write_text(textwrap.dedent("""
        import os, socket
        _log = os.environ["ATLAS_NET_LOG"]
        open(_log, "w").close()
        def _blocked(what):
            with open(_log, "a") as f:
                f.write(what + "\\n")
            raise OSError("network blocked by the test")
        _connect, _lookup = socket.socket.connect, socket.getaddrinfo
        def connect(self, address):
            if isinstance(address, tuple) and str(address[0]) not in ("127.0.0.1", "::1", "localhost"):
                _blocked(str(address))
            return _connect(self, address)
        def getaddrinfo(host, *args, **kwargs):
            if host not in (None, "localhost", "127.0.0.1", "::1"):
                _blocked(str(host))
            return _lookup(host, *args, **kwargs)
        socket.socket.connect, socket.getaddrinfo = connect, getaddrinfo
    """))
    net_log = tmp_path / "network.txt"
    env = {**os.environ, "PYTHONPATH": str(guard), "ATLAS_NET_LOG": str(net_log),
           "INSPECT_LOG_DIR": str(tmp_path / "logs"), "INSPECT_DISPLAY": "none"}
    done = subprocess.run([str(INSPECT), "eval", "atlas_kit/atlas", "--model", "mockllm/model", "--limit", "5"],
                          cwd=Path(__file__).parents[1], env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    assert net_log.exists() and net_log.read_text() == "", f"network tried: {net_log.read_text()!r}"
    [path] = (tmp_path / "logs").glob("*.eval")
    log = read_eval_log(str(path))
    assert log.status == "success" and log.eval.task == "atlas_kit/atlas"
    assert [s.id for s in log.samples or []] == ["T01", "T02", "T03", "T04", "T05"]
    for s in log.samples or []:
        score = s.scores["atlas_grade"]
        assert score.value["correct"] == 0.0  # mockllm's canned sentence answers no ticket
        assert "does not state" in (score.explanation or "")
        assert s.model_usage["mockllm/model"].input_tokens > 1000  # the estimate, not a tokenizer's count
    names = {score.name for score in log.results.scores}
    assert {"correct", "recovered", "loop", "fabrication", "silent_wrong"} <= names


def test_a_contract_body_is_exactly_what_the_model_reads_and_the_run_recovers() -> None:
    [log], seen = run({"T04": [("issue_refund", REFUND), ("escalate_to_human", ESCALATE), T04_ANSWER]})
    body, _ = dispatched("T04", "contract", [("issue_refund", REFUND), ("escalate_to_human", ESCALATE)])
    assert json.loads(body)["error"] == "limit_exceeded" and json.loads(body)["next"]["tool"] == "escalate_to_human"
    # mockllm was handed the failure as a tool message whose error is the body, word for word...
    shown = [m for m in seen[1] if isinstance(m, ChatMessageTool)]
    assert len(shown) == 1 and shown[0].error is not None and shown[0].error.message == body
    # ...the log's model event holds the same input, and inspect's Anthropic provider would send exactly the body.
    events = [e for e in sample(log, "T04").events if isinstance(e, ModelEvent)]
    logged = [m for m in events[1].input if isinstance(m, ChatMessageTool)]
    assert logged[0].error is not None and logged[0].error.message == body
    wire = anthropic_wire(events[1].input)["messages"][-1]
    assert wire["content"][0]["content"] == body and wire["content"][0]["is_error"] is True
    score = sample(log, "T04").scores["atlas_grade"]
    assert score.value["correct"] == 1.0 and score.value["recovered"] == 1.0
    assert score.metadata["error_codes"] == ["limit_exceeded"] and score.metadata["branches"] == ["switch_tool"]
    assert score.metadata["source"].startswith("mock")
    recovered = next(s for s in log.results.scores if s.name == "recovered")
    assert recovered.metrics["mean"].value == 1.0


def test_each_style_words_the_failure_its_own_way_and_schema_errors_stay_ours() -> None:
    bad = ("list_invoices", {"account_id": "4471", "status": "unpaid"})
    logs, seen = run({"T01": [bad, "I could not look that up."]}, {"style": "raw"}, {"style": "contract"})
    read = {m.error.message for i in seen for m in i if isinstance(m, ChatMessageTool) and m.error is not None}
    texts = {style: dispatched("T01", style, [bad])[0] for style in ("raw", "contract")}
    assert read == set(texts.values()) and len(read) == 2  # each run's model read its own style's text, and only it
    assert all("validation errors parsing tool input" not in t for t in read)  # inspect's own wording never appears
    assert texts["raw"].startswith("jsonschema.exceptions.ValidationError")
    assert json.loads(texts["contract"])["next"]["argument"] == "account_id"
    for log in logs:
        score = sample(log, "T01").scores["atlas_grade"]
        assert score.metadata["error_codes"] == ["invalid_argument"] and score.metadata["hit_error"] is True


def test_the_loop_breaker_parameter_decides_how_a_repeated_failure_ends() -> None:
    twice: list[Step] = [("get_account", {"account_id": "ACC-4472"}), ("get_account", {"account_id": "ACC-4472"}),
                         "I can't look at ACC-4472: it belongs to another customer."]
    on, off = run({"T05": twice}, {"loop_breaker": True}, {"loop_breaker": "false"})[0]
    broken, finished = sample(on, "T05").scores["atlas_grade"], sample(off, "T05").scores["atlas_grade"]
    assert broken.metadata["stop_reason"] == "loop_broken" and broken.answer == LOOP_BROKEN_REPLY
    assert broken.value["correct"] == 0.0 and broken.value["loop"] == 1.0 and broken.metadata["steps"] == 2
    assert finished.metadata["stop_reason"] == "finished" and finished.value["loop"] == 1.0
    assert finished.metadata["steps"] == 3 and finished.answer == twice[2]


def test_the_stand_in_through_inspect_grades_exactly_as_atlas_kits_own_loop() -> None:
    tickets = "T04,T05,T09,T13"
    logs = inspect_eval([atlas(style=s, tickets=tickets) for s in ("raw", "contract")],
                        model=f"atlas/{OFFLINE_MODEL}", display="none")
    logs = [read_eval_log(log.location, resolve_attachments=True) for log in logs]
    for log in logs:
        style = log.eval.task_args["style"]
        assert log.status == "success" and len(log.samples or []) == 4
        for s in log.samples or []:
            native = run_agent(offline_client(seed=0), atlas_session(str(s.id), style=style, seed=0), model=OFFLINE_MODEL)
            verdict, score = grade(native), s.scores["atlas_grade"]
            assert (bool(score.value["correct"]), score.metadata["labels"], score.metadata["stop_reason"], score.answer) \
                == (verdict.correct, sorted(verdict.labels), native.stop_reason, native.final_text), (style, s.id)
            assert score.metadata["source"].startswith("simulated")
    # The stand-in read the contract body itself: the logged request carries it as an error tool_result.
    t04 = sample(logs[1], "T04")
    request = [e for e in t04.events if isinstance(e, ModelEvent)][1].call.request  # type: ignore[union-attr]
    results = [b for m in request["messages"] if isinstance(m["content"], list) for b in m["content"]
               if b["type"] == "tool_result"]
    call = next(m for m in t04.messages if m.role == "assistant").tool_calls[0]  # type: ignore[union-attr]
    [body] = dispatched("T04", "contract", [(call.function, call.arguments)])
    assert json.loads(body)["error"] == "limit_exceeded" and call.id == results[0]["tool_use_id"]
    assert results[0]["is_error"] is True and json.loads(results[0]["content"]) == json.loads(body)


def test_replay_refuses_a_log_whose_tool_results_were_changed() -> None:
    [log], _ = run({"T04": [("issue_refund", REFUND), ("escalate_to_human", ESCALATE), T04_ANSWER]})
    s = sample(log, "T04")
    spec = EpisodeSpec.of(s.metadata)
    assert grade(replay(spec, s.messages, epoch=1, stop_reason="finished")).correct
    doctored = [m.model_copy(update={"content": '{"ok": true}', "error": None}) if isinstance(m, ChatMessageTool)
                and m.error is not None else m for m in s.messages]
    with pytest.raises(ReplayMismatch, match="issue_refund"):
        replay(spec, doctored, epoch=1, stop_reason="finished")


@pytest.mark.parametrize("args, words", [
    ({"style": "fancy"}, "-T style=fancy: choose one of raw, generic, plain, contract."),
    ({"faults": "maybe"}, "-T faults=maybe: give true or false."),
    ({"tickets": "T01,T99"}, "-T tickets=T99: not a ticket set or ticket id"),
    ({"max_steps": 0}, "-T max_steps=0"),
])
def test_bad_task_arguments_get_one_line_that_says_what_to_pass(args: dict[str, Any], words: str) -> None:
    with pytest.raises(ValueError) as caught:
        atlas(**args)
    assert words in str(caught.value) and "\n" not in str(caught.value)


def test_ticket_sets_and_ids() -> None:
    assert [t.id for t in select_tickets("core")][:2] == ["T01", "T02"] and len(select_tickets("core")) == 27
    assert len(select_tickets("all")) == len(ALL_TICKETS) > 27
    assert [t.id for t in select_tickets(["T05", "T01", "T05"])] == ["T05", "T01"]


def test_the_readme_command_names_this_task_with_arguments_it_takes() -> None:
    text = (Path(__file__).parents[1] / "README.md").read_text()
    args = shlex.split(text.split("<!-- inspect-command -->", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0])
    assert Path(args[0]).name == "inspect" and args[1:3] == ["eval", "atlas_kit/atlas"]
    pairs = [args[i + 1].split("=", 1) for i, a in enumerate(args) if a == "-T"]
    made = atlas(**dict(pairs))  # as text: inspect would hand over YAML's True, which atlas() takes too
    assert made.metadata is not None and made.metadata["style"] == "contract" and made.metadata["faults"] is True
    assert len(made.dataset) == 27


def test_a_bad_task_argument_is_inspect_s_prerequisite_error_by_way_of_the_shim() -> None:
    """atlas_kit/shim.py takes PrerequisiteError from inspect_ai's private modules (tests/test_shim.py watches it)."""
    from atlas_kit import shim
    from atlas_kit.bridges.inspect.episode import ArgumentError

    private = shim.private("PrerequisiteError")
    assert isinstance(private, type) and private is not Exception and shim.PrerequisiteError is private
    refused = ArgumentError("-T seed=x: give a whole number.")
    assert isinstance(refused, private) and isinstance(refused, ValueError)
    assert refused.message == str(refused) == "-T seed=x: give a whole number."
