"""A real credential a careless tool raises, or a model writes, reaches no model-facing text in any style, and no
trace, log, tape, cassette or results file: the raw style shows a careless tool's words, never its secrets.

The shapes are the realistic ones (a password after a space or a colon, an API key, a Bearer token, a cloud key id,
an address with a password, a cloud secret after its name); each test also checks the careless words around them
are still there, so a test cannot pass by dropping the whole text. The secrets are built from pieces, so the
repository never holds one whole.
"""
from __future__ import annotations

import json
import logging

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from live_api import FAKE_KEY, LocalAPI
from mcp_raw import RawServer, text_of

from atlas_kit.agent import Task, run_agent
from atlas_kit.contract.errors import ToolFailure
from atlas_kit.contract.redaction import redact
from atlas_kit.dispatch.dispatcher import Dispatcher
from atlas_kit.dispatch.styles import STYLES
from atlas_kit.dispatch.tool import Tool
from atlas_kit.dispatch.transient import RetryPolicy
from atlas_kit.experiments.sweep import sweep
from atlas_kit.models.standin.model import OfflineModel
from atlas_kit.models.transport import ScriptedAPI, in_process_client, message_body

MODEL = "claude-sonnet-5-5"
# (how a careless tool or library writes it, the part that must never be shown)
SHAPES = [
    ("password " + "hunter2x9", "hunter2x9"),
    ("the password for admin is " + "Tr0ub4dor&3", "Tr0ub4dor"),
    ("passwd: " + "s3cr3t!", "s3cr3t!"),
    ("DB_PASSWORD=" + "pa55word", "pa55word"),
    ("invalid x-api-key " + FAKE_KEY, "api03"),
    ("Authorization: Bearer " + "abc.def.ghi", "abc.def.ghi"),
    ("key id " + "AKIA" + "ABCDEFGHIJKLMNOP", "ABCDEFGHIJKLMNOP"),
    ("postgres://atlas:" + "hunter2x9" + "@db.internal:5432/atlas", "hunter2x9"),
    ("aws_secret_access_key = " + "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI"),
]
ALL = "; ".join(written for written, _ in SHAPES)
HIDDEN = [hidden for _, hidden in SHAPES]


def _none_of(text: str) -> list[str]:
    return [hidden for hidden in HIDDEN if hidden in text]


@pytest.mark.parametrize("written, hidden", SHAPES)
def test_redact_hides_each_shape_and_keeps_the_words_around_it(written, hidden):
    shown = redact(f"login failed: {written} (retry later)")
    assert hidden not in shown and "[redacted]" in shown
    assert shown.startswith("login failed: ") and shown.endswith(" (retry later)")


# --- every style -------------------------------------------------------------------------------------------------

SCHEMA = {"type": "object", "properties": {"order_id": {"type": "string", "pattern": "^ORD-[0-9]+$"}},
          "required": ["order_id"], "additionalProperties": False}


def _crash(args, ctx):
    raise RuntimeError(f"upstream login failed: {ALL}")


def _refuse(args, ctx):
    raise ToolFailure("upstream_unavailable", "The order service is not answering right now.",
                      raw=f"ConnectionError: upstream login failed: {ALL}")


@pytest.mark.parametrize("style", sorted(STYLES))
@pytest.mark.parametrize("handler, args", [(_crash, {"order_id": "ORD-1"}), (_refuse, {"order_id": "ORD-1"}),
                                           (_crash, {"order_id": f"ORD-1 {ALL}"})])
def test_no_style_hands_the_model_a_credential_a_tool_raised(style, handler, args):
    tool = Tool("get_order", "Looks up one order by its order_id.", SCHEMA, handler)
    dispatcher = Dispatcher([tool], style=STYLES[style], retry=RetryPolicy(sleep=lambda s: None))
    out = dispatcher.dispatch([{"type": "tool_use", "id": "toolu_1", "name": "get_order", "input": args}])
    [block] = out.results
    text = block["content"] if isinstance(block["content"], str) else json.dumps(block["content"])
    assert block["is_error"] is True and not _none_of(text), text
    assert not _none_of(dispatcher.trace.to_json())
    if style == "raw" and handler is _crash and args["order_id"] == "ORD-1":
        assert "upstream login failed: password [redacted]" in text and "Traceback" in text  # a careless tool's words
    if style == "raw" and args["order_id"] != "ORD-1":
        assert "does not match" in text and "ORD-1 password [redacted]" in text  # the schema's echo, redacted


def test_the_tool_runner_logger_writes_no_credential(caplog):
    from atlas_kit.bridges.tool_runner import contract_tool

    def leaky(order_id: str) -> str:
        """Look up one order; its driver puts the connection's credentials in the exception."""
        raise RuntimeError(f"connect failed: {ALL}")

    caplog.set_level(logging.DEBUG, logger="atlas_kit.tool_runner")
    with pytest.raises(Exception) as told:  # the SDK's ToolError: what its runner sends the model
        contract_tool(leaky).call({"order_id": "ORD-1"})
    shown = caplog.text + "".join(logging.Formatter().format(r) for r in caplog.records) + str(told.value)
    assert "connect failed: password [redacted]" in shown and not _none_of(shown)


# --- the MCP server: its answers, its stderr and its episode log --------------------------------------------------

_LEAKING = f"""
import sys
import atlas_kit.atlas.handlers as handlers
import atlas_kit.bridges.mcp.episode as episode

def leaky(*args, **kwargs):
    raise RuntimeError({("upstream login failed: " + ALL)!r})

handlers.Desk.get_account = leaky  # a tool that crashes, the way a careless driver does
episode.grade = leaky  # and the server's own grading, whose traceback goes to stderr
from atlas_kit.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize("style", ["raw", "generic", "contract"])
def test_the_mcp_server_answers_logs_and_writes_no_credential(style, tmp_path):
    pytest.importorskip("mcp")
    log = tmp_path / "atlas.jsonl"
    with RawServer("--style", style, "--log", str(log), python_code=_LEAKING) as server:
        server.initialize()
        server.request("prompts/get", {"name": "T04"})
        crashed = server.call("get_account", {"account_id": "ACC-4471"})
        echoed = server.call("get_account", {"account_id": ALL})  # arguments that fail the schema, echoed by raw
        finish = server.call("finish", {"answer": f"Done; {ALL}"})
        code, err = server.finish()
    answers = json.dumps([crashed, echoed, finish])
    assert code == 0 and not _none_of(answers) and not _none_of(err) and not _none_of(log.read_text())
    assert "upstream login failed" in err  # the details went to stderr, redacted, not dropped
    if style == "raw":
        assert "does not match" in text_of(echoed) and "password [redacted]" in text_of(echoed)


# --- a recorded live sweep: tape, cassette, results, and the SDK's own DEBUG logs -------------------------------


def _careless_model(body):
    """The stand-in, except that it calls a tool with credentials in the arguments and writes them in its text."""
    if len(body["messages"]) == 1:
        return message_body([{"type": "text", "text": f"Trying {ALL}"},
                             {"type": "tool_use", "id": "toolu_x", "name": "get_account",
                              "input": {"account_id": ALL}}], model=MODEL, stop_reason="tool_use")
    return OfflineModel(seed=0)(body)


@pytest.mark.parametrize("style", ["raw", "generic"])
def test_a_recorded_live_sweep_keeps_no_credential_anywhere_not_even_in_the_sdk_debug_log(style, tmp_path,
                                                                                         monkeypatch, caplog):
    with LocalAPI(_careless_model) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
        monkeypatch.delenv("ATLAS_MODEL", raising=False)
        for name in ("anthropic", "httpx2", "httpcore2"):
            caplog.set_level(logging.DEBUG, logger=name)
        out, tape = tmp_path / "r.jsonl", tmp_path / "class.json"
        with pytest.warns(UserWarning, match="Recording to class.json"):
            result = sweep(name="leak", model=MODEL, styles=(style,), faults=(True,), tickets=("T01",), trials=1,
                           out=out, record=tape, progress=False)
        logged = caplog.text
    assert result.records[0]["stop_reason"] != "api_failure"
    assert "Request options" in logged and "[redacted]" in logged  # the SDK did log the conversation, redacted
    files = {path.name: path.read_text() for path in (out, tape, tmp_path / "r.jsonl.tape")}
    leaked = {name: _none_of(text) for name, text in {**files, "SDK log": logged}.items() if _none_of(text)}
    assert not leaked, leaked
    second = json.loads(tape.read_text())["entries"][1]["request"]["messages"]
    assert "Trying password [redacted]" in json.dumps(second)  # the model's careless words are kept, redacted


def test_the_sdk_loggers_print_as_they_always_did_outside_a_sweep(caplog):
    caplog.set_level(logging.DEBUG, logger="anthropic")
    logging.getLogger("anthropic._base_client").debug("Request options: %s", {"note": "password hunter2x9"})
    assert "password hunter2x9" in caplog.text  # the filter is the sweep's, not a change to the process for good


def test_a_run_sends_no_credential_it_did_not_get_from_the_model():
    # The agent loop sends the model's own words back as they were; what a tool raised goes through the style.
    tool = Tool("get_order", "Looks up one order by its order_id.", SCHEMA, _crash)
    api = ScriptedAPI([message_body([{"type": "tool_use", "id": "toolu_1", "name": "get_order",
                                      "input": {"order_id": "ORD-1"}}], model=MODEL, stop_reason="tool_use"),
                       message_body([{"type": "text", "text": "Sorry."}], model=MODEL, stop_reason="end_turn")])
    run_agent(in_process_client(api, max_retries=0),
              Task("You help.", "Find ORD-1.", Dispatcher([tool], style=STYLES["raw"])), model=MODEL)
    sent = json.dumps(api.requests[1]["messages"])
    assert "upstream login failed" in sent and not _none_of(sent)


# redact looks for a secret's name or prefix before it tries every shape: no text with a shape may lack one.
_PIECES = ["password", "PASSWD", "pwd", "api_key", "x-api-key", "token", "secret", "Bearer ", "Authorization: ", "sk-",
           "sk-ant-", "rk_live_", "AKIA", "ghp_", "github_pat_", "glpat-", "hf_", "xoxb-", "AIza", "eyJ", "cookie",
           "-----BEGIN PRIVATE KEY-----", "credentials", "= ", ": ", " is ", " ", "_", "-", ".", "\"", "x9", "A1b2C3d4",
           "abcdefghijklmnopqrst", "0123456789", "DB_", "aws_"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=8))
def test_every_text_with_a_secret_shape_passes_the_quick_look_first(pieces):
    from atlas_kit.contract.redaction import _SECRET, _hinted

    text = "".join(pieces)
    assert not _SECRET.search(text) or _hinted(text)
